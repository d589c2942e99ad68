//! The sessions the Flink formats run, driven from a line protocol, so that peers in other
//! languages (Confluent's Python client, `tests/confluent-python/`) can exchange values with
//! karrow's decoders and encoders exactly as the connector's JNI calls reach them. Rows cross
//! as JSON through the `json-native` sessions of the same row type (flink-json's rendering).
//!
//! ```text
//! session_bridge decode <kind> <config-json> [descriptor-set-file]
//!     stdin: one hex Kafka value a line; stdout: its rows, one JSON line each, then "."
//! session_bridge encode <kind> <config-json> [descriptor-set-file]
//!     stdin: one JSON row a line; stdout: the hex Kafka value of each
//! ```
//! `<kind>` is a session kind code of `docs/jni-contract.md` (1/2 Avro, 5/6 Protobuf, 3/4
//! JSON); the config's `row_type` is also the JSON sessions' row type. A failure prints
//! `error: <message>` for that line and goes on.

use std::io::{BufRead, Write};

use karrow_native::error::NativeError;
use karrow_native::session::{Session, SessionKind};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim();
    if !text.len().is_multiple_of(2) {
        return Err("odd hex length".into());
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).map_err(|e| e.to_string()))
        .collect()
}

/// The row images of one decoded value: the image alone for kinds of at most one row, else
/// the row-list layout's images split by its header.
fn images(parts: [&[u8]; 2]) -> Vec<Vec<u8>> {
    let [first, second] = parts;
    if second.is_empty() {
        return vec![first.to_vec()];
    }
    let word = |i: usize| {
        let at = i * 4;
        i32::from_le_bytes([first[at], first[at + 1], first[at + 2], first[at + 3]]) as usize
    };
    let count = word(0);
    let base = first.len();
    (0..count)
        .map(|r| second[word(1 + r) - base..word(2 + r) - base].to_vec())
        .collect()
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, kind, config, rest @ ..] = args.as_slice() else {
        return Err(
            "usage: session_bridge decode|encode <kind> <config-json> [descriptors]".into(),
        );
    };
    let kind = SessionKind::from_code(kind.parse().map_err(|e| format!("kind: {e}"))?)
        .map_err(|e| e.to_string())?;
    let bytes = match rest.first() {
        Some(path) => std::fs::read(path).map_err(|e| format!("{path}: {e}"))?,
        None => Vec::new(),
    };
    let row_type: serde_json::Value = serde_json::from_str::<serde_json::Value>(config)
        .map_err(|e| format!("config: {e}"))?["row_type"]
        .clone();
    let open = |k: SessionKind, c: &str, b: &[u8]| k.open(c, b).map_err(|e| e.to_string());
    let mut session: Box<dyn Session> = open(kind, config, &bytes)?;
    let mut json: Box<dyn Session> = match mode.as_str() {
        "decode" => open(
            SessionKind::JsonEncoder,
            &format!(r#"{{"row_type":{row_type}}}"#),
            &[],
        )?,
        "encode" => open(
            SessionKind::JsonDecoder,
            &format!(r#"{{"row_type":{row_type},"options":{{}}}}"#),
            &[],
        )?,
        other => return Err(format!("unknown mode {other}")),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| e.to_string())?;
        let answer: Result<Vec<String>, String> = if mode == "decode" {
            unhex(&line).and_then(|value| {
                let rows = match session
                    .decode_one(Some(&value))
                    .map_err(|e| e.to_string())?
                {
                    None => Vec::new(),
                    Some(parts) => images(parts),
                };
                let mut lines = Vec::new();
                for image in rows {
                    let text = json
                        .encode_one(&image)
                        .map_err(|e: NativeError| e.to_string())?;
                    lines.push(String::from_utf8_lossy(text).into_owned());
                }
                lines.push(".".into());
                Ok(lines)
            })
        } else {
            json.decode_one(Some(line.as_bytes()))
                .map_err(|e| e.to_string())
                .and_then(|rows| rows.map(images).ok_or_else(|| "no row".to_string()))
                .and_then(|rows| {
                    let image = rows.first().ok_or("no row")?;
                    let value = session.encode_one(image).map_err(|e| e.to_string())?;
                    Ok(vec![hex(value)])
                })
        };
        match answer {
            Ok(lines) => {
                for l in lines {
                    writeln!(out, "{l}").map_err(|e| e.to_string())?;
                }
            }
            Err(e) => {
                writeln!(out, "error: {}", e.replace('\n', " ")).map_err(|e| e.to_string())?
            }
        }
        out.flush().map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("session_bridge: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
