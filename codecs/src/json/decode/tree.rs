//! Jackson's tree model as flink-json uses it: the tree decoder reads the whole first
//! value into it, and both decoders store `toString()` of a subtree in STRING columns
//! that receive an object or array. Duplicate keys keep their first position with the
//! last value; integers are normalised (`-0` is `0`); floats are `DoubleNode`s, or
//! `DecimalNode`s with trailing zeros stripped when the row type contains a DECIMAL
//! (`USE_BIG_DECIMAL_FOR_FLOATS`); `toString()` escapes strings as Jackson's writer-based
//! generator does (control characters only; non-ASCII stays raw).

use crate::java::numbers::{decimal_node_text, write_java_double_as, JavaFloatText};

/// How a tree node's number literals print: as a `DecimalNode` when the row has a DECIMAL
/// (Flink then reads floats as BigDecimal), else as a `DoubleNode` with the `Double.toString`
/// digits of the job's JVM.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NodeText {
    /// The row type has a DECIMAL somewhere.
    pub(crate) has_decimal: bool,
    /// The JVM's `Double.toString` digits.
    pub(crate) floats: JavaFloatText,
}
use crate::json::tokens::{Token, Tokens};

/// One node of the tree.
pub(crate) enum Node {
    /// An object, entries in first-seen key order.
    Object(Vec<Entry>),
    /// An array.
    Array(Vec<Node>),
    /// A string (unescaped UTF-8).
    Text(Vec<u8>),
    /// An integer literal (int, long or BigInteger node).
    Int(Vec<u8>),
    /// A float literal (double node, or decimal node when the row has a DECIMAL).
    Float(Vec<u8>),
    /// `true` / `false`.
    Bool(bool),
    /// `null`.
    Null,
}

/// Reads the container at the current token (ending on its end token) and appends its
/// tree text to `out`.
pub(crate) fn container_text(
    t: &mut Tokens<'_>,
    text: NodeText,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let node = read_node(t)?;
    write_node(&node, text, out);
    Ok(())
}

/// One member of an object node.
pub(crate) struct Entry {
    /// The key as Flink stores it (UTF-8).
    pub(crate) key: Vec<u8>,
    /// The Java key had lone surrogates the stored UTF-8 replaced with `?`: it equals
    /// no other key, and no field name, with the same stored bytes.
    pub(crate) lossy: bool,
    /// The value.
    pub(crate) value: Node,
}

impl Entry {
    /// Whether this member is the one Java's `ObjectNode.get(name)` finds.
    pub(crate) fn is_named(&self, name: &[u8]) -> bool {
        !self.lossy && self.key == name
    }
}

/// Objects with more members than this find an equal key through a hash index instead of
/// comparing every member (Jackson's `LinkedHashMap` costs the same per member however many
/// there are; pairwise comparison made one message of n members cost n^2).
const LINEAR_KEYS: usize = 16;

/// An object or array being read, with what it has so far.
enum Open {
    Object {
        entries: Vec<Entry>,
        /// Key -> position in `entries`, once there are more than [`LINEAR_KEYS`].
        index: Option<std::collections::HashMap<Vec<u8>, usize>>,
        /// The member whose value is being read.
        key: Vec<u8>,
        lossy: bool,
    },
    Array(Vec<Node>),
}

impl Open {
    /// Adds a finished value to this container (`LinkedHashMap.put` for objects: an equal
    /// key keeps its place and takes the value).
    fn add(&mut self, value: Node) {
        match self {
            Open::Array(items) => items.push(value),
            Open::Object {
                entries,
                index,
                key,
                lossy,
            } => {
                let key = std::mem::take(key);
                let lossy = *lossy;
                let found = if lossy {
                    None
                } else if let Some(index) = index {
                    index.get(&key).copied()
                } else {
                    entries.iter().position(|e| e.is_named(&key))
                };
                match found {
                    Some(at) => entries[at].value = value,
                    None => {
                        if !lossy {
                            if let Some(index) = index {
                                index.insert(key.clone(), entries.len());
                            }
                        }
                        entries.push(Entry { key, lossy, value });
                        if index.is_none() && entries.len() > LINEAR_KEYS {
                            *index = Some(
                                entries
                                    .iter()
                                    .enumerate()
                                    .filter(|(_, e)| !e.lossy)
                                    .map(|(i, e)| (e.key.clone(), i))
                                    .collect(),
                            );
                        }
                    }
                }
            }
        }
    }

    fn close(self) -> Node {
        match self {
            Open::Object { entries, .. } => Node::Object(entries),
            Open::Array(items) => Node::Array(items),
        }
    }
}

/// Reads the value at the current token (a container ends on its end token). Iterative:
/// the containers being read are on a heap stack, so nesting (up to the tokenizer's 1000
/// levels) costs no native stack.
pub(crate) fn read_node(t: &mut Tokens<'_>) -> Result<Node, String> {
    let mut open: Vec<Open> = Vec::new();
    // The token to read a value from; `None` after a value was read (then the next token
    // continues the innermost container).
    let mut at_value = true;
    loop {
        let value = if at_value {
            match t.current() {
                Some(Token::StartObject) => {
                    open.push(Open::Object {
                        entries: Vec::new(),
                        index: None,
                        key: Vec::new(),
                        lossy: false,
                    });
                    at_value = false;
                    continue;
                }
                Some(Token::StartArray) => {
                    open.push(Open::Array(Vec::new()));
                    at_value = false;
                    continue;
                }
                Some(Token::String) => Node::Text(t.text()?.to_vec()),
                Some(Token::Int) => Node::Int(t.literal().to_vec()),
                Some(Token::Float) => Node::Float(t.literal().to_vec()),
                Some(Token::True) => Node::Bool(true),
                Some(Token::False) => Node::Bool(false),
                Some(Token::Null) => Node::Null,
                other => return Err(format!("unexpected token {other:?}")),
            }
        } else {
            // Inside the innermost container: its next member, or its end.
            // `at_value` is false only while a container is open.
            let Some(container) = open.last_mut() else {
                return Err(LOST.into());
            };
            let token = t.next().map_err(|e| e.0)?;
            match (container, token) {
                (Open::Object { .. }, Some(Token::EndObject))
                | (Open::Array(_), Some(Token::EndArray)) => match open.pop() {
                    Some(done) => done.close(),
                    None => return Err(LOST.into()),
                },
                (Open::Object { key, lossy, .. }, Some(Token::FieldName)) => {
                    *key = t.text()?.to_vec();
                    *lossy = t.text_was_lossy();
                    t.next().map_err(|e| e.0)?;
                    at_value = true;
                    continue;
                }
                (Open::Object { .. }, other) => {
                    return Err(format!("unexpected token {other:?} in an object"))
                }
                (Open::Array(_), None) => return Err("Unexpected end-of-input in an array".into()),
                (Open::Array(_), Some(_)) => {
                    at_value = true;
                    continue;
                }
            }
        };
        match open.last_mut() {
            None => return Ok(value),
            Some(container) => {
                container.add(value);
                at_value = false;
            }
        }
    }
}

const LOST: &str = "internal error: the JSON tree reader lost its place";

impl Drop for Node {
    /// Drops the children of deep trees from a heap stack (the derived drop recurses once
    /// per level).
    fn drop(&mut self) {
        fn take_children(node: &mut Node, into: &mut Vec<Node>) {
            match node {
                Node::Array(items) => into.append(items),
                Node::Object(entries) => into.extend(
                    entries
                        .iter_mut()
                        .map(|e| std::mem::replace(&mut e.value, Node::Null)),
                ),
                _ => {}
            }
        }
        let mut pending = Vec::new();
        take_children(self, &mut pending);
        while let Some(mut node) = pending.pop() {
            take_children(&mut node, &mut pending);
        }
    }
}

/// An integer literal as Jackson's int/long/BigInteger nodes print it.
pub(crate) fn integer_text(literal: &[u8], out: &mut Vec<u8>) {
    if literal == b"-0" {
        out.push(b'0');
    } else {
        out.extend_from_slice(literal);
    }
}

/// A float literal as its node prints it: `Double.toString` of a `DoubleNode`, or the
/// stripped `BigDecimal` of a `DecimalNode` when the row has a DECIMAL.
pub(crate) fn float_text(literal: &[u8], text: NodeText, out: &mut Vec<u8>) {
    let literal = std::str::from_utf8(literal).unwrap_or("0");
    if text.has_decimal {
        let text = decimal_node_text(literal).unwrap_or_else(|_| literal.to_string());
        out.extend_from_slice(text.as_bytes());
    } else {
        write_java_double_as(text.floats, literal.parse().unwrap_or(f64::NAN), out);
    }
}

impl Node {
    /// Jackson's `asText()`: a string's text, a scalar's spelling, `""` for containers.
    pub(crate) fn as_text(&self, text: NodeText, out: &mut Vec<u8>) {
        match self {
            Node::Text(text) => out.extend_from_slice(text),
            Node::Int(literal) => integer_text(literal, out),
            Node::Float(literal) => float_text(literal, text, out),
            Node::Bool(true) => out.extend_from_slice(b"true"),
            Node::Bool(false) => out.extend_from_slice(b"false"),
            Node::Null => out.extend_from_slice(b"null"),
            Node::Object(_) | Node::Array(_) => {}
        }
    }

    /// Jackson's `toString()` (compact JSON).
    pub(crate) fn to_json(&self, text: NodeText, out: &mut Vec<u8>) {
        write_node(self, text, out)
    }
}

/// Writes `node` as compact JSON. Iterative: each open container is a heap-stack entry
/// with the position of its next child.
fn write_node(node: &Node, text: NodeText, out: &mut Vec<u8>) {
    enum Next<'a> {
        Members(std::slice::Iter<'a, Entry>, bool),
        Items(std::slice::Iter<'a, Node>, bool),
    }
    let mut stack: Vec<Next<'_>> = Vec::new();
    let mut current = Some(node);
    loop {
        if let Some(node) = current.take() {
            match node {
                Node::Object(entries) => {
                    out.push(b'{');
                    stack.push(Next::Members(entries.iter(), true));
                }
                Node::Array(items) => {
                    out.push(b'[');
                    stack.push(Next::Items(items.iter(), true));
                }
                Node::Text(text) => write_quoted(text, out),
                // A non-finite double is written as a quoted string (QUOTE_NON_NUMERIC_NUMBERS).
                Node::Float(literal) if !text.has_decimal && !lit_f64(literal).is_finite() => {
                    out.push(b'"');
                    float_text(literal, text, out);
                    out.push(b'"');
                }
                scalar => scalar.as_text(text, out),
            }
        }
        let Some(top) = stack.last_mut() else {
            return;
        };
        match top {
            Next::Members(members, first) => match members.next() {
                Some(entry) => {
                    if !std::mem::take(first) {
                        out.push(b',');
                    }
                    write_quoted(&entry.key, out);
                    out.push(b':');
                    current = Some(&entry.value);
                }
                None => {
                    out.push(b'}');
                    stack.pop();
                }
            },
            Next::Items(items, first) => match items.next() {
                Some(item) => {
                    if !std::mem::take(first) {
                        out.push(b',');
                    }
                    current = Some(item);
                }
                None => {
                    out.push(b']');
                    stack.pop();
                }
            },
        }
    }
}

fn lit_f64(literal: &[u8]) -> f64 {
    std::str::from_utf8(literal)
        .ok()
        .and_then(|l| l.parse().ok())
        .unwrap_or(0.0)
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

fn write_quoted(text: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    for &b in text {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x09 => out.extend_from_slice(b"\\t"),
            0x0A => out.extend_from_slice(b"\\n"),
            0x0C => out.extend_from_slice(b"\\f"),
            0x0D => out.extend_from_slice(b"\\r"),
            0..=0x1F => {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(b >> 4) as usize]);
                out.push(HEX[(b & 15) as usize]);
            }
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(json: &str, has_decimal: bool) -> String {
        let mut t = Tokens::new(json.as_bytes());
        t.next().unwrap();
        let mut out = Vec::new();
        let text = NodeText {
            has_decimal,
            floats: JavaFloatText::Shortest,
        };
        container_text(&mut t, text, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn subtrees_are_rewritten_compactly() {
        assert_eq!(
            text_of(
                r#" { "x" : 1 , "y" : [1, 2.50, "s", true, null, -0] } "#,
                false
            ),
            r#"{"x":1,"y":[1,2.5,"s",true,null,0]}"#
        );
        assert_eq!(text_of("[1e3, 1E-7]", false), "[1000.0,1.0E-7]");
        assert_eq!(
            text_of("[1e400, -1e400]", false),
            r#"["Infinity","-Infinity"]"#
        );
    }

    #[test]
    fn duplicate_keys_keep_first_position_and_last_value() {
        assert_eq!(text_of(r#"{"a":1,"b":2,"a":3}"#, false), r#"{"a":3,"b":2}"#);
    }

    #[test]
    fn floats_are_stripped_decimals_when_the_row_has_a_decimal() {
        assert_eq!(
            text_of("[2.50, 1e3, 100.0, 0.000, 0.0000001, -1.5e-3]", true),
            "[2.5,1E+3,1E+2,0,1E-7,-0.0015]"
        );
    }

    #[test]
    fn strings_escape_only_control_characters() {
        assert_eq!(
            text_of("[\"a\\\"b\\u0001\\n\u{e9}\u{1F600}/\"]", false),
            "[\"a\\\"b\\u0001\\né\u{1F600}/\"]"
        );
    }
}
