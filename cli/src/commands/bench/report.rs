//! `--report DIR`: `index.html` with inline SVG bar charts (no script, no external
//! resources, so it reads offline): throughput by operation, native against stock Flink,
//! and nanoseconds per record; then the results table and the verification.

use std::fmt::Write;
use std::path::Path;

use super::error::BenchError;
use super::output::{si, Results};

const NATIVE: &str = "#2b6cb0";
const STOCK: &str = "#c05621";

/// One bar.
struct Bar {
    label: String,
    value: f64,
    /// Whisker (low, high), same unit as `value`.
    range: Option<(f64, f64)>,
    color: &'static str,
    note: String,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// A horizontal bar chart as an SVG element.
fn hbar(title: &str, bars: &[Bar]) -> String {
    let (w, label_w, row_h, top) = (760.0, 230.0, 30.0, 34.0);
    let plot_w = w - label_w - 150.0;
    let h = top + row_h * bars.len().max(1) as f64 + 10.0;
    let max = bars
        .iter()
        .map(|b| b.range.map_or(b.value, |r| r.1.max(b.value)))
        .fold(0.0f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="{t}"><title>{t}</title><text x="0" y="20" font-size="15" font-weight="bold">{t}</text>"#,
        t = esc(title)
    );
    if bars.is_empty() {
        let _ = write!(
            s,
            r#"<text x="0" y="{}" font-size="13">no figures</text>"#,
            top + 18.0
        );
    }
    for (i, b) in bars.iter().enumerate() {
        let y = top + row_h * i as f64;
        let bw = (b.value / max * plot_w).max(1.0);
        let _ = write!(
            s,
            r#"<text x="{lx}" y="{ty}" font-size="13" text-anchor="end">{label}</text><rect x="{label_w}" y="{y}" width="{bw:.1}" height="{bh}" fill="{c}"/>"#,
            lx = label_w - 8.0,
            ty = y + 17.0,
            label = esc(&b.label),
            bh = row_h - 8.0,
            c = b.color
        );
        if let Some((lo, hi)) = b.range {
            let (x1, x2) = (label_w + lo / max * plot_w, label_w + hi / max * plot_w);
            let cy = y + (row_h - 8.0) / 2.0;
            let _ = write!(
                s,
                r##"<line x1="{x1:.1}" y1="{cy}" x2="{x2:.1}" y2="{cy}" stroke="#222" stroke-width="1.5"/><line x1="{x1:.1}" y1="{a}" x2="{x1:.1}" y2="{b}" stroke="#222"/><line x1="{x2:.1}" y1="{a}" x2="{x2:.1}" y2="{b}" stroke="#222"/>"##,
                a = cy - 5.0,
                b = cy + 5.0
            );
        }
        let _ = write!(
            s,
            r#"<text x="{x}" y="{ty}" font-size="12">{note}</text>"#,
            x = label_w + plot_w + 8.0,
            ty = y + 17.0,
            note = esc(&b.note)
        );
    }
    s.push_str("</svg>");
    s
}

fn color(side: &str) -> &'static str {
    if side == "stock" {
        STOCK
    } else {
        NATIVE
    }
}

/// Writes `dir/index.html`.
pub fn write(dir: &Path, r: &Results, table_text: &str) -> Result<(), BenchError> {
    std::fs::create_dir_all(dir).map_err(|e| BenchError::io(dir, e))?;
    let measured: Vec<_> = r
        .lines
        .iter()
        .filter_map(|l| l.figures.as_ref().ok().map(|f| (l, f)))
        .collect();

    let throughput: Vec<Bar> = measured
        .iter()
        .map(|(l, f)| {
            let (median, min, max) = f.spread();
            Bar {
                label: format!("{} ({})", l.name, l.side),
                value: f.records_per_s(median),
                range: Some((f.records_per_s(max), f.records_per_s(min))),
                color: color(l.side),
                note: format!("{} rec/s", si(f.records_per_s(median))),
            }
        })
        .collect();

    let mut versus = Vec::new();
    for (direction, stock_id, native_id) in [
        ("decode", "decode", "decode_binary"),
        ("encode", "encode", "encode_binary"),
    ] {
        let native = r.lines.iter().find(|l| l.id == native_id);
        if let (Some(n), Some(s)) = (
            native.and_then(|l| l.figures.as_ref().ok()),
            r.stock(stock_id),
        ) {
            let (nm, sm) = (n.records_per_s(n.spread().0), s.records_per_s(s.spread().0));
            versus.push(Bar {
                label: format!("{direction}: karrow native"),
                value: nm,
                range: None,
                color: NATIVE,
                note: format!("{} rec/s, {:.2}x", si(nm), nm / sm.max(f64::MIN_POSITIVE)),
            });
            versus.push(Bar {
                label: format!("{direction}: stock Flink"),
                value: sm,
                range: None,
                color: STOCK,
                note: format!("{} rec/s", si(sm)),
            });
        }
    }

    let ns: Vec<Bar> = measured
        .iter()
        .map(|(l, f)| {
            let (median, min, max) = f.spread();
            Bar {
                label: format!("{} ({})", l.name, l.side),
                value: f.ns_per_record(median),
                range: Some((f.ns_per_record(min), f.ns_per_record(max))),
                color: color(l.side),
                note: format!("{:.0} ns/record", f.ns_per_record(median)),
            }
        })
        .collect();

    let mut html = String::new();
    let _ = write!(
        html,
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>karrow bench: {format}</title>
<style>body{{font-family:system-ui,sans-serif;margin:2em;max-width:60em;color:#222}}pre{{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:12px}}figure{{margin:1.5em 0}}.legend span{{display:inline-block;width:.9em;height:.9em;margin:0 .3em 0 1em;vertical-align:middle}}</style>
</head><body>
<h1>karrow bench: {format}</h1>
<p>{messages} messages ({bytes} bytes, {origin}), {threads} thread(s), {trials} trials, median with min..max whiskers, {build} build.</p>
<p>Schema: {schema}</p>
<p class="legend"><span style="background:{NATIVE}"></span>karrow native <span style="background:{STOCK}"></span>stock Flink</p>
"#,
        format = esc(r.format),
        messages = r.messages,
        bytes = r.message_bytes,
        origin = esc(&r.message_origin),
        threads = r.threads,
        trials = r.trials,
        build = r.build,
        schema = esc(&r.schema_origin),
    );
    for (id, svg) in [
        (
            "throughput",
            hbar("Throughput by operation (records/s)", &throughput),
        ),
        (
            "versus",
            hbar("Native against stock Flink (records/s)", &versus),
        ),
        (
            "ns-per-record",
            hbar("Nanoseconds per record (wall time / records)", &ns),
        ),
    ] {
        let _ = writeln!(html, "<figure id=\"{id}\">{svg}</figure>");
    }
    if let Some(note) = &r.stock_note {
        let _ = writeln!(html, "<p>Stock Flink: {}</p>", esc(note));
    }
    let _ = write!(
        html,
        "<h2>Results</h2>\n<pre id=\"results\">{}</pre>\n</body></html>\n",
        esc(table_text)
    );
    let path = dir.join("index.html");
    std::fs::write(&path, html).map_err(|e| BenchError::io(&path, e))
}
