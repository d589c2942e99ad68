//! One blocking connection to a broker: connect with timeouts, negotiate API versions,
//! send size-prefixed requests (several may be in flight: responses come back in request
//! order) and read response frames, never larger than the caller allows.
//!
//! The transport is plaintext TCP. The native client issue (#21) adds TLS and SASL here:
//! everything above this type speaks requests and responses, not sockets.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use thiserror::Error;

use crate::protocol::{api_versions, Malformed};

/// Why talking to a broker failed.
#[derive(Debug, Error)]
pub enum ConnectionError {
    /// The socket failed (connect, read, write, timeout).
    #[error("Kafka broker {broker}: {source}")]
    Io {
        /// `host:port`.
        broker: String,
        /// What the socket said.
        #[source]
        source: std::io::Error,
    },
    /// A response frame larger than allowed (a TLS listener answering plaintext is the
    /// usual cause: its alert reads as a huge size).
    #[error(
        "Kafka broker {broker} sent a response of {size} bytes, more than the {limit} allowed \
         (is this a TLS or SASL listener? the native client speaks plaintext)"
    )]
    FrameTooLarge {
        /// `host:port`.
        broker: String,
        /// The size the peer announced.
        size: i64,
        /// The most this connection reads.
        limit: usize,
    },
    /// A response that does not follow the protocol.
    #[error("Kafka broker {broker}: malformed response: {reason}")]
    Malformed {
        /// `host:port`.
        broker: String,
        /// What was wrong.
        reason: String,
    },
    /// The broker does not speak a version of an API this client needs.
    #[error("Kafka broker {broker} does not support {api} version {min} to {max}")]
    Unsupported {
        /// `host:port`.
        broker: String,
        /// The API.
        api: &'static str,
        /// Our oldest version.
        min: i16,
        /// Our newest version.
        max: i16,
    },
}

/// How connections are made.
#[derive(Debug, Clone)]
pub struct ConnectionConfig {
    /// `client.id`.
    pub client_id: String,
    /// Connect timeout (`socket.connection.setup.timeout.ms`).
    pub connect_timeout: Duration,
    /// Read and write timeout of one request (`request.timeout.ms`).
    pub request_timeout: Duration,
    /// The largest response frame read.
    pub max_response_bytes: usize,
}

impl Default for ConnectionConfig {
    fn default() -> Self {
        ConnectionConfig {
            client_id: "karrow".to_string(),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            max_response_bytes: 64 * 1024 * 1024,
        }
    }
}

/// A connected, version-negotiated broker connection.
pub struct Connection {
    broker: String,
    stream: TcpStream,
    config: ConnectionConfig,
    versions: api_versions::ApiVersions,
    next_correlation: i32,
    request: Vec<u8>,
}

impl Connection {
    /// Connects to `broker` (`host:port`) and asks it which versions it speaks.
    pub fn open(broker: &str, config: &ConnectionConfig) -> Result<Connection, ConnectionError> {
        let io = |source| ConnectionError::Io {
            broker: broker.to_string(),
            source,
        };
        let mut last = std::io::Error::other("the address resolves to nothing");
        let mut stream = None;
        for address in broker.to_socket_addrs().map_err(io)? {
            match TcpStream::connect_timeout(&address, config.connect_timeout) {
                // With nothing listening on a loopback port inside the ephemeral range, a connect
                // can be given that very port as its own and connect to itself (TCP simultaneous
                // open): no broker is there, and the socket holds the port the broker needs to
                // bind when it comes back. Refused like a connection refused.
                Ok(s) if is_self_connected(&s) => {
                    last = std::io::Error::new(
                        std::io::ErrorKind::ConnectionRefused,
                        format!(
                            "no broker listening on {address} (the socket connected to itself)"
                        ),
                    );
                }
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = e,
            }
        }
        let stream = stream.ok_or_else(|| io(last))?;
        stream.set_nodelay(true).map_err(io)?;
        stream
            .set_read_timeout(Some(config.request_timeout))
            .map_err(io)?;
        stream
            .set_write_timeout(Some(config.request_timeout))
            .map_err(io)?;
        let mut conn = Connection {
            broker: broker.to_string(),
            stream,
            config: config.clone(),
            versions: api_versions::ApiVersions::default(),
            next_correlation: 0,
            request: Vec::new(),
        };
        let mut buf = Vec::new();
        let client_id = conn.config.client_id.clone();
        let id = conn.send_with(|out, c| api_versions::write_request(out, c, &client_id))?;
        conn.receive(&mut buf)?;
        conn.versions = api_versions::parse_response(&buf, id).map_err(|e| conn.malformed(e))?;
        Ok(conn)
    }

    /// `host:port` of the broker.
    pub fn broker(&self) -> &str {
        &self.broker
    }

    /// `client.id`.
    pub fn client_id(&self) -> &str {
        &self.config.client_id
    }

    /// What the broker speaks.
    pub fn versions(&self) -> &api_versions::ApiVersions {
        &self.versions
    }

    /// The highest version of `api` both sides speak (`min..=max` ours), or an error naming
    /// the API.
    pub fn version(
        &self,
        api_key: i16,
        name: &'static str,
        min: i16,
        max: i16,
    ) -> Result<i16, ConnectionError> {
        self.versions
            .pick(api_key, min, max)
            .ok_or_else(|| ConnectionError::Unsupported {
                broker: self.broker.clone(),
                api: name,
                min,
                max,
            })
    }

    /// Writes the request `write` builds (given the buffer and a fresh correlation id) and
    /// returns that correlation id; the response is read later with [`Self::receive`].
    pub fn send_with(
        &mut self,
        write: impl FnOnce(&mut Vec<u8>, i32),
    ) -> Result<i32, ConnectionError> {
        self.next_correlation = self.next_correlation.wrapping_add(1);
        let id = self.next_correlation;
        let mut request = std::mem::take(&mut self.request);
        write(&mut request, id);
        let written = self.stream.write_all(&request);
        self.request = request;
        written.map_err(|source| self.io(source))?;
        Ok(id)
    }

    /// Sends a request and reads its response into `buf` (the body after the size).
    pub fn round_trip(
        &mut self,
        write: impl FnOnce(&mut Vec<u8>, i32),
        buf: &mut Vec<u8>,
    ) -> Result<i32, ConnectionError> {
        let id = self.send_with(write)?;
        self.receive(buf)?;
        Ok(id)
    }

    /// Reads the next response frame into `buf` (cleared first), refusing a size over the
    /// configured limit before allocating anything.
    pub fn receive(&mut self, buf: &mut Vec<u8>) -> Result<(), ConnectionError> {
        let mut size = [0u8; 4];
        self.stream
            .read_exact(&mut size)
            .map_err(|source| self.io(source))?;
        let size = i32::from_be_bytes(size);
        let limit = self.config.max_response_bytes;
        let len = usize::try_from(size)
            .ok()
            .filter(|&n| n <= limit)
            .ok_or_else(|| ConnectionError::FrameTooLarge {
                broker: self.broker.clone(),
                size: i64::from(size),
                limit,
            })?;
        buf.clear();
        buf.resize(len, 0);
        self.stream
            .read_exact(buf)
            .map_err(|source| self.io(source))
    }

    /// Whether a response (at least its first byte) is waiting to be read, without blocking.
    pub fn response_ready(&mut self) -> Result<bool, ConnectionError> {
        self.stream
            .set_nonblocking(true)
            .map_err(|source| self.io(source))?;
        let mut byte = [0u8; 1];
        let peeked = self.stream.peek(&mut byte);
        self.stream
            .set_nonblocking(false)
            .map_err(|source| self.io(source))?;
        match peeked {
            Ok(0) => Err(self.io(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the broker closed the connection",
            ))),
            Ok(_) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Ok(false),
            Err(source) => Err(self.io(source)),
        }
    }

    /// Whether a response (at least its first byte) arrives within `timeout`.
    pub fn response_ready_within(&mut self, timeout: Duration) -> Result<bool, ConnectionError> {
        let timeout = timeout.max(Duration::from_millis(1));
        self.stream
            .set_read_timeout(Some(timeout))
            .map_err(|source| self.io(source))?;
        let mut byte = [0u8; 1];
        let peeked = self.stream.peek(&mut byte);
        self.stream
            .set_read_timeout(Some(self.config.request_timeout))
            .map_err(|source| self.io(source))?;
        match peeked {
            Ok(0) => Err(self.io(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the broker closed the connection",
            ))),
            Ok(_) => Ok(true),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                Ok(false)
            }
            Err(source) => Err(self.io(source)),
        }
    }

    /// A socket error on this connection.
    pub fn io(&self, source: std::io::Error) -> ConnectionError {
        ConnectionError::Io {
            broker: self.broker.clone(),
            source,
        }
    }

    /// A malformed response on this connection.
    pub fn malformed(&self, e: Malformed) -> ConnectionError {
        ConnectionError::Malformed {
            broker: self.broker.clone(),
            reason: e.0,
        }
    }
}

/// Whether `stream` is connected to itself (its local and peer addresses are the same).
pub(crate) fn is_self_connected(stream: &TcpStream) -> bool {
    matches!((stream.local_addr(), stream.peer_addr()), (Ok(l), Ok(p)) if l == p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// A peer that answers the first request with `reply` (raw bytes, size included).
    fn peer(reply: Vec<u8>) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        std::thread::spawn(move || {
            if let Ok((mut s, _)) = listener.accept() {
                let mut size = [0u8; 4];
                let _ = s.read_exact(&mut size);
                let mut req = vec![0u8; i32::from_be_bytes(size) as usize];
                let _ = s.read_exact(&mut req);
                let _ = s.write_all(&reply);
            }
        });
        address
    }

    #[test]
    fn an_oversized_frame_is_refused_before_allocating_and_names_tls() {
        // A TLS alert read as a size: 0x15030300 is about 352 MB.
        let broker = peer(vec![0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28]);
        let e = Connection::open(&broker, &ConnectionConfig::default())
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains("TLS") && e.contains(&broker), "{e}");
    }

    #[test]
    fn a_refused_connection_names_the_broker() {
        let e = Connection::open("127.0.0.1:1", &ConnectionConfig::default())
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains("127.0.0.1:1"), "{e}");
    }
}
