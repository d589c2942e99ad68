//! Reading one HTTP/1.1 request from a connection: the head parsed by `httparse`, the body
//! framed by `Content-Length` or chunked, every size and wait bounded by [`HttpLimits`].

use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

use super::response::Response;
use super::HttpLimits;

/// Most headers one request may carry.
const MAX_HEADERS: usize = 64;
/// Bytes asked of the socket per read.
const READ_CHUNK: usize = 16 * 1024;

/// One parsed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The method, as sent (`GET`, `POST`, ...).
    pub method: String,
    /// The request target: path and query, e.g. `/subjects/s/versions?deleted=true`.
    pub target: String,
    /// Header names and values, in order (names as sent; compare case-insensitively).
    pub headers: Vec<(String, String)>,
    /// The body (de-chunked).
    pub body: Vec<u8>,
}

impl Request {
    /// A request with no headers, for tests and fuzzing.
    pub fn new(method: &str, target: &str, body: impl Into<Vec<u8>>) -> Self {
        Request {
            method: method.to_string(),
            target: target.to_string(),
            headers: Vec::new(),
            body: body.into(),
        }
    }

    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The path part of the target (before `?`).
    pub fn path(&self) -> &str {
        self.target.split(['?', '#']).next().unwrap_or("")
    }

    /// The query part of the target (after `?`), empty when there is none.
    pub fn query(&self) -> &str {
        match self.target.split_once('?') {
            Some((_, q)) => q.split('#').next().unwrap_or(""),
            None => "",
        }
    }
}

/// What a connection can be asked besides reading and writing: how long a read may block.
pub trait Transport: Read + Write {
    /// Bounds the next reads (`None`: no bound).
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> io::Result<()>;
    /// Bounds the next writes (`None`: no bound).
    fn set_write_timeout(&mut self, timeout: Option<Duration>) -> io::Result<()>;
    /// Ends the sending side (the peer reads end-of-stream after the last answer).
    fn shutdown_write(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Transport for std::net::TcpStream {
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        std::net::TcpStream::set_read_timeout(self, timeout)
    }
    fn set_write_timeout(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        std::net::TcpStream::set_write_timeout(self, timeout)
    }
    fn shutdown_write(&mut self) -> io::Result<()> {
        self.shutdown(std::net::Shutdown::Write)
    }
}

/// Why no request could be read: either the connection simply ended (answer nothing), or
/// the client sent something to refuse with this answer (then close).
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The peer closed, went idle past the idle timeout, or the socket failed: close quietly.
    Closed,
    /// Answer this and close the connection.
    Refuse(Response),
}

/// A request head and how its body is framed.
struct Head {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    keep_alive: bool,
    body: Framing,
    expect_continue: bool,
    head_len: usize,
}

enum Framing {
    Length(usize),
    Chunked,
}

/// Bytes read from a connection but not consumed yet (pipelined requests stay here).
pub(crate) struct Reader<'a, T: Transport> {
    pub(crate) stream: &'a mut T,
    pub(crate) buf: Vec<u8>,
    limits: &'a HttpLimits,
}

impl<'a, T: Transport> Reader<'a, T> {
    pub(crate) fn new(stream: &'a mut T, limits: &'a HttpLimits) -> Self {
        Reader {
            stream,
            buf: Vec::new(),
            limits,
        }
    }

    /// Reads more bytes before `deadline`; `Ok(0)` at end of stream.
    fn fill(&mut self, deadline: Instant) -> Result<usize, io::Error> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        self.stream
            .set_read_timeout(Some(left.max(Duration::from_millis(1))))?;
        let start = self.buf.len();
        self.buf.resize(start + READ_CHUNK, 0);
        let read = loop {
            match self.stream.read(&mut self.buf[start..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        self.buf.truncate(start + *read.as_ref().unwrap_or(&0));
        read
    }

    /// Waits up to the idle timeout for the first byte of the next request. `false`: the
    /// connection ended or stayed idle (close it).
    pub(crate) fn wait_for_request(&mut self) -> bool {
        if !self.buf.is_empty() {
            return true;
        }
        let deadline = Instant::now() + self.limits.idle_timeout;
        matches!(self.fill(deadline), Ok(n) if n > 0)
    }

    /// Reads one whole request (the first byte already buffered or about to arrive), within
    /// the request timeout. Returns it and whether the connection may stay open.
    pub(crate) fn read_request(
        &mut self,
        reserve_body: &mut dyn FnMut(usize) -> Result<(), Response>,
    ) -> Result<(Request, bool), ReadError> {
        let deadline = Instant::now() + self.limits.request_timeout;
        let head = self.read_head(deadline)?;
        let limit = self.limits.max_body_bytes;
        if let Framing::Length(n) = head.body {
            if n > limit {
                return Err(ReadError::Refuse(too_large(limit)));
            }
        }
        let reserve = match head.body {
            Framing::Length(n) => n,
            Framing::Chunked => limit,
        };
        reserve_body(reserve).map_err(ReadError::Refuse)?;
        self.buf.drain(..head.head_len);
        if head.expect_continue {
            // Best effort: a client that ignores it sends the body anyway.
            self.stream
                .set_write_timeout(Some(self.limits.write_timeout))
                .and_then(|()| self.stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n"))
                .map_err(|_| ReadError::Closed)?;
        }
        let body = match head.body {
            Framing::Length(n) => self.read_exact_body(n, deadline)?,
            Framing::Chunked => self.read_chunked(limit, deadline)?,
        };
        let request = Request {
            method: head.method,
            target: head.target,
            headers: head.headers,
            body,
        };
        Ok((request, head.keep_alive))
    }

    fn read_head(&mut self, deadline: Instant) -> Result<Head, ReadError> {
        loop {
            // Tolerate empty lines before a request (RFC 9112 2.2).
            let blank = self
                .buf
                .iter()
                .take_while(|b| **b == b'\r' || **b == b'\n')
                .count();
            self.buf.drain(..blank);
            let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut parsed = httparse::Request::new(&mut headers);
            match parsed.parse(&self.buf) {
                // Complete or not, a head past the limit is refused (a whole one can
                // arrive in one read).
                Ok(httparse::Status::Complete(len)) if len <= self.limits.max_head_bytes => {
                    return head(&parsed, len)
                }
                Ok(_) => {}
                Err(httparse::Error::TooManyHeaders) => {
                    return Err(ReadError::Refuse(Response::error(
                        431,
                        431,
                        format!("more than {MAX_HEADERS} request headers"),
                    )))
                }
                Err(e) => {
                    return Err(ReadError::Refuse(Response::error(
                        400,
                        400,
                        format!("malformed HTTP request: {e}"),
                    )))
                }
            }
            if self.buf.len() > self.limits.max_head_bytes {
                return Err(ReadError::Refuse(Response::error(
                    431,
                    431,
                    format!(
                        "the request head exceeds {} bytes",
                        self.limits.max_head_bytes
                    ),
                )));
            }
            self.fill_or_refuse(deadline)?;
        }
    }

    /// Reads more, mapping end-of-stream and errors to `Closed` and the deadline to 408.
    fn fill_or_refuse(&mut self, deadline: Instant) -> Result<(), ReadError> {
        match self.fill(deadline) {
            Ok(0) => Err(ReadError::Closed),
            Ok(_) => Ok(()),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
                ) =>
            {
                Err(ReadError::Refuse(Response::error(
                    408,
                    408,
                    format!(
                        "the request did not arrive within {} ms",
                        self.limits.request_timeout.as_millis()
                    ),
                )))
            }
            Err(_) => Err(ReadError::Closed),
        }
    }

    fn read_exact_body(&mut self, n: usize, deadline: Instant) -> Result<Vec<u8>, ReadError> {
        while self.buf.len() < n {
            self.fill_or_refuse(deadline)?;
        }
        let rest = self.buf.split_off(n);
        Ok(std::mem::replace(&mut self.buf, rest))
    }

    fn read_chunked(&mut self, limit: usize, deadline: Instant) -> Result<Vec<u8>, ReadError> {
        let mut body = Vec::new();
        loop {
            let (start, size) = loop {
                match httparse::parse_chunk_size(&self.buf) {
                    Ok(httparse::Status::Complete((start, size))) => break (start, size),
                    Ok(httparse::Status::Partial) if self.buf.len() < 1024 => {
                        self.fill_or_refuse(deadline)?
                    }
                    _ => return Err(bad_request("malformed chunk size line")),
                }
            };
            let size = usize::try_from(size)
                .ok()
                .filter(|s| body.len().saturating_add(*s) <= limit)
                .ok_or_else(|| ReadError::Refuse(too_large(limit)))?;
            self.buf.drain(..start);
            if size == 0 {
                self.skip_trailers(deadline)?;
                return Ok(body);
            }
            while self.buf.len() < size + 2 {
                self.fill_or_refuse(deadline)?;
            }
            if &self.buf[size..size + 2] != b"\r\n" {
                return Err(bad_request("a chunk does not end with CRLF"));
            }
            body.extend_from_slice(&self.buf[..size]);
            self.buf.drain(..size + 2);
        }
    }

    /// Skips the trailer section after the last chunk, up to its empty line.
    fn skip_trailers(&mut self, deadline: Instant) -> Result<(), ReadError> {
        loop {
            if let Some(end) = find(&self.buf, b"\r\n") {
                self.buf.drain(..end + 2);
                if end == 0 {
                    return Ok(());
                }
                continue;
            }
            if self.buf.len() > self.limits.max_head_bytes {
                return Err(bad_request("the chunked trailer section is too long"));
            }
            self.fill_or_refuse(deadline)?;
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn bad_request(message: &str) -> ReadError {
    ReadError::Refuse(Response::error(400, 400, message))
}

fn too_large(limit: usize) -> Response {
    Response::error(
        413,
        413,
        format!("the request body exceeds the limit of {limit} bytes"),
    )
}

/// The head of a parsed request: method, target, headers, body framing, keep-alive.
fn head(parsed: &httparse::Request<'_, '_>, head_len: usize) -> Result<Head, ReadError> {
    let method = parsed.method.unwrap_or_default().to_string();
    let target = parsed.path.unwrap_or_default().to_string();
    let http11 = parsed.version == Some(1);
    let mut headers = Vec::with_capacity(parsed.headers.len());
    for h in parsed.headers.iter() {
        let value = std::str::from_utf8(h.value)
            .map_err(|_| bad_request("a header value is not UTF-8"))?
            .trim()
            .to_string();
        headers.push((h.name.to_string(), value));
    }
    fn all<'h>(
        headers: &'h [(String, String)],
        name: &'static str,
    ) -> impl Iterator<Item = &'h str> + 'h {
        headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    let tokens = |name: &'static str| -> Vec<String> {
        all(&headers, name)
            .flat_map(|v| v.split(','))
            .map(|t| t.trim().to_ascii_lowercase())
            .filter(|t| !t.is_empty())
            .collect()
    };
    let connection = tokens("connection");
    let keep_alive = if http11 {
        !connection.iter().any(|t| t == "close")
    } else {
        connection.iter().any(|t| t == "keep-alive")
    };
    let codings = tokens("transfer-encoding");
    let lengths: Vec<&str> = all(&headers, "content-length").collect();
    let body = if !codings.is_empty() {
        if !lengths.is_empty() {
            return Err(bad_request(
                "both Transfer-Encoding and Content-Length are present",
            ));
        }
        if codings.last().map(String::as_str) != Some("chunked")
            || codings.iter().filter(|c| *c == "chunked").count() != 1
        {
            return Err(ReadError::Refuse(Response::error(
                501,
                501,
                format!("unsupported Transfer-Encoding {}", codings.join(", ")),
            )));
        }
        Framing::Chunked
    } else {
        let mut length: Option<usize> = None;
        for value in lengths.iter().flat_map(|v| v.split(',')) {
            let value = value.trim();
            let n = (!value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()))
                .then(|| value.parse::<usize>().unwrap_or(usize::MAX))
                .ok_or_else(|| bad_request("Content-Length is not a number"))?;
            if length.is_some_and(|l| l != n) {
                return Err(bad_request("conflicting Content-Length values"));
            }
            length = Some(n);
        }
        Framing::Length(length.unwrap_or(0))
    };
    let expect: Vec<String> = tokens("expect");
    if expect.iter().any(|e| e != "100-continue") {
        return Err(ReadError::Refuse(Response::error(
            417,
            417,
            "only the expectation 100-continue is supported",
        )));
    }
    Ok(Head {
        method,
        target,
        headers,
        keep_alive,
        body,
        expect_continue: http11 && !expect.is_empty(),
        head_len,
    })
}
