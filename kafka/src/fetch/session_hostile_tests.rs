//! A hostile or broken broker, played by a loopback peer ([`crate::fetch::test_peer`]):
//! every case ends in a typed error or in the retry Kafka's consumer makes, within bounded
//! memory, and a wake-up ends a poll that waits on a silent broker.

use std::sync::mpsc;
use std::time::Duration;

use super::*;
use crate::fetch::test_peer::{peer, peer_seen, Reply};
use crate::records::test_batches::{
    batch_with_records, fetch_response, fetch_response_with, BatchSpec, TestPartition,
};

fn session(broker: &str) -> FetchSession {
    let mut session = FetchSession::new("t", Isolation::ReadUncommitted, FetchLimits::default());
    session.assign(0, "t", 0, broker, 0, i64::MAX);
    session
}

fn poll(session: &mut FetchSession) -> Result<Polled, FetchError> {
    session
        .poll(|_, _| -> Result<(), ()> { Ok(()) })
        .map(|r| r.expect("the callback does not fail"))
}

/// A reply of `records` for partition t-0 with error `code`.
fn part(code: i16, records: Vec<u8>) -> Reply {
    Reply::Body(Box::new(move |c| {
        fetch_response(c, &TestPartition::new("t", 0, code, 100), &records)
    }))
}

fn raw_frame(size: i32, body: &[u8]) -> Reply {
    let mut bytes = size.to_be_bytes().to_vec();
    bytes.extend_from_slice(body);
    Reply::Raw(bytes)
}

#[test]
fn an_oversized_frame_is_a_typed_error_naming_the_broker_and_fetch_max_bytes() {
    let broker = peer(vec![raw_frame(0x7fff_ffff, &[0; 16])]);
    let mut s = session(&broker);
    let e = poll(&mut s).unwrap_err();
    assert!(
        matches!(
            &e,
            FetchError::Connection(ConnectionError::FrameTooLarge {
                size: 0x7fff_ffff,
                ..
            })
        ),
        "{e}"
    );
    let text = e.to_string();
    assert!(
        text.contains(&broker) && text.contains("fetch.max.bytes"),
        "{text}"
    );
    // Nothing was allocated for the frame.
    assert!(s.responses.iter().all(|r| r.buf.capacity() == 0));
}

#[test]
fn a_negative_frame_size_is_a_typed_error() {
    let broker = peer(vec![raw_frame(-5, &[])]);
    let e = poll(&mut session(&broker)).unwrap_err();
    assert!(
        matches!(
            e,
            FetchError::Connection(ConnectionError::FrameTooLarge { size: -5, .. })
        ),
        "{e}"
    );
}

#[test]
fn a_tls_alert_names_a_tls_listener() {
    // What a TLS listener sends a plaintext client: a fatal alert record.
    let broker = peer(vec![Reply::Raw(vec![
        0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x50,
    ])]);
    let e = poll(&mut session(&broker)).unwrap_err();
    assert!(
        matches!(
            e,
            FetchError::Connection(ConnectionError::TlsListener { .. })
        ),
        "{e}"
    );
    let text = e.to_string();
    assert!(text.contains("TLS") && text.contains(&broker), "{text}");
}

/// A frame announced at 100 MiB (under the limit) of which a few bytes arrive before the
/// peer hangs up: the buffer grew with what arrived, and the broken connection is a retry
/// (a leader change), after which the next response is read.
#[test]
fn a_truncated_frame_allocates_what_arrived_and_is_retried() {
    let batch = BatchSpec::new(0).values(&[b"a"]).encode();
    let mut cut = (100 * 1024 * 1024i32).to_be_bytes().to_vec();
    cut.extend_from_slice(&[1, 2, 3]);
    let (broker, seen) = peer_seen(vec![Reply::Cut(cut), part(0, batch)]);
    let mut s = session(&broker);
    let first = poll(&mut s).unwrap();
    assert_eq!(first.leader_changed, vec![0]);
    assert!(s.responses.iter().all(|r| r.buf.capacity() <= 1024 * 1024));
    let second = poll(&mut s).unwrap();
    assert_eq!(second.records, 1);
    // One for the first partition's Metadata, then the fetch connection twice.
    assert_eq!(seen.lock().unwrap().connections, 3);
}

/// A frame whose body ends before its fields do is a malformed response, not a panic.
#[test]
fn a_response_body_cut_short_is_a_protocol_error() {
    let batch = BatchSpec::new(0).values(&[b"a"]).encode();
    let whole = fetch_response(1, &TestPartition::new("t", 0, 0, 10), &batch);
    let cut = whole[..whole.len() - 20].to_vec();
    let broker = peer(vec![Reply::Body(Box::new(move |c| {
        let mut body = cut.clone();
        body[..4].copy_from_slice(&c.to_be_bytes());
        body
    }))]);
    let e = poll(&mut session(&broker)).unwrap_err();
    assert!(matches!(&e, FetchError::Protocol { .. }), "{e}");
    assert!(e.to_string().contains("ends early"), "{e}");
}

/// Bytes for a partition without one complete batch: the fetch cannot move on, and fails
/// as Kafka's consumer fails ("no complete records"), instead of fetching the same offset
/// forever.
#[test]
fn records_without_a_complete_batch_fail_instead_of_spinning() {
    let batch = BatchSpec::new(0).values(&[b"a"]).encode();
    let broker = peer(vec![part(0, batch[..batch.len() - 1].to_vec())]);
    let e = poll(&mut session(&broker)).unwrap_err();
    assert!(
        matches!(
            e,
            FetchError::NoProgress {
                partition: 0,
                offset: 0,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn a_decompression_bomb_is_a_corrupt_batch_naming_the_partition() {
    for codec in 1..=4 {
        let bomb = crate::compression::tests::bomb(codec);
        let batch = batch_with_records(0, codec, 1, &bomb);
        let broker = peer(vec![part(0, batch)]);
        let e = poll(&mut session(&broker)).unwrap_err();
        assert!(
            matches!(
                &e,
                FetchError::Corrupt {
                    partition: 0,
                    offset: 0,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("more than"), "codec {codec}: {e}");
    }
}

/// The codes Kafka's consumer retries: after a metadata refresh (the session's own Metadata
/// request) or as they are, each fetched again after the back-off and reported as retried;
/// then the records are read.
#[test]
fn retriable_error_codes_are_retried_as_the_java_consumer_retries_them() {
    let (broker, seen) = peer_seen(vec![
        part(-1, Vec::new()),
        part(3, Vec::new()),
        part(9, Vec::new()),
        part(6, Vec::new()),
        part(74, Vec::new()),
        part(75, Vec::new()),
        part(0, BatchSpec::new(0).values(&[b"a", b"b"]).encode()),
    ]);
    let mut s = session(&broker);
    let retried = poll(&mut s).unwrap();
    assert_eq!(retried.retried, vec![(0, -1)]);
    for code in [3, 9, 6, 74, 75] {
        // Backing off: the poll idles until the partition may be fetched again.
        let mut polled = poll(&mut s).unwrap();
        while polled == Polled::default() {
            polled = poll(&mut s).unwrap();
        }
        assert_eq!(polled.retried, vec![(0, code)]);
        assert!(polled.leader_changed.is_empty());
    }
    // The first Metadata at the assignment, then one after each code the consumer
    // refreshes on (3, 9, 6, 74), none after -1 or 75.
    assert_eq!(seen.lock().unwrap().metadata, 5);
    let mut polled = poll(&mut s).unwrap();
    while polled.records == 0 {
        polled = poll(&mut s).unwrap();
    }
    assert_eq!((polled.records, s.next_offset(0)), (2, Some(2)));
}

#[test]
fn fatal_and_unknown_error_codes_fail_the_poll_naming_the_partition() {
    for (code, name) in [
        (29, "TOPIC_AUTHORIZATION_FAILED"),
        (2, "CORRUPT_MESSAGE"),
        (5, "LEADER_NOT_AVAILABLE"),
        (999, "does not define"),
    ] {
        let broker = peer(vec![part(code, Vec::new())]);
        let e = poll(&mut session(&broker)).unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(e, FetchError::Partition { code: c, .. } if c == code),
            "{text}"
        );
        assert!(text.contains(name) && text.contains("t-0"), "{text}");
    }
}

/// A top-level error drops the response, as the consumer's session handler drops it: the
/// partitions are fetched again.
#[test]
fn a_top_level_error_is_retried() {
    let batch = BatchSpec::new(0).values(&[b"a"]).encode();
    let broker = peer(vec![
        Reply::Body(Box::new(|c| {
            fetch_response_with(c, 0, -1, &TestPartition::new("t", 0, 0, 1), &[])
        })),
        part(0, batch),
    ]);
    let mut s = session(&broker);
    assert_eq!(poll(&mut s).unwrap().retried, vec![(0, -1)]);
    let mut polled = poll(&mut s).unwrap();
    while polled.records == 0 {
        polled = poll(&mut s).unwrap();
    }
    assert_eq!(polled.records, 1);
}

/// A throttled response (KIP-219: the broker answers, then expects the client to wait):
/// no request goes to that broker before the throttle has run out.
#[test]
fn a_throttled_broker_is_not_asked_again_before_the_throttle_ends() {
    let batch = BatchSpec::new(0).values(&[b"a"]).encode();
    let (broker, seen) = peer_seen(vec![Reply::Body(Box::new(move |c| {
        fetch_response_with(c, 10_000, 0, &TestPartition::new("t", 0, 0, 5), &batch)
    }))]);
    let mut s = FetchSession::new(
        "t",
        Isolation::ReadUncommitted,
        FetchLimits {
            max_wait_ms: 20,
            ..FetchLimits::default()
        },
    );
    s.assign(0, "t", 0, &broker, 0, i64::MAX);
    assert_eq!(poll(&mut s).unwrap().records, 1);
    for _ in 0..3 {
        assert_eq!(poll(&mut s).unwrap(), Polled::default());
    }
    assert_eq!(seen.lock().unwrap().fetches, 1);
    assert!(s.brokers[&broker].throttled_until.is_some());
}

/// A broker that never answers: a wake-up from another thread ends the poll (which would
/// otherwise wait for the request timeout), and the unanswered request stays in flight, so
/// the next poll sends nothing new.
#[test]
fn a_wake_up_ends_a_poll_blocked_on_a_silent_broker() {
    let (broker, seen) = peer_seen(vec![Reply::Silent]);
    let mut s = session(&broker);
    let wakeup = s.wakeup();
    let (done, finished) = mpsc::channel();
    let poller = std::thread::spawn(move || {
        let polled = poll(&mut s);
        let _ = done.send(());
        (s, polled)
    });
    // Wake until the poll returns (a wake-up before the poll started is taken by it).
    while finished.recv_timeout(Duration::from_millis(50)).is_err() {
        wakeup.wake();
    }
    let (mut s, polled) = poller.join().unwrap();
    assert!(polled.unwrap().woken);
    assert!(
        s.brokers[&broker].in_flight.is_some(),
        "the request stays in flight"
    );
    s.wakeup().wake();
    assert!(poll(&mut s).unwrap().woken);
    assert_eq!(seen.lock().unwrap().fetches, 1);
}

/// A response that arrives after the partition was re-assigned at another offset is stale:
/// dropped, as the consumer drops it, and the partition is fetched from its new offset.
#[test]
fn a_response_for_a_reassigned_offset_is_dropped() {
    let old = BatchSpec::new(0).values(&[b"old"]).encode();
    let new = BatchSpec::new(5).values(&[b"new"]).encode();
    let broker = peer(vec![
        Reply::Later(
            Duration::from_millis(1_500),
            Box::new(move |c| fetch_response(c, &TestPartition::new("t", 0, 0, 10), &old)),
        ),
        part(0, new),
    ]);
    let mut s = session(&broker);
    let wakeup = s.wakeup();
    let waker = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        wakeup.wake();
    });
    let polled = poll(&mut s).unwrap();
    waker.join().unwrap();
    assert!(polled.woken && polled.records == 0, "{polled:?}");
    s.assign(0, "t", 0, &broker, 5, i64::MAX);
    let mut values = Vec::new();
    // The stale response, then the fetch from offset 5.
    for _ in 0..2 {
        s.poll(|_, r| -> Result<(), ()> {
            values.push((r.offset, r.value.map(<[u8]>::to_vec)));
            Ok(())
        })
        .unwrap()
        .unwrap();
    }
    assert_eq!(values, vec![(5, Some(b"new".to_vec()))]);
}
