//! The native fetch against a real three-node KRaft cluster (issue #21): topics with
//! replication factor 3, leaders moved while the reader reads (a reassignment followed by a
//! preferred-leader election, a node killed, the node started again and made leader again),
//! and `client.rack` (KIP-392) with the brokers' `RackAwareReplicaSelector`. What must hold,
//! as for Kafka's Java consumer: every record delivered exactly once and in offset order per
//! partition, no poll failing, and the fetch following the leader (NOT_LEADER_OR_FOLLOWER,
//! FENCED_LEADER_EPOCH, a metadata refresh) and the preferred read replica.
//!
//! The leader lookup that the Java side does for the native reader (`leader_changed`, after a
//! broker could not be reached) is done here the way `NativeFetchSplitReader` does it: the
//! cluster's metadata, asked of a broker that answers.
//!
//! These tests kill and restart nodes, so they run only on a cluster of their own
//! (`make test-kafka-cluster`, 2 to 4 minutes, not part of `make test`):
//!
//! ```text
//! KAFKA_CLUSTER_PORT=32092 tests/services/kafka-cluster.sh start
//! KARROW_TEST_KAFKA_CLUSTER_PORT=32092 cargo test -p karrow-kafka --test cluster_broker \
//!   -- --test-threads=1
//! KAFKA_CLUSTER_PORT=32092 tests/services/kafka-cluster.sh stop
//! ```

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use karrow_kafka::connection::ConnectionConfig;
use karrow_kafka::fetch::leaders::{leader_update, lookup, LeaderUpdate};
use karrow_kafka::fetch::FetchLimits;
use karrow_kafka::produce::{Producer, ProducerConfig};
use karrow_kafka::records::RecordRef;
use karrow_kafka::{FetchSession, Isolation};

/// The cluster's first port (`KAFKA_CLUSTER_PORT` of `tests/services/kafka-cluster.sh`).
const PORT_VAR: &str = "KARROW_TEST_KAFKA_CLUSTER_PORT";

/// How long one test may take at most (a loaded 2-core machine starts a node in ~10 s).
const PATIENCE: Duration = Duration::from_secs(300);

struct Cluster {
    port: u16,
}

impl Cluster {
    /// The cluster `PORT_VAR` names, or `None` (skipped, with the reason printed).
    fn from_env() -> Option<Cluster> {
        match std::env::var(PORT_VAR).ok().and_then(|p| p.parse().ok()) {
            Some(port) => Some(Cluster { port }),
            None => {
                eprintln!("skipped: {PORT_VAR} is not set (see this file's header)");
                None
            }
        }
    }

    /// `host:port` of node `n` (1..=3).
    fn node(&self, n: i32) -> String {
        format!("127.0.0.1:{}", i32::from(self.port) + 2 * (n - 1))
    }

    fn nodes(&self) -> Vec<String> {
        (1..=3).map(|n| self.node(n)).collect()
    }

    /// `tests/services/kafka-cluster.sh ARGS` (at most 180 s).
    fn sh(&self, args: &[&str]) -> Output {
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/services/kafka-cluster.sh");
        let out = Command::new("timeout")
            .arg("180")
            .arg("bash")
            .arg(script)
            .args(args)
            .env("KAFKA_CLUSTER_PORT", self.port.to_string())
            .output()
            .expect("kafka-cluster.sh runs");
        assert!(
            out.status.success(),
            "kafka-cluster.sh {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// A Kafka tool of the broker classpath, against any node.
    fn tool(&self, class: &str, args: &[&str]) -> Output {
        let bootstrap = self.nodes().join(",");
        let mut all = vec!["run-class", class, "--bootstrap-server", &bootstrap];
        all.extend_from_slice(args);
        self.sh(&all)
    }

    /// Creates `topic` with one partition per entry of `replicas` (broker ids, the first
    /// the preferred leader).
    fn create_topic(&self, topic: &str, replicas: &[[i32; 3]]) {
        let assignment = assignment(replicas);
        self.tool(
            "org.apache.kafka.tools.TopicCommand",
            &[
                "--create",
                "--topic",
                topic,
                "--replica-assignment",
                &assignment,
            ],
        );
    }

    /// Reorders the replicas of `topic`'s partitions (`(partition, replicas)`), which moves
    /// no data, then elects each partition's preferred (first) replica leader.
    fn reassign_and_elect(&self, topic: &str, moves: &[(i32, [i32; 3])]) {
        let partitions: Vec<String> = moves
            .iter()
            .map(|(p, r)| {
                format!(
                    "{{\"topic\":\"{topic}\",\"partition\":{p},\"replicas\":[{},{},{}]}}",
                    r[0], r[1], r[2]
                )
            })
            .collect();
        let file = std::env::temp_dir().join(format!("{topic}-reassign.json"));
        std::fs::write(
            &file,
            format!(
                "{{\"version\":1,\"partitions\":[{}]}}",
                partitions.join(",")
            ),
        )
        .expect("write the reassignment");
        let path = file.to_string_lossy().into_owned();
        self.tool(
            "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
            &["--execute", "--reassignment-json-file", &path],
        );
        let _ = std::fs::remove_file(&file);
        for (p, r) in moves {
            self.elect_preferred(topic, *p, r[0]);
        }
    }

    /// Runs preferred-leader elections for `topic`-`partition` until node `want` leads it
    /// (a node started again is elected once it is back in the ISR).
    fn elect_preferred(&self, topic: &str, partition: i32, want: i32) {
        let deadline = Instant::now() + Duration::from_secs(120);
        let p = partition.to_string();
        loop {
            let bootstrap = self.nodes().join(",");
            let script =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/services/kafka-cluster.sh");
            // Not asserted: an election the ISR does not allow yet fails, and is tried again.
            let _ = Command::new("timeout")
                .args(["120", "bash"])
                .arg(&script)
                .args(["run-class", "org.apache.kafka.tools.LeaderElectionCommand"])
                .args([
                    "--bootstrap-server",
                    &bootstrap,
                    "--election-type",
                    "PREFERRED",
                ])
                .args(["--topic", topic, "--partition", &p])
                .env("KAFKA_CLUSTER_PORT", self.port.to_string())
                .output();
            if self.leader(topic, partition) == Some(self.node(want)) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "node {want} did not become the leader of {topic}-{partition}"
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// The leader of `topic`-`partition` (`host:port`), from the metadata of the first node
    /// that answers (as Kafka's consumer asks any broker it knows).
    fn leader(&self, topic: &str, partition: i32) -> Option<String> {
        let config = ConnectionConfig {
            connect_timeout: Duration::from_secs(2),
            request_timeout: Duration::from_secs(10),
            ..ConnectionConfig::default()
        };
        for node in self.nodes() {
            if let Ok(meta) = lookup(&node, &config, &[topic]) {
                return match leader_update(&meta, topic, partition, -1) {
                    LeaderUpdate::Leader { leader, .. } => Some(leader),
                    _ => None,
                };
            }
        }
        None
    }
}

fn assignment(replicas: &[[i32; 3]]) -> String {
    replicas
        .iter()
        .map(|r| format!("{}:{}:{}", r[0], r[1], r[2]))
        .collect::<Vec<_>>()
        .join(",")
}

fn unique(what: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_nanos();
    format!("karrow-cluster-{what}-{nanos}")
}

fn value(partition: i32, seq: u64) -> Vec<u8> {
    format!("p{partition}-{seq:07}").into_bytes()
}

/// Writes records `from..to` of each of `partitions` (values [`value`]), in small batches
/// so that a fetch returns few records at a time.
fn produce(cluster: &Cluster, topic: &str, partitions: i32, from: u64, to: u64) {
    let mut producer = Producer::open(ProducerConfig {
        bootstrap: cluster.nodes(),
        batch_size: 512,
        ..ProducerConfig::default()
    })
    .expect("producer");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis() as i64;
    for seq in from..to {
        for p in 0..partitions {
            let v = value(p, seq);
            let record = RecordRef {
                key: None,
                value: Some(&v),
                timestamp: now,
                header_count: 0,
                headers: &[],
            };
            producer.append(topic, p, &record).expect("append");
        }
    }
    producer.flush().expect("flush");
}

/// What a reader saw.
#[derive(Default)]
struct ReadBack {
    /// (offset, value) per partition, in delivery order.
    records: HashMap<i32, Vec<(i64, Vec<u8>)>>,
    /// Error codes the session retried (after a metadata refresh where the consumer does).
    retried: BTreeSet<i16>,
    /// Times the Java side's leader lookup was asked for.
    lookups: u64,
}

impl ReadBack {
    fn total(&self) -> u64 {
        self.records.values().map(|v| v.len() as u64).sum()
    }

    /// Every partition holds exactly `expected` records: offsets 0.. contiguous, each value
    /// the one written there.
    fn assert_exact(&self, partitions: i32, expected: u64) {
        for p in 0..partitions {
            let got = self.records.get(&p).map_or(&[][..], Vec::as_slice);
            let first_wrong = got
                .iter()
                .enumerate()
                .find(|(seq, (offset, v))| *offset != *seq as i64 || *v != value(p, *seq as u64));
            assert!(
                first_wrong.is_none(),
                "partition {p}: first record out of place (position, (offset, value)): {:?}",
                first_wrong.map(|(s, (o, v))| (s, o, String::from_utf8_lossy(v).into_owned()))
            );
            assert_eq!(got.len() as u64, expected, "partition {p}");
        }
    }
}

/// Polls `session` (partitions `0..partitions`, slot = partition) until each partition holds
/// `expected` records or `done` says to stop; `progress` counts the records read; `pace` is
/// slept between polls while `slow` is set. No poll may fail. A partition reported as
/// `leader_changed` gets its leader from the cluster's metadata, as the Java side sets it.
#[allow(clippy::too_many_arguments)]
fn read(
    cluster: &Cluster,
    session: &mut FetchSession,
    topic: &str,
    partitions: i32,
    expected: u64,
    back: &mut ReadBack,
    progress: &AtomicU64,
    slow: &AtomicBool,
    pace: Duration,
) {
    let deadline = Instant::now() + PATIENCE;
    while back.total() < expected * partitions as u64 {
        assert!(
            Instant::now() < deadline,
            "{} of {} records after {PATIENCE:?}",
            back.total(),
            expected * partitions as u64
        );
        let records = &mut back.records;
        let polled = session
            .poll(|slot, r| -> Result<(), ()> {
                records
                    .entry(slot)
                    .or_default()
                    .push((r.offset, r.value.map(<[u8]>::to_vec).unwrap_or_default()));
                Ok(())
            })
            .unwrap_or_else(|e| panic!("a poll failed: {e}"))
            .expect("the callback does not fail");
        progress.store(back.total(), Ordering::SeqCst);
        back.retried
            .extend(polled.retried.iter().map(|&(_, code)| code));
        assert!(polled.out_of_range.is_empty(), "{polled:?}");
        assert!(polled.truncated.is_empty(), "{polled:?}");
        for slot in polled.leader_changed {
            back.lookups += 1;
            if let Some(leader) = cluster.leader(topic, slot) {
                session.set_leader(slot, &leader).expect("assigned");
            }
            // As NativeFetchSplitReader: do not ask a moving leader again at once.
            std::thread::sleep(Duration::from_millis(250));
        }
        if slow.load(Ordering::SeqCst) {
            std::thread::sleep(pace);
        }
    }
}

fn limits() -> FetchLimits {
    FetchLimits {
        max_wait_ms: 100,
        // One batch per partition and request (the first batch comes whole).
        partition_max_bytes: 1,
        ..FetchLimits::default()
    }
}

/// Leaders move three ways while the native fetch reads four partitions of a topic with
/// replication factor 3: a reassignment and a preferred-leader election (the old leader
/// answers NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH), a node killed (its connection
/// fails; the new leader is found once the controller has fenced the node), and the node
/// started again and elected leader again. Every record arrives exactly once, in order.
#[test]
fn leaders_move_under_the_native_fetch_and_every_record_arrives_once_in_order() {
    let Some(cluster) = Cluster::from_env() else {
        return;
    };
    let cluster = Arc::new(cluster);
    let topic = unique("moves");
    let partitions = 4;
    cluster.create_topic(&topic, &[[1, 2, 3], [2, 3, 1], [3, 1, 2], [1, 3, 2]]);
    let first = 6_000;
    let second = 1_000;
    produce(&cluster, &topic, partitions, 0, first);

    let progress = Arc::new(AtomicU64::new(0));
    let slow = Arc::new(AtomicBool::new(true));
    let mover = {
        let (cluster, topic, progress, slow) = (
            Arc::clone(&cluster),
            topic.clone(),
            Arc::clone(&progress),
            Arc::clone(&slow),
        );
        std::thread::spawn(move || {
            let wait_for = |records: u64| {
                while progress.load(Ordering::SeqCst) < records {
                    std::thread::sleep(Duration::from_millis(20));
                }
            };
            let quarter = first * partitions as u64 / 4;
            wait_for(quarter / 2);
            // 1. Partitions 0 and 1 get new preferred leaders (2 and 3), elected.
            cluster.reassign_and_elect(&topic, &[(0, [2, 3, 1]), (1, [3, 1, 2])]);
            wait_for(quarter);
            // 2. Node 3 (leading partitions 1 and 2) is killed.
            cluster.sh(&["kill-node", "3"]);
            wait_for(2 * quarter);
            // 3. Node 3 comes back and leads 1 and 2 again once it is in their ISR.
            cluster.sh(&["start-node", "3"]);
            cluster.elect_preferred(&topic, 1, 3);
            cluster.elect_preferred(&topic, 2, 3);
            // 4. More records, on the leaders of now.
            produce(&cluster, &topic, partitions, first, first + second);
            slow.store(false, Ordering::SeqCst);
        })
    };

    let mut session =
        FetchSession::new("karrow-cluster-test", Isolation::ReadUncommitted, limits());
    for p in 0..partitions {
        let leader = cluster.leader(&topic, p).expect("a leader");
        session.assign(p, &topic, p, &leader, 0, i64::MAX);
    }
    let mut back = ReadBack::default();
    read(
        &cluster,
        &mut session,
        &topic,
        partitions,
        first + second,
        &mut back,
        &progress,
        &slow,
        Duration::from_millis(40),
    );
    let moved = mover.join();
    eprintln!(
        "retried codes {:?}, leader lookups {}, records by broker {:?}",
        back.retried,
        back.lookups,
        session.records_by_broker()
    );
    assert!(moved.is_ok(), "the leader moves ran");
    back.assert_exact(partitions, first + second);
    // The fetch followed the moves: it was told the old leaders were no longer so (6, 74,
    // or a fencing after the kill) and ended on the leaders of now.
    assert!(
        back.retried.iter().any(|c| [6, 74, 75].contains(c)),
        "no NOT_LEADER_OR_FOLLOWER / FENCED_LEADER_EPOCH seen: {:?}",
        back.retried
    );
    for p in 0..partitions {
        assert_eq!(
            session.leader(p).map(str::to_string),
            cluster.leader(&topic, p),
            "partition {p}"
        );
    }
    let brokers = session.records_by_broker();
    assert_eq!(brokers.len(), 3, "records from every node: {brokers:?}");
    // Fetch sessions (KIP-227): most requests incremental, a full one after each new
    // connection or session error.
    let (full, incremental) = session.fetch_requests();
    eprintln!("fetch requests: {full} full, {incremental} incremental");
    assert!(incremental > full, "{full} full, {incremental} incremental");
}

/// A reader in rack-2 (`client.rack`) of partitions led by node 1 (rack-1) fetches from
/// node 2, the replica in its rack that the leader names (KIP-392): not one record comes
/// from the leader. Node 2 is then killed: the fetch goes back to the leader, and every
/// record still arrives exactly once, in order.
#[test]
fn a_reader_with_a_rack_fetches_from_the_replica_in_it_and_falls_back_to_the_leader() {
    let Some(cluster) = Cluster::from_env() else {
        return;
    };
    let topic = unique("rack");
    let partitions = 2;
    cluster.create_topic(&topic, &[[1, 2, 3], [1, 3, 2]]);
    let first = 2_000;
    let second = 500;
    produce(&cluster, &topic, partitions, 0, first);
    let (leader, follower) = (cluster.node(1), cluster.node(2));

    let mut session =
        FetchSession::new("karrow-cluster-test", Isolation::ReadUncommitted, limits())
            .with_rack("rack-2");
    for p in 0..partitions {
        assert_eq!(cluster.leader(&topic, p), Some(leader.clone()));
        session.assign(p, &topic, p, &leader, 0, i64::MAX);
    }
    let mut back = ReadBack::default();
    let (progress, fast) = (AtomicU64::new(0), AtomicBool::new(false));
    read(
        &cluster,
        &mut session,
        &topic,
        partitions,
        first,
        &mut back,
        &progress,
        &fast,
        Duration::ZERO,
    );
    back.assert_exact(partitions, first);
    for p in 0..partitions {
        assert_eq!(session.read_replica(p), Some(2), "partition {p}");
        assert_eq!(session.fetching_from(p), Some(follower.as_str()));
    }
    assert_eq!(
        session.records_by_broker().get(&follower).copied(),
        Some(first * partitions as u64),
        "every record from the replica in rack-2: {:?}",
        session.records_by_broker()
    );

    cluster.sh(&["kill-node", "2"]);
    produce(&cluster, &topic, partitions, first, first + second);
    read(
        &cluster,
        &mut session,
        &topic,
        partitions,
        first + second,
        &mut back,
        &progress,
        &fast,
        Duration::ZERO,
    );
    eprintln!(
        "retried codes {:?}, records by broker {:?}",
        back.retried,
        session.records_by_broker()
    );
    back.assert_exact(partitions, first + second);
    let from_leader = session
        .records_by_broker()
        .get(&leader)
        .copied()
        .unwrap_or(0);
    assert!(from_leader > 0, "{:?}", session.records_by_broker());
    cluster.sh(&["start-node", "2"]);
}
