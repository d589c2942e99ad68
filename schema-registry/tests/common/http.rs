//! A minimal HTTP/1.1 client over a raw socket, for tests that need to control connections
//! (keep-alive, idle, slow, malformed) themselves.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// How long a test waits for an answer before calling the server stuck.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// One answer: status, headers (lower-cased names) and body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The Confluent `error_code` of an error body.
    pub fn error_code(&self) -> i64 {
        let json: serde_json::Value = serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body));
        assert!(json["message"].is_string(), "{}", self.body);
        json["error_code"]
            .as_i64()
            .unwrap_or_else(|| panic!("no error_code: {}", self.body))
    }
}

/// A keep-alive connection.
pub struct Conn {
    pub stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    pub fn open(addr: SocketAddr) -> Conn {
        let stream = TcpStream::connect(addr).expect("connects");
        stream.set_read_timeout(Some(ANSWER_TIMEOUT)).unwrap();
        Conn {
            stream,
            buf: Vec::new(),
        }
    }

    /// Sends raw bytes.
    pub fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("sends");
    }

    /// Sends a request with a JSON body (keep-alive).
    pub fn request(&mut self, method: &str, path: &str, body: &str) -> Answer {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        self.send(head.as_bytes());
        self.send(body.as_bytes());
        self.read_answer()
            .unwrap_or_else(|e| panic!("{method} {path}: no answer: {e}"))
    }

    /// Reads one answer (by its Content-Length).
    pub fn read_answer(&mut self) -> Result<Answer, String> {
        let head_end = loop {
            if let Some(i) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i;
            }
            self.fill()?;
        };
        let head = String::from_utf8_lossy(&self.buf[..head_end]).to_string();
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap_or_default();
        let status: u16 = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("bad status line {status_line:?}"))?;
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let length: usize = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        self.buf.drain(..head_end + 4);
        if status == 100 {
            return self.read_answer();
        }
        while self.buf.len() < length {
            self.fill()?;
        }
        let body = String::from_utf8_lossy(&self.buf[..length]).to_string();
        self.buf.drain(..length);
        Ok(Answer {
            status,
            headers,
            body,
        })
    }

    fn fill(&mut self) -> Result<(), String> {
        let mut chunk = [0u8; 8192];
        match self.stream.read(&mut chunk) {
            Ok(0) => Err("connection closed".into()),
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(())
            }
            Err(e) => Err(e.to_string()),
        }
    }

    /// Whether the server closed the connection (end of stream within the answer timeout).
    pub fn closed_by_server(&mut self) -> bool {
        let mut byte = [0u8; 1];
        matches!(self.stream.read(&mut byte), Ok(0) | Err(_))
    }
}
