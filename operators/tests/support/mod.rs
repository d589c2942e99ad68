//! Test support: Flink's own results for SQL expressions (`oracle/expected/*.txt`, written by
//! `oracle/FlinkExprOracle.java` from the inputs in `oracle/cases/*.txt`) checked against the
//! operator core evaluating the same expressions, written as plan expressions in a small
//! s-expression notation:
//! - `$col` a column of the case's table;
//! - `7:INT`, `'abc':VARCHAR(3)`, `1.005:DECIMAL(4,3)`, `TRUE:BOOLEAN`, `NULL:INT` literals
//!   (a FLOAT/DOUBLE literal is written as `Double.toString` text: `0.5:DOUBLE`);
//! - `#BOTH` a symbol;
//! - `(OP:TYPE operand ...)` a call, with the result type Flink infers.
#![allow(dead_code, clippy::unwrap_used, clippy::needless_range_loop)]

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef};
use karrow_codecs::types::{FlinkKind, FlinkType};
use karrow_operators::{Calc, EvalError, RunnablePlan};
use serde_json::{json, Value};

/// One case file: the table's columns, its rows, and Flink's results per expression.
pub struct Case {
    pub columns: Vec<(String, FlinkType, String)>,
    pub rows: Vec<Vec<String>>,
    pub zone: String,
    /// SQL text -> (Flink's result type text, one result per row).
    pub expected: HashMap<String, (String, Vec<String>)>,
}

fn oracle_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle")
}

/// Splits at commas outside parentheses and quotes.
pub fn split_top(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quoted = false;
    let mut cur = String::new();
    for ch in text.chars() {
        match ch {
            '\'' => quoted = !quoted,
            '(' | '<' if !quoted => depth += 1,
            ')' | '>' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    out.push(cur.trim().to_string());
    out
}

/// Parses a SQL type name as the case files write it.
pub fn parse_type(text: &str) -> FlinkType {
    let t = text.trim();
    let t = t.strip_suffix(" NOT NULL").unwrap_or(t);
    let args = |t: &str| -> Vec<i64> {
        let inner = &t[t.find('(').unwrap() + 1..t.rfind(')').unwrap()];
        inner
            .split(',')
            .map(|x| x.trim().parse().unwrap())
            .collect()
    };
    let kind = match t {
        "BOOLEAN" => FlinkKind::Boolean,
        "TINYINT" => FlinkKind::TinyInt,
        "SMALLINT" => FlinkKind::SmallInt,
        "INT" | "INTEGER" => FlinkKind::Int,
        "BIGINT" => FlinkKind::BigInt,
        "FLOAT" => FlinkKind::Float,
        "DOUBLE" => FlinkKind::Double,
        "STRING" => FlinkKind::VarChar(i32::MAX as u32),
        "BYTES" => FlinkKind::VarBinary(i32::MAX as u32),
        "DATE" => FlinkKind::Date,
        _ if t.starts_with("VARCHAR") => FlinkKind::VarChar(args(t)[0] as u32),
        _ if t.starts_with("CHAR") => FlinkKind::Char(args(t)[0] as u32),
        _ if t.starts_with("DECIMAL") => {
            let a = args(t);
            FlinkKind::Decimal {
                precision: a[0] as u8,
                scale: a[1] as i8,
            }
        }
        _ if t.starts_with("TIMESTAMP_LTZ") => FlinkKind::TimestampLtz(args(t)[0] as u8),
        _ if t.starts_with("TIMESTAMP(") => FlinkKind::Timestamp(args(t)[0] as u8),
        _ if t.starts_with("TIME(") => FlinkKind::Time(args(t)[0] as u8),
        other => panic!("type {other}"),
    };
    FlinkType {
        nullable: true,
        kind,
    }
}

/// The contract's JSON for a type.
pub fn type_json(ty: &FlinkType) -> Value {
    let n = ty.nullable;
    match &ty.kind {
        FlinkKind::Boolean => json!({"type": "BOOLEAN", "nullable": n}),
        FlinkKind::TinyInt => json!({"type": "TINYINT", "nullable": n}),
        FlinkKind::SmallInt => json!({"type": "SMALLINT", "nullable": n}),
        FlinkKind::Int => json!({"type": "INT", "nullable": n}),
        FlinkKind::BigInt => json!({"type": "BIGINT", "nullable": n}),
        FlinkKind::Float => json!({"type": "FLOAT", "nullable": n}),
        FlinkKind::Double => json!({"type": "DOUBLE", "nullable": n}),
        FlinkKind::Date => json!({"type": "DATE", "nullable": n}),
        FlinkKind::VarChar(l) => json!({"type": "VARCHAR", "nullable": n, "length": l}),
        FlinkKind::Char(l) => json!({"type": "CHAR", "nullable": n, "length": l}),
        FlinkKind::VarBinary(l) => json!({"type": "VARBINARY", "nullable": n, "length": l}),
        FlinkKind::Decimal { precision, scale } => {
            json!({"type": "DECIMAL", "nullable": n, "precision": precision, "scale": scale})
        }
        FlinkKind::Time(p) => json!({"type": "TIME", "nullable": n, "precision": p}),
        FlinkKind::Timestamp(p) => json!({"type": "TIMESTAMP", "nullable": n, "precision": p}),
        FlinkKind::TimestampLtz(p) => {
            json!({"type": "TIMESTAMP_LTZ", "nullable": n, "precision": p})
        }
        FlinkKind::Row(fields) => json!({"type": "ROW", "nullable": n, "fields":
            fields.iter().map(|f| json!({"name": f.name, "type": type_json(&f.ty)})).collect::<Vec<_>>()}),
        other => panic!("type {other:?}"),
    }
}

impl Case {
    /// Reads the inputs of `oracle/cases/<name>.txt` alone (no expected results).
    pub fn load_inputs(name: &str) -> Case {
        Self::read(name, false)
    }

    /// Reads `oracle/cases/<name>.txt` and `oracle/expected/<name>.txt`.
    pub fn load(name: &str) -> Case {
        Self::read(name, true)
    }

    fn read(name: &str, with_expected: bool) -> Case {
        let input = std::fs::read_to_string(oracle_dir().join("cases").join(format!("{name}.txt")))
            .unwrap();
        let mut columns = Vec::new();
        let mut rows = Vec::new();
        let mut zone = "UTC".to_string();
        let mut keys = Vec::new();
        for line in input.lines().map(str::trim) {
            if let Some(e) = line.strip_prefix("expr ") {
                keys.push(if zone == "UTC" {
                    e.to_string()
                } else {
                    format!("@{zone} {e}")
                });
            }
            if let Some(t) = line.strip_prefix("table ") {
                for c in split_top(t) {
                    let (name, ty) = c.split_once(' ').unwrap();
                    columns.push((name.to_string(), parse_type(ty), ty.trim().to_string()));
                }
            } else if let Some(r) = line.strip_prefix("row ") {
                rows.push(split_top(r));
            } else if let Some(z) = line.strip_prefix("zone ") {
                zone = z.to_string();
            }
        }
        let zone = "UTC".to_string();
        let output = if with_expected {
            std::fs::read_to_string(oracle_dir().join("expected").join(format!("{name}.txt")))
                .unwrap()
        } else {
            keys.clear();
            String::new()
        };
        let mut expected = HashMap::new();
        assert_eq!(
            keys.len(),
            output.lines().count(),
            "{name}: case and expected files differ"
        );
        for (key, line) in keys.iter().zip(output.lines()) {
            let parts: Vec<&str> = line.splitn(3, '\t').collect();
            assert!(key.ends_with(parts[0]), "{key} vs {}", parts[0]);
            let values = if parts[1] == "PLAN-ERROR" {
                vec![]
            } else {
                parts[2].split(" | ").map(str::to_string).collect()
            };
            expected.insert(key.clone(), (parts[1].to_string(), values));
        }
        Case {
            columns,
            rows,
            zone,
            expected,
        }
    }

    /// The input columns as Arrow arrays.
    pub fn arrays(&self) -> Vec<ArrayRef> {
        self.columns
            .iter()
            .enumerate()
            .map(|(c, (_, ty, _))| {
                let cells: Vec<&str> = self.rows.iter().map(|r| r[c].as_str()).collect();
                column(ty, &cells)
            })
            .collect()
    }

    /// The input row type.
    pub fn row_type(&self) -> Value {
        json!({"type": "ROW", "nullable": false, "fields": self.columns.iter()
            .map(|(n, t, _)| json!({"name": n, "type": type_json(t)})).collect::<Vec<_>>()})
    }
}

fn unquote(cell: &str) -> String {
    let inner = &cell[1..cell.len() - 1];
    inner.replace("''", "'")
}

/// An input column from SQL literal cells.
fn column(ty: &FlinkType, cells: &[&str]) -> ArrayRef {
    let is_null = |c: &str| c.starts_with("CAST(NULL");
    let text = |c: &str| -> String {
        let c = c.trim();
        if c.contains("||") {
            // 'a' || CHR(10) || 'b'
            return c
                .split("||")
                .map(|p| {
                    let p = p.trim();
                    match p.strip_prefix("CHR(").and_then(|x| x.strip_suffix(')')) {
                        Some(code) => char::from_u32(code.parse().unwrap()).unwrap().to_string(),
                        None => unquote(p),
                    }
                })
                .collect();
        }
        if c.starts_with('\'') {
            unquote(c)
        } else {
            c.to_string()
        }
    };
    macro_rules! prim {
        ($t:ty, $parse:expr) => {{
            let v: arrow_array::PrimitiveArray<$t> = cells
                .iter()
                .map(|c| {
                    if is_null(c) {
                        None
                    } else {
                        Some($parse(text(c).as_str()))
                    }
                })
                .collect();
            Arc::new(v) as ArrayRef
        }};
    }
    match &ty.kind {
        FlinkKind::Boolean => Arc::new(
            cells
                .iter()
                .map(|c| {
                    if is_null(c) {
                        None
                    } else {
                        Some(c.eq_ignore_ascii_case("TRUE"))
                    }
                })
                .collect::<arrow_array::BooleanArray>(),
        ),
        FlinkKind::TinyInt => prim!(Int8Type, |s: &str| s.parse::<i8>().unwrap()),
        FlinkKind::SmallInt => prim!(Int16Type, |s: &str| s.parse::<i16>().unwrap()),
        FlinkKind::Int => prim!(Int32Type, |s: &str| s.parse::<i32>().unwrap()),
        FlinkKind::BigInt => prim!(Int64Type, |s: &str| s.parse::<i64>().unwrap()),
        FlinkKind::Float => prim!(Float32Type, |s: &str| java_float(s) as f32),
        FlinkKind::Double => prim!(Float64Type, java_float),
        FlinkKind::Decimal { precision, scale } => {
            let v: arrow_array::Decimal128Array = cells
                .iter()
                .map(|c| {
                    if is_null(c) {
                        None
                    } else {
                        Some(unscaled(&text(c), *scale))
                    }
                })
                .collect();
            Arc::new(v.with_precision_and_scale(*precision, *scale).unwrap())
        }
        FlinkKind::VarChar(_) => Arc::new(
            cells
                .iter()
                .map(|c| if is_null(c) { None } else { Some(text(c)) })
                .collect::<arrow_array::StringArray>(),
        ),
        // CAST('ab' AS CHAR(3)) pads with spaces.
        FlinkKind::Char(n) => Arc::new(
            cells
                .iter()
                .map(|c| {
                    if is_null(c) {
                        None
                    } else {
                        let t = text(c);
                        let pad = (*n as usize).saturating_sub(t.chars().count());
                        Some(format!("{t}{}", " ".repeat(pad)))
                    }
                })
                .collect::<arrow_array::StringArray>(),
        ),
        FlinkKind::Date => prim!(Date32Type, |s: &str| parse_date(
            s.trim_start_matches("DATE ").trim_matches('\'')
        )),
        FlinkKind::Timestamp(_) | FlinkKind::TimestampLtz(_) => {
            let values: Vec<Option<(i64, i32)>> = cells
                .iter()
                .map(|c| {
                    if is_null(c) {
                        return None;
                    }
                    let c = c.trim();
                    if let Some(args) = c.strip_prefix("TO_TIMESTAMP_LTZ(") {
                        let millis: i64 = args.split(',').next().unwrap().trim().parse().unwrap();
                        return Some((millis, 0));
                    }
                    Some(parse_timestamp(
                        c.trim_start_matches("TIMESTAMP ").trim_matches('\''),
                    ))
                })
                .collect();
            timestamp_array(ty, &values)
        }
        other => panic!("input column of {other:?}"),
    }
}

fn days(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
}

fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// `yyyy-MM-dd` -> days.
fn parse_date(s: &str) -> i32 {
    let p: Vec<&str> = s.split('-').collect();
    days(
        p[0].parse().unwrap(),
        p[1].parse().unwrap(),
        p[2].parse().unwrap(),
    ) as i32
}

/// `yyyy-MM-dd HH:mm:ss[.fffffffff]` -> (epoch millis, nano of milli).
fn parse_timestamp(s: &str) -> (i64, i32) {
    let (date, time) = s.split_once(' ').unwrap();
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let t: Vec<i64> = hms.split(':').map(|x| x.parse().unwrap()).collect();
    let mut frac = frac.to_string();
    while frac.len() < 9 {
        frac.push('0');
    }
    let nanos: i64 = frac.parse().unwrap();
    let millis = i64::from(parse_date(date)) * 86_400_000
        + t[0] * 3_600_000
        + t[1] * 60_000
        + t[2] * 1000
        + nanos / 1_000_000;
    (millis, (nanos % 1_000_000) as i32)
}

fn timestamp_array(ty: &FlinkType, values: &[Option<(i64, i32)>]) -> ArrayRef {
    let zone = matches!(ty.kind, FlinkKind::TimestampLtz(_)).then(|| Arc::<str>::from("UTC"));
    match ty.arrow_type() {
        arrow_schema::DataType::Timestamp(arrow_schema::TimeUnit::Millisecond, _) => Arc::new(
            values
                .iter()
                .map(|v| v.map(|v| v.0))
                .collect::<arrow_array::TimestampMillisecondArray>()
                .with_timezone_opt(zone),
        ),
        arrow_schema::DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, _) => Arc::new(
            values
                .iter()
                .map(|v| v.map(|v| v.0 * 1000 + i64::from(v.1 / 1000)))
                .collect::<arrow_array::TimestampMicrosecondArray>()
                .with_timezone_opt(zone),
        ),
        _ => Arc::new(
            values
                .iter()
                .map(|v| v.map(|v| v.0 * 1_000_000 + i64::from(v.1)))
                .collect::<arrow_array::TimestampNanosecondArray>()
                .with_timezone_opt(zone),
        ),
    }
}

/// `LocalDateTime.toString()` (or `Instant.toString()` with `instant`).
fn render_timestamp(millis: i64, nanos: i32, instant: bool) -> String {
    let d = millis.div_euclid(86_400_000);
    let ms = millis.rem_euclid(86_400_000);
    let (y, m, day) = civil(d);
    let (h, mi, s) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60);
    let nano = (ms % 1000) * 1_000_000 + i64::from(nanos);
    let mut out = format!("{y:04}-{m:02}-{day:02}T{h:02}:{mi:02}");
    if s != 0 || nano != 0 || instant {
        out.push_str(&format!(":{s:02}"));
    }
    if nano != 0 {
        if nano % 1_000_000 == 0 {
            out.push_str(&format!(".{:03}", nano / 1_000_000));
        } else if nano % 1000 == 0 {
            out.push_str(&format!(".{:06}", nano / 1000));
        } else {
            out.push_str(&format!(".{nano:09}"));
        }
    }
    if instant {
        out.push('Z');
    }
    out
}

fn java_float(s: &str) -> f64 {
    match s {
        "NaN" => f64::NAN,
        "Infinity" => f64::INFINITY,
        "-Infinity" => f64::NEG_INFINITY,
        s => s.parse().unwrap(),
    }
}

/// The unscaled value of a decimal literal at `scale` (exact: the test inputs fit).
pub fn unscaled(text: &str, scale: i8) -> i128 {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let mut frac = frac.to_string();
    assert!(
        frac.len() <= scale as usize,
        "{text} has more than {scale} decimals"
    );
    while frac.len() < scale as usize {
        frac.push('0');
    }
    let v: i128 = format!("{int}{frac}").parse().unwrap();
    if neg {
        -v
    } else {
        v
    }
}

// ---- the s-expression notation -> plan expression JSON

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    columns: &'a [(String, FlinkType, String)],
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn atom(&mut self) -> String {
        self.ws();
        let start = self.i;
        let mut depth = 0;
        let mut quoted = false;
        while self.i < self.s.len() {
            let c = self.s[self.i];
            if c == b'\'' {
                quoted = !quoted;
            } else if !quoted {
                if c == b'(' {
                    depth += 1;
                } else if c == b')' {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                } else if c.is_ascii_whitespace() && depth == 0 {
                    break;
                }
            }
            self.i += 1;
        }
        String::from_utf8(self.s[start..self.i].to_vec()).unwrap()
    }

    fn expr(&mut self) -> Value {
        self.ws();
        if self.s[self.i] == b'(' {
            self.i += 1;
            let head = self.atom();
            let (op, ty) = head.split_once(':').unwrap();
            let mut operands = Vec::new();
            loop {
                self.ws();
                if self.s[self.i] == b')' {
                    self.i += 1;
                    break;
                }
                operands.push(self.expr());
            }
            return json!({"call": op, "operands": operands, "type": type_json(&parse_type(ty))});
        }
        let atom = self.atom();
        if let Some(name) = atom.strip_prefix('$') {
            let (index, (_, ty, _)) = self
                .columns
                .iter()
                .enumerate()
                .find(|(_, c)| c.0 == name)
                .unwrap_or_else(|| panic!("no column {name}"));
            return json!({"input": index, "type": type_json(ty)});
        }
        if let Some(symbol) = atom.strip_prefix('#') {
            return json!({ "symbol": symbol });
        }
        let split = atom.rfind(':').unwrap();
        let (value, ty) = (&atom[..split], parse_type(&atom[split + 1..]));
        let literal = if value == "NULL" {
            Value::Null
        } else {
            match &ty.kind {
                FlinkKind::Boolean => json!(value == "TRUE"),
                FlinkKind::VarChar(_) | FlinkKind::Char(_) => json!(unquote(value)),
                FlinkKind::Float | FlinkKind::Double | FlinkKind::Decimal { .. } => json!(value),
                _ => json!(value.parse::<i64>().unwrap()),
            }
        };
        json!({"literal": literal, "type": type_json(&ty)})
    }
}

/// The plan expression JSON of an s-expression over `columns`.
pub fn expr_json(text: &str, columns: &[(String, FlinkType, String)]) -> Value {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        columns,
    };
    p.expr()
}

/// A value as the oracle prints it.
pub fn render(a: &ArrayRef, i: usize) -> String {
    if a.is_null(i) {
        return "NULL".into();
    }
    use arrow_schema::DataType as D;
    match a.data_type() {
        D::Boolean => a.as_boolean().value(i).to_string(),
        D::Int8 => a.as_primitive::<Int8Type>().value(i).to_string(),
        D::Int16 => a.as_primitive::<Int16Type>().value(i).to_string(),
        D::Int32 => a.as_primitive::<Int32Type>().value(i).to_string(),
        D::Int64 => a.as_primitive::<Int64Type>().value(i).to_string(),
        // NaN canonical: Java prints every NaN as "NaN".
        D::Float32 => {
            let v = a.as_primitive::<Float32Type>().value(i);
            format!(
                "f32:{:08x}",
                if v.is_nan() { f32::NAN } else { v }.to_bits()
            )
        }
        D::Float64 => {
            let v = a.as_primitive::<Float64Type>().value(i);
            format!(
                "f64:{:016x}",
                if v.is_nan() { f64::NAN } else { v }.to_bits()
            )
        }
        D::Decimal128(_, s) => plain(a.as_primitive::<Decimal128Type>().value(i), *s),
        D::Utf8 => format!(
            "'{}'",
            a.as_string::<i32>()
                .value(i)
                .replace('\\', "\\\\")
                .replace('\'', "\\'")
                .replace('\n', "\\n")
        ),
        D::Date32 => {
            let (y, m, d) = civil(i64::from(a.as_primitive::<Date32Type>().value(i)));
            format!("{y:04}-{m:02}-{d:02}")
        }
        D::Timestamp(unit, zone) => {
            let (millis, nanos) = match unit {
                arrow_schema::TimeUnit::Millisecond => {
                    (a.as_primitive::<TimestampMillisecondType>().value(i), 0)
                }
                arrow_schema::TimeUnit::Microsecond => {
                    let v = a.as_primitive::<TimestampMicrosecondType>().value(i);
                    (v.div_euclid(1000), (v.rem_euclid(1000) * 1000) as i32)
                }
                _ => {
                    let v = a.as_primitive::<TimestampNanosecondType>().value(i);
                    (v.div_euclid(1_000_000), v.rem_euclid(1_000_000) as i32)
                }
            };
            render_timestamp(millis, nanos, zone.is_some())
        }
        other => format!("<{other}>"),
    }
}

fn plain(v: i128, scale: i8) -> String {
    let digits = v.unsigned_abs().to_string();
    let sign = if v < 0 { "-" } else { "" };
    let s = scale as usize;
    if s == 0 {
        return format!("{sign}{digits}");
    }
    if digits.len() > s {
        let (a, b) = digits.split_at(digits.len() - s);
        format!("{sign}{a}.{b}")
    } else {
        format!("{sign}0.{}{digits}", "0".repeat(s - digits.len()))
    }
}

/// The oracle's text for a float value, normalised like [`render`] (bits of the value
/// Java printed; NaN canonical).
fn normalise_expected(expected: &str, ty: &FlinkType) -> String {
    match ty.kind {
        FlinkKind::Double if expected != "NULL" && !expected.starts_with("ERROR") => {
            let v = java_float(expected);
            let v = if v.is_nan() { f64::NAN } else { v };
            format!("f64:{:016x}", v.to_bits())
        }
        FlinkKind::Float if expected != "NULL" && !expected.starts_with("ERROR") => {
            let v = java_float(expected) as f32;
            let v = if v.is_nan() { f32::NAN } else { v };
            format!("f32:{:08x}", v.to_bits())
        }
        _ => expected.to_string(),
    }
}

fn error_class(e: &EvalError) -> &'static str {
    match e {
        EvalError::Arithmetic(_) => "ArithmeticException",
        EvalError::NumberFormat(_) => "NumberFormatException",
        EvalError::Invalid(_) => "Invalid",
    }
}

/// Checks every `(sql, s-expression)` of `exprs` against Flink's results of `case`: the whole
/// batch, then each row alone (a failing row fails the batch at the first failing row).
pub fn check(case_name: &str, exprs: &[(&str, &str)]) {
    let case = Case::load(case_name);
    let arrays = case.arrays();
    let rows = case.rows.len();
    let mut failures = Vec::new();
    for (sql, sexpr) in exprs {
        let (ty_text, expected) = case
            .expected
            .get(*sql)
            .unwrap_or_else(|| panic!("no oracle result for `{sql}`"));
        let ty = parse_type(ty_text);
        let zone = match sql.strip_prefix('@') {
            Some(rest) => rest.split(' ').next().unwrap().to_string(),
            None => case.zone.clone(),
        };
        let expr = expr_json(sexpr, &case.columns);
        let plan = json!({
            "version": 1,
            "input": case.row_type(),
            "filter": null,
            "projections": [expr],
            "output": {"type": "ROW", "nullable": false, "fields": [{"name": "r", "type": type_json(&ty)}]},
            "session": {"time_zone": zone, "locale": "en-US"}
        });
        let calc = match RunnablePlan::from_json(&plan.to_string()) {
            Ok(p) => Calc::new(p).unwrap(),
            Err(d) => {
                failures.push(format!("`{sql}`: declined: {d}"));
                continue;
            }
        };
        let expected: Vec<String> = expected
            .iter()
            .map(|e| normalise_expected(e, &ty))
            .collect();
        let first_error = expected.iter().position(|e| e.starts_with("ERROR"));
        match calc.run(&arrays, rows) {
            Ok(out) => {
                if let Some(row) = first_error {
                    failures.push(format!("`{sql}`: batch did not fail (row {row} should)"));
                } else {
                    let got: Vec<String> =
                        (0..rows).map(|i| render(out.batch.column(0), i)).collect();
                    if got != expected {
                        failures.push(format!(
                            "`{sql}`:\n  got      {got:?}\n  expected {expected:?}"
                        ));
                    }
                }
            }
            Err(e) => {
                if first_error != Some(e.row) {
                    failures.push(format!(
                        "`{sql}`: batch failed at {e} (expected {first_error:?})"
                    ));
                }
            }
        }
        // Row by row.
        for r in 0..rows {
            let one: Vec<ArrayRef> = arrays.iter().map(|a| a.slice(r, 1)).collect();
            let got = match calc.run(&one, 1) {
                Ok(out) => render(out.batch.column(0), 0),
                Err(e) => format!("ERROR({}", error_class(&e.error)),
            };
            let want = &expected[r];
            let same = match (want.starts_with("ERROR"), got.strip_prefix("ERROR(")) {
                (true, Some(class)) => class == "Invalid" || want.contains(class),
                (false, None) => &got == want,
                _ => false,
            };
            if !same {
                failures.push(format!("`{sql}` row {r}: got {got}, expected {want}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
