//! A broker on loopback that answers the client's requests with crafted frames, for the
//! tests of what a real broker cannot be made to send (a hostile or broken one): every
//! connection's ApiVersions request is answered as a Kafka 4 broker answers it, and each
//! Fetch request gets the next [`Reply`]. Connections are accepted again after a close.

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

/// What the peer saw.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// Fetch requests read.
    pub(crate) fetches: usize,
    /// Connections accepted.
    pub(crate) connections: usize,
}

/// Starts a peer answering Fetch requests with `replies` in turn; returns its `host:port`.
pub(crate) fn peer(replies: Vec<Reply>) -> String {
    peer_seen(replies).0
}

/// [`peer`], and what it saw.
pub(crate) fn peer_seen(replies: Vec<Reply>) -> (String, Arc<Mutex<Seen>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let address = listener.local_addr().expect("bound").to_string();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
    let seen_by_peer = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            seen_by_peer.lock().expect("not poisoned").connections += 1;
            let replies = Arc::clone(&replies);
            let seen = Arc::clone(&seen_by_peer);
            std::thread::spawn(move || serve(stream, &replies, &seen));
        }
    });
    (address, seen)
}

fn serve(mut stream: TcpStream, replies: &Mutex<VecDeque<Reply>>, seen: &Mutex<Seen>) {
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
        seen.lock().expect("not poisoned").fetches += 1;
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

/// An ApiVersions v3 response: Fetch 4 to 17 and ApiVersions 0 to 4, as Kafka 4 lists them.
fn api_versions(correlation: i32) -> Vec<u8> {
    let mut b = Body::default();
    b.i32(correlation).i16(0).len(2);
    b.i16(1).i16(4).i16(17).tags();
    b.i16(18).i16(0).i16(4).tags();
    b.i32(0).tags();
    b.0
}
