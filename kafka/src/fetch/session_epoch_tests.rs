//! Leader epochs (KIP-320) against a loopback peer ([`crate::fetch::test_peer`]) that plays
//! the broker: the epochs sent, the error codes of a moved or fenced leader, stale metadata,
//! and log truncation reported by a diverging epoch, each with the values a hostile broker
//! may send.

use super::*;
use crate::fetch::test_peer::{peer_with, Meta, Reply, Seen};
use crate::records::test_batches::{fetch_response, with_epoch, BatchSpec, TestPartition};
use std::sync::{Arc, Mutex};

fn session(broker: &str) -> FetchSession {
    let mut session = FetchSession::new("t", Isolation::ReadUncommitted, FetchLimits::default());
    session.assign(0, "t", 0, broker, 0, i64::MAX);
    session
}

/// Polls until something happens (a partition backing off makes polls return nothing).
fn poll(session: &mut FetchSession) -> Polled {
    loop {
        let polled = session
            .poll(|_, _| -> Result<(), ()> { Ok(()) })
            .expect("the poll succeeds")
            .expect("the callback does not fail");
        if polled != Polled::default() {
            return polled;
        }
    }
}

/// A reply for t-0 with error `code` and `records`.
fn part(code: i16, records: Vec<u8>) -> Reply {
    Reply::Body(Box::new(move |c| {
        fetch_response(c, &TestPartition::new("t", 0, code, 100), &records)
    }))
}

/// A reply for t-0 with a diverging epoch and no records.
fn diverging(epoch: i32, end_offset: i64) -> Reply {
    Reply::Body(Box::new(move |c| {
        let mut p = TestPartition::new("t", 0, 0, 100);
        p.diverging = Some((epoch, end_offset));
        fetch_response(c, &p, &[])
    }))
}

/// Two records at `base` in a batch of leader epoch `epoch`.
fn batch(base: i64, epoch: i32) -> Vec<u8> {
    with_epoch(BatchSpec::new(base).values(&[b"a", b"b"]).encode(), epoch)
}

fn epochs(seen: &Arc<Mutex<Seen>>) -> Vec<(i32, i64, i32)> {
    seen.lock().unwrap().epochs.clone()
}

/// The epoch of the Metadata answer is sent as `current_leader_epoch`, the batch's as
/// `last_fetched_epoch` once records were read.
#[test]
fn the_metadata_epoch_and_the_last_batch_epoch_are_sent() {
    let (broker, seen) = peer_with(
        vec![
            part(0, batch(0, 4)),
            part(0, batch(2, -5)),
            part(0, Vec::new()),
        ],
        vec![Meta::Epoch(5)],
    );
    let mut s = session(&broker);
    assert_eq!(poll(&mut s).records, 2);
    assert_eq!(s.epochs(0), Some((5, 4)));
    assert_eq!(poll(&mut s).records, 2);
    // A batch without an epoch (any negative one): none.
    assert_eq!(s.epochs(0), Some((5, -1)));
    s.poll(|_, _| -> Result<(), ()> { Ok(()) })
        .unwrap()
        .unwrap();
    assert_eq!(epochs(&seen), vec![(5, 0, -1), (5, 2, 4), (5, 4, -1)]);
    assert_eq!(seen.lock().unwrap().metadata, 1);
}

/// FENCED_LEADER_EPOCH (our epoch is older) and NOT_LEADER_OR_FOLLOWER: the metadata is
/// asked for again and the partition fetched at the new epoch; the poll does not fail and
/// the Java side is not asked for the leader.
#[test]
fn a_fenced_epoch_refreshes_the_metadata_and_fetches_at_the_new_epoch() {
    let (broker, seen) = peer_with(
        vec![
            part(74, Vec::new()),
            part(6, Vec::new()),
            part(0, batch(0, 7)),
        ],
        vec![Meta::Epoch(5), Meta::Epoch(6), Meta::Epoch(7)],
    );
    let mut s = session(&broker);
    assert_eq!(poll(&mut s).retried, vec![(0, 74)]);
    assert_eq!(poll(&mut s).retried, vec![(0, 6)]);
    let read = poll(&mut s);
    assert_eq!((read.records, read.leader_changed.len()), (2, 0));
    assert_eq!(epochs(&seen), vec![(5, 0, -1), (6, 0, -1), (7, 0, -1)]);
}

/// UNKNOWN_LEADER_EPOCH (our epoch is newer than the broker's): fetched again at the same
/// epoch, without a metadata refresh.
#[test]
fn an_unknown_leader_epoch_is_retried_at_the_same_epoch() {
    let (broker, seen) = peer_with(
        vec![part(75, Vec::new()), part(0, batch(0, 9))],
        vec![Meta::Epoch(9)],
    );
    let mut s = session(&broker);
    assert_eq!(poll(&mut s).retried, vec![(0, 75)]);
    assert_eq!(poll(&mut s).records, 2);
    assert_eq!(epochs(&seen), vec![(9, 0, -1), (9, 0, -1)]);
    assert_eq!(seen.lock().unwrap().metadata, 1);
}

/// Metadata with an older epoch than the one known (a broker behind the controller) is
/// ignored, as Kafka's consumer ignores it: the partition is fetched at the known epoch.
#[test]
fn stale_metadata_is_ignored() {
    let (broker, seen) = peer_with(
        vec![part(6, Vec::new()), part(0, batch(0, 5))],
        vec![Meta::Epoch(5), Meta::Epoch(3)],
    );
    let mut s = session(&broker);
    assert_eq!(poll(&mut s).retried, vec![(0, 6)]);
    let read = poll(&mut s);
    assert_eq!(read.stale_metadata, vec![(0, 3)]);
    assert_eq!(read.records, 2);
    assert_eq!(epochs(&seen), vec![(5, 0, -1), (5, 0, -1)]);
    // A re-assignment keeps the known epoch as the floor.
    s.assign(0, "t", 0, &broker, 2, i64::MAX);
    assert_eq!(s.epochs(0), Some((5, -1)));
}

/// A Metadata answer without a leader: the Java side is asked to look the leader up, and
/// nothing is fetched meanwhile.
#[test]
fn no_leader_in_the_metadata_is_a_leader_change_for_the_java_side() {
    let (broker, seen) = peer_with(vec![], vec![Meta::NoLeader]);
    let mut s = session(&broker);
    assert_eq!(poll(&mut s).leader_changed, vec![0]);
    assert_eq!(seen.lock().unwrap().fetches, 0);
    // The Java side's answer is asked for its epoch before the next fetch.
    s.set_leader(0, &broker).unwrap();
    s.poll(|_, _| -> Result<(), ()> { Ok(()) })
        .unwrap()
        .unwrap();
    assert_eq!(seen.lock().unwrap().metadata, 2);
}

/// A malformed Metadata answer (an array count past its bytes, a body cut short) fails the
/// poll with a protocol error naming the broker, allocating nothing for the count.
#[test]
fn a_malformed_metadata_answer_is_a_protocol_error() {
    let bodies: Vec<Meta> = vec![
        Meta::Body(Box::new(|c, _| {
            let mut b = c.to_be_bytes().to_vec();
            b.extend_from_slice(&[0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f]);
            b
        })),
        Meta::Body(Box::new(|c, port| {
            let whole = crate::fetch::test_peer::metadata(c, port, 0, 1);
            whole[..whole.len() - 9].to_vec()
        })),
    ];
    for (body, want) in bodies.into_iter().zip(["array of", "ends early"]) {
        let (broker, _) = peer_with(vec![], vec![body]);
        let e = session(&broker)
            .poll(|_, _| -> Result<(), ()> { Ok(()) })
            .unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, FetchError::Protocol { .. }), "{text}");
        assert!(text.contains(&broker) && text.contains(want), "{text}");
    }
}

/// A diverging epoch whose end offset is below the next offset: the log was truncated
/// under the records read. Reported with the first offset known to diverge, and the
/// partition not fetched again until assigned again (there, with the diverging epoch).
#[test]
fn a_diverging_epoch_below_the_next_offset_is_a_truncation() {
    let (broker, seen) = peer_with(
        vec![part(0, batch(0, 4)), diverging(3, 1), part(0, batch(1, 6))],
        vec![Meta::Epoch(6)],
    );
    let mut s = session(&broker);
    assert_eq!(poll(&mut s).records, 2);
    let truncated = poll(&mut s).truncated;
    assert_eq!(
        truncated,
        vec![Truncation {
            slot: 0,
            offset: 2,
            epoch: 3,
            end_offset: 1
        }]
    );
    assert!(!s.has_work(), "not fetched again before a new assignment");
    // What the Java side does with a reset policy.
    s.assign(0, "t", 0, &broker, 1, i64::MAX);
    s.set_last_fetched_epoch(0, 3).unwrap();
    assert_eq!(poll(&mut s).records, 2);
    assert_eq!(epochs(&seen), vec![(6, 0, -1), (6, 2, 4), (6, 1, 3)]);
}

/// The other diverging epochs a broker may send: an end offset at or past the next offset
/// truncates nothing read (fetched again with the diverging epoch, then with none, so a
/// broker repeating itself cannot hold the partition), and an undefined (negative) end
/// offset is reset as `auto.offset.reset` says.
#[test]
fn diverging_epochs_that_truncate_nothing_read_or_say_nothing_are_bounded() {
    let (broker, seen) = peer_with(
        vec![
            part(0, batch(0, 4)),
            diverging(3, i64::MAX),
            diverging(3, 2),
            part(0, Vec::new()),
        ],
        vec![Meta::Epoch(4)],
    );
    let mut s = session(&broker);
    assert_eq!(poll(&mut s).records, 2);
    for _ in 0..3 {
        let polled = s
            .poll(|_, _| -> Result<(), ()> { Ok(()) })
            .unwrap()
            .unwrap();
        assert!(polled.truncated.is_empty() && polled.out_of_range.is_empty());
    }
    assert_eq!(
        epochs(&seen),
        vec![(4, 0, -1), (4, 2, 4), (4, 2, 3), (4, 2, -1)]
    );
    for end in [-1, i64::MIN] {
        let (broker, _) = peer_with(vec![diverging(0, end)], vec![]);
        assert_eq!(poll(&mut session(&broker)).out_of_range, vec![0]);
    }
}
