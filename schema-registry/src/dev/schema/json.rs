//! JSON Schema on registration: the text must be JSON, an object or a boolean (the two
//! forms a JSON Schema takes); its canonical form is that JSON with whitespace and key order
//! ignored.

use serde_json::Value;

/// Checks `text` and returns its canonical form.
pub(crate) fn parse(text: &str) -> Result<String, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if !(value.is_object() || value.is_boolean()) {
        return Err("a JSON Schema must be a JSON object or boolean".into());
    }
    Ok(canonical(&value))
}

/// JSON with object keys sorted and no whitespace.
pub(crate) fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_sorted(value, &mut out);
    out
}

/// Writes JSON with object keys sorted, no whitespace.
fn write_sorted(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String((*key).clone()).to_string());
                out.push(':');
                if let Some(v) = map.get(*key) {
                    write_sorted(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_sorted(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}
