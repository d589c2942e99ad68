//! The producer's error paths and transaction flows against the loopback broker of
//! [`super::test_broker`].

use std::time::{Duration, Instant};

use super::test_broker::{self, Batch, Script};
use super::{Coordinator, ProduceError, Producer, ProducerConfig, ProducerIdAndEpoch};
use crate::records::RecordRef;

fn config(broker: &str) -> ProducerConfig {
    ProducerConfig {
        bootstrap: vec![broker.to_string()],
        retry_backoff: Duration::from_millis(1),
        retry_backoff_max: Duration::from_millis(5),
        delivery_timeout: Duration::from_secs(20),
        max_block: Duration::from_secs(5),
        ..ProducerConfig::default()
    }
}

fn producer(broker: &str) -> Producer {
    Producer::open(config(broker)).unwrap()
}

fn transactional(broker: &str, id: &str) -> Producer {
    Producer::open(ProducerConfig {
        transactional_id: Some(id.to_string()),
        ..config(broker)
    })
    .unwrap()
}

fn send_to(p: &mut Producer, partition: i32, n: usize) {
    for i in 0..n {
        let value = format!("v{i}");
        p.append(
            "t",
            partition,
            &RecordRef {
                key: None,
                value: Some(value.as_bytes()),
                timestamp: 1,
                header_count: 0,
                headers: &[],
            },
        )
        .unwrap();
    }
}

fn send(p: &mut Producer, n: usize) {
    send_to(p, 0, n);
}

/// (producer id, epoch, base sequence, count) of each batch.
fn stamps(batches: &[Batch]) -> Vec<(i64, i16, i32, i32)> {
    batches
        .iter()
        .map(|b| (b.producer_id, b.epoch, b.base_sequence, b.count))
        .collect()
}

#[test]
fn a_retriable_error_resends_the_same_batch_with_the_same_sequence() {
    // NOT_LEADER_OR_FOLLOWER, then NOT_ENOUGH_REPLICAS, then accepted.
    let (broker, seen) = test_broker::start(Script {
        produce_errors: vec![6, 19],
        ..Script::default()
    });
    let mut p = producer(&broker);
    send(&mut p, 3);
    p.flush().unwrap();
    assert_eq!(p.acknowledged(), 3);
    assert_eq!(
        stamps(&seen.lock().unwrap().batches),
        vec![(7, 0, 0, 3); 3],
        "three attempts, one batch"
    );
    send(&mut p, 2);
    p.flush().unwrap();
}

#[test]
fn a_duplicate_sequence_is_a_success_not_a_second_copy() {
    let (broker, seen) = test_broker::start(Script {
        produce_errors: vec![46],
        ..Script::default()
    });
    let mut p = producer(&broker);
    send(&mut p, 2);
    p.flush().unwrap();
    send(&mut p, 1);
    p.flush().unwrap();
    assert_eq!(p.acknowledged(), 3);
    // The next batch continues the sequence after the duplicate one.
    assert_eq!(
        stamps(&seen.lock().unwrap().batches),
        vec![(7, 0, 0, 2), (7, 0, 2, 1)]
    );
}

#[test]
fn an_unknown_producer_id_bumps_the_epoch_and_restarts_the_sequence() {
    let (broker, seen) = test_broker::start(Script {
        produce_errors: vec![0, 59],
        ..Script::default()
    });
    let mut p = producer(&broker);
    send(&mut p, 2);
    p.flush().unwrap();
    send(&mut p, 3);
    p.flush().unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.init_with,
        vec![(None, -1, -1), (None, 7, 0)],
        "KIP-360: the current id and epoch"
    );
    assert_eq!(
        stamps(&seen.batches),
        vec![(7, 0, 0, 2), (7, 0, 2, 3), (7, 1, 0, 3)]
    );
    assert_eq!(p.producer_id_and_epoch(), (7, 1));
}

#[test]
fn an_error_that_is_not_retried_fails_the_producer_naming_the_partition() {
    // TOPIC_AUTHORIZATION_FAILED.
    let (broker, _) = test_broker::start(Script {
        produce_errors: vec![29],
        ..Script::default()
    });
    let mut p = producer(&broker);
    send(&mut p, 1);
    let e = p.flush().unwrap_err().to_string();
    assert!(
        e.contains("t-0") && e.contains("TOPIC_AUTHORIZATION_FAILED"),
        "{e}"
    );
    // Every later call returns the same failure.
    assert_eq!(p.poll().unwrap_err().to_string(), e);
}

/// Protocol 1: every partition is added with AddPartitionsToTxn (once, before its first
/// batch), Produce stays at v11 with the transactional id, batches carry the transactional
/// flag, EndTxn v4 keeps the epoch, and the next transaction continues the sequences.
#[test]
fn protocol_1_adds_partitions_before_producing_and_keeps_the_epoch() {
    let (broker, seen) = test_broker::start(Script {
        partitions: 2,
        tv: 1,
        ..Script::default()
    });
    let mut p = transactional(&broker, "tx-0");
    let ids = p.init_transactions().unwrap();
    assert_eq!(
        ids,
        ProducerIdAndEpoch {
            producer_id: 7,
            epoch: 0
        }
    );
    assert_eq!(p.transaction_version(), 1);
    p.begin_transaction().unwrap();
    assert!(!p.has_records_in_transaction());
    send_to(&mut p, 0, 2);
    send_to(&mut p, 1, 1);
    assert!(p.has_records_in_transaction());
    p.flush().unwrap();
    send_to(&mut p, 0, 1);
    p.commit_transaction().unwrap();
    assert!(!p.in_transaction());
    p.begin_transaction().unwrap();
    send_to(&mut p, 0, 1);
    p.commit_transaction().unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.init_with, vec![(Some("tx-0".into()), -1, -1)]);
    assert_eq!(seen.added, vec![(7, 0, vec![0, 1]), (7, 0, vec![0])]);
    assert_eq!(seen.ended, vec![(4, 7, 0, true), (4, 7, 0, true)]);
    assert!(seen.batches.iter().all(|b| b.version == 11
        && b.transactional
        && b.transactional_id.as_deref() == Some("tx-0")));
    let by_partition: Vec<(i32, i32, i32)> = seen
        .batches
        .iter()
        .map(|b| (b.partition, b.base_sequence, b.count))
        .collect();
    assert!(by_partition.contains(&(0, 0, 2)) && by_partition.contains(&(1, 0, 1)));
    assert!(by_partition.contains(&(0, 2, 1)) && by_partition.contains(&(0, 3, 1)));
    // Each AddPartitionsToTxn came before the first Produce of its partitions.
    let first_add = seen.keys.iter().position(|&k| k == 24).unwrap();
    let first_produce = seen.keys.iter().position(|&k| k == 0).unwrap();
    assert!(first_add < first_produce, "{:?}", seen.keys);
}

/// Protocol 2: no AddPartitionsToTxn, Produce v12, EndTxn v5 whose answered epoch the next
/// transaction writes with, sequences restarting at 0.
#[test]
fn protocol_2_adds_partitions_implicitly_and_bumps_the_epoch_per_transaction() {
    let (broker, seen) = test_broker::start(Script {
        tv: 2,
        ..Script::default()
    });
    let mut p = transactional(&broker, "tx-1");
    p.init_transactions().unwrap();
    assert_eq!(p.transaction_version(), 2);
    for _ in 0..2 {
        p.begin_transaction().unwrap();
        send(&mut p, 3);
        p.commit_transaction().unwrap();
    }
    // An empty transaction sends nothing.
    p.begin_transaction().unwrap();
    p.commit_transaction().unwrap();
    let seen = seen.lock().unwrap();
    assert!(!seen.keys.contains(&24), "{:?}", seen.keys);
    assert_eq!(seen.ended, vec![(5, 7, 0, true), (5, 7, 1, true)]);
    assert_eq!(stamps(&seen.batches), vec![(7, 0, 0, 3), (7, 1, 0, 3)]);
    assert!(seen
        .batches
        .iter()
        .all(|b| b.version == 12 && b.transactional));
    assert_eq!(p.producer_id_and_epoch(), (7, 2));
}

/// An abort drops what was not sent, sends EndTxn (abort), and the producer goes on.
#[test]
fn an_abort_drops_unsent_batches_and_ends_the_transaction() {
    let (broker, seen) = test_broker::start(Script::default());
    let mut p = transactional(&broker, "tx-2");
    p.init_transactions().unwrap();
    p.begin_transaction().unwrap();
    send(&mut p, 5);
    p.abort_transaction().unwrap();
    assert_eq!(p.buffered_bytes(), 0);
    p.begin_transaction().unwrap();
    send(&mut p, 1);
    p.commit_transaction().unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.ended, vec![(5, 7, 0, false), (5, 7, 1, true)]);
    assert_eq!(
        stamps(&seen.batches),
        vec![(7, 1, 0, 1)],
        "the aborted records were never sent"
    );
}

/// Sending outside a transaction, or committing without one, is refused with a clear error.
#[test]
fn a_transactional_producer_refuses_sends_outside_a_transaction() {
    let (broker, _) = test_broker::start(Script::default());
    let mut p = transactional(&broker, "tx-3");
    let record = RecordRef {
        key: None,
        value: Some(b"v"),
        timestamp: 1,
        header_count: 0,
        headers: &[],
    };
    assert!(p
        .begin_transaction()
        .unwrap_err()
        .to_string()
        .contains("initTransactions"));
    p.init_transactions().unwrap();
    let e = p.append("t", 0, &record).unwrap_err().to_string();
    assert!(e.contains("outside a transaction"), "{e}");
    assert!(p.commit_transaction().is_err());
}

/// Switching the transactional id gets the new id's producer id and epoch, and the sequences
/// restart.
#[test]
fn a_new_transactional_id_initializes_afresh() {
    let (broker, seen) = test_broker::start(Script::default());
    let mut p = transactional(&broker, "tx-a");
    p.init_transactions().unwrap();
    p.begin_transaction().unwrap();
    send(&mut p, 2);
    p.flush().unwrap();
    assert!(
        p.set_transactional_id("tx-b").is_err(),
        "a transaction is open"
    );
    p.commit_transaction().unwrap();
    p.set_transactional_id("tx-b").unwrap();
    assert_eq!(p.transactional_id(), Some("tx-b"));
    p.init_transactions().unwrap();
    p.begin_transaction().unwrap();
    send(&mut p, 1);
    p.commit_transaction().unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.init_with,
        vec![(Some("tx-a".into()), -1, -1), (Some("tx-b".into()), -1, -1)]
    );
    assert_eq!(stamps(&seen.batches), vec![(7, 0, 0, 2), (7, 0, 0, 1)]);
}

/// In a transaction a lost producer id fails the producer (the transaction must be aborted)
/// instead of bumping the epoch; the abort clears the failure.
#[test]
fn an_unknown_producer_id_in_a_transaction_needs_an_abort() {
    let (broker, seen) = test_broker::start(Script {
        produce_errors: vec![59],
        ..Script::default()
    });
    let mut p = transactional(&broker, "tx-4");
    p.init_transactions().unwrap();
    p.begin_transaction().unwrap();
    send(&mut p, 1);
    let e = p.flush().unwrap_err().to_string();
    assert!(
        e.contains("UNKNOWN_PRODUCER_ID") && e.contains("aborted"),
        "{e}"
    );
    p.abort_transaction().unwrap();
    assert_eq!(seen.lock().unwrap().init_with.len(), 1, "no epoch bump");
}

/// The committer's path: EndTxn with a stored transactional id, producer id and epoch, no
/// producer; fencing errors come back with their code, retriable ones are retried.
#[test]
fn a_committer_ends_a_transaction_from_its_ids_alone() {
    // CONCURRENT_TRANSACTIONS (retried), then success; then PRODUCER_FENCED.
    let (broker, seen) = test_broker::start(Script {
        end_errors: vec![51, 0, 90],
        ..Script::default()
    });
    let mut c = Coordinator::new(
        "tx-5",
        vec![broker],
        crate::connection::ConnectionConfig::default(),
        Duration::from_millis(1),
        Duration::from_secs(5),
    );
    let ids = ProducerIdAndEpoch {
        producer_id: 7,
        epoch: 3,
    };
    let ended = c.end_transaction(ids, true, 2).unwrap();
    assert_eq!(
        ended.next,
        Some(ProducerIdAndEpoch {
            producer_id: 7,
            epoch: 4
        })
    );
    let e = c.end_transaction(ids, true, 1).unwrap_err();
    assert_eq!(e.kafka_code(), 90, "{e}");
    assert!(matches!(e, ProduceError::Transaction { .. }));
    assert_eq!(
        seen.lock().unwrap().ended,
        vec![(5, 7, 3, true), (5, 7, 3, true), (4, 7, 3, true)]
    );
}

/// A batch the broker refuses as too large is split in halves until each part fits; every
/// record arrives once, in order, with continuous sequences.
#[test]
fn a_batch_refused_as_too_large_is_split() {
    let (broker, seen) = test_broker::start(Script {
        max_records: Some(2),
        ..Script::default()
    });
    let mut p = producer(&broker);
    send(&mut p, 7);
    p.flush().unwrap();
    assert_eq!(p.acknowledged(), 7);
    assert!(p.splits() >= 2);
    let seen = seen.lock().unwrap();
    let accepted: Vec<(i32, i32)> = seen
        .batches
        .iter()
        .filter(|b| b.count <= 2)
        .map(|b| (b.base_sequence, b.count))
        .collect();
    let mut next = 0;
    for (sequence, count) in accepted {
        assert_eq!(sequence, next, "{:?}", seen.batches);
        next += count;
    }
    assert_eq!(next, 7);
}

/// A single record the broker refuses as too large fails with MESSAGE_TOO_LARGE.
#[test]
fn a_single_record_too_large_fails() {
    let (broker, _) = test_broker::start(Script {
        max_records: Some(0),
        ..Script::default()
    });
    let mut p = producer(&broker);
    send(&mut p, 1);
    let e = p.flush().unwrap_err().to_string();
    assert!(e.contains("MESSAGE_TOO_LARGE"), "{e}");
}

/// A broker that never acknowledges: appends stop at `buffer.memory` and fail after
/// `max.block.ms` instead of queueing without bound.
#[test]
fn buffer_memory_bounds_what_a_slow_broker_makes_the_producer_keep() {
    let (broker, _) = test_broker::start(Script {
        silent: true,
        ..Script::default()
    });
    let mut p = Producer::open(ProducerConfig {
        buffer_memory: 64 * 1024,
        batch_size: 4096,
        max_block: Duration::from_millis(300),
        ..config(&broker)
    })
    .unwrap();
    let value = vec![b'x'; 1000];
    let started = Instant::now();
    let mut error = None;
    for _ in 0..1000 {
        let r = p.append(
            "t",
            0,
            &RecordRef {
                key: None,
                value: Some(&value),
                timestamp: 1,
                header_count: 0,
                headers: &[],
            },
        );
        assert!(p.buffered_bytes() <= 64 * 1024, "{}", p.buffered_bytes());
        if let Err(e) = r {
            error = Some(e);
            break;
        }
    }
    let e = error.expect("an append fails").to_string();
    assert!(
        e.contains("Failed to allocate") && e.contains("300 ms"),
        "{e}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// A throttle time in a response holds back the next request to that broker until it has
/// passed.
#[test]
fn a_throttled_broker_gets_no_request_before_its_throttle_time() {
    let (broker, seen) = test_broker::start(Script {
        throttle_ms: 300,
        ..Script::default()
    });
    let mut p = producer(&broker);
    send(&mut p, 1);
    p.flush().unwrap();
    let started = Instant::now();
    send(&mut p, 1);
    p.flush().unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(250),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(seen.lock().unwrap().batches.len(), 2);
}

/// Pre-commit flushes and hands the transaction over without EndTxn; the producer needs a new
/// initialization before its next transaction; a committer ends the handed-over one.
#[test]
fn a_precommitted_transaction_is_handed_over_not_ended() {
    let (broker, seen) = test_broker::start(Script::default());
    let mut p = transactional(&broker, "tx-6");
    p.init_transactions().unwrap();
    p.begin_transaction().unwrap();
    send(&mut p, 4);
    let ids = p.precommit_transaction().unwrap();
    assert_eq!(
        ids,
        ProducerIdAndEpoch {
            producer_id: 7,
            epoch: 0
        }
    );
    assert!(!p.in_transaction());
    assert!(p.begin_transaction().is_err(), "initialize first");
    assert!(seen.lock().unwrap().ended.is_empty());
    p.set_transactional_id("tx-7").unwrap();
    p.init_transactions().unwrap();
    p.begin_transaction().unwrap();
    let mut c = Coordinator::new(
        "tx-6",
        vec![broker],
        crate::connection::ConnectionConfig::default(),
        Duration::from_millis(1),
        Duration::from_secs(5),
    );
    c.end_transaction(ids, true, 2).unwrap();
    assert_eq!(seen.lock().unwrap().ended, vec![(5, 7, 0, true)]);
}

#[test]
fn the_first_batch_of_an_epoch_is_alone_in_flight() {
    // Sequence 0 fails (NOT_LEADER_OR_FOLLOWER, as a partition of a topic just created
    // answers): batch 1 must not have been sent behind it (a broker with no state for the
    // producer would append it first, and sequence 0 could not follow), so the broker sees
    // sequence 0 twice and then sequence 1. The first answer waits long enough for batch 1 to
    // be pipelined behind it if the producer would.
    let (broker, seen) = test_broker::start(Script {
        produce_errors: vec![6],
        first_produce_delay: Duration::from_millis(300),
        ..Script::default()
    });
    let mut p = Producer::open(ProducerConfig {
        batch_size: 1,
        ..config(&broker)
    })
    .unwrap();
    send(&mut p, 2);
    p.flush().unwrap();
    assert_eq!(p.acknowledged(), 2);
    assert_eq!(
        stamps(&seen.lock().unwrap().batches),
        vec![(7, 0, 0, 1), (7, 0, 0, 1), (7, 0, 1, 1)]
    );
}

#[test]
fn a_batch_acknowledged_behind_a_failed_one_is_never_sent_again() {
    // Batch 0 is acknowledged. Batch 1 then fails (NOT_LEADER_OR_FOLLOWER) while batch 2,
    // pipelined behind it, is appended (as a broker that lost this producer's state since
    // batch 0 does: it accepts any first sequence); batch 1's retry is then out of order.
    // Batch 2 must not go out again (under a bumped epoch it would be appended twice): the
    // producer fails, naming the reason.
    let (broker, seen) = test_broker::start(Script {
        produce_errors: vec![0, 6, 0, 45],
        held_produces: 1..3,
        ..Script::default()
    });
    let mut p = Producer::open(ProducerConfig {
        batch_size: 1,
        ..config(&broker)
    })
    .unwrap();
    // One record per batch, each sent as it closes; the broker answers neither of batches 1
    // and 2 before it has read both, so batch 2 is in flight behind batch 1 whatever the
    // timing.
    send(&mut p, 3);
    let e = p.flush().unwrap_err().to_string();
    assert!(e.contains("OUT_OF_ORDER_SEQUENCE_NUMBER"), "{e}");
    assert!(e.contains("later batches"), "{e}");
    assert_eq!(
        stamps(&seen.lock().unwrap().batches),
        vec![(7, 0, 0, 1), (7, 0, 1, 1), (7, 0, 2, 1), (7, 0, 1, 1)],
        "batch 2 sent once"
    );
}

/// Epoch exhaustion under protocol 2: the EndTxn of a transaction at epoch `Short.MAX_VALUE - 1`
/// is answered with a new producer id at epoch 0, which the next transaction writes with, its
/// sequences restarting at 0 (Kafka's `EndTxnHandler` adopts the answered id and epoch).
#[test]
fn an_exhausted_epoch_continues_with_the_producer_id_end_txn_answers() {
    let (broker, seen) = test_broker::start(Script {
        tv: 2,
        first_epoch: i16::MAX - 1,
        ..Script::default()
    });
    let mut p = transactional(&broker, "tx-exhausted-2");
    let first = p.init_transactions().unwrap();
    assert_eq!((first.producer_id, first.epoch), (7, i16::MAX - 1));
    p.begin_transaction().unwrap();
    send(&mut p, 3);
    p.commit_transaction().unwrap();
    assert_eq!(p.producer_id_and_epoch(), (8, 0), "the new producer id");
    p.begin_transaction().unwrap();
    send(&mut p, 2);
    p.commit_transaction().unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(
        stamps(&seen.batches),
        vec![(7, i16::MAX - 1, 0, 3), (8, 0, 0, 2)]
    );
    assert_eq!(
        seen.ended,
        vec![(5, 7, i16::MAX - 1, true), (5, 8, 0, true)]
    );
}

/// "Fails, then recovers" under protocol 1: a batch refused with an error that is not retried
/// (INVALID_RECORD) fails the transaction; the abort sends EndTxn, then InitProducerId with the
/// current id and epoch (the broker's last sequence is no longer known), and the next
/// transaction writes with the bumped epoch from sequence 0, as Kafka's producer does after an
/// abortable error. Without the bump it would go on at sequence 1, which a real broker refuses
/// as out of order.
#[test]
fn protocol_1_bumps_the_epoch_after_aborting_a_failed_transaction() {
    let (broker, seen) = test_broker::start(Script {
        tv: 1,
        produce_errors: vec![87],
        ..Script::default()
    });
    let mut p = transactional(&broker, "tx-recovers-1");
    p.init_transactions().unwrap();
    p.begin_transaction().unwrap();
    send(&mut p, 1);
    let e = p.flush().unwrap_err().to_string();
    assert!(e.contains("INVALID_RECORD"), "{e}");
    p.abort_transaction().unwrap();
    p.begin_transaction().unwrap();
    send(&mut p, 2);
    p.commit_transaction().unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.init_with,
        vec![
            (Some("tx-recovers-1".into()), -1, -1),
            (Some("tx-recovers-1".into()), 7, 0)
        ]
    );
    assert_eq!(seen.ended, vec![(4, 7, 0, false), (4, 7, 1, true)]);
    assert_eq!(stamps(&seen.batches), vec![(7, 0, 0, 1), (7, 1, 0, 2)]);
}

/// Epoch exhaustion under protocol 1: the epoch bump after an abort, asked at epoch
/// `Short.MAX_VALUE - 1`, answers a new producer id at epoch 0; the producer writes with it.
#[test]
fn protocol_1_takes_the_new_producer_id_of_an_exhausted_epoch() {
    let (broker, seen) = test_broker::start(Script {
        tv: 1,
        first_epoch: i16::MAX - 1,
        produce_errors: vec![87],
        ..Script::default()
    });
    let mut p = transactional(&broker, "tx-exhausted-1");
    p.init_transactions().unwrap();
    p.begin_transaction().unwrap();
    send(&mut p, 1);
    p.flush().unwrap_err();
    p.abort_transaction().unwrap();
    assert_eq!(p.producer_id_and_epoch(), (8, 0));
    p.begin_transaction().unwrap();
    send(&mut p, 1);
    p.commit_transaction().unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(
        stamps(&seen.batches),
        vec![(7, i16::MAX - 1, 0, 1), (8, 0, 0, 1)]
    );
    assert_eq!(seen.ended.last(), Some(&(4, 8, 0, true)));
}

/// An abort drops batches that were numbered but never sent; their sequence numbers are given
/// back, so the next transaction (protocol 1 keeps the epoch) continues right after the last
/// batch the broker has. The first answer is held so that the later batches wait behind it.
#[test]
fn an_abort_gives_back_the_sequences_of_batches_never_sent() {
    let (broker, seen) = test_broker::start(Script {
        tv: 1,
        first_produce_delay: Duration::from_millis(300),
        ..Script::default()
    });
    let mut p = Producer::open(ProducerConfig {
        transactional_id: Some("tx-unsent".into()),
        batch_size: 1,
        ..config(&broker)
    })
    .unwrap();
    p.init_transactions().unwrap();
    p.begin_transaction().unwrap();
    send(&mut p, 3);
    p.abort_transaction().unwrap();
    p.begin_transaction().unwrap();
    send(&mut p, 1);
    p.commit_transaction().unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(
        stamps(&seen.batches),
        vec![(7, 0, 0, 1), (7, 0, 1, 1)],
        "batches 1 and 2 were never sent; the next transaction's batch is sequence 1"
    );
    assert_eq!(seen.init_with.len(), 1, "nothing was lost: no epoch bump");
}

/// The coordinator's retriable answers are retried whatever the error (REQUEST_TIMED_OUT: its
/// log append timed out), as every handler of Kafka's TransactionManager does.
#[test]
fn a_retriable_coordinator_error_is_retried() {
    let (broker, seen) = test_broker::start(Script {
        end_errors: vec![7, 19],
        ..Script::default()
    });
    let mut c = Coordinator::new(
        "tx-retried",
        vec![broker],
        crate::connection::ConnectionConfig::default(),
        Duration::from_millis(1),
        Duration::from_secs(5),
    );
    let ids = ProducerIdAndEpoch {
        producer_id: 7,
        epoch: 0,
    };
    c.end_transaction(ids, true, 2).unwrap();
    assert_eq!(seen.lock().unwrap().ended.len(), 3);
}

/// A transaction the broker ended behind the producer's back (the coordinator aborts one open
/// longer than `transaction.timeout.ms`, bumping the epoch): the fencing answer of a partition
/// leader, and that of the coordinator to the commit, fail the producer naming the timeout as
/// the likely cause.
#[test]
fn a_fenced_transaction_names_the_transaction_timeout() {
    let (broker, _) = test_broker::start(Script {
        produce_errors: vec![47],
        ..Script::default()
    });
    let mut p = Producer::open(ProducerConfig {
        transactional_id: Some("tx-timed-out".into()),
        transaction_timeout: Duration::from_millis(1500),
        ..config(&broker)
    })
    .unwrap();
    p.init_transactions().unwrap();
    p.begin_transaction().unwrap();
    send(&mut p, 1);
    let e = p.flush().unwrap_err();
    assert_eq!(e.kafka_code(), 47);
    let e = e.to_string();
    assert!(
        e.contains("INVALID_PRODUCER_EPOCH") && e.contains("transaction.timeout.ms (1500 ms)"),
        "{e}"
    );

    let (broker, _) = test_broker::start(Script {
        tv: 1,
        end_errors: vec![90],
        ..Script::default()
    });
    let mut p = transactional(&broker, "tx-timed-out-1");
    p.init_transactions().unwrap();
    p.begin_transaction().unwrap();
    send(&mut p, 1);
    let e = p.commit_transaction().unwrap_err().to_string();
    assert!(
        e.contains("EndTxn (commit)")
            && e.contains("PRODUCER_FENCED")
            && e.contains("transaction.timeout.ms (60000 ms)"),
        "{e}"
    );
}

/// A record larger than `max.request.size`, refused on append inside a transaction, leaves the
/// transaction abortable, as Kafka's producer does (`KafkaProducer.doSend` hands the
/// `RecordTooLargeException` to `maybeTransitionToErrorState`): the record is not in the
/// transaction, so the next append, a flush, the pre-commit and the commit all fail with that
/// error until the transaction is aborted. The abort bumps the epoch (protocol 1: InitProducerId
/// with the current id and epoch, Kafka's `clientSideEpochBumpRequired`; protocol 2: its EndTxn);
/// none of the refused transaction's records is ever sent, and the next transaction commits.
#[test]
fn a_record_too_large_on_append_makes_the_transaction_abortable() {
    for tv in [1, 2] {
        let (broker, seen) = test_broker::start(Script {
            tv,
            ..Script::default()
        });
        let mut p = Producer::open(ProducerConfig {
            transactional_id: Some(format!("tx-too-large-{tv}")),
            max_request_size: 1024,
            ..config(&broker)
        })
        .unwrap();
        p.init_transactions().unwrap();
        p.begin_transaction().unwrap();
        send(&mut p, 2);
        let append = |p: &mut Producer, value: &[u8]| {
            p.append(
                "t",
                0,
                &RecordRef {
                    key: None,
                    value: Some(value),
                    timestamp: 1,
                    header_count: 0,
                    headers: &[],
                },
            )
        };
        let e = append(&mut p, &[b'x'; 2048]).unwrap_err();
        assert!(
            matches!(e, ProduceError::RecordTooLarge { limit: 1024, .. }),
            "tv{tv}: {e}"
        );
        assert_eq!(append(&mut p, b"small").unwrap_err(), e, "tv{tv}: append");
        assert_eq!(p.flush().unwrap_err(), e, "tv{tv}: flush");
        assert_eq!(p.commit_transaction().unwrap_err(), e, "tv{tv}: commit");
        assert_eq!(
            p.precommit_transaction().unwrap_err(),
            e,
            "tv{tv}: pre-commit"
        );
        assert!(p.in_transaction(), "tv{tv}: still to be aborted");
        p.abort_transaction().unwrap();
        p.begin_transaction().unwrap();
        send(&mut p, 1);
        p.commit_transaction().unwrap();
        let seen = seen.lock().unwrap();
        let id = Some(format!("tx-too-large-{tv}"));
        if tv == 1 {
            assert_eq!(
                seen.init_with,
                vec![(id.clone(), -1, -1), (id, 7, 0)],
                "protocol 1: the abort bumps the epoch"
            );
            assert_eq!(stamps(&seen.batches), vec![(7, 1, 0, 1)]);
            assert_eq!(seen.ended, vec![(4, 7, 1, true)]);
        } else {
            // Protocol 2: the partition joined with the first append; the abort's EndTxn bumps
            // the epoch.
            assert_eq!(seen.init_with, vec![(id, -1, -1)]);
            assert_eq!(stamps(&seen.batches), vec![(7, 1, 0, 1)]);
            assert_eq!(seen.ended, vec![(5, 7, 0, false), (5, 7, 1, true)]);
        }
    }
}

/// The producer's side of a broker killed mid produce (`kafka/tests/broker_restart.rs`): the broker
/// reads batch 1 (appending it, as far as the producer can know) and the connection dies before it
/// answers. The batch is sent again on a new connection with the very same producer id, epoch and
/// sequence, and the batch behind it keeps its own: what lets a broker that kept this producer's
/// state answer the copy as a duplicate. No epoch bump, no new sequence (either would make a
/// restarted broker append the batch twice). A restarted broker that no longer knows the producer
/// (its records older than `producer.id.expiration.ms`) appends the copy anyway, for Kafka's Java
/// producer too: see `docs/architecture.md`, "Idempotence across broker restarts".
#[test]
fn a_batch_whose_answer_died_with_the_connection_is_sent_again_with_the_same_stamp() {
    let (broker, seen) = test_broker::start(Script {
        close_at_produce: Some(1),
        ..Script::default()
    });
    let mut p = Producer::open(ProducerConfig {
        batch_size: 1,
        ..config(&broker)
    })
    .unwrap();
    send(&mut p, 3);
    p.flush().unwrap();
    assert_eq!(p.acknowledged(), 3);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.init_with, vec![(None, -1, -1)], "no epoch bump");
    assert_eq!(
        stamps(&seen.batches),
        vec![(7, 0, 0, 1), (7, 0, 1, 1), (7, 0, 1, 1), (7, 0, 2, 1)],
        "batch 1 again with its own stamp, then batch 2"
    );
    assert_eq!(p.producer_id_and_epoch(), (7, 0));
}
