//! A broker on loopback that answers the client's requests with crafted frames, for the
//! tests of what a real broker cannot be made to send (a hostile or broken one): every
//! connection's ApiVersions request is answered as a Kafka 4 broker answers it, each
//! Metadata request with the next [`Meta`] (by default: topic `t`, partitions 0 to 3, led by
//! this peer at epoch 0), and each Fetch request gets the next [`Reply`]. Connections are
//! accepted again after a close.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use crate::protocol::test_support::Body;

/// How the peer answers one Fetch request.
pub(crate) enum Reply {
    /// A frame (size prefix added) whose body the closure writes from the correlation id.
    Body(Box<dyn Fn(i32) -> Vec<u8> + Send>),
    /// [`Reply::Body`], written after a delay.
    Later(std::time::Duration, Box<dyn Fn(i32) -> Vec<u8> + Send>),
    /// Bytes written as they are, size prefix included or not.
    Raw(Vec<u8>),
    /// Bytes written as they are, then the connection closed.
    Cut(Vec<u8>),
    /// No answer: the request is read and the connection left open.
    Silent,
}

/// How the peer answers one Metadata request.
pub(crate) enum Meta {
    /// Topic `t`, partitions 0 to 3, led by this peer at this epoch.
    Epoch(i32),
    /// Topic `t`, partitions 0 to 3, without a leader (LEADER_NOT_AVAILABLE).
    NoLeader,
    /// A body written by the closure from the correlation id and this peer's port.
    Body(Box<dyn Fn(i32, i32) -> Vec<u8> + Send>),
}

/// What the peer saw.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// Fetch requests read.
    pub(crate) fetches: usize,
    /// Connections accepted.
    pub(crate) connections: usize,
    /// Metadata requests read.
    pub(crate) metadata: usize,
    /// Per Fetch request, its first partition's (current_leader_epoch, fetch offset,
    /// last_fetched_epoch).
    pub(crate) epochs: Vec<(i32, i64, i32)>,
    /// Per Fetch request, its (session id, session epoch, partitions of its first topic, or 0
    /// when it names none).
    pub(crate) sessions: Vec<(i32, i32, usize)>,
}

/// Starts a peer answering Fetch requests with `replies` in turn; returns its `host:port`.
pub(crate) fn peer(replies: Vec<Reply>) -> String {
    peer_seen(replies).0
}

/// [`peer`], and what it saw.
pub(crate) fn peer_seen(replies: Vec<Reply>) -> (String, Arc<Mutex<Seen>>) {
    peer_with(replies, Vec::new())
}

/// [`peer_seen`], answering Metadata requests with `metas` in turn (then as
/// [`Meta::Epoch`] of the last epoch given, or 0).
pub(crate) fn peer_with(replies: Vec<Reply>, metas: Vec<Meta>) -> (String, Arc<Mutex<Seen>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let address = listener.local_addr().expect("bound").to_string();
    let port = i32::from(listener.local_addr().expect("bound").port());
    let seen = Arc::new(Mutex::new(Seen::default()));
    let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
    let metas = Arc::new(Mutex::new((VecDeque::from(metas), 0)));
    let seen_by_peer = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            seen_by_peer.lock().expect("not poisoned").connections += 1;
            let replies = Arc::clone(&replies);
            let metas = Arc::clone(&metas);
            let seen = Arc::clone(&seen_by_peer);
            std::thread::spawn(move || serve(stream, port, &replies, &metas, &seen));
        }
    });
    (address, seen)
}

/// The queued Metadata answers, and the epoch of the last [`Meta::Epoch`].
type Metas = Mutex<(VecDeque<Meta>, i32)>;

fn serve(
    mut stream: TcpStream,
    port: i32,
    replies: &Mutex<VecDeque<Reply>>,
    metas: &Metas,
    seen: &Mutex<Seen>,
) {
    loop {
        let mut size = [0u8; 4];
        if stream.read_exact(&mut size).is_err() {
            return;
        }
        let mut request = vec![0u8; i32::from_be_bytes(size).max(0) as usize];
        if request.len() < 8 || stream.read_exact(&mut request).is_err() {
            return;
        }
        let key = i16::from_be_bytes([request[0], request[1]]);
        let correlation = i32::from_be_bytes([request[4], request[5], request[6], request[7]]);
        if key == 18 {
            let body = api_versions(correlation);
            let _ = stream.write_all(&(body.len() as i32).to_be_bytes());
            let _ = stream.write_all(&body);
            continue;
        }
        if key == 3 {
            seen.lock().expect("not poisoned").metadata += 1;
            let body = {
                let mut metas = metas.lock().expect("not poisoned");
                match metas.0.pop_front() {
                    Some(Meta::Epoch(e)) => {
                        metas.1 = e;
                        metadata(correlation, port, 0, e)
                    }
                    Some(Meta::NoLeader) => metadata(correlation, port, 5, -1),
                    Some(Meta::Body(body)) => body(correlation, port),
                    None => metadata(correlation, port, 0, metas.1),
                }
            };
            let _ = stream.write_all(&(body.len() as i32).to_be_bytes());
            let _ = stream.write_all(&body);
            continue;
        }
        {
            let mut seen = seen.lock().expect("not poisoned");
            seen.fetches += 1;
            if let Some(e) = first_partition_epochs(&request) {
                seen.epochs.push(e);
            }
            if let Some(s) = session_of(&request) {
                seen.sessions.push(s);
            }
        }
        let reply = replies.lock().expect("not poisoned").pop_front();
        match reply {
            Some(Reply::Body(body)) => {
                let body = body(correlation);
                let _ = stream.write_all(&(body.len() as i32).to_be_bytes());
                let _ = stream.write_all(&body);
            }
            Some(Reply::Later(delay, body)) => {
                std::thread::sleep(delay);
                let body = body(correlation);
                let _ = stream.write_all(&(body.len() as i32).to_be_bytes());
                let _ = stream.write_all(&body);
            }
            Some(Reply::Raw(bytes)) => {
                let _ = stream.write_all(&bytes);
            }
            Some(Reply::Cut(bytes)) => {
                let _ = stream.write_all(&bytes);
                return;
            }
            Some(Reply::Silent) | None => {}
        }
    }
}

/// The (current_leader_epoch, fetch offset, last_fetched_epoch) of a Fetch v12 request's
/// first partition (`request` after the size; short names and counts, as the tests send).
fn first_partition_epochs(request: &[u8]) -> Option<(i32, i64, i32)> {
    let client_len =
        usize::try_from(i16::from_be_bytes([*request.get(8)?, *request.get(9)?])).ok()?;
    // Header: key, version, correlation, client id, tags; body up to the topics: replica,
    // wait, min and max bytes, isolation, session id and epoch.
    let topics = 10 + client_len + 1 + 4 * 4 + 1 + 8;
    let name_len = usize::from(*request.get(topics + 1)?).checked_sub(1)?;
    let p = topics + 2 + name_len + 1 + 4;
    let i32_at = |at: usize| {
        Some(i32::from_be_bytes(
            request.get(at..at + 4)?.try_into().ok()?,
        ))
    };
    let offset = i64::from_be_bytes(request.get(p + 4..p + 12)?.try_into().ok()?);
    Some((i32_at(p)?, offset, i32_at(p + 12)?))
}

/// The (session id, session epoch, partitions of the first topic) of a Fetch v12 request.
fn session_of(request: &[u8]) -> Option<(i32, i32, usize)> {
    let client_len =
        usize::try_from(i16::from_be_bytes([*request.get(8)?, *request.get(9)?])).ok()?;
    let topics = 10 + client_len + 1 + 4 * 4 + 1 + 8;
    let i32_at = |at: usize| {
        Some(i32::from_be_bytes(
            request.get(at..at + 4)?.try_into().ok()?,
        ))
    };
    let (id, epoch) = (i32_at(topics - 8)?, i32_at(topics - 4)?);
    if *request.get(topics)? <= 1 {
        return Some((id, epoch, 0));
    }
    let name_len = usize::from(*request.get(topics + 1)?).checked_sub(1)?;
    let count = usize::from(*request.get(topics + 2 + name_len)?).checked_sub(1)?;
    Some((id, epoch, count))
}

/// A Metadata v12 response: broker 0 is this peer; topic `t`'s partitions 0 to 3 have error
/// `error`, leader 0 (none with an error) and leader epoch `epoch`.
pub(crate) fn metadata(correlation: i32, port: i32, error: i16, epoch: i32) -> Vec<u8> {
    let mut b = Body::header_v1(correlation);
    b.i32(0)
        .len(1)
        .i32(0)
        .str("127.0.0.1")
        .i32(port)
        .null()
        .tags();
    b.str("cluster").i32(0);
    b.len(1).i16(0).str("t").raw(&[0; 16]).raw(&[0]).len(4);
    let leader = if error == 0 { 0 } else { -1 };
    for partition in 0..4 {
        b.i16(error)
            .i32(partition)
            .i32(leader)
            .i32(epoch)
            .len(0)
            .len(0)
            .len(0)
            .tags();
    }
    b.i32(0).tags().tags();
    b.0
}

/// An ApiVersions v3 response: Fetch 4 to 17, Metadata 0 to 12 and ApiVersions 0 to 4, as
/// Kafka 4 lists them.
fn api_versions(correlation: i32) -> Vec<u8> {
    let mut b = Body::default();
    b.i32(correlation).i16(0).len(3);
    b.i16(1).i16(4).i16(17).tags();
    b.i16(3).i16(0).i16(12).tags();
    b.i16(18).i16(0).i16(4).tags();
    b.i32(0).tags();
    b.0
}
