//! An HTTP answer and its bytes on the wire.

use std::io::{self, Write};

use crate::CONTENT_TYPE;

/// One answer: status, content type and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// HTTP status code.
    pub status: u16,
    /// `Content-Type` of the body.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// A JSON answer in the registry's media type.
    pub fn json(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Response {
            status,
            content_type: CONTENT_TYPE,
            body: body.into(),
        }
    }

    /// Confluent's error body `{"error_code": code, "message": message}` with `status`.
    pub fn error(status: u16, error_code: i32, message: impl Into<String>) -> Self {
        let body = serde_json::json!({ "error_code": error_code, "message": message.into() });
        Response::json(status, body.to_string())
    }

    /// Writes status line, headers and (unless `head_only`) the body.
    pub(crate) fn write_to(
        &self,
        out: &mut dyn Write,
        keep_alive: bool,
        head_only: bool,
    ) -> io::Result<()> {
        let mut bytes = Vec::with_capacity(160 + self.body.len());
        // Writing into a Vec cannot fail.
        let _ = write!(
            bytes,
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{}\r\n",
            self.status,
            reason(self.status),
            self.content_type,
            self.body.len(),
            if keep_alive {
                ""
            } else {
                "Connection: close\r\n"
            }
        );
        if !head_only {
            bytes.extend_from_slice(&self.body);
        }
        out.write_all(&bytes)?;
        out.flush()
    }
}

/// The reason phrase of a status code.
fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        417 => "Expectation Failed",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}
