//! Transactions: the coordinator of one transactional id, and the requests only it answers
//! (InitProducerId with the id, AddPartitionsToTxn, EndTxn), each retried as Kafka's Java
//! producer retries it (`TransactionManager`'s handlers): a coordinator that moved or is not
//! there is looked up again (FindCoordinator), one that is loading or still finishing the
//! previous transaction, or that answers any other error the Java client classifies as
//! retriable, is asked again after a back-off, every other error is returned with its code, and
//! nothing is retried past `max.block.ms`.
//!
//! Both transaction protocols a Kafka 4.x cluster may run are spoken; which one is the cluster's
//! finalized `transaction.version` feature, read from the coordinator's ApiVersions answer, as
//! the Java producer reads it:
//! - **protocol 1** (`transaction.version` 0 or 1): the producer keeps its epoch across
//!   transactions, adds each partition with AddPartitionsToTxn before its first batch, speaks
//!   Produce up to v11 and EndTxn v4;
//! - **protocol 2** (KIP-890, the default since Kafka 4.0): partitions are added by the first
//!   batch (Produce v12), EndTxn v5 bumps the epoch and answers the producer id and epoch of the
//!   next transaction (a new producer id when the epoch is exhausted).
//!
//! [`Coordinator::end_transaction`] needs nothing but the transactional id, producer id and
//! epoch, which is how Flink's committer finishes a transaction another process started (a
//! restored committable): no producer state, no reflection.

use std::time::{Duration, Instant};

use crate::connection::{Connection, ConnectionConfig};
use crate::produce::error::ProduceError;
use crate::protocol::{end_txn, find_coordinator, init_producer_id, txn_partitions};

const COORDINATOR_LOAD_IN_PROGRESS: i16 = 14;
const COORDINATOR_NOT_AVAILABLE: i16 = 15;
const NOT_COORDINATOR: i16 = 16;
const UNKNOWN_TOPIC_OR_PARTITION: i16 = 3;
const CONCURRENT_TRANSACTIONS: i16 = 51;
const OPERATION_NOT_ATTEMPTED: i16 = 55;

/// The back-off after CONCURRENT_TRANSACTIONS on AddPartitionsToTxn (the previous transaction's
/// markers are still being written): Kafka's producer waits 20 ms rather than
/// `retry.backoff.ms`.
const ADD_PARTITIONS_RETRY_BACKOFF: Duration = Duration::from_millis(20);

/// A producer id and epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerIdAndEpoch {
    /// The producer id.
    pub producer_id: i64,
    /// The epoch.
    pub epoch: i16,
}

/// How the transaction ended, as the coordinator answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ended {
    /// Under protocol 2, the producer id and epoch the next transaction of this id uses.
    pub next: Option<ProducerIdAndEpoch>,
}

/// What happens to an error code from the coordinator.
enum Next {
    /// Look the coordinator up again, then retry.
    Rediscover,
    /// Retry after a back-off.
    Retry(Duration),
    /// Give up with this error code.
    Fail,
}

/// The transaction coordinator of one transactional id, and the connections to reach it.
pub struct Coordinator {
    transactional_id: String,
    bootstrap: Vec<String>,
    connection: ConnectionConfig,
    retry_backoff: Duration,
    max_block: Duration,
    /// Any broker: asked FindCoordinator.
    finder: Option<Connection>,
    /// The coordinator, once found.
    coordinator: Option<Connection>,
    response: Vec<u8>,
}

impl Coordinator {
    /// A coordinator client for `transactional_id`, found through `bootstrap` when first needed.
    pub fn new(
        transactional_id: &str,
        bootstrap: Vec<String>,
        connection: ConnectionConfig,
        retry_backoff: Duration,
        max_block: Duration,
    ) -> Self {
        Coordinator {
            transactional_id: transactional_id.to_string(),
            bootstrap,
            connection,
            retry_backoff,
            max_block,
            finder: None,
            coordinator: None,
            response: Vec::new(),
        }
    }

    /// The transactional id.
    pub fn transactional_id(&self) -> &str {
        &self.transactional_id
    }

    /// Switches to another transactional id (whose coordinator may be another broker).
    pub fn set_transactional_id(&mut self, transactional_id: &str) {
        if self.transactional_id != transactional_id {
            self.transactional_id = transactional_id.to_string();
            self.coordinator = None;
        }
    }

    /// The cluster's transaction protocol version (1 or 2; a cluster without the feature runs
    /// protocol 1), from the coordinator's ApiVersions answer.
    pub fn transaction_version(&mut self) -> Result<i16, ProduceError> {
        let deadline = Instant::now() + self.max_block;
        loop {
            match self.coordinator_connection() {
                Ok(conn) => return Ok(conn.versions().transaction_version().clamp(1, 2)),
                Err(e) => self.wait_or(deadline, "FindCoordinator", e)?,
            }
        }
    }

    /// InitProducerId for the transactional id: a producer id and epoch for its next
    /// transaction, fencing every older producer of the id and aborting the transaction it
    /// left open. `current` is the id and epoch this producer has (-1, -1 for none).
    pub fn init_producer_id(
        &mut self,
        transaction_timeout: Duration,
        current: (i64, i16),
    ) -> Result<ProducerIdAndEpoch, ProduceError> {
        let timeout_ms = i32::try_from(transaction_timeout.as_millis()).unwrap_or(i32::MAX);
        let deadline = Instant::now() + self.max_block;
        let op = "InitProducerId";
        loop {
            let transactional_id = self.transactional_id.clone();
            let got = self
                .version(init_producer_id::API_KEY, op, 3, init_producer_id::VERSION)
                .and_then(|version| {
                    self.round_trip(op, |out, c, client_id| {
                        init_producer_id::write_request(
                            out,
                            c,
                            client_id,
                            version,
                            Some(&transactional_id),
                            timeout_ms,
                            current,
                        )
                    })
                })
                .and_then(|correlation| {
                    init_producer_id::parse_response(&self.response, correlation)
                        .map_err(|e| malformed(op, &e.0))
                });
            match got {
                Ok(p) if p.error_code == 0 => {
                    return Ok(ProducerIdAndEpoch {
                        producer_id: p.producer_id,
                        epoch: p.epoch,
                    })
                }
                Ok(p) => self.on_error(deadline, op, p.error_code, None)?,
                Err(e) => self.wait_or(deadline, op, e)?,
            }
        }
    }

    /// AddPartitionsToTxn (protocol 1): adds `partitions` (grouped by topic) to the transaction
    /// of `producer`.
    pub fn add_partitions(
        &mut self,
        producer: ProducerIdAndEpoch,
        partitions: &[(&str, i32)],
    ) -> Result<(), ProduceError> {
        let deadline = Instant::now() + self.max_block;
        let op = "AddPartitionsToTxn";
        loop {
            let transactional_id = self.transactional_id.clone();
            let results = self
                .version(
                    txn_partitions::API_KEY,
                    op,
                    txn_partitions::VERSION,
                    txn_partitions::VERSION,
                )
                .and_then(|_| {
                    self.round_trip(op, |out, c, client_id| {
                        txn_partitions::write_request(
                            out,
                            c,
                            client_id,
                            &transactional_id,
                            producer.producer_id,
                            producer.epoch,
                            partitions,
                        )
                    })
                })
                .and_then(|correlation| {
                    txn_partitions::parse_response(&self.response, correlation)
                        .map_err(|e| malformed(op, &e.0))
                });
            let results = match results {
                Ok(r) => r,
                Err(e) => {
                    self.wait_or(deadline, op, e)?;
                    continue;
                }
            };
            // The first real failure decides; OPERATION_NOT_ATTEMPTED only says another
            // partition failed.
            let failure = results
                .iter()
                .find(|(_, _, code)| *code != 0 && *code != OPERATION_NOT_ATTEMPTED)
                .or_else(|| results.iter().find(|(_, _, code)| *code != 0));
            match failure {
                None => {
                    let missing = partitions
                        .iter()
                        .find(|(t, p)| !results.iter().any(|(rt, rp, _)| rt == t && rp == p));
                    if let Some((t, p)) = missing {
                        return Err(malformed(op, &format!("{t}-{p} was not answered")));
                    }
                    return Ok(());
                }
                Some((topic, partition, code)) => {
                    let what = format!("{topic}-{partition}");
                    self.on_error(deadline, op, *code, Some(what))?;
                }
            }
        }
    }

    /// EndTxn: commits (or aborts) the transaction of `producer` under transaction protocol
    /// `version` (1: EndTxn v4; 2: v5, which answers the next producer id and epoch).
    pub fn end_transaction(
        &mut self,
        producer: ProducerIdAndEpoch,
        commit: bool,
        version: i16,
    ) -> Result<Ended, ProduceError> {
        let api_version = if version >= 2 {
            end_txn::VERSION_TV2
        } else {
            end_txn::VERSION_TV1
        };
        let op = if commit {
            "EndTxn (commit)"
        } else {
            "EndTxn (abort)"
        };
        let deadline = Instant::now() + self.max_block;
        loop {
            let transactional_id = self.transactional_id.clone();
            let got = self
                .version(end_txn::API_KEY, op, api_version, api_version)
                .and_then(|_| {
                    self.round_trip(op, |out, c, client_id| {
                        end_txn::write_request(
                            out,
                            c,
                            client_id,
                            api_version,
                            &transactional_id,
                            producer.producer_id,
                            producer.epoch,
                            commit,
                        )
                    })
                })
                .and_then(|correlation| {
                    end_txn::parse_response(&self.response, correlation, api_version)
                        .map_err(|e| malformed(op, &e.0))
                });
            match got {
                Ok(e) if e.error_code == 0 => {
                    let next = (api_version >= end_txn::VERSION_TV2 && e.producer_id >= 0)
                        .then_some(ProducerIdAndEpoch {
                            producer_id: e.producer_id,
                            epoch: e.epoch,
                        });
                    return Ok(Ended { next });
                }
                Ok(e) => self.on_error(deadline, op, e.error_code, None)?,
                Err(e) => self.wait_or(deadline, op, e)?,
            }
        }
    }

    /// What to do with `code` from `op`: wait and return to retry, or the error.
    fn on_error(
        &mut self,
        deadline: Instant,
        op: &'static str,
        code: i16,
        partition: Option<String>,
    ) -> Result<(), ProduceError> {
        let next = match code {
            NOT_COORDINATOR | COORDINATOR_NOT_AVAILABLE => Next::Rediscover,
            COORDINATOR_LOAD_IN_PROGRESS => Next::Retry(self.retry_backoff),
            CONCURRENT_TRANSACTIONS if op == "AddPartitionsToTxn" => {
                Next::Retry(ADD_PARTITIONS_RETRY_BACKOFF.min(self.retry_backoff))
            }
            CONCURRENT_TRANSACTIONS => Next::Retry(self.retry_backoff),
            UNKNOWN_TOPIC_OR_PARTITION if op == "AddPartitionsToTxn" => {
                Next::Retry(self.retry_backoff)
            }
            // Every handler of Kafka's TransactionManager sends again on any error the client
            // classifies as retriable (a coordinator whose log append timed out answers
            // REQUEST_TIMED_OUT or NOT_ENOUGH_REPLICAS, for instance).
            code if crate::error_codes::lookup(code).is_some_and(|e| e.retriable) => {
                Next::Retry(self.retry_backoff)
            }
            _ => Next::Fail,
        };
        let error = ProduceError::Transaction {
            op,
            transactional_id: self.transactional_id.clone(),
            code,
            name: crate::error::error_name(code),
            message: partition,
        };
        match next {
            Next::Fail => Err(error),
            Next::Rediscover => {
                self.coordinator = None;
                self.wait_or(deadline, op, error)
            }
            Next::Retry(pause) => {
                if Instant::now() + pause >= deadline {
                    return Err(timed_out(op, &self.transactional_id, self.max_block, error));
                }
                std::thread::sleep(pause);
                Ok(())
            }
        }
    }

    /// Sleeps `retry.backoff.ms` and returns to retry, or (past the deadline) fails with the
    /// last error. A connection error drops the connections, so the retry connects afresh.
    fn wait_or(
        &mut self,
        deadline: Instant,
        op: &'static str,
        last: ProduceError,
    ) -> Result<(), ProduceError> {
        let retriable = match &last {
            ProduceError::Connection(_) => true,
            ProduceError::Transaction { code, .. } => {
                matches!(*code, COORDINATOR_NOT_AVAILABLE | NOT_COORDINATOR)
            }
            _ => false,
        };
        if !retriable {
            return Err(last);
        }
        if matches!(last, ProduceError::Connection(_)) {
            self.coordinator = None;
            self.finder = None;
        }
        if Instant::now() + self.retry_backoff >= deadline {
            return Err(timed_out(op, &self.transactional_id, self.max_block, last));
        }
        std::thread::sleep(self.retry_backoff);
        Ok(())
    }

    /// The highest version of `api` the coordinator and this client both speak.
    fn version(
        &mut self,
        api_key: i16,
        op: &'static str,
        min: i16,
        max: i16,
    ) -> Result<i16, ProduceError> {
        let conn = self.coordinator_connection()?;
        conn.version(api_key, op, min, max).map_err(|e| {
            // Not a connection failure: retrying cannot help.
            ProduceError::Config(e.to_string())
        })
    }

    /// Sends the request `write` builds (buffer, correlation id, client id) to the coordinator
    /// and reads its answer into `self.response`; returns the correlation id.
    fn round_trip(
        &mut self,
        op: &'static str,
        write: impl FnOnce(&mut Vec<u8>, i32, &str),
    ) -> Result<i32, ProduceError> {
        let mut response = std::mem::take(&mut self.response);
        let outcome = match self.coordinator_connection() {
            Ok(conn) => {
                let client_id = conn.client_id().to_string();
                conn.round_trip(|out, c| write(out, c, &client_id), &mut response)
                    .map_err(|e| ProduceError::Connection(format!("{op}: {e}")))
            }
            Err(e) => Err(e),
        };
        self.response = response;
        outcome
    }

    /// The coordinator's connection, found (FindCoordinator through any broker) and connected
    /// when there is none.
    fn coordinator_connection(&mut self) -> Result<&mut Connection, ProduceError> {
        if self.coordinator.is_none() {
            let address = self.find()?;
            let conn = Connection::open(&address, &self.connection)
                .map_err(|e| ProduceError::from_connection(&e))?;
            self.coordinator = Some(conn);
        }
        self.coordinator
            .as_mut()
            .ok_or_else(|| ProduceError::Connection("the coordinator connection was lost".into()))
    }

    /// FindCoordinator for the transactional id: `host:port` of its coordinator.
    fn find(&mut self) -> Result<String, ProduceError> {
        if self.finder.is_none() {
            let mut last = None;
            for address in &self.bootstrap {
                match Connection::open(address, &self.connection) {
                    Ok(c) => {
                        self.finder = Some(c);
                        break;
                    }
                    Err(e) => last = Some(e),
                }
            }
            if self.finder.is_none() {
                return Err(last.map_or_else(
                    || ProduceError::Connection("no bootstrap server to connect to".to_string()),
                    |e| ProduceError::from_connection(&e),
                ));
            }
        }
        let Some(finder) = self.finder.as_mut() else {
            return Err(ProduceError::Connection("no bootstrap connection".into()));
        };
        let client_id = finder.client_id().to_string();
        let transactional_id = self.transactional_id.clone();
        let mut response = std::mem::take(&mut self.response);
        let outcome = finder
            .version(
                find_coordinator::API_KEY,
                "FindCoordinator",
                find_coordinator::VERSION,
                find_coordinator::VERSION,
            )
            .and_then(|_| {
                finder.round_trip(
                    |out, c| find_coordinator::write_request(out, c, &client_id, &transactional_id),
                    &mut response,
                )
            });
        let parsed = match outcome {
            Ok(correlation) => {
                find_coordinator::parse_response(&response, correlation).map_err(|e| {
                    ProduceError::Connection(format!("malformed FindCoordinator response: {}", e.0))
                })
            }
            Err(e) => Err(ProduceError::Connection(e.to_string())),
        };
        self.response = response;
        let found = match parsed {
            Ok(f) => f,
            Err(e) => {
                self.finder = None;
                return Err(e);
            }
        };
        if found.error_code != 0 {
            return Err(ProduceError::Transaction {
                op: "FindCoordinator",
                transactional_id: self.transactional_id.clone(),
                code: found.error_code,
                name: crate::error::error_name(found.error_code),
                message: None,
            });
        }
        Ok(format!("{}:{}", found.host, found.port))
    }
}

/// The error after `max.block.ms` of retries, naming the last cause.
fn timed_out(
    op: &str,
    transactional_id: &str,
    max_block: Duration,
    last: ProduceError,
) -> ProduceError {
    ProduceError::Timeout(format!(
        "{op} for transactional id {transactional_id} did not succeed within max.block.ms ({} ms); last error: {last}",
        max_block.as_millis()
    ))
}

/// A response that does not follow the protocol.
fn malformed(op: &str, reason: &str) -> ProduceError {
    ProduceError::Connection(format!("malformed {op} response: {reason}"))
}
