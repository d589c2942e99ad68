//! Preferred read replicas (KIP-392, `client.rack`) against loopback peers
//! ([`crate::fetch::test_peer`]) playing a leader and a follower: the replica the leader names
//! is fetched from, and the partition goes back to the leader after the errors on which Kafka's
//! consumer clears the replica (`FetchCollector.handleInitializeErrors`, a failed fetch), never
//! reporting them as a leader change or an out-of-range position.

use super::*;
use crate::fetch::test_peer::{peer, peer_with, Meta, Reply};
use crate::protocol::test_support::Body;
use crate::records::test_batches::{fetch_response, BatchSpec, TestPartition};

/// A Metadata v12 answer: broker 0 is the leader (port `port`), broker 1 is at
/// `follower_port`; topic `t`'s partitions 0 to 3 are led by broker 0 at epoch 0.
fn two_brokers(correlation: i32, port: i32, follower_port: i32) -> Vec<u8> {
    let mut b = Body::header_v1(correlation);
    b.i32(0).len(2);
    for (id, p) in [(0, port), (1, follower_port)] {
        b.i32(id).str("127.0.0.1").i32(p).null().tags();
    }
    b.str("cluster").i32(0);
    b.len(1).i16(0).str("t").raw(&[0; 16]).raw(&[0]).len(4);
    for partition in 0..4 {
        b.i16(0)
            .i32(partition)
            .i32(0)
            .i32(0)
            .len(0)
            .len(0)
            .len(0)
            .tags();
    }
    b.i32(0).tags().tags();
    b.0
}

/// Metadata answers naming the follower at `follower` (`host:port`).
fn metas(follower: &str, n: usize) -> Vec<Meta> {
    let follower_port: i32 = follower.rsplit(':').next().unwrap().parse().unwrap();
    (0..n)
        .map(|_| Meta::Body(Box::new(move |c, port| two_brokers(c, port, follower_port))))
        .collect()
}

/// A reply for t-0: error `code`, preferred read replica `replica`, `records`.
fn reply(code: i16, replica: i32, records: Vec<u8>) -> Reply {
    Reply::Body(Box::new(move |c| {
        let mut p = TestPartition::new("t", 0, code, 100);
        p.preferred_read_replica = replica;
        fetch_response(c, &p, &records)
    }))
}

fn batch(base: i64) -> Vec<u8> {
    BatchSpec::new(base).values(&[b"a", b"b"]).encode()
}

fn session(leader: &str) -> FetchSession {
    let mut s = FetchSession::new("t", Isolation::ReadUncommitted, FetchLimits::default())
        .with_rack("rack-2");
    s.assign(0, "t", 0, leader, 0, i64::MAX);
    s
}

/// Polls until something happens (a partition backing off makes polls return nothing).
fn poll(s: &mut FetchSession) -> Polled {
    loop {
        let polled = s
            .poll(|_, _| -> Result<(), ()> { Ok(()) })
            .expect("the poll succeeds")
            .expect("the callback does not fail");
        if polled != Polled::default() {
            return polled;
        }
    }
}

/// The leader names broker 1: its records are fetched from it, none from the leader; an
/// error after which the consumer refreshes metadata (NOT_LEADER_OR_FOLLOWER) sends the
/// partition back to the leader, which is asked for metadata and fetched from again.
#[test]
fn the_named_replica_is_fetched_from_until_it_answers_not_leader_or_follower() {
    let follower = peer(vec![reply(0, -1, batch(0)), reply(6, -1, Vec::new())]);
    let (leader, seen) = peer_with(
        vec![reply(0, 1, Vec::new()), reply(0, -1, batch(2))],
        metas(&follower, 4),
    );
    let mut s = session(&leader);
    // The leader's answer: no records, the replica named.
    s.poll(|_, _| -> Result<(), ()> { Ok(()) })
        .unwrap()
        .unwrap();
    assert_eq!(s.read_replica(0), Some(1));
    assert_eq!(s.fetching_from(0), Some(follower.as_str()));
    assert_eq!(s.leader(0), Some(leader.as_str()));
    assert_eq!(poll(&mut s).records, 2);
    assert_eq!(s.records_by_broker().get(&follower), Some(&2));
    let moved = poll(&mut s);
    assert_eq!(
        (moved.retried.clone(), moved.leader_changed),
        (vec![(0, 6)], vec![])
    );
    assert_eq!(s.read_replica(0), None);
    assert_eq!(s.fetching_from(0), Some(leader.as_str()));
    assert_eq!(poll(&mut s).records, 2);
    assert_eq!(s.records_by_broker().get(&leader), Some(&2));
    assert_eq!(s.next_offset(0), Some(4));
    // Asked at assignment and after the error.
    assert_eq!(seen.lock().unwrap().metadata, 2);
}

/// OFFSET_OUT_OF_RANGE from the replica (behind the leader) is not the position's: the
/// partition goes back to the leader and is not reported out of range.
#[test]
fn out_of_range_from_the_replica_goes_back_to_the_leader() {
    let follower = peer(vec![reply(1, -1, Vec::new())]);
    let (leader, _) = peer_with(
        vec![reply(0, 1, Vec::new()), reply(0, -1, batch(0))],
        metas(&follower, 4),
    );
    let mut s = session(&leader);
    s.poll(|_, _| -> Result<(), ()> { Ok(()) })
        .unwrap()
        .unwrap();
    assert_eq!(s.read_replica(0), Some(1));
    let polled = s
        .poll(|_, _| -> Result<(), ()> { Ok(()) })
        .unwrap()
        .unwrap();
    assert!(polled.out_of_range.is_empty(), "{polled:?}");
    assert_eq!(s.fetching_from(0), Some(leader.as_str()));
    assert_eq!(poll(&mut s).records, 2);
}

/// A replica that cannot be reached: back to the leader, with no leader change reported and
/// no failure counted against the poll.
#[test]
fn an_unreachable_replica_sends_the_partition_back_to_the_leader() {
    // Nobody listens on port 1 of loopback.
    let (leader, _) = peer_with(
        vec![reply(0, 1, Vec::new()), reply(0, -1, batch(0))],
        metas("127.0.0.1:1", 4),
    );
    let mut s = session(&leader);
    s.poll(|_, _| -> Result<(), ()> { Ok(()) })
        .unwrap()
        .unwrap();
    assert_eq!(s.fetching_from(0), Some("127.0.0.1:1"));
    let failed = s
        .poll(|_, _| -> Result<(), ()> { Ok(()) })
        .unwrap()
        .unwrap();
    assert!(failed.leader_changed.is_empty(), "{failed:?}");
    assert_eq!(s.fetching_from(0), Some(leader.as_str()));
    assert_eq!(poll(&mut s).records, 2);
}

/// A replica id the metadata does not list: fetched from the leader, the metadata asked again.
#[test]
fn an_unknown_replica_id_is_not_followed_and_the_metadata_is_asked_again() {
    let (leader, seen) = peer_with(
        vec![reply(0, 7, Vec::new()), reply(0, -1, batch(0))],
        metas("127.0.0.1:1", 4),
    );
    let mut s = session(&leader);
    s.poll(|_, _| -> Result<(), ()> { Ok(()) })
        .unwrap()
        .unwrap();
    assert_eq!(s.read_replica(0), None);
    assert_eq!(poll(&mut s).records, 2);
    assert_eq!(s.fetching_from(0), Some(leader.as_str()));
    assert_eq!(seen.lock().unwrap().metadata, 2);
}

#[test]
fn a_replica_backs_off_as_kafka_backs_off_reconnecting() {
    assert_eq!(replica_backoff(1), Duration::from_millis(50));
    assert_eq!(replica_backoff(2), Duration::from_millis(100));
    assert_eq!(replica_backoff(5), Duration::from_millis(800));
    assert_eq!(replica_backoff(6), REPLICA_BACKOFF_MAX);
    assert_eq!(replica_backoff(u32::MAX), REPLICA_BACKOFF_MAX);
}

/// A replica that fails backs off: while it does, the leader naming it again is not followed
/// (the leader serves the partition), each failure in a row doubles the back-off, and however
/// often it fails it never fails the poll (its partitions always have their leader).
#[test]
fn a_failing_replica_backs_off_while_the_leader_serves_and_never_fails_the_poll() {
    let nobody = "127.0.0.1:1";
    let cycles = MAX_CONNECTION_FAILURES + 2;
    // Every answer of the leader names the replica, the last one serves records.
    let mut replies: Vec<Reply> = (0..cycles + 1).map(|_| reply(0, 1, Vec::new())).collect();
    replies.push(reply(0, -1, batch(0)));
    let (leader, _) = peer_with(replies, metas(nobody, cycles as usize + 8));
    let mut s = session(&leader);
    // Failures are not waited out in time here: any counted against the poll would fail it.
    s.unreachable_limit = Duration::ZERO;
    let once = |s: &mut FetchSession| {
        s.poll(|_, _| -> Result<(), ()> { Ok(()) })
            .expect("a replica's failure never fails the poll")
            .expect("no callback error")
    };
    once(&mut s);
    assert_eq!(s.fetching_from(0), Some(nobody));
    let failed = once(&mut s);
    assert!(failed.leader_changed.is_empty(), "{failed:?}");
    assert!(s.replica_backing_off(nobody));
    assert_eq!(s.replica_backoff[nobody].failures, 1);
    // Kept backing off for this step (the test does not race the 50 ms).
    s.replica_backoff.get_mut(nobody).unwrap().until = Instant::now() + Duration::from_secs(3600);
    once(&mut s);
    assert_eq!(
        s.read_replica(0),
        None,
        "named while backing off: not followed"
    );
    assert_eq!(s.fetching_from(0), Some(leader.as_str()));
    for k in 2..=cycles {
        // The back-off is over: the leader's naming is followed, and the replica fails again.
        s.replica_backoff.get_mut(nobody).unwrap().until = Instant::now();
        once(&mut s);
        assert_eq!(s.fetching_from(0), Some(nobody), "failure {k}");
        once(&mut s);
        assert_eq!(s.fetching_from(0), Some(leader.as_str()), "failure {k}");
        assert_eq!(s.replica_backoff[nobody].failures, k);
    }
    s.replica_backoff.clear();
    assert_eq!(poll(&mut s).records, 2);
    assert_eq!(s.records_by_broker().get(&leader), Some(&2));
}
