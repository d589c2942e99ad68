//! The dev registry's request handling: bytes as a client sends them on one connection
//! (pipelined HTTP/1.1 requests, any framing), served in memory by
//! `karrow_registry::dev::serve_bytes` against a fresh in-memory registry. A handler
//! panic is caught by the server and answered 500 — and aborts the fuzzer first (libFuzzer's
//! panic hook), so it is found; what else must hold: every request gets an answer that
//! starts like an HTTP/1.1 response.

use karrow_registry::dev::{serve_bytes, HttpLimits, Registry};

/// Limits scaled to the fuzzer's inputs (64 KiB at most), so that the 413 and 431 paths
/// are reached.
fn limits() -> HttpLimits {
    HttpLimits {
        max_body_bytes: 16 * 1024,
        max_head_bytes: 4 * 1024,
        body_budget_bytes: 64 * 1024,
        ..HttpLimits::default()
    }
}

/// One connection's bytes.
pub fn request(data: &[u8]) {
    let Ok(registry) = Registry::open(None) else {
        panic!("an in-memory registry opens");
    };
    let out = serve_bytes(&registry, &limits(), data);
    if !out.is_empty() {
        assert!(
            out.starts_with(b"HTTP/1.1 "),
            "not an HTTP answer: {:?}",
            String::from_utf8_lossy(&out[..out.len().min(64)])
        );
    }
}

fn http(method: &str, path: &str, body: &str) -> String {
    if body.is_empty() && method != "POST" && method != "PUT" {
        return format!("{method} {path} HTTP/1.1\r\nHost: r\r\n\r\n");
    }
    format!(
        "{method} {path} HTTP/1.1\r\nHost: r\r\nContent-Type: application/vnd.schemaregistry.v1+json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn schema_body(schema: &str, schema_type: Option<&str>, references: &str) -> String {
    let schema = serde_json::to_string(schema).unwrap_or_default();
    match schema_type {
        None => format!(r#"{{"schema":{schema}{references}}}"#),
        Some(t) => format!(r#"{{"schemaType":"{t}","schema":{schema}{references}}}"#),
    }
}

/// Sessions of pipelined requests over every route: registrations of each schema type (and
/// references), look-ups, compatibility checks and levels, modes, soft and hard deletes,
/// chunked bodies, an oversized head.
pub fn request_seeds() -> Vec<Vec<u8>> {
    let avro1 = r#"{"type":"record","name":"Bid","namespace":"com.acme","fields":[{"name":"id","type":"long"}]}"#;
    let avro2 = r#"{"type":"record","name":"Bid","namespace":"com.acme","fields":[{"name":"id","type":"long"},{"name":"price","type":["null","double"],"default":null}]}"#;
    let union = r#"["null",{"type":"record","name":"A","aliases":["B"],"fields":[{"name":"x","type":["null","A"]}]}]"#;
    let json = r#"{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}"#;
    let proto_dep = "syntax = \"proto3\";\npackage dep;\nmessage Money { int64 units = 1; }\n";
    let proto = "syntax = \"proto3\";\npackage acme;\nimport \"dep.proto\";\nmessage Bid { int64 id = 1; dep.Money price = 2; map<string, int32> tags = 3; }\n";
    let refs = r#","references":[{"name":"dep.proto","subject":"dep","version":1}]"#;
    let mut sessions: Vec<String> = Vec::new();
    sessions.push(
        [
            http("GET", "/", ""),
            http("GET", "/schemas/types", ""),
            http(
                "POST",
                "/subjects/bids-value/versions",
                &schema_body(avro1, None, ""),
            ),
            http(
                "POST",
                "/subjects/bids-value/versions",
                &schema_body(avro2, None, ""),
            ),
            http(
                "POST",
                "/compatibility/subjects/bids-value/versions/latest",
                &schema_body(avro2, None, ""),
            ),
            http("GET", "/subjects/bids-value/versions", ""),
            http("GET", "/subjects/bids-value/versions/latest/schema", ""),
            http("GET", "/schemas/ids/1?fetchMaxId=true", ""),
            http("GET", "/schemas/ids/1/versions", ""),
            http("GET", "/schemas/ids/2/subjects", ""),
            http(
                "POST",
                "/subjects/bids-value",
                &schema_body(avro1, None, ""),
            ),
            http("GET", "/schemas?subjectPrefix=bids&offset=0&limit=5", ""),
            http(
                "PUT",
                "/config/bids-value",
                r#"{"compatibility":"FULL_TRANSITIVE"}"#,
            ),
            http("GET", "/config/bids-value?defaultToGlobal=true", ""),
            http("DELETE", "/subjects/bids-value/versions/1", ""),
            http(
                "DELETE",
                "/subjects/bids-value/versions/1?permanent=true",
                "",
            ),
            http("GET", "/subjects?deleted=true", ""),
            http("DELETE", "/subjects/bids-value", ""),
            http("DELETE", "/subjects/bids-value?permanent=true", ""),
        ]
        .concat(),
    );
    sessions.push(
        [
            http(
                "POST",
                "/subjects/dep/versions",
                &schema_body(proto_dep, Some("PROTOBUF"), ""),
            ),
            http(
                "POST",
                "/subjects/bids-proto/versions",
                &schema_body(proto, Some("PROTOBUF"), refs),
            ),
            http("GET", "/subjects/dep/versions/1/referencedby", ""),
            http("GET", "/schemas/ids/2?format=serialized", ""),
            http("DELETE", "/subjects/dep/versions/1", ""),
            http(
                "POST",
                "/subjects/j/versions",
                &schema_body(json, Some("JSON"), ""),
            ),
            http(
                "POST",
                "/compatibility/subjects/j/versions",
                &schema_body(json, Some("JSON"), ""),
            ),
            http("PUT", "/mode/j", r#"{"mode":"READONLY"}"#),
            http(
                "POST",
                "/subjects/j/versions",
                &schema_body(json, Some("JSON"), ""),
            ),
            http("GET", "/mode", ""),
            http("GET", "/contexts", ""),
        ]
        .concat(),
    );
    sessions.push(
        [
            http("PUT", "/config", r#"{"compatibility":"FORWARD"}"#),
            http(
                "POST",
                "/subjects/u/versions",
                &schema_body(union, None, ""),
            ),
            http(
                "POST",
                "/subjects/u/versions",
                &schema_body(union, None, ""),
            ),
            http(
                "POST",
                "/subjects/bad/versions",
                &schema_body(r#"{"type":"record","name":"9x","fields":[]}"#, None, ""),
            ),
            http("POST", "/subjects/bad/versions", "{not json"),
            http("GET", "/subjects/%ZZ/versions", ""),
            http("PATCH", "/subjects", ""),
        ]
        .concat(),
    );
    let mut chunked = String::from(
        "POST /subjects/c/versions HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n",
    );
    let body = schema_body(avro1, None, "");
    for piece in body.as_bytes().chunks(16) {
        chunked.push_str(&format!(
            "{:x}\r\n{}\r\n",
            piece.len(),
            String::from_utf8_lossy(piece)
        ));
    }
    chunked.push_str("0\r\n\r\nGET /subjects HTTP/1.1\r\nConnection: close\r\n\r\n");
    sessions.push(chunked);
    sessions.push(format!(
        "GET /subjects HTTP/1.1\r\nX-Big: {}\r\n\r\n",
        "a".repeat(5000)
    ));
    sessions
        .push("POST /subjects/x/versions HTTP/1.1\r\nContent-Length: 99999\r\n\r\n{}".to_string());
    sessions.into_iter().map(String::into_bytes).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed sessions reach the handlers: answers to every request, no handler failure,
    /// and the registrations succeed.
    #[test]
    fn seed_sessions_are_answered() {
        let seeds = request_seeds();
        let answers: Vec<String> = seeds
            .iter()
            .map(|s| {
                let registry = Registry::open(None).expect("a registry");
                String::from_utf8_lossy(&serve_bytes(&registry, &limits(), s)).into_owned()
            })
            .collect();
        assert_eq!(
            answers[0].matches("HTTP/1.1 ").count(),
            19,
            "{}",
            answers[0]
        );
        assert_eq!(
            answers[1].matches("HTTP/1.1 ").count(),
            11,
            "{}",
            answers[1]
        );
        for a in &answers {
            assert!(!a.contains("HTTP/1.1 500"), "{a}");
        }
        assert!(answers[1].starts_with("HTTP/1.1 200"), "{}", answers[1]);
        assert!(answers[4].starts_with("HTTP/1.1 431"), "{}", answers[4]);
        assert!(answers[5].starts_with("HTTP/1.1 413"), "{}", answers[5]);
    }
}
