//! `karrow registry serve` as a process: announces its URL, serves the registry API, and
//! rejects bad arguments with one line and exit code 2.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use karrow_registry::{RegistryClient, RegistryConfig, SchemaDefinition};

const KARROW: &str = env!("CARGO_BIN_EXE_karrow");

#[test]
fn serve_prints_its_url_and_answers() {
    let mut child = Command::new(KARROW)
        .args(["registry", "serve", "--host", "127.0.0.1", "--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim_end()
        .strip_prefix("karrow dev registry listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");

    let client = RegistryClient::new(RegistryConfig::from_url(&url)).unwrap();
    let id = client
        .register("s", &SchemaDefinition::avro(r#""string""#))
        .unwrap();
    assert_eq!(
        client.schema_by_id(id).unwrap().definition.schema,
        r#""string""#
    );

    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    for args in [
        &["registry", "serve", "--port", "nope"][..],
        &["registry", "serve", "--host", "not-an-ip"],
        &["registry", "frobnicate"],
        &["nosuch"],
    ] {
        let out = Command::new(KARROW).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("karrow: "), "{stderr}");
    }
}

#[test]
fn port_in_use_is_an_error_not_a_panic() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = Command::new(KARROW)
        .args(["registry", "serve", "--port", &port])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&port) && !stderr.contains("panicked"),
        "{stderr}"
    );
}
