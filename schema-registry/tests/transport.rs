//! Client transport over real sockets: auth headers, retries and fail-over, unreachable
//! registries, 5xx retries, TLS with a custom CA, and dev registry persistence.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{config, start, temp_path, V1};
use karrow_registry::{RegistryClient, RegistryError, SchemaDefinition};

/// A loopback port that was just free: bound, then released.
fn dead_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[test]
fn basic_auth_and_bearer_headers_reach_the_server() {
    let reg = start(None);
    let mut cfg = config(&reg.url());
    cfg.basic_auth_user_info = Some("alice:s3cret".into());
    let basic = RegistryClient::new(cfg).unwrap();
    basic.subjects().unwrap();
    // base64("alice:s3cret")
    assert_eq!(
        reg.last_authorization().as_deref(),
        Some("Basic YWxpY2U6czNjcmV0")
    );

    let mut cfg = config(&reg.url());
    cfg.bearer_token = Some("tok-123".into());
    RegistryClient::new(cfg).unwrap().subjects().unwrap();
    assert_eq!(reg.last_authorization().as_deref(), Some("Bearer tok-123"));

    common::client(&reg).subjects().unwrap();
    assert_eq!(reg.last_authorization(), None);

    let mut both = config(&reg.url());
    both.basic_auth_user_info = Some("a:b".into());
    both.bearer_token = Some("t".into());
    assert!(matches!(
        RegistryClient::new(both),
        Err(RegistryError::InvalidConfig { .. })
    ));
}

#[test]
fn retries_then_unreachable_when_nothing_listens() {
    let port = dead_port();
    let mut cfg = config(&format!("http://127.0.0.1:{port}"));
    cfg.timeout = Duration::from_millis(300);
    cfg.max_retries = 2;
    let c = RegistryClient::new(cfg).unwrap();
    let started = Instant::now();
    let err = c.schema_by_id(3).unwrap_err();
    let elapsed = started.elapsed();
    match &err {
        RegistryError::Unreachable { url, attempts, .. } => {
            assert_eq!(*attempts, 3);
            assert_eq!(url, &format!("http://127.0.0.1:{port}/schemas/ids/3"));
        }
        other => panic!("expected Unreachable, got {other:?}"),
    }
    // Two backoffs (100 ms + 200 ms) happened, and the whole thing stayed bounded.
    assert!(elapsed >= Duration::from_millis(300), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
}

#[test]
fn fails_over_to_the_next_url() {
    let reg = start(None);
    let mut cfg = config(&format!("http://127.0.0.1:{},{}", dead_port(), reg.url()));
    cfg.max_retries = 1;
    let c = RegistryClient::new(cfg).unwrap();
    let id = c.register("s", &SchemaDefinition::avro(V1)).unwrap();
    assert_eq!(c.schema_by_id(id).unwrap().id, id);
}

#[test]
fn server_errors_are_retried_then_reported() {
    // The state file's directory vanishes after start, so every write answers 500 / 50001.
    let dir = temp_path("vanishing");
    std::fs::create_dir_all(&dir).unwrap();
    let reg = start(Some(dir.join("state.json")));
    std::fs::remove_dir_all(&dir).unwrap();
    let mut cfg = config(&reg.url());
    cfg.max_retries = 2;
    let c = RegistryClient::new(cfg).unwrap();
    let before = reg.request_count();
    let err = c.register("s", &SchemaDefinition::avro(V1)).unwrap_err();
    assert_eq!(reg.request_count(), before + 3, "one try and two retries");
    match err {
        RegistryError::Http {
            status,
            error_code,
            ref url,
            ..
        } => {
            assert_eq!((status, error_code), (500, 50001));
            assert!(url.ends_with("/subjects/s/versions"), "{url}");
        }
        other => panic!("expected Http, got {other:?}"),
    }
}

#[test]
fn persists_across_restart() {
    let path = temp_path("state").with_extension("json");
    let (id, id2) = {
        let reg = start(Some(path.clone()));
        let c = common::client(&reg);
        let id = c.register("s", &SchemaDefinition::avro(V1)).unwrap();
        let id2 = c
            .register("j", &SchemaDefinition::json(r#"{"type":"string"}"#))
            .unwrap();
        c.set_compatibility(Some("s"), karrow_registry::CompatibilityLevel::Full)
            .unwrap();
        reg.stop();
        (id, id2)
    };
    let reg = start(Some(path.clone()));
    let c = common::client(&reg);
    assert_eq!(
        c.schema_by_id(id).unwrap().definition,
        SchemaDefinition::avro(V1)
    );
    assert_eq!(c.subjects().unwrap(), vec!["j", "s"]);
    assert_eq!(c.latest("j").unwrap().id, id2);
    assert_eq!(
        c.compatibility(Some("s")).unwrap(),
        karrow_registry::CompatibilityLevel::Full
    );
    // Identity detection survives the restart: same schema, same id, no new version.
    assert_eq!(c.register("s", &SchemaDefinition::avro(V1)).unwrap(), id);
    assert_eq!(c.register("s2", &SchemaDefinition::avro(V1)).unwrap(), id);
    assert_eq!(c.versions("s").unwrap(), vec![1]);
    drop(reg);
    std::fs::remove_file(&path).unwrap();
}

/// A one-endpoint HTTPS server (certificate for 127.0.0.1 signed by the test CA) answering
/// every request with schema id 1.
fn tls_server() -> u16 {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};

    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let certs: Vec<CertificateDer<'static>> =
        CertificateDer::pem_file_iter(format!("{dir}/server.pem"))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
    let key = PrivateKeyDer::from_pem_file(format!("{dir}/server.key")).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            serve_tls(Arc::clone(&config), stream);
        }
    });
    port
}

fn serve_tls(config: Arc<rustls::ServerConfig>, stream: TcpStream) {
    let Ok(conn) = rustls::ServerConnection::new(config) else {
        return;
    };
    let mut tls = rustls::StreamOwned::new(conn, stream);
    let mut request = Vec::new();
    let mut buf = [0u8; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match tls.read(&mut buf) {
            Ok(0) | Err(_) => return, // e.g. the client rejected our certificate
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    let body = r#"{"schema":"\"string\""}"#;
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.schemaregistry.v1+json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tls.write_all(response.as_bytes());
    let _ = tls.flush();
    tls.conn.send_close_notify();
    let _ = tls.flush();
}

#[test]
fn tls_with_custom_ca() {
    let port = tls_server();
    let url = format!("https://127.0.0.1:{port}");

    let mut cfg = config(&url);
    cfg.ssl_ca_pem = Some(include_str!("fixtures/ca.pem").to_string());
    let trusted = RegistryClient::new(cfg).unwrap();
    assert_eq!(
        trusted.schema_by_id(1).unwrap().definition.schema,
        r#""string""#
    );

    // Without the CA the certificate is untrusted: a TLS error, not retried.
    let mut cfg = config(&url);
    cfg.max_retries = 3;
    let untrusted = RegistryClient::new(cfg).unwrap();
    let started = Instant::now();
    let err = untrusted.schema_by_id(1).unwrap_err();
    assert!(matches!(err, RegistryError::Tls { .. }), "{err:?}");
    assert!(
        started.elapsed() < Duration::from_millis(100),
        "TLS errors are not retried"
    );

    let mut cfg = config(&url);
    cfg.ssl_ca_pem =
        Some("-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n".into());
    assert!(matches!(
        RegistryClient::new(cfg),
        Err(RegistryError::Tls { .. })
    ));
}

/// The JDK's `HttpClient` offers an `h2c` upgrade on every plain-HTTP request; the dev
/// registry must answer in HTTP/1.1 instead of waiting for the socket to close.
#[test]
fn answers_requests_that_offer_an_h2c_upgrade() {
    let handle = start(None);
    let mut stream = TcpStream::connect(handle.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let body = r#"{"schema":"\"int\""}"#;
    write!(
        stream,
        "POST /subjects/up/versions HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n\
         Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQBAAAAAAIAAAAA\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    while !String::from_utf8_lossy(&answer).contains("{\"id\":") {
        let n = stream
            .read(&mut buf)
            .expect("the registry answered before the timeout");
        assert!(n > 0, "connection closed without an answer");
        answer.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
}
