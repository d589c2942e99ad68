//! Stock Flink's side of a run (the JVM harness over the same corpus) and the verdicts:
//! which native operations match stock Flink's rows and bytes and may get a figure.

use std::path::PathBuf;

use karrow_codecs::types::{FlinkKind, FlinkType};

use super::format::{Format, FormatKind};
use super::measure::{Figures, Op};
use super::messages::{self, Messages};
use super::output::Line;
use super::progress::Progress;
use super::protobuf::{generated_files, ProtoSchema};
use super::sample::NativeSample;
use super::schema::Resolved;
use super::verify::Check;
use super::{protoc, render, stock, BenchArgs, BenchError, TempDir};

/// What stock Flink gave.
#[derive(Default)]
pub struct Stock {
    /// Its figures (decode, encode).
    pub lines: Vec<Line>,
    /// Why it did not run, or failed.
    pub note: Option<String>,
    /// Its rows of the sample and its encoded messages (hex lines).
    pub rows: Option<(Vec<String>, Vec<String>)>,
    /// Its failure and the message or row it failed on.
    pub failure: Option<(String, Option<u64>)>,
    /// Notes for the report.
    pub notes: Vec<String>,
}

/// Where stock Flink reads the corpus and the schemas.
pub struct StockInputs<'a> {
    /// The format.
    pub kind: FormatKind,
    /// The Flink type string of the row type.
    pub row_type: &'a str,
    /// The schemas.
    pub resolved: &'a Resolved,
    /// The registry the messages' ids are resolved in.
    pub decode_url: &'a str,
    /// The id encoded messages carry.
    pub encode_id: i32,
    /// Messages compared row by row.
    pub sample_len: usize,
    /// Protobuf: the message type (stock Flink needs its generated class).
    pub proto: Option<&'a ProtoSchema>,
    /// `--protoc`.
    pub protoc: Option<&'a std::path::Path>,
}

/// The JVM harness stock Flink runs in, or why it does not run (`--no-stock`, not built).
pub fn locate_stock(args: &BenchArgs) -> Result<stock::Jvm, String> {
    if args.no_stock {
        Err("not run (--no-stock)".to_string())
    } else {
        stock::locate(
            args.java.as_deref(),
            args.jvm_classpath.as_deref(),
            stock::HARNESS_CLASS,
        )
        .map_err(|e| format!("not run: {e}"))
    }
}

/// Runs stock Flink first (the JVM takes the machine while it runs; native then runs
/// alone) in the JVM `located` (see [`locate_stock`]).
pub fn run_stock(
    args: &BenchArgs,
    located: Result<stock::Jvm, String>,
    inputs: &StockInputs<'_>,
    corpus: &Messages,
    tmp: &TempDir,
    progress: &Progress,
) -> Result<Stock, BenchError> {
    let mut stock = Stock::default();
    let jvm = match located {
        Err(why) => {
            stock.note = Some(why);
            return Ok(stock);
        }
        Ok(jvm) => jvm,
    };
    let messages_file = tmp.path("messages.bin");
    messages::write_length_prefixed(&messages_file, corpus)?;
    let reader_file = match &inputs.resolved.reader_schema {
        Some(text) => {
            let p = tmp.path("reader.avsc");
            std::fs::write(&p, text).map_err(|e| BenchError::io(&p, e))?;
            Some(p)
        }
        None => None,
    };
    let (sample_out, encoded_out) = (tmp.path("stock-rows.txt"), tmp.path("stock-encoded.txt"));
    let classes = match inputs.proto {
        None => None,
        Some(p) => {
            progress.update("stock Flink: generating the message class (protoc, javac)");
            let compiled = generated_files(&p.set)
                .map_err(|e| e.to_string())
                .and_then(|files| {
                    protoc::compile_classes(&jvm, inputs.protoc, &p.set, &files, &tmp.path(""))
                });
            match compiled {
                Ok(dir) => Some((p.message.full_name(), dir)),
                Err(e) => {
                    stock.note = Some(format!("not run: the generated message class: {e}"));
                    return Ok(stock);
                }
            }
        }
    };
    progress.update("stock Flink: starting the JVM");
    let request = stock::Request {
        format: inputs.kind.stock_name(),
        messages: &messages_file,
        row_type: inputs.row_type,
        registry: inputs
            .kind
            .uses_avro_registry()
            .then_some(inputs.decode_url),
        reader_schema_file: reader_file.as_deref(),
        encode_schema_id: inputs.encode_id,
        threads: usize::from(args.threads),
        trials: usize::from(args.trials),
        warmup_ms: args.jvm_warmup_ms,
        min_trial_ms: args.min_trial_ms,
        sample: inputs.sample_len,
        sample_out: &sample_out,
        encoded_out: &encoded_out,
        heap: &args.jvm_heap,
        proto: classes.as_ref().map(|(m, d)| (*m, d.as_path())),
    };
    match stock::run(&jvm, &request, progress) {
        Err(e) => stock.note = Some(format!("failed: {e}")),
        Ok(v) if v["ok"] != serde_json::Value::Bool(true) => {
            let error = v["error"].as_str().unwrap_or("unknown error").to_string();
            stock.note = Some(format!("failed: {error}"));
            stock.failure = Some((error, v["index"].as_u64()));
        }
        Ok(v) => {
            let read = |p: &PathBuf| -> Result<Vec<String>, BenchError> {
                Ok(std::fs::read_to_string(p)
                    .map_err(|e| BenchError::io(p, e))?
                    .lines()
                    .map(str::to_string)
                    .collect())
            };
            stock.rows = Some((read(&sample_out)?, read(&encoded_out)?));
            let [decode_name, encode_name] = inputs.kind.stock_line_names();
            for (id, name) in [("decode", decode_name), ("encode", encode_name)] {
                stock.lines.push(Line {
                    side: "stock",
                    id,
                    name,
                    figures: stock_figures(&v[id], v["peak_rss_kib"].as_i64()),
                    versus: None,
                });
            }
            if let Some(java) = v["java_version"].as_str() {
                stock.notes.push(format!(
                    "stock Flink ran on Java {java}; peak RSS is the JVM's whole run"
                ));
            }
        }
    }
    Ok(stock)
}

/// The checks of a run, and the native operations whose figures are withheld.
pub struct Verdicts {
    /// What was compared, and whether it matched.
    pub checks: Vec<Check>,
    /// The operations whose figures are not shown, with why.
    pub withheld: Vec<(Op, String)>,
}

/// The checks of the native sample against stock Flink (or, without it, of the native
/// paths against each other), and the operations whose figures are withheld, with why.
pub fn verdicts(
    stock: &Stock,
    sample: &NativeSample,
    format: &dyn Format,
    encoded_reader: &dyn Format,
) -> Result<Verdicts, BenchError> {
    let mut checks = Vec::new();
    let mut withheld: Vec<(Op, String)> = Vec::new();
    match (&stock.rows, &stock.failure) {
        (Some((rows, encoded)), _) => {
            for (op, got, what) in [
                (
                    Op::DecodeBinary,
                    &sample.binary_rows,
                    "native rows (Flink binary rows) equal stock Flink rows",
                ),
                (
                    Op::DecodeArrow,
                    &sample.arrow_rows,
                    "native rows (Arrow) equal stock Flink rows",
                ),
            ] {
                let c = Check::compare(what, got, rows);
                if !c.ok() {
                    withheld.push((op, "rows differ from stock Flink (see DIFFERENCE)".into()));
                }
                checks.push(c);
            }
            // Maps are encoded in the in-memory map's iteration order (a Java HashMap on the
            // stock side), so with maps the encoded messages are compared decoded, as rows;
            // the Protobuf encoder replays that HashMap's order, so its bytes are compared.
            let by_rows = has_map(format.row_type()) && !format.kind().is_protobuf();
            let reread = |lines: &[String]| -> Result<Vec<String>, BenchError> {
                let bytes: Vec<Vec<u8>> =
                    lines.iter().map(|l| unhex(l)).collect::<Result<_, _>>()?;
                let view: Vec<Option<&[u8]>> = bytes.iter().map(|b| Some(b.as_slice())).collect();
                let batch = encoded_reader.session()?.decode_arrow(&view)?;
                Ok(render::render_batch(&batch))
            };
            let expected = if by_rows {
                reread(encoded)?
            } else {
                encoded.clone()
            };
            for (op, got, what) in [
                (
                    Op::EncodeBinary,
                    &sample.encoded_from_binary,
                    "native encoded messages (from Flink rows) equal stock Flink's",
                ),
                (
                    Op::EncodeArrow,
                    &sample.encoded_from_arrow,
                    "native encoded messages (from Arrow) equal stock Flink's",
                ),
            ] {
                let (got, what) = if by_rows {
                    (
                        reread(got)?,
                        format!("{what}, read back as rows (maps have no fixed order)"),
                    )
                } else {
                    (got.clone(), format!("{what}, byte for byte"))
                };
                let mut c = Check::compare(what, &got, &expected);
                if !c.ok() {
                    withheld.push((
                        op,
                        "encoded messages differ from stock Flink (see DIFFERENCE)".into(),
                    ));
                }
                if format.kind().is_json() && !by_rows {
                    if let Some(d) = &mut c.difference {
                        d.got = json_text(&d.got);
                        d.expected = json_text(&d.expected);
                    }
                }
                checks.push(c);
            }
        }
        (None, Some((error, index))) => {
            let why = match index {
                Some(i) => {
                    format!("stock Flink fails on message/row {i} that native accepts: {error}")
                }
                None => format!("stock Flink failed: {error}"),
            };
            for op in Op::ALL {
                withheld.push((op, why.clone()));
            }
        }
        (None, None) => {
            let c = Check::compare(
                "native rows: Flink binary rows equal Arrow rows (not checked against stock Flink)",
                &sample.binary_rows,
                &sample.arrow_rows,
            );
            if !c.ok() {
                withheld.push((Op::DecodeBinary, "native paths disagree".into()));
                withheld.push((Op::DecodeArrow, "native paths disagree".into()));
            }
            checks.push(c);
            let c = Check::compare("native encoded bytes: from Flink rows equal from Arrow (not checked against stock Flink)", &sample.encoded_from_binary, &sample.encoded_from_arrow);
            if !c.ok() {
                withheld.push((Op::EncodeBinary, "native paths disagree".into()));
                withheld.push((Op::EncodeArrow, "native paths disagree".into()));
            }
            checks.push(c);
        }
    }
    Ok(Verdicts { checks, withheld })
}

fn has_map(ty: &FlinkType) -> bool {
    match &ty.kind {
        FlinkKind::Map(..) | FlinkKind::Multiset(_) => true,
        FlinkKind::Array(e) => has_map(e),
        FlinkKind::Row(fields) => fields.iter().any(|f| has_map(&f.ty)),
        _ => false,
    }
}

/// A hex line of a JSON message as text to read: the JSON (a Confluent header first as
/// `<0x00 id N>`), or the hex itself when it is not UTF-8.
fn json_text(line: &str) -> String {
    let Ok(bytes) = unhex(line) else {
        return line.to_string();
    };
    let (header, body) = match bytes.split_first_chunk::<5>() {
        Some((h, rest)) if h[0] == 0 => (
            format!(
                "<0x00 id {}> ",
                i32::from_be_bytes([h[1], h[2], h[3], h[4]])
            ),
            rest,
        ),
        _ => (String::new(), bytes.as_slice()),
    };
    match std::str::from_utf8(body) {
        Ok(text) => format!("{header}{text}"),
        Err(_) => line.to_string(),
    }
}

fn unhex(line: &str) -> Result<Vec<u8>, BenchError> {
    let bad = || BenchError::Messages(format!("the JVM harness wrote a bad hex line: {line}"));
    if !line.len().is_multiple_of(2) {
        return Err(bad());
    }
    (0..line.len())
        .step_by(2)
        .map(|i| {
            line.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(bad)
        })
        .collect()
}

fn stock_figures(v: &serde_json::Value, peak: Option<i64>) -> Result<Figures, String> {
    let n = |k: &str| {
        v[k].as_u64()
            .ok_or_else(|| format!("the harness reported no {k}"))
    };
    Ok(Figures {
        records: n("records")?,
        bytes: n("bytes")?,
        reps: n("reps")?,
        trial_ns: v["trial_ns"]
            .as_array()
            .ok_or("the harness reported no trials")?
            .iter()
            .filter_map(serde_json::Value::as_u64)
            .collect(),
        allocs_per_record: None,
        alloc_bytes_per_record: v["alloc_bytes_per_record"].as_f64(),
        peak_rss_kib: peak.and_then(|p| u64::try_from(p).ok()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_differences_are_shown_as_text() {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        assert_eq!(json_text(&hex(br#"{"f":1.5}"#)), r#"{"f":1.5}"#);
        let framed = [&[0u8, 0, 0, 1, 2][..], br#"{"a":1}"#].concat();
        assert_eq!(json_text(&hex(&framed)), r#"<0x00 id 258> {"a":1}"#);
        assert_eq!(json_text("<absent>"), "<absent>");
        assert_eq!(json_text("ff00"), "ff00", "not UTF-8: hex");
    }
}
