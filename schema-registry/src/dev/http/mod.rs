//! The dev registry's HTTP/1.1 server: `std::net` sockets, requests parsed by `httparse`, one
//! thread per open connection (at most [`HttpLimits::max_connections`], idle ones closed first
//! when more arrive), at most [`HttpLimits::workers`] requests handled at once, and every
//! size and wait bounded.
//!
//! Why not an HTTP library: `tiny_http` 0.12 (used before) serves connections from a fixed set
//! of worker threads that each block on one keep-alive connection, so a few idle clients stall
//! every new one; async servers (hyper on tokio) pull a runtime and ~80 crates into a build on
//! 2 cores for a registry that answers a few requests a second. A thread per connection is the
//! simplest model that cannot starve: an idle keep-alive connection costs one parked thread
//! (small stack) and never a worker, and request handling is bounded separately.
//!
//! [`serve_connection`] runs the protocol over any [`Transport`], so tests and fuzz targets can
//! drive it with bytes in memory ([`serve_bytes`]).

mod request;
mod response;
mod server;

use std::io::{self, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

pub use request::{Request, Transport};
pub use response::Response;
pub(crate) use server::HttpServer;

use request::{ReadError, Reader};

/// Bounds of the HTTP server.
#[derive(Debug, Clone)]
pub struct HttpLimits {
    /// Largest request body (a larger one answers 413).
    pub max_body_bytes: usize,
    /// Largest request line plus headers (a larger head answers 431).
    pub max_head_bytes: usize,
    /// Open connections at most; beyond it the longest-idle connection is closed, or the new
    /// one answered 503 when none is idle.
    pub max_connections: usize,
    /// Requests handled at once; a request waits up to `queue_timeout` for its turn.
    pub workers: usize,
    /// Longest wait for a worker (then 503).
    pub queue_timeout: Duration,
    /// A keep-alive connection with no request for this long is closed.
    pub idle_timeout: Duration,
    /// A request must arrive whole (head and body) within this time of its first byte
    /// (then 408).
    pub request_timeout: Duration,
    /// Longest a write of an answer may block (a client that does not read is dropped).
    pub write_timeout: Duration,
    /// Request body bytes held in memory by all connections at once.
    pub body_budget_bytes: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            max_body_bytes: 16 * 1024 * 1024,
            max_head_bytes: 64 * 1024,
            max_connections: 512,
            workers: 8,
            queue_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            request_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(30),
            body_budget_bytes: 256 * 1024 * 1024,
        }
    }
}

/// Turns a request into an answer. Must not block for long; a panic is caught and answered
/// 500 without affecting other requests.
pub trait Handler: Send + Sync {
    /// The answer to `request`.
    fn handle(&self, request: &Request) -> Response;
}

/// What a connection needs from the server around it: turns to run the handler, a share of
/// the body budget, and a way to say whether it is idle.
pub(crate) trait Admission {
    /// Reserves `bytes` of the body budget for the current request (released by
    /// [`Admission::release_body`]); an error answer when it cannot be had in time.
    fn reserve_body(&self, bytes: usize) -> Result<(), Response>;
    /// Releases the current request's body reservation.
    fn release_body(&self);
    /// Runs `f` when a worker is free (waiting a bounded time); an error answer otherwise.
    fn with_worker(&self, f: &mut dyn FnMut() -> Response) -> Response;
    /// Whether the connection waits for a request (`true`) or is busy with one.
    fn set_idle(&self, idle: bool);
}

/// Unbounded admission: for serving bytes in memory.
struct Unbounded;

impl Admission for Unbounded {
    fn reserve_body(&self, _: usize) -> Result<(), Response> {
        Ok(())
    }
    fn release_body(&self) {}
    fn with_worker(&self, f: &mut dyn FnMut() -> Response) -> Response {
        f()
    }
    fn set_idle(&self, _: bool) {}
}

/// Serves requests on one connection until it closes, goes idle, or asks to close.
pub(crate) fn serve_connection<T: Transport>(
    stream: &mut T,
    handler: &dyn Handler,
    limits: &HttpLimits,
    admission: &dyn Admission,
) {
    let mut reader = Reader::new(stream, limits);
    loop {
        admission.set_idle(true);
        if !reader.wait_for_request() {
            return;
        }
        admission.set_idle(false);
        let read = reader.read_request(&mut |bytes| admission.reserve_body(bytes));
        let (request, keep_alive) = match read {
            Ok(read) => read,
            Err(ReadError::Closed) => {
                admission.release_body();
                return;
            }
            Err(ReadError::Refuse(answer)) => {
                admission.release_body();
                refuse(reader.stream, &answer, limits);
                return;
            }
        };
        let answer = admission.with_worker(&mut || handle_isolated(handler, &request));
        drop(request.body);
        admission.release_body();
        let head_only = request.method.eq_ignore_ascii_case("HEAD");
        let written = reader
            .stream
            .set_write_timeout(Some(limits.write_timeout))
            .and_then(|()| answer.write_to(reader.stream, keep_alive, head_only));
        if written.is_err() || !keep_alive {
            let _ = reader.stream.shutdown_write();
            return;
        }
    }
}

/// Runs the handler, answering 500 when it panics (the panic stays inside this request).
pub(crate) fn handle_isolated(handler: &dyn Handler, request: &Request) -> Response {
    catch_unwind(AssertUnwindSafe(|| handler.handle(request))).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Response::error(
            500,
            500,
            format!(
                "Internal Server Error: the request {} {} failed: {what}",
                request.method,
                request.path()
            ),
        )
    })
}

/// Answers an unreadable request and closes: the answer, then a bounded drain of what the
/// client still sends, so that closing does not reset the connection before it reads the
/// answer.
fn refuse<T: Transport>(stream: &mut T, answer: &Response, limits: &HttpLimits) {
    let sent = stream
        .set_write_timeout(Some(limits.write_timeout))
        .and_then(|()| answer.write_to(stream, false, false));
    if sent.is_err() || stream.shutdown_write().is_err() {
        return;
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    let mut sink = [0u8; 16 * 1024];
    let mut drained = 0usize;
    while drained < limits.max_body_bytes.saturating_mul(2) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => return,
            Ok(n) => drained += n,
        }
    }
}

/// An in-memory connection: reads `input`, collects what is written.
struct MemoryStream<'a> {
    input: &'a [u8],
    output: Vec<u8>,
}

impl Read for MemoryStream<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.input.read(buf)
    }
}

impl Write for MemoryStream<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.output.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Transport for MemoryStream<'_> {
    fn set_read_timeout(&mut self, _: Option<Duration>) -> io::Result<()> {
        Ok(())
    }
    fn set_write_timeout(&mut self, _: Option<Duration>) -> io::Result<()> {
        Ok(())
    }
}

/// Serves `input` as the bytes one client sends on one connection (any number of pipelined
/// requests) and returns every byte the server answers: the HTTP parser and the handler
/// driven without sockets, for fuzzing and tests.
pub fn serve_bytes(handler: &dyn Handler, limits: &HttpLimits, input: &[u8]) -> Vec<u8> {
    let mut stream = MemoryStream {
        input,
        output: Vec::new(),
    };
    serve_connection(&mut stream, handler, limits, &Unbounded);
    stream.output
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::sync::Arc;

    use super::*;

    /// Answers 200 with the path, and panics on `/panic`.
    struct Echo;

    impl Handler for Echo {
        fn handle(&self, request: &Request) -> Response {
            if request.path() == "/panic" {
                panic!("handler bug on purpose");
            }
            Response::json(200, request.path().as_bytes().to_vec())
        }
    }

    fn get(addr: std::net::SocketAddr, path: &str) -> String {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn a_panicking_handler_answers_500_and_the_server_keeps_serving() {
        let limits = HttpLimits {
            workers: 2,
            ..HttpLimits::default()
        };
        let mut server =
            HttpServer::start("127.0.0.1:0".parse().unwrap(), Arc::new(Echo), limits).unwrap();
        for _ in 0..20 {
            let answer = get(server.addr(), "/panic");
            assert!(answer.starts_with("HTTP/1.1 500"), "{answer}");
            assert!(answer.contains(r#""error_code":500"#), "{answer}");
            assert!(answer.contains("handler bug on purpose"), "{answer}");
        }
        let answer = get(server.addr(), "/fine");
        assert!(
            answer.starts_with("HTTP/1.1 200") && answer.ends_with("/fine"),
            "{answer}"
        );
        server.stop();
    }

    /// Found by the `registry_request` fuzz target's seeds: a head over the limit that
    /// arrived in one read was served (the limit was checked only while the head was
    /// incomplete).
    #[test]
    fn a_whole_head_over_the_limit_is_refused() {
        let limits = HttpLimits {
            max_head_bytes: 1024,
            ..HttpLimits::default()
        };
        let big = format!("GET /a HTTP/1.1\r\nX-Big: {}\r\n\r\n", "a".repeat(2000));
        let out = String::from_utf8(serve_bytes(&Echo, &limits, big.as_bytes())).unwrap();
        assert!(out.starts_with("HTTP/1.1 431"), "{out}");
        let small = "GET /a HTTP/1.1\r\nX-Small: a\r\n\r\n";
        let out = String::from_utf8(serve_bytes(&Echo, &limits, small.as_bytes())).unwrap();
        assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    }

    #[test]
    fn serve_bytes_runs_the_protocol_in_memory() {
        let limits = HttpLimits::default();
        let out = serve_bytes(
            &Echo,
            &limits,
            b"GET /a HTTP/1.1\r\n\r\nPOST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\nGET /panic HTTP/1.1\r\n\r\n",
        );
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.matches("HTTP/1.1 200 OK").count(), 2, "{text}");
        assert!(text.contains("HTTP/1.1 500"), "{text}");
        for garbage in [
            &b"\0\0\0\r\n\r\n"[..],
            b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n",
        ] {
            let out = String::from_utf8(serve_bytes(&Echo, &limits, garbage)).unwrap();
            assert!(out.starts_with("HTTP/1.1 400"), "{out}");
        }
    }
}
