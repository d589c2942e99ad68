//! The results of a run, printed as a terminal table or as JSON (`--json`).

use serde_json::{json, Value};

use super::measure::{Figures, Op};
use super::verify::Check;

/// One measured line of the results.
#[derive(Debug, Clone)]
pub struct Line {
    /// `native` or `stock`.
    pub side: &'static str,
    /// Machine name (`decode_binary`, ..., `decode`, `encode` for stock).
    pub id: &'static str,
    /// Human name.
    pub name: &'static str,
    /// Figures, or why there are none.
    pub figures: Result<Figures, String>,
    /// For native lines: the stock line it is compared with (`decode` or `encode`).
    pub versus: Option<&'static str>,
}

/// Everything a run found.
#[derive(Debug, Clone)]
pub struct Results {
    /// The stock format name (`avro-confluent`).
    pub format: &'static str,
    /// Where the schema came from, for the header.
    pub schema_origin: String,
    /// The Flink row type read into.
    pub row_type: String,
    /// The Avro writer schema of the messages.
    pub writer_schema: String,
    /// Messages in the corpus, null values included.
    pub messages: usize,
    /// Their total bytes.
    pub message_bytes: u64,
    /// Where they came from.
    pub message_origin: String,
    /// Threads per side.
    pub threads: usize,
    /// Timed trials per operation.
    pub trials: usize,
    /// Messages per native batch call.
    pub batch_size: usize,
    /// `release`, or `debug` (figures meaningless).
    pub build: &'static str,
    /// Measured lines, native first.
    pub lines: Vec<Line>,
    /// Why stock Flink was not measured, when it was not.
    pub stock_note: Option<String>,
    /// Verification checks.
    pub checks: Vec<Check>,
    /// Other notes (id rewriting and so on).
    pub notes: Vec<String>,
}

impl Results {
    /// The stock line with machine name `id`, if it has figures.
    pub fn stock(&self, id: &str) -> Option<&Figures> {
        self.lines
            .iter()
            .find(|l| l.side == "stock" && l.id == id)
            .and_then(|l| l.figures.as_ref().ok())
    }

    /// native records/s over stock records/s for a native line, medians.
    pub fn ratio(&self, line: &Line) -> Option<f64> {
        let native = line.figures.as_ref().ok()?;
        let stock = self.stock(line.versus?)?;
        let n = native.records_per_s(native.spread().0);
        let s = stock.records_per_s(stock.spread().0);
        (s > 0.0).then(|| n / s)
    }
}

/// `1234567.0` as `1.23 M`.
pub fn si(v: f64) -> String {
    if v >= 1e9 {
        format!("{:.2} G", v / 1e9)
    } else if v >= 1e6 {
        format!("{:.2} M", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.1} k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.digits$}"))
}

/// The terminal table.
pub fn table(r: &Results) -> String {
    let mut out = String::new();
    let avg = r.message_bytes as f64 / r.messages.max(1) as f64;
    out.push_str(&format!(
        "karrow bench · {} · {} messages ({avg:.1} B avg, {}) · {} thread{} · {} trials, median [min..max] · {} build\n",
        r.format,
        r.messages,
        r.message_origin,
        r.threads,
        if r.threads == 1 { "" } else { "s" },
        r.trials,
        r.build
    ));
    out.push_str(&format!(
        "schema: {}\nrow type: {}\n\n",
        r.schema_origin, r.row_type
    ));
    let header = [
        "operation",
        "side",
        "records/s",
        "[min..max]",
        "MB/s",
        "ns/record",
        "allocs/rec",
        "alloc B/rec",
        "peak RSS",
        "vs stock",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for line in &r.lines {
        let mut row = vec![line.name.to_string(), line.side.to_string()];
        match &line.figures {
            Ok(f) => {
                let (median, min, max) = f.spread();
                row.push(si(f.records_per_s(median)));
                // Slower trial = fewer records/s.
                row.push(format!(
                    "[{}..{}]",
                    si(f.records_per_s(max)),
                    si(f.records_per_s(min))
                ));
                row.push(format!("{:.1}", f.mb_per_s(median)));
                row.push(format!("{:.0}", f.ns_per_record(median)));
                row.push(opt(f.allocs_per_record, 2));
                row.push(opt(f.alloc_bytes_per_record, 0));
                row.push(
                    f.peak_rss_kib
                        .map_or("-".into(), |k| format!("{:.0} MiB", k as f64 / 1024.0)),
                );
                row.push(r.ratio(line).map_or("-".into(), |x| format!("{x:.2}x")));
            }
            Err(why) => {
                row.push(format!("no figure: {why}"));
            }
        }
        rows.push(row);
    }
    let cols = header.len();
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter(|r| r.len() == cols)
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, v)| {
                if row.len() == cols {
                    format!("{v:<w$}", w = widths[c])
                } else {
                    v.clone()
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out.push('\n');
    if let Some(note) = &r.stock_note {
        out.push_str(&format!("stock Flink: {note}\n"));
    }
    for c in &r.checks {
        match &c.difference {
            None => out.push_str(&format!("verified: {} ({} equal)\n", c.what, c.compared)),
            Some(d) => out.push_str(&format!(
                "DIFFERENCE: {} at {}:\n  got:      {}\n  expected: {}\n",
                c.what, d.index, d.got, d.expected
            )),
        }
    }
    for n in &r.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    out
}

fn figures_json(f: &Figures) -> Value {
    let (median, min, max) = f.spread();
    json!({
        "records_per_pass": f.records,
        "bytes_per_pass": f.bytes,
        "passes_per_trial": f.reps,
        "trial_ns": f.trial_ns,
        "median_ns": median,
        "records_per_s": { "median": f.records_per_s(median), "min": f.records_per_s(max), "max": f.records_per_s(min) },
        "mb_per_s": { "median": f.mb_per_s(median), "min": f.mb_per_s(max), "max": f.mb_per_s(min) },
        "ns_per_record": { "median": f.ns_per_record(median), "min": f.ns_per_record(min), "max": f.ns_per_record(max) },
        "allocs_per_record": f.allocs_per_record,
        "alloc_bytes_per_record": f.alloc_bytes_per_record,
        "peak_rss_kib": f.peak_rss_kib,
    })
}

/// The `--json` document.
pub fn to_json(r: &Results) -> Value {
    let lines: Vec<Value> = r
        .lines
        .iter()
        .map(|l| {
            let mut v = json!({ "side": l.side, "op": l.id, "name": l.name });
            match &l.figures {
                Ok(f) => v["figures"] = figures_json(f),
                Err(why) => v["withheld"] = json!(why),
            }
            if let Some(x) = r.ratio(l) {
                v["ratio_vs_stock"] = json!(x);
            }
            v
        })
        .collect();
    let checks: Vec<Value> = r
        .checks
        .iter()
        .map(|c| {
            json!({
                "what": c.what,
                "compared": c.compared,
                "equal": c.ok(),
                "first_difference": c.difference.as_ref().map(|d| json!({"index": d.index, "got": d.got, "expected": d.expected})),
            })
        })
        .collect();
    json!({
        "karrow_bench": 1,
        "format": r.format,
        "build": r.build,
        "schema": r.schema_origin,
        "row_type": r.row_type,
        "writer_schema": r.writer_schema,
        "messages": r.messages,
        "message_bytes": r.message_bytes,
        "message_origin": r.message_origin,
        "threads": r.threads,
        "trials": r.trials,
        "batch_size": r.batch_size,
        "results": lines,
        "stock_note": r.stock_note,
        "verification": checks,
        "notes": r.notes,
    })
}

/// Native operations in display order with their stock counterpart.
pub fn native_line(op: Op, figures: Result<Figures, String>) -> Line {
    Line {
        side: "native",
        id: op.id(),
        name: op.name(),
        figures,
        versus: Some(if op.is_decode() { "decode" } else { "encode" }),
    }
}
