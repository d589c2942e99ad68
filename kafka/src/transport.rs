//! The byte stream under a [`crate::connection::Connection`]: plaintext TCP, or TLS over it
//! (rustls). Both read and write as one stream with the socket's timeouts; [`Stream::ready`]
//! says whether a response has started to arrive, which for TLS means decrypted bytes, not
//! merely bytes on the socket (a TLS 1.3 session ticket is not a response).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use rustls::{ClientConnection, StreamOwned};

/// Plaintext or TLS.
pub(crate) enum Stream {
    /// `PLAINTEXT` and `SASL_PLAINTEXT`.
    Plain(TcpStream),
    /// `SSL` and `SASL_SSL` (boxed: the TLS state is large).
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl Stream {
    /// Whether a response (at least one byte of it) can be read: without blocking when
    /// `within` is `None`, else waiting up to `within`. The socket's read timeout is
    /// `restore` afterwards.
    pub(crate) fn ready(
        &mut self,
        within: Option<Duration>,
        restore: Duration,
    ) -> io::Result<bool> {
        match self {
            Stream::Plain(s) => {
                let result = peek_plain(s, within);
                match within {
                    None => s.set_nonblocking(false)?,
                    Some(_) => s.set_read_timeout(Some(restore))?,
                }
                result
            }
            Stream::Tls(t) => {
                let result = ready_tls(t, within);
                t.sock.set_nonblocking(false)?;
                t.sock.set_read_timeout(Some(restore))?;
                result
            }
        }
    }
}

fn closed() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the broker closed the connection",
    )
}

fn would_block(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

fn peek_plain(s: &TcpStream, within: Option<Duration>) -> io::Result<bool> {
    match within {
        None => s.set_nonblocking(true)?,
        Some(d) => s.set_read_timeout(Some(d.max(Duration::from_millis(1))))?,
    }
    let mut byte = [0u8; 1];
    match s.peek(&mut byte) {
        Ok(0) => Err(closed()),
        Ok(_) => Ok(true),
        Err(e) if would_block(&e) => Ok(false),
        Err(e) => Err(e),
    }
}

fn ready_tls(
    t: &mut StreamOwned<ClientConnection, TcpStream>,
    within: Option<Duration>,
) -> io::Result<bool> {
    let deadline = within.map(|d| Instant::now() + d);
    loop {
        let state = t
            .conn
            .process_new_packets()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        if state.plaintext_bytes_to_read() > 0 {
            return Ok(true);
        }
        if state.peer_has_closed() {
            return Err(closed());
        }
        match deadline {
            None => t.sock.set_nonblocking(true)?,
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Ok(false);
                }
                t.sock
                    .set_read_timeout(Some(left.max(Duration::from_millis(1))))?;
            }
        }
        match t.conn.read_tls(&mut t.sock) {
            Ok(0) => return Err(closed()),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if would_block(&e) => return Ok(false),
            Err(e) => return Err(e),
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf),
            Stream::Tls(t) => t.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.write(buf),
            Stream::Tls(t) => t.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Plain(s) => s.flush(),
            Stream::Tls(t) => t.flush(),
        }
    }
}
