//! Leader epochs (KIP-320) against a real Kafka broker: the native fetch learns each
//! partition's leader epoch from Metadata, sends it as `current_leader_epoch` and the last
//! batch's epoch as `last_fetched_epoch`, and the broker accepts both (records come back, no
//! FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH or diverging epoch).
//!
//! The broker is the one `tests/run-java-tests.sh` starts (`make test` runs this test there
//! with `KARROW_TEST_KAFKA_BOOTSTRAP` set). Without that variable the test is skipped with a
//! printed reason. By hand:
//!
//! ```text
//! KAFKA_PORT=32092 KAFKA_CONTROLLER_PORT=32093 tests/services/kafka.sh start
//! KARROW_TEST_KAFKA_BOOTSTRAP=127.0.0.1:32092 cargo test -p karrow-kafka --test fetch_epochs_broker
//! ```

mod support;

use std::time::{Duration, Instant};

use karrow_kafka::fetch::FetchLimits;
use karrow_kafka::produce::{Producer, ProducerConfig};
use karrow_kafka::records::RecordRef;
use karrow_kafka::{FetchSession, Isolation, Polled};
use support::{bootstrap, create_topic};

fn produce(bootstrap: &str, topic: &str, partition: i32, count: usize) {
    let mut producer = Producer::open(ProducerConfig {
        bootstrap: vec![bootstrap.to_string()],
        ..ProducerConfig::default()
    })
    .expect("producer");
    for i in 0..count {
        let v = format!("v{i}");
        let record = RecordRef {
            key: None,
            value: Some(v.as_bytes()),
            timestamp: 1_700_000_000_000,
            header_count: 0,
            headers: &[],
        };
        producer.append(topic, partition, &record).expect("append");
    }
    producer.flush().expect("flush");
}

/// Polls until `want` records arrived (60 s at most); every poll must be free of an epoch
/// error, a truncation and a leader lookup. Returns the records' leader epochs.
fn read(session: &mut FetchSession, want: usize) -> Vec<i32> {
    let mut epochs = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while epochs.len() < want && Instant::now() < deadline {
        let polled: Polled = session
            .poll(|_, r| -> Result<(), ()> {
                epochs.push(r.leader_epoch);
                Ok(())
            })
            .expect("fetch")
            .expect("no callback error");
        assert!(
            polled.truncated.is_empty() && polled.stale_metadata.is_empty(),
            "{polled:?}"
        );
        assert!(
            polled
                .retried
                .iter()
                .all(|&(_, code)| code != 74 && code != 75),
            "an epoch error: {polled:?}"
        );
    }
    epochs
}

#[test]
fn leader_epochs_are_sent_and_accepted_by_a_real_broker() {
    let Some(bootstrap) = bootstrap() else { return };
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_nanos();
    let topic = format!("karrow-epochs-{nanos}");
    create_topic(&bootstrap, &topic, 2);
    produce(&bootstrap, &topic, 1, 50);
    let mut session = FetchSession::new(
        "karrow-test",
        Isolation::ReadUncommitted,
        FetchLimits {
            max_wait_ms: 100,
            ..FetchLimits::default()
        },
    );
    session.assign(0, &topic, 0, &bootstrap, 0, i64::MAX);
    session.assign(1, &topic, 1, &bootstrap, 0, i64::MAX);
    let epochs = read(&mut session, 50);
    assert_eq!(epochs.len(), 50);
    let (current, last) = session.epochs(1).expect("assigned");
    assert!(
        current >= 0,
        "the leader epoch comes from Metadata: {current}"
    );
    assert_eq!(last, epochs[49], "the last batch's epoch is the position's");
    assert!(
        epochs.iter().all(|&e| e == current),
        "{epochs:?} vs {current}"
    );
    // The empty partition: its epoch known, no batch fetched yet.
    assert_eq!(session.epochs(0), Some((current, -1)));
    // Fetched again with both epochs set: accepted, and what is produced next arrives.
    produce(&bootstrap, &topic, 1, 5);
    assert_eq!(read(&mut session, 5).len(), 5);
    assert_eq!(session.next_offset(1), Some(55));
}
