//! One blocking connection to a broker: connect with timeouts, negotiate API versions,
//! send size-prefixed requests (several may be in flight: responses come back in request
//! order) and read response frames, never larger than the caller allows.
//!
//! Every size the peer sends is checked before anything is allocated for it, and a frame's
//! buffer grows with the bytes that actually arrive (so a peer that announces a large
//! frame and sends little costs little). A peer whose first bytes are a TLS record (a TLS
//! listener answering plaintext) is named as such. A connection given a [`Wakeup`] waits
//! for its responses in slices and returns [`ConnectionError::Woken`] when woken.
//!
//! The transport is plaintext TCP or TLS over it, and a SASL connection authenticates after
//! ApiVersions ([`crate::security`], as `security.protocol` says): everything above this type
//! speaks requests and responses, not sockets. A TLS handshake that fails names the reason
//! (an untrusted certificate, a name mismatch, a plaintext listener), as does a failed
//! authentication (the broker's message).
//!
//! A SASL session the broker limits (`connections.max.reauth.ms`, or an OAUTHBEARER token's
//! expiry; KIP-368) is renewed on the same socket: once the re-authentication moment has come
//! ([`sasl::reauthentication_delay`]), the next request waits for it, sent when no response is
//! outstanding (a connection with responses in flight re-authenticates at its next quiet
//! moment; one that never has one is closed by the broker at the session's end, and its users
//! reconnect as after any socket failure).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use thiserror::Error;
use zeroize::Zeroize;

use crate::protocol::{api_versions, Malformed};
use crate::security::{sasl, tls, Security};
use crate::transport::Stream;
use crate::wakeup::{Wakeup, SLICE};

/// The largest ApiVersions response read (a real one is a few KiB).
pub const API_VERSIONS_MAX_BYTES: usize = 1024 * 1024;

/// A frame's buffer grows by at least this much at a time (and at most doubles), as bytes
/// arrive.
const FRAME_CHUNK: usize = 64 * 1024;

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
    /// A response frame larger than allowed (or of a negative size), refused before
    /// anything was allocated for it.
    #[error(
        "Kafka broker {broker} sent a response of {size} bytes, more than the {limit} this \
         client reads ({why}; is this a SASL listener? check security.protocol)"
    )]
    FrameTooLarge {
        /// `host:port`.
        broker: String,
        /// The size the peer announced.
        size: i64,
        /// The most this connection reads.
        limit: usize,
        /// Where the limit comes from.
        why: &'static str,
    },
    /// The peer answered with a TLS record (an alert or a handshake), which a plaintext
    /// client would otherwise read as a frame of hundreds of megabytes.
    #[error(
        "Kafka broker {broker} answered with a TLS record (bytes {first:02x?}): this is a TLS \
         (SSL or SASL_SSL) listener, and this connection is plaintext; set security.protocol \
         to SSL or SASL_SSL, or use a plaintext listener"
    )]
    TlsListener {
        /// `host:port`.
        broker: String,
        /// The first bytes it sent.
        first: [u8; 4],
    },
    /// The TLS handshake failed (an untrusted certificate, a name mismatch, a listener that
    /// does not speak TLS), or the TLS settings could not be used; Kafka's Java client fails
    /// with `SslAuthenticationException` here.
    #[error("Kafka broker {broker}: SSL handshake failed: {reason}")]
    Tls {
        /// `host:port`.
        broker: String,
        /// What failed.
        reason: String,
    },
    /// SASL authentication failed (a wrong password, a mechanism the listener does not
    /// enable); Kafka's Java client fails with `SaslAuthenticationException` here.
    #[error("Kafka broker {broker}: SASL authentication failed: {reason}")]
    Authentication {
        /// `host:port`.
        broker: String,
        /// The broker's message, or what the client refused.
        reason: String,
    },
    /// A wake-up ([`Wakeup::wake`]) interrupted the wait for a response.
    #[error("Kafka broker {broker}: the wait for a response was woken up")]
    Woken {
        /// `host:port`.
        broker: String,
        /// Whether nothing of the response had been read: the request is still in flight
        /// and its response can still be read; otherwise the connection is unusable.
        in_flight: bool,
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

/// Why a frame's 4-byte size was refused ([`frame_len`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameRefused {
    /// The bytes are the start of a TLS record (content type alert 0x15 or handshake 0x16,
    /// then version 3.0 to 3.4): a TLS listener answered.
    Tls,
    /// Negative, or over the limit.
    Size(i32),
}

/// The length of a response frame from its 4-byte size prefix, checked before anything is
/// allocated for it: at most `limit`, never negative, never the start of a TLS record.
pub fn frame_len(size: [u8; 4], limit: usize) -> Result<usize, FrameRefused> {
    let len = i32::from_be_bytes(size);
    match usize::try_from(len).ok().filter(|&n| n <= limit) {
        Some(n) => Ok(n),
        // Only a refused size is taken for a TLS record: with a limit above 0x1503_0000 bytes a
        // real frame may start with the same bytes.
        None if matches!(size, [0x15 | 0x16, 0x03, 0..=0x04, _]) => Err(FrameRefused::Tls),
        None => Err(FrameRefused::Size(len)),
    }
}

/// The socket read timeout of a connection made with `config`: a connection that can be woken
/// reads in slices and checks the flag between them; any other waits the request timeout.
fn read_timeout(config: &ConnectionConfig) -> Duration {
    if config.wakeup.is_some() {
        SLICE
    } else {
        config.request_timeout
    }
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
    /// Wakes the waits for responses (`None`: they block up to the request timeout).
    pub wakeup: Option<Wakeup>,
    /// TLS and SASL (`security.protocol`; the default is plaintext).
    pub security: Security,
}

impl Default for ConnectionConfig {
    fn default() -> Self {
        ConnectionConfig {
            client_id: "karrow".to_string(),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            max_response_bytes: 64 * 1024 * 1024,
            wakeup: None,
            security: Security::default(),
        }
    }
}

/// A connected, version-negotiated broker connection.
pub struct Connection {
    broker: String,
    stream: Stream,
    config: ConnectionConfig,
    versions: api_versions::ApiVersions,
    next_correlation: i32,
    request: Vec<u8>,
    /// Requests sent whose responses were not read yet.
    in_flight: usize,
    /// When the SASL session must be renewed (KIP-368; `None`: never).
    reauthenticate_at: Option<Instant>,
    /// How many times the session was renewed.
    reauthentications: u64,
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
            .set_read_timeout(Some(read_timeout(config)))
            .map_err(io)?;
        stream
            .set_write_timeout(Some(config.request_timeout))
            .map_err(io)?;
        let stream = match &config.security.tls {
            None => Stream::Plain(stream),
            Some(tls) => Stream::Tls(Box::new(tls_handshake(broker, tls, stream, config)?)),
        };
        let mut conn = Connection {
            broker: broker.to_string(),
            stream,
            config: config.clone(),
            versions: api_versions::ApiVersions::default(),
            next_correlation: 0,
            request: Vec::new(),
            in_flight: 0,
            reauthenticate_at: None,
            reauthentications: 0,
        };
        let mut buf = Vec::new();
        let client_id = conn.config.client_id.clone();
        let id = conn.send_with(|out, c| api_versions::write_request(out, c, &client_id))?;
        let deadline = Instant::now() + conn.config.request_timeout;
        conn.receive_capped(
            &mut buf,
            API_VERSIONS_MAX_BYTES,
            "an ApiVersions response",
            deadline,
        )?;
        conn.versions = api_versions::parse_response(&buf, id).map_err(|e| conn.malformed(e))?;
        if let Some(credentials) = conn.config.security.sasl.clone() {
            let deadline = Instant::now() + conn.config.request_timeout;
            let lifetime = sasl::authenticate(&mut conn, &credentials, deadline)?;
            conn.schedule_reauthentication(lifetime);
        }
        Ok(conn)
    }

    /// Notes when the session that `lifetime` limits must be renewed.
    fn schedule_reauthentication(&mut self, lifetime: Option<Duration>) {
        // A lifetime too far ahead for the clock to represent means never.
        self.reauthenticate_at = lifetime.and_then(|l| {
            let mut jitter = [0u8; 1];
            // A failed random source only loses the jitter.
            let _ = ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut jitter);
            Instant::now().checked_add(sasl::reauthentication_delay(l, jitter[0]))
        });
    }

    /// How many times this connection renewed its SASL session (KIP-368).
    pub fn reauthentications(&self) -> u64 {
        self.reauthentications
    }

    /// When this connection renews its SASL session (`None`: the broker set no limit).
    pub fn reauthentication_due(&self) -> Option<Instant> {
        self.reauthenticate_at
    }

    /// Renews the SASL session when its moment has come and no response is outstanding: a
    /// SaslHandshake and the mechanism's exchange again (for OAUTHBEARER with the token source's
    /// current token), as Kafka's client re-authenticates. A failure leaves the connection
    /// unusable (a wake-up included: the exchange was cut in the middle).
    fn maybe_reauthenticate(&mut self) -> Result<(), ConnectionError> {
        let Some(at) = self.reauthenticate_at else {
            return Ok(());
        };
        if self.in_flight > 0 || Instant::now() < at {
            return Ok(());
        }
        let Some(credentials) = self.config.security.sasl.clone() else {
            self.reauthenticate_at = None;
            return Ok(());
        };
        self.reauthenticate_at = None;
        let deadline = Instant::now() + self.config.request_timeout;
        let lifetime = sasl::authenticate(self, &credentials, deadline).map_err(|e| match e {
            ConnectionError::Woken { broker, .. } => ConnectionError::Woken {
                broker,
                in_flight: false,
            },
            other => other,
        })?;
        self.reauthentications += 1;
        self.schedule_reauthentication(lifetime);
        Ok(())
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
    /// returns that correlation id; the response is read later with [`Self::receive`]. Renews
    /// the SASL session first when it is due ([`Self::reauthentications`]).
    pub fn send_with(
        &mut self,
        write: impl FnOnce(&mut Vec<u8>, i32),
    ) -> Result<i32, ConnectionError> {
        self.maybe_reauthenticate()?;
        self.send_raw(write)
    }

    /// Tells the connection that the request `correlation` gets no response (a Produce with
    /// `acks=0`), so it does not count as outstanding.
    pub fn expect_no_response(&mut self, _correlation: i32) {
        self.in_flight = self.in_flight.saturating_sub(1);
    }

    /// Zeroes the request buffer (it held a secret: a SASL token).
    pub(crate) fn clear_request(&mut self) {
        self.request.zeroize();
    }

    /// [`Self::send_with`] without the re-authentication check (the SASL exchange itself).
    pub(crate) fn send_raw(
        &mut self,
        write: impl FnOnce(&mut Vec<u8>, i32),
    ) -> Result<i32, ConnectionError> {
        self.next_correlation = self.next_correlation.wrapping_add(1);
        let id = self.next_correlation;
        let mut request = std::mem::take(&mut self.request);
        write(&mut request, id);
        // A TLS stream buffers what it encrypts: the flush puts it on the socket.
        let written = self
            .stream
            .write_all(&request)
            .and_then(|()| self.stream.flush());
        self.request = request;
        written.map_err(|source| self.io(source))?;
        self.in_flight += 1;
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
        let deadline = Instant::now() + self.config.request_timeout;
        let limit = self.config.max_response_bytes;
        self.receive_capped(buf, limit, "the connection's response limit", deadline)
    }

    /// Reads the next response frame into `buf` (cleared first): at most `limit` bytes
    /// (`why` says where the limit comes from, for the error), by `deadline`. The size is
    /// checked before anything is allocated, and the buffer grows with the bytes that
    /// arrive. With a [`Wakeup`] set, a wake-up ends the wait with
    /// [`ConnectionError::Woken`].
    pub fn receive_capped(
        &mut self,
        buf: &mut Vec<u8>,
        limit: usize,
        why: &'static str,
        deadline: Instant,
    ) -> Result<(), ConnectionError> {
        buf.clear();
        let mut size = [0u8; 4];
        self.read_exact_by(&mut size, deadline, true)?;
        let len = frame_len(size, limit).map_err(|refused| match refused {
            FrameRefused::Tls => ConnectionError::TlsListener {
                broker: self.broker.clone(),
                first: size,
            },
            FrameRefused::Size(size) => ConnectionError::FrameTooLarge {
                broker: self.broker.clone(),
                size: i64::from(size),
                limit,
                why,
            },
        })?;
        while buf.len() < len {
            let at = buf.len();
            let chunk = (len - at).min(at.max(FRAME_CHUNK));
            buf.reserve_exact(chunk);
            buf.resize(at + chunk, 0);
            let read = self.read_exact_by(&mut buf[at..], deadline, false);
            if read.is_err() {
                buf.clear();
            }
            read?;
        }
        self.in_flight = self.in_flight.saturating_sub(1);
        Ok(())
    }

    /// Fills `out` from the socket by `deadline`. Without a [`Wakeup`] this is one
    /// `read_exact` under the socket's timeout; with one, the reads time out every
    /// [`SLICE`] to look at the flag. `first` says that nothing of the frame was read
    /// before (so a wake-up before any byte leaves the request in flight).
    fn read_exact_by(
        &mut self,
        out: &mut [u8],
        deadline: Instant,
        first: bool,
    ) -> Result<(), ConnectionError> {
        let wakeup = self.config.wakeup.clone();
        let timed_out = || {
            std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "no response within the request timeout",
            )
        };
        let mut filled = 0;
        while filled < out.len() {
            match self.stream.read(&mut out[filled..]) {
                Ok(0) => {
                    return Err(self.io(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "the broker closed the connection in the middle of a response",
                    )))
                }
                Ok(n) => {
                    filled += n;
                    // A peer that trickles bytes faster than each read's timeout is bounded
                    // by the request's deadline too.
                    if filled < out.len() && Instant::now() >= deadline {
                        return Err(self.io(timed_out()));
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    if wakeup.as_ref().is_some_and(|w| w.is_woken()) {
                        return Err(ConnectionError::Woken {
                            broker: self.broker.clone(),
                            in_flight: first && filled == 0,
                        });
                    }
                    if Instant::now() >= deadline {
                        return Err(self.io(timed_out()));
                    }
                }
                Err(source) => return Err(self.io(source)),
            }
        }
        Ok(())
    }

    /// Whether a response (at least its first byte) is waiting to be read, without blocking.
    pub fn response_ready(&mut self) -> Result<bool, ConnectionError> {
        let restore = read_timeout(&self.config);
        self.stream
            .ready(None, restore)
            .map_err(|source| self.io(source))
    }

    /// Whether a response (at least its first byte) arrives within `timeout`.
    pub fn response_ready_within(&mut self, timeout: Duration) -> Result<bool, ConnectionError> {
        let restore = read_timeout(&self.config);
        self.stream
            .ready(Some(timeout), restore)
            .map_err(|source| self.io(source))
    }

    /// A socket error on this connection (a TLS failure, such as the broker's alert refusing
    /// the client's certificate, as [`ConnectionError::Tls`]).
    pub fn io(&self, source: std::io::Error) -> ConnectionError {
        if let Some(e) = source
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        {
            return ConnectionError::Tls {
                broker: self.broker.clone(),
                reason: tls::describe(e),
            };
        }
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

/// The TLS handshake on `socket`, within the request timeout (the socket reads in slices
/// when the connection can be woken, and a wake-up ends the handshake with
/// [`ConnectionError::Woken`]). Only what TLS itself refuses (a certificate, an alert,
/// a protocol violation) is [`ConnectionError::Tls`], fatal as Kafka's
/// `SslAuthenticationException`; a socket that fails, closes or times out during the handshake
/// is [`ConnectionError::Io`], retried as any connection error (Kafka's client reconnects on
/// an `IOException` here), naming a plaintext listener as the likely cause of a close.
fn tls_handshake(
    broker: &str,
    tls: &tls::TlsConfig,
    mut socket: TcpStream,
    config: &ConnectionConfig,
) -> Result<rustls::StreamOwned<rustls::ClientConnection, TcpStream>, ConnectionError> {
    let failed = |reason: String| ConnectionError::Tls {
        broker: broker.to_string(),
        reason,
    };
    let io = |source: std::io::Error| ConnectionError::Io {
        broker: broker.to_string(),
        source,
    };
    let name = tls::server_name(broker).map_err(|e| failed(e.to_string()))?;
    let mut conn = rustls::ClientConnection::new(tls.client_config(), name)
        .map_err(|e| failed(tls::describe(&e)))?;
    let deadline = Instant::now() + config.request_timeout;
    while conn.is_handshaking() {
        match conn.complete_io(&mut socket) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                if config.wakeup.as_ref().is_some_and(|w| w.is_woken()) {
                    return Err(ConnectionError::Woken {
                        broker: broker.to_string(),
                        in_flight: false,
                    });
                }
                if Instant::now() >= deadline {
                    return Err(io(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the TLS handshake did not complete within the request timeout",
                    )));
                }
            }
            Err(e) => {
                if let Some(tls_error) = e
                    .get_ref()
                    .and_then(|inner| inner.downcast_ref::<rustls::Error>())
                {
                    return Err(failed(tls::describe(tls_error)));
                }
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::ConnectionReset
                ) {
                    return Err(io(std::io::Error::new(
                        e.kind(),
                        format!(
                            "the broker closed the connection during the TLS handshake ({e}): \
                             is this a plaintext listener? security.protocol is {}",
                            config.security.protocol()
                        ),
                    )));
                }
                return Err(io(e));
            }
        }
    }
    Ok(rustls::StreamOwned::new(conn, socket))
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

    /// A TLS connection config (the scripted peers never present a certificate).
    fn tls_config() -> ConnectionConfig {
        ConnectionConfig {
            security: Security {
                tls: Some(tls::unit_test_config()),
                sasl: None,
            },
            ..ConnectionConfig::default()
        }
    }

    /// A peer that reads the ClientHello, then does `then` with the socket.
    fn tls_peer(then: impl FnOnce(TcpStream) + Send + 'static) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        std::thread::spawn(move || {
            if let Ok((mut s, _)) = listener.accept() {
                let mut hello = [0u8; 5];
                let _ = s.read_exact(&mut hello);
                then(s);
            }
        });
        address
    }

    #[test]
    fn a_close_during_the_tls_handshake_is_a_retried_io_error_naming_a_plaintext_listener() {
        let broker = tls_peer(drop);
        let e = Connection::open(&broker, &tls_config())
            .err()
            .expect("closed");
        assert!(matches!(e, ConnectionError::Io { .. }), "{e:?}");
        let text = e.to_string();
        assert!(
            text.contains(&broker) && text.contains("plaintext listener"),
            "{text}"
        );
        // Retried by the producer and the fetch, as Kafka's client reconnects on an
        // IOException during the handshake.
        assert!(matches!(
            crate::produce::ProduceError::from_connection(&e),
            crate::produce::ProduceError::Connection(_)
        ));
        assert!(matches!(
            crate::fetch::session::connect_error(e),
            crate::FetchError::Io { .. }
        ));
    }

    #[test]
    fn an_alert_during_the_tls_handshake_fails_at_once() {
        // handshake_failure (40), as a broker refusing the client sends it.
        let broker = tls_peer(|mut s| {
            let _ = s.write_all(&[0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28]);
            std::thread::sleep(Duration::from_millis(200));
        });
        let e = Connection::open(&broker, &tls_config())
            .err()
            .expect("refused");
        assert!(matches!(e, ConnectionError::Tls { .. }), "{e:?}");
        assert!(matches!(
            crate::produce::ProduceError::from_connection(&e),
            crate::produce::ProduceError::Authentication(_)
        ));
    }

    #[test]
    fn a_wake_up_ends_a_tls_handshake_the_peer_stalls() {
        // The peer reads the ClientHello and never answers; without the wake-up the handshake
        // would end at the request timeout, as an Io error.
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let broker = tls_peer(move |_s| {
            let _ = stopped.recv();
        });
        let wakeup = Wakeup::new();
        let config = ConnectionConfig {
            request_timeout: Duration::from_secs(20),
            wakeup: Some(wakeup.clone()),
            ..tls_config()
        };
        let waker = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            wakeup.wake();
        });
        let e = Connection::open(&broker, &config).err().expect("woken");
        assert!(
            matches!(&e, ConnectionError::Woken { broker: b, in_flight: false } if *b == broker),
            "{e:?}"
        );
        waker.join().unwrap();
        drop(stop);
    }

    /// A listener that answers every connection's first request with a TLS alert (what a TLS
    /// listener sends a plaintext client), counting the connections.
    fn tls_listener() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let accepted = std::sync::Arc::new(AtomicUsize::new(0));
        let count = accepted.clone();
        std::thread::spawn(move || {
            for s in listener.incoming() {
                let Ok(mut s) = s else { continue };
                count.fetch_add(1, Ordering::SeqCst);
                let mut size = [0u8; 4];
                let _ = s.read_exact(&mut size);
                let _ = s.write_all(&[0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x50]);
            }
        });
        (address, accepted)
    }

    #[test]
    fn a_tls_listener_fails_the_producer_and_the_fetch_alike_without_retrying() {
        use std::sync::atomic::Ordering;
        // The producer: its first connection fails for good (before, it was retried as a
        // socket error until max.block.ms, while the fetch failed at once).
        let (broker, accepted) = tls_listener();
        let record = crate::records::RecordRef {
            key: None,
            value: Some(b"v"),
            timestamp: 0,
            header_count: 0,
            headers: &[],
        };
        // The producer asks for metadata when it opens (or, at the latest, with its first record).
        let produced = match crate::produce::Producer::open(crate::produce::ProducerConfig {
            bootstrap: vec![broker.clone()],
            retry_backoff: Duration::from_millis(1),
            retry_backoff_max: Duration::from_millis(5),
            max_block: Duration::from_secs(5),
            ..crate::produce::ProducerConfig::default()
        }) {
            Err(e) => e,
            Ok(mut producer) => producer
                .append("t", 0, &record)
                .and_then(|()| producer.flush())
                .unwrap_err(),
        };
        assert!(
            matches!(produced, crate::produce::ProduceError::Authentication(_)),
            "{produced:?}"
        );
        let produced = produced.to_string();
        assert_eq!(accepted.load(Ordering::SeqCst), 1, "{produced}");
        // The fetch: the same error, after the same single connection.
        let (broker_f, accepted_f) = tls_listener();
        let mut session = crate::FetchSession::new(
            "t",
            crate::Isolation::ReadUncommitted,
            crate::fetch::FetchLimits::default(),
        );
        session.assign(0, "t", 0, &broker_f, 0, i64::MAX);
        let fetched = session
            .poll(|_, _| -> Result<(), ()> { Ok(()) })
            .map(|_| ())
            .unwrap_err();
        assert!(
            matches!(
                fetched,
                crate::FetchError::Connection(ConnectionError::TlsListener { .. })
            ),
            "{fetched:?}"
        );
        let fetched = fetched.to_string();
        assert_eq!(accepted_f.load(Ordering::SeqCst), 1, "{fetched}");
        for (text, broker) in [(&produced, &broker), (&fetched, &broker_f)] {
            assert!(
                text.contains(broker.as_str())
                    && text.contains("TLS (SSL or SASL_SSL) listener")
                    && text.contains("security.protocol"),
                "{text}"
            );
        }
        // Word for word, but for the port.
        assert_eq!(
            produced.replace(broker.as_str(), "B"),
            fetched.replace(broker_f.as_str(), "B")
        );
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
