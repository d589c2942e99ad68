//! The dev registry tried as an attacker would, over real loopback TCP (issue #18): each test
//! here failed (or hung) against the registry before its rewrite.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::http::Conn;
use common::{start, start_with, temp_path};
use karrow_registry::dev::HttpLimits;
use karrow_registry::DevRegistryOptions;

fn register_body(schema: &str) -> String {
    serde_json::json!({ "schema": schema }).to_string()
}

fn protobuf_body(schema: &str) -> String {
    serde_json::json!({ "schema": schema, "schemaType": "PROTOBUF" }).to_string()
}

/// apache-avro's name parser panicked on these and each panic took a server worker down: a
/// few such POSTs stopped the registry.
#[test]
fn invalid_avro_names_are_422_and_the_server_keeps_answering() {
    let reg = start(None);
    let bad = [
        r#"{"type":"record","name":"1bad","fields":[]}"#,
        r#"{"type":"record","name":"a-b","fields":[]}"#,
        r#"{"type":"enum","name":"E","symbols":["1"]}"#,
        r#"{"type":"record","name":"R","fields":[{"name":"x","type":{"type":"fixed","name":"9","size":1}}]}"#,
    ];
    for round in 0..4 {
        for schema in bad {
            let mut c = Conn::open(reg.addr());
            let answer = c.request("POST", "/subjects/s/versions", &register_body(schema));
            assert_eq!(answer.status, 422, "round {round}: {}", answer.body);
            assert_eq!(answer.error_code(), 42201, "{}", answer.body);
        }
    }
    let mut c = Conn::open(reg.addr());
    let ok = c.request(
        "POST",
        "/subjects/s/versions",
        &register_body(r#""string""#),
    );
    assert_eq!(ok.status, 200, "{}", ok.body);
}

/// Bodies over the limit were cut silently and answered 400; now 413, also when the client
/// waits for `100 Continue` (then the body is never sent).
#[test]
fn oversized_bodies_are_413() {
    let mut options = DevRegistryOptions::new("127.0.0.1:0".parse().unwrap());
    options.limits.max_body_bytes = 64 * 1024;
    let reg = start_with(options);
    let schema = format!("\"{}\"", "x".repeat(64 * 1024));
    let mut c = Conn::open(reg.addr());
    let answer = c.request("POST", "/subjects/s/versions", &register_body(&schema));
    assert_eq!(answer.status, 413, "{}", answer.body);
    assert_eq!(answer.error_code(), 413);
    assert_eq!(answer.header("connection"), Some("close"));

    let mut c = Conn::open(reg.addr());
    c.send(
        b"POST /subjects/s/versions HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 999999999\r\n\r\n",
    );
    let answer = c.read_answer().unwrap();
    assert_eq!(answer.status, 413, "{}", answer.body);

    // Chunked bodies count too.
    let mut c = Conn::open(reg.addr());
    c.send(b"POST /subjects/s/versions HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n");
    let chunk = format!("{:x}\r\n{}\r\n", 70 * 1024, "y".repeat(70 * 1024));
    c.send(chunk.as_bytes());
    let answer = c.read_answer().unwrap();
    assert_eq!(answer.status, 413, "{}", answer.body);

    // Just under the limit is read whole (and answered on its merits).
    let mut c = Conn::open(reg.addr());
    let schema = format!("\"{}\"", "x".repeat(60 * 1024));
    let answer = c.request("POST", "/subjects/s/versions", &register_body(&schema));
    assert_eq!(answer.status, 422, "{}", answer.body);
}

/// PROTOBUF schemas were stored without being parsed.
#[test]
fn protobuf_schemas_are_compiled_on_registration() {
    let reg = start(None);
    let mut c = Conn::open(reg.addr());
    for bad in [
        "syntax = \"proto3\"; message M { nosuch a = 1; }",
        "this is not a .proto file",
        "syntax = \"proto3\"; message M { int32 a = 1; int64 b = 1; }",
    ] {
        let answer = c.request("POST", "/subjects/p/versions", &protobuf_body(bad));
        assert_eq!(answer.status, 422, "{bad}: {}", answer.body);
        assert_eq!(answer.error_code(), 42201);
    }
    let good = c.request(
        "POST",
        "/subjects/p/versions",
        &protobuf_body("syntax = \"proto3\"; message M { int32 a = 1; }"),
    );
    assert_eq!(good.status, 200, "{}", good.body);
}

/// Every failure is Confluent's error JSON.
#[test]
fn every_failure_is_confluent_error_json() {
    let reg = start(None);
    let mut c = Conn::open(reg.addr());
    let cases: [(&str, &str, &str, u16, i64); 9] = [
        ("GET", "/nope", "", 404, 404),
        ("PUT", "/subjects", "", 405, 405),
        ("POST", "/subjects/s/versions", "{not json", 400, 400),
        (
            "POST",
            "/subjects/s/versions",
            r#"{"schema":"\"int\"","schemaType":"XML"}"#,
            422,
            42201,
        ),
        ("GET", "/subjects/none/versions", "", 404, 40401),
        ("GET", "/schemas/ids/77", "", 404, 40403),
        ("GET", "/subjects/s/versions/zero", "", 422, 42202),
        (
            "PUT",
            "/config",
            r#"{"compatibility":"SIDEWAYS"}"#,
            422,
            42203,
        ),
        ("PUT", "/mode", r#"{"mode":"FAST"}"#, 422, 42204),
    ];
    for (method, path, body, status, code) in cases {
        let answer = c.request(method, path, body);
        assert_eq!(answer.status, status, "{method} {path}: {}", answer.body);
        assert_eq!(
            answer.error_code(),
            code,
            "{method} {path}: {}",
            answer.body
        );
    }
    // Garbage instead of HTTP: 400 in JSON, then the connection closes.
    let mut raw = Conn::open(reg.addr());
    raw.send(b"\x16\x03\x01 not http at all\r\n\r\n");
    let answer = raw.read_answer().unwrap();
    assert_eq!((answer.status, answer.error_code()), (400, 400));
}

/// The exact scenario that stalled tiny_http: several idle keep-alive connections open (some
/// having made a request, some silent since connecting), then two new connections back to
/// back. Both must be answered. (tiny_http left one or both unanswered at 3, 5, 6 and 16
/// idle connections.)
#[test]
fn idle_keep_alive_connections_do_not_starve_new_ones() {
    let reg = start(None);
    for idle_count in [1, 2, 3, 4, 5, 6, 8, 16] {
        for made_a_request in [true, false] {
            let mut idle: Vec<Conn> = (0..idle_count)
                .map(|_| {
                    let mut c = Conn::open(reg.addr());
                    if made_a_request {
                        assert_eq!(c.request("GET", "/subjects", "").status, 200);
                    }
                    c
                })
                .collect();
            let mut a = Conn::open(reg.addr());
            let mut b = Conn::open(reg.addr());
            a.send(b"GET /subjects HTTP/1.1\r\nHost: t\r\n\r\n");
            b.send(b"GET /schemas/types HTTP/1.1\r\nHost: t\r\n\r\n");
            let case = format!("{idle_count} idle (made a request: {made_a_request})");
            assert_eq!(
                a.read_answer().map(|r| r.status),
                Ok(200),
                "{case}: first new"
            );
            assert_eq!(
                b.read_answer().map(|r| r.status),
                Ok(200),
                "{case}: second new"
            );
            // And the idle ones are still served.
            for c in &mut idle {
                assert_eq!(c.request("GET", "/subjects", "").status, 200, "{case}");
            }
        }
    }
}

/// Many concurrent keep-alive clients with idle and slow ones among them: everyone well
/// behaved is answered, the slow ones get 408 and lose their connection.
#[test]
fn many_keep_alive_clients_with_idle_and_slow_ones() {
    let mut options = DevRegistryOptions::new("127.0.0.1:0".parse().unwrap());
    options.limits = HttpLimits {
        request_timeout: Duration::from_millis(800),
        workers: 4,
        ..HttpLimits::default()
    };
    let reg = start_with(options);
    let addr = reg.addr();
    let mut setup = Conn::open(addr);
    let none = setup.request("PUT", "/config", r#"{"compatibility":"NONE"}"#);
    assert_eq!(none.status, 200, "{}", none.body);
    let _idle: Vec<Conn> = (0..32).map(|_| Conn::open(addr)).collect();
    // Slow clients: half a request head, then nothing.
    let slow: Vec<_> = (0..8)
        .map(|_| {
            std::thread::spawn(move || {
                let mut c = Conn::open(addr);
                c.send(b"POST /subjects/slow/versions HTTP/1.1\r\nContent-Le");
                c.read_answer().map(|a| a.status)
            })
        })
        .collect();
    let clients: Vec<_> = (0..32)
        .map(|t| {
            std::thread::spawn(move || {
                let mut c = Conn::open(addr);
                for i in 0..20 {
                    let schema = format!(
                        r#"{{"type":"record","name":"R{t}x{i}","fields":[{{"name":"a","type":"int"}}]}}"#
                    );
                    let answer = c.request(
                        "POST",
                        &format!("/subjects/c{t}/versions"),
                        &register_body(&schema),
                    );
                    assert_eq!(answer.status, 200, "{}", answer.body);
                    let answer = c.request("GET", &format!("/subjects/c{t}/versions/latest"), "");
                    assert_eq!(answer.status, 200, "{}", answer.body);
                }
            })
        })
        .collect();
    for c in clients {
        c.join().expect("a keep-alive client was not served");
    }
    for s in slow {
        assert_eq!(s.join().unwrap(), Ok(408));
    }
    let mut c = Conn::open(addr);
    assert_eq!(c.request("GET", "/subjects", "").status, 200);
}

/// With the connection table full of idle connections, a new one evicts the longest idle;
/// full of busy ones, a new one is told 503 (and nobody waits forever).
#[test]
fn a_full_connection_table_evicts_idle_connections_then_answers_503() {
    let mut options = DevRegistryOptions::new("127.0.0.1:0".parse().unwrap());
    options.limits = HttpLimits {
        max_connections: 4,
        request_timeout: Duration::from_secs(5),
        ..HttpLimits::default()
    };
    let reg = start_with(options);
    let mut idle: Vec<Conn> = (0..4).map(|_| Conn::open(reg.addr())).collect();
    let mut fresh = Conn::open(reg.addr());
    assert_eq!(fresh.request("GET", "/subjects", "").status, 200);
    // The longest-idle connection was closed to make room.
    assert!(idle[0].closed_by_server());
    drop(idle);
    drop(fresh);
    wait_for_connections(&reg, 0);
    // Busy connections (each inside a request) are not evicted.
    let mut busy: Vec<Conn> = (0..4)
        .map(|_| {
            let mut c = Conn::open(reg.addr());
            c.send(b"GET /subjects HTTP/1.1\r\n");
            c
        })
        .collect();
    wait_for_connections(&reg, 4);
    // (A connection counts as busy from its first byte on: give the threads a moment.)
    std::thread::sleep(Duration::from_millis(200));
    let mut turned_away = Conn::open(reg.addr());
    let answer = turned_away.read_answer().unwrap();
    assert_eq!((answer.status, answer.error_code()), (503, 503));
    // Finishing the busy requests frees the table again.
    for c in &mut busy {
        c.send(b"\r\n");
        assert_eq!(c.read_answer().unwrap().status, 200);
    }
}

/// Waits (bounded) until the server holds `n` connections.
fn wait_for_connections(reg: &karrow_registry::DevRegistryHandle, n: usize) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while reg.connection_count() != n {
        assert!(
            std::time::Instant::now() < deadline,
            "{} connections, expected {n}",
            reg.connection_count()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The Avro compatibility check was exponential in nested unions of aliased records and held
/// the store lock meanwhile: 30 levels (2^30 branch trials before) are checked at once.
#[test]
fn nested_unions_of_aliased_records_register_without_blowup() {
    let reg = start(None);
    let mut c = Conn::open(reg.addr());
    let (writer, reader) = common::nested_aliased_unions(30);
    let v1 = c.request("POST", "/subjects/deep/versions", &register_body(&writer));
    assert_eq!(v1.status, 200, "{}", v1.body);
    // BACKWARD: the new schema must read what the first one wrote.
    let v2 = c.request("POST", "/subjects/deep/versions", &register_body(&reader));
    assert_eq!(v2.status, 200, "{}", v2.body);
    let check = c.request(
        "POST",
        "/compatibility/subjects/deep/versions/1?verbose=true",
        &register_body(&reader),
    );
    assert_eq!(check.status, 200, "{}", check.body);
    assert!(
        check.body.contains("\"is_compatible\":true"),
        "{}",
        check.body
    );
}

/// Writes appended one journal line each instead of rewriting (and fsyncing) the whole state.
#[test]
fn writes_append_to_the_journal_instead_of_rewriting_it() {
    let path = temp_path("journal").with_extension("jsonl");
    let reg = start(Some(path.clone()));
    let mut c = Conn::open(reg.addr());
    let mut before = std::fs::read(&path).unwrap();
    for i in 0..20 {
        let schema = format!(r#"{{"type":"record","name":"R{i}","fields":[]}}"#);
        assert_eq!(
            c.request(
                "POST",
                &format!("/subjects/s{i}/versions"),
                &register_body(&schema)
            )
            .status,
            200
        );
        let after = std::fs::read(&path).unwrap();
        assert!(
            after.starts_with(&before),
            "write {i} rewrote earlier bytes"
        );
        let added = String::from_utf8(after[before.len()..].to_vec()).unwrap();
        // The new schema and its version: two events, one line each.
        assert_eq!(added.lines().count(), 2, "{added}");
        before = after;
    }
    drop(c);
    reg.stop();
    // Restarting compacts the journal and keeps everything.
    let reg = start(Some(path.clone()));
    let mut c = Conn::open(reg.addr());
    let answer = c.request("GET", "/subjects", "");
    assert_eq!(
        serde_json::from_str::<Vec<String>>(&answer.body)
            .unwrap()
            .len(),
        20
    );
    drop(c);
    reg.stop();
    std::fs::remove_file(&path).unwrap();
}

/// The server answers pipelined requests in order and HTTP/1.0 requests with a close.
#[test]
fn pipelining_and_http10() {
    let reg = start(None);
    let mut c = Conn::open(reg.addr());
    c.send(
        b"GET /subjects HTTP/1.1\r\nHost: t\r\n\r\nGET /schemas/types HTTP/1.1\r\nHost: t\r\n\r\n",
    );
    assert_eq!(c.read_answer().unwrap().body, "[]");
    assert_eq!(
        c.read_answer().unwrap().body,
        r#"["AVRO","JSON","PROTOBUF"]"#
    );
    let mut old = Conn::open(reg.addr());
    old.send(b"GET /subjects HTTP/1.0\r\n\r\n");
    let answer = old.read_answer().unwrap();
    assert_eq!(
        (answer.status, answer.header("connection")),
        (200, Some("close"))
    );
    assert!(old.closed_by_server());
    let _: SocketAddr = reg.addr();
}
