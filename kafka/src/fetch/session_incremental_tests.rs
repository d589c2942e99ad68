//! Fetch sessions (KIP-227) against a loopback peer ([`crate::fetch::test_peer`]): a full
//! fetch asks for a session, later requests name only the partitions whose fetch changed, and
//! the session errors start over with a full fetch, as Kafka's `FetchSessionHandler` does.

use super::*;
use crate::fetch::test_peer::{peer_seen, Reply, Seen};
use crate::records::test_batches::{fetch_response, fetch_response_with, BatchSpec, TestPartition};
use std::sync::{Arc, Mutex};

/// A reply for t-0 with `records`, from session `id`.
fn reply(id: i32, records: Vec<u8>) -> Reply {
    Reply::Body(Box::new(move |c| {
        let mut b = fetch_response(c, &TestPartition::new("t", 0, 0, 100), &records);
        // correlation id, header tags, throttle time, error code, then the session id.
        b[11..15].copy_from_slice(&id.to_be_bytes());
        b
    }))
}

/// A reply with top-level error `code` and no records.
fn error(code: i16) -> Reply {
    Reply::Body(Box::new(move |c| {
        fetch_response_with(c, 0, code, &TestPartition::new("t", 0, 0, 100), &[])
    }))
}

fn batch(base: i64) -> Vec<u8> {
    BatchSpec::new(base).values(&[b"a", b"b"]).encode()
}

fn sessions(seen: &Arc<Mutex<Seen>>) -> Vec<(i32, i32, usize)> {
    seen.lock().unwrap().sessions.clone()
}

fn two_partitions(broker: &str, sessions_on: bool) -> FetchSession {
    let mut s = FetchSession::new("t", Isolation::ReadUncommitted, FetchLimits::default())
        .with_fetch_sessions(sessions_on);
    s.assign(0, "t", 0, broker, 0, i64::MAX);
    s.assign(1, "t", 1, broker, 0, i64::MAX);
    s
}

fn poll(s: &mut FetchSession) -> Polled {
    s.poll(|_, _| -> Result<(), ()> { Ok(()) })
        .expect("the poll succeeds")
        .expect("the callback does not fail")
}

/// The first fetch is full and asks for a session; the next names only t-0 (its offset moved
/// on), then none (nothing changed); each incremental request moves the epoch on.
#[test]
fn after_a_full_fetch_only_changed_partitions_are_sent() {
    let (broker, seen) = peer_seen(vec![
        reply(55, batch(0)),
        reply(55, Vec::new()),
        reply(55, Vec::new()),
    ]);
    let mut s = two_partitions(&broker, true);
    assert_eq!(poll(&mut s).records, 2);
    poll(&mut s);
    poll(&mut s);
    assert_eq!(sessions(&seen), vec![(0, 0, 2), (55, 1, 1), (55, 2, 0)]);
}

/// FETCH_SESSION_ID_NOT_FOUND: a full fetch for a new session; INVALID_FETCH_SESSION_EPOCH: a
/// full fetch closing the session for a new one. Neither fails the poll nor backs off.
#[test]
fn session_errors_start_over_with_a_full_fetch() {
    let (broker, seen) = peer_seen(vec![
        reply(55, Vec::new()),
        error(70),
        reply(56, Vec::new()),
        error(71),
        reply(57, batch(0)),
        reply(57, Vec::new()),
    ]);
    let mut s = two_partitions(&broker, true);
    poll(&mut s);
    let lost = poll(&mut s);
    assert_eq!(lost.retried, vec![(0, 70), (1, 70)]);
    poll(&mut s);
    assert_eq!(poll(&mut s).retried, vec![(0, 71), (1, 71)]);
    assert_eq!(poll(&mut s).records, 2);
    poll(&mut s);
    assert_eq!(
        sessions(&seen),
        vec![
            (0, 0, 2),
            (55, 1, 0),
            (0, 0, 2),
            (56, 1, 0),
            (56, 0, 2),
            (57, 1, 1)
        ]
    );
}

/// A broker that makes no session (id 0): every fetch is full, asking again; a new connection
/// starts with a full fetch; with sessions off, every request is full without one.
#[test]
fn no_session_a_new_connection_or_sessions_off_mean_full_fetches() {
    let (broker, seen) = peer_seen(vec![
        reply(0, Vec::new()),
        reply(0, Vec::new()),
        reply(9, Vec::new()),
        Reply::Cut(Vec::new()),
        reply(9, Vec::new()),
    ]);
    let mut s = two_partitions(&broker, true);
    poll(&mut s);
    poll(&mut s);
    poll(&mut s);
    // The connection is cut: reported, then a full fetch on the new one (closing session 9).
    assert_eq!(poll(&mut s).leader_changed, vec![0, 1]);
    poll(&mut s);
    assert_eq!(
        sessions(&seen),
        vec![(0, 0, 2), (0, 0, 2), (0, 0, 2), (9, 1, 0), (9, 0, 2)]
    );
    let (broker, seen) = peer_seen(vec![reply(5, Vec::new()), reply(5, Vec::new())]);
    let mut s = two_partitions(&broker, false);
    poll(&mut s);
    poll(&mut s);
    assert_eq!(sessions(&seen), vec![(0, -1, 2), (0, -1, 2)]);
}
