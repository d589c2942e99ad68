//! The registry hung or gone under the native sessions the Flink formats open, over real
//! sockets to the real dev registry (issue 18):
//! - frozen in the middle of the look-up of an unseen schema id (the bytes of the request sit
//!   unanswered, as with a `SIGSTOP`ped registry or a partition) and thawed inside the
//!   request timeout: the batch decodes every value, in order, each exactly once;
//! - frozen past the bounds: the decode fails after the configured retries, naming the id, the
//!   URL and the record;
//! - down when a sink opens (killed: connections refused; frozen: nothing answers): the encoder
//!   fails in bounded time, naming the registry URL and the subject.
//!
//! The hang is a pausable relay between the client and the registry ([`Relay`]): while paused
//! it accepts connections (as the kernel does for a stopped process) and forwards nothing.
//! No assertion here is on a duration; the bounds come from the configured timeouts.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use karrow_native::avro::{AvroDecodeSession, AvroEncodeSession};
use karrow_native::NativeError;
use karrow_registry::{
    DevRegistry, DevRegistryHandle, RegistryClient, RegistryConfig, SchemaDefinition,
};

const V1: &str = r#"{"type":"record","name":"Bid","namespace":"faults","fields":[
    {"name":"id","type":"long"},{"name":"name","type":["null","string"],"default":null}]}"#;
const V2: &str = r#"{"type":"record","name":"Bid","namespace":"faults","fields":[
    {"name":"id","type":"long"},{"name":"name","type":["null","string"],"default":null},
    {"name":"note","type":"string","default":""}]}"#;
/// The Flink row type `ROW<id BIGINT NOT NULL, name STRING>`.
const ROW: &str = r#"{"type":"ROW","nullable":false,"fields":[
    {"name":"id","type":{"type":"BIGINT","nullable":false}},
    {"name":"name","type":{"type":"VARCHAR","nullable":true,"length":2147483647}}]}"#;

/// A TCP relay in front of the registry that can be paused: paused, it keeps accepting and
/// reading but delivers no byte in either direction, on new and on already open (pooled)
/// connections, and counts the bytes it holds back.
struct Relay {
    port: u16,
    state: Arc<RelayState>,
}

#[derive(Default)]
struct RelayState {
    paused: AtomicBool,
    held: AtomicUsize,
}

impl Relay {
    fn start(target: u16) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new(RelayState::default());
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
                    continue;
                };
                for (from, to) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server, client),
                ] {
                    let state = Arc::clone(&shared);
                    std::thread::spawn(move || pump(from, to, &state));
                }
            }
        });
        Relay { port, state }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn freeze(&self) {
        self.state.held.store(0, Ordering::SeqCst);
        self.state.paused.store(true, Ordering::SeqCst);
    }

    fn thaw(&self) {
        self.state.paused.store(false, Ordering::SeqCst);
    }

    /// Bytes read since the freeze and not delivered.
    fn held(&self) -> usize {
        self.state.held.load(Ordering::SeqCst)
    }
}

/// Copies `from` to `to`, holding back what it reads while paused.
fn pump(mut from: TcpStream, mut to: TcpStream, state: &RelayState) {
    let mut buf = [0u8; 16 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if state.paused.load(Ordering::SeqCst) {
                    state.held.fetch_add(n, Ordering::SeqCst);
                    while state.paused.load(Ordering::SeqCst) {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                }
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}

fn zigzag(n: i64, out: &mut Vec<u8>) {
    let mut v = ((n << 1) ^ (n >> 63)) as u64;
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A Confluent-framed value of `V1` (or `V2` with `note`) for `id`.
fn value(schema_id: i32, id: i64, note: Option<&str>) -> Vec<u8> {
    let mut out = vec![0];
    out.extend_from_slice(&schema_id.to_be_bytes());
    zigzag(id, &mut out);
    let name = format!("bid-{id}");
    out.push(2); // union branch 1: string
    zigzag(name.len() as i64, &mut out);
    out.extend_from_slice(name.as_bytes());
    if let Some(note) = note {
        zigzag(note.len() as i64, &mut out);
        out.extend_from_slice(note.as_bytes());
    }
    out
}

fn decoder_config(url: &str, bounds: &str) -> String {
    format!(r#"{{"row_type":{ROW},"url":"{url}"{bounds}}}"#)
}

/// The row count and the per-value running row counts of a decoded batch.
fn decode(
    session: &mut AvroDecodeSession,
    values: &[Vec<u8>],
) -> Result<(i32, Vec<i32>), NativeError> {
    let (rows, ends) = session.decode_batch(values.iter().map(|v| Some(v.as_slice())))?;
    let count = i32::from_le_bytes(rows.header[..4].try_into().unwrap());
    Ok((count, ends.to_vec()))
}

/// A dev registry with `V1` and `V2` registered under `t-value`, a [`Relay`] in front of it,
/// and the two schema ids. The registry runs until its handle is dropped.
fn registry_with_both_versions_behind_a_relay() -> (DevRegistryHandle, Relay, [i32; 2]) {
    let registry = DevRegistry::start("127.0.0.1:0".parse().unwrap(), None).unwrap();
    let admin = RegistryClient::new(RegistryConfig::from_url(&registry.url())).unwrap();
    let ids = [V1, V2].map(|schema| {
        admin
            .register("t-value", &SchemaDefinition::avro(schema))
            .unwrap()
    });
    let relay = Relay::start(registry.port());
    (registry, relay, ids)
}

#[test]
fn a_registry_frozen_during_an_unseen_id_lookup_and_thawed_within_the_timeout_loses_no_value() {
    let (registry, relay, [v1, v2]) = registry_with_both_versions_behind_a_relay();
    // The stock default timeout (10 s) and retries: a thaw well inside them.
    let mut session = AvroDecodeSession::open(&decoder_config(&relay.url(), "")).unwrap();

    // Seen id: its schema is fetched (and the connection pooled) before the freeze.
    let first: Vec<Vec<u8>> = (0..3).map(|i| value(v1, i, None)).collect();
    assert_eq!(decode(&mut session, &first).unwrap(), (3, vec![1, 2, 3]));

    relay.freeze();
    let before = registry.request_count();
    // A batch with an unseen id among seen ones, decoded while nothing answers.
    let batch: Vec<Vec<u8>> = (3..6)
        .map(|i| value(v1, i, None))
        .chain([value(v2, 6, Some("v2"))])
        .chain((7..10).map(|i| value(v1, i, None)))
        .collect();
    let decoding = std::thread::spawn(move || {
        let result = decode(&mut session, &batch);
        (session, result)
    });
    // Thaw only once the look-up's request is held by the frozen relay (the client has sent it,
    // the registry has not seen it).
    while relay.held() == 0 {
        assert!(
            !decoding.is_finished(),
            "the batch ended while the registry was frozen"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        registry.request_count(),
        before,
        "the frozen registry answered"
    );
    relay.thaw();
    let (mut session, result) = decoding.join().unwrap();
    assert_eq!(result.unwrap(), (7, vec![1, 2, 3, 4, 5, 6, 7]));
    assert_eq!(
        registry.request_count(),
        before + 1,
        "one look-up of the unseen id, no retry"
    );
    // Both ids are cached now: a later batch needs no registry at all.
    relay.freeze();
    let later = vec![value(v2, 10, Some("x")), value(v1, 11, None)];
    assert_eq!(decode(&mut session, &later).unwrap(), (2, vec![1, 2]));
    relay.thaw();
}

#[test]
fn a_registry_frozen_past_the_bounds_fails_the_batch_naming_id_url_and_record() {
    let (_registry, relay, [v1, v2]) = registry_with_both_versions_behind_a_relay();
    let bounds = r#","request_timeout_ms":300,"max_retries":1,"retry_backoff_ms":10,"retry_backoff_max_ms":10"#;
    let mut session = AvroDecodeSession::open(&decoder_config(&relay.url(), bounds)).unwrap();
    assert_eq!(
        decode(&mut session, &[value(v1, 0, None)]).unwrap(),
        (1, vec![1])
    );
    relay.freeze();
    let err = decode(&mut session, &[value(v1, 1, None), value(v2, 2, Some("n"))]).unwrap_err();
    let text = err.to_string();
    assert!(text.contains(&format!("/schemas/ids/{v2}")), "{text}");
    assert!(text.contains(&relay.url()), "{text}");
    assert!(text.contains("after 2 attempt"), "{text}");
    assert_eq!(err.record_index(), Some(1), "{text}");
    // Thawed: the same value decodes (a failed look-up is not cached).
    relay.thaw();
    assert_eq!(
        decode(&mut session, &[value(v2, 2, Some("n"))]).unwrap(),
        (1, vec![1])
    );
}

fn encoder_config(url: &str, bounds: &str) -> String {
    format!(r#"{{"row_type":{ROW},"url":"{url}","subject":"t-value"{bounds}}}"#)
}

/// The open of a sink's encoder with the registry unreachable: its error text.
fn open_fails(url: &str) -> String {
    let bounds = r#","request_timeout_ms":300,"max_retries":1,"retry_backoff_ms":10,"retry_backoff_max_ms":10"#;
    match AvroEncodeSession::open(&encoder_config(url, bounds)) {
        Ok(_) => panic!("the encoder opened with the registry at {url} unreachable"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_sink_opened_with_the_registry_killed_fails_naming_url_and_subject() {
    let registry = DevRegistry::start("127.0.0.1:0".parse().unwrap(), None).unwrap();
    let url = registry.url();
    // The registry answers, then is gone: connections refused.
    assert!(AvroEncodeSession::open(&encoder_config(&url, "")).is_ok());
    registry.stop();
    let text = open_fails(&url);
    assert!(
        text.starts_with("Could not register schema in registry: subject 't-value' at "),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{url}/subjects/t-value/versions after 2 attempt(s)"
        )),
        "{text}"
    );
}

#[test]
fn a_sink_opened_with_the_registry_frozen_fails_after_the_bounds_naming_url_and_subject() {
    let registry = DevRegistry::start("127.0.0.1:0".parse().unwrap(), None).unwrap();
    let relay = Relay::start(registry.port());
    relay.freeze();
    let text = open_fails(&relay.url());
    assert!(
        text.starts_with(&format!(
            "Could not register schema in registry: subject 't-value' at {}: ",
            relay.url()
        )),
        "{text}"
    );
    assert!(text.contains("after 2 attempt(s)"), "{text}");
    assert_eq!(registry.request_count(), 0, "the frozen registry answered");
    relay.thaw();
}
