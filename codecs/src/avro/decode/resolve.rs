//! Avro schema resolution (writer schema -> reader schema) compiled into a read plan, with
//! Java Avro's rules: fields matched by name or reader alias, reader-only fields take
//! their default, the permitted promotions, union branch choice, and resolution errors
//! that are raised only when a value actually reaches them.

use std::sync::Arc;

use serde_json::Value;

use super::cursor::{Cursor, ReadError, ReadResult};
use super::skip::Skip;
use crate::avro::model::{AvroNode, EnumSchema, RecordSchema};

/// What to read for one value of the writer schema, and how the reader sees it.
#[derive(Debug, Clone)]
pub enum Read {
    /// Nothing on the wire; the value is NULL.
    Null,
    /// A `boolean`.
    Boolean,
    /// An `int` (the reader may widen it).
    Int,
    /// A `long` (the reader may widen it).
    Long,
    /// A `float` (the reader may widen it).
    Float,
    /// A `double`.
    Double,
    /// `bytes` (the reader may take them as a string).
    Bytes,
    /// A `string` (the reader may take it as bytes).
    String,
    /// A `fixed` of this size.
    Fixed(usize),
    /// An `enum` index, mapped to the reader's symbol text.
    Enum(Arc<EnumRead>),
    /// An `array`.
    Array(Box<ValueRead>),
    /// A `map` (string keys).
    Map(Box<ValueRead>),
    /// A `record`.
    Record(Arc<RecordRead>),
    /// A resolution error, raised when a value gets here.
    Error(Arc<str>),
}

/// A value at a position where the writer may have a union.
#[derive(Debug, Clone)]
pub enum ValueRead {
    /// The writer has no union here.
    Direct(Read),
    /// The writer has a union: one read per writer branch.
    Union(Arc<[Read]>),
}

impl ValueRead {
    /// Reads the writer's union branch index where there is one and returns the read of
    /// the value; `None` means the value is NULL. A resolution error reached here fails.
    #[inline]
    pub fn select<'p>(&'p self, cur: &mut Cursor<'_>) -> ReadResult<Option<&'p Read>> {
        let read = match self {
            ValueRead::Direct(read) => read,
            ValueRead::Union(branches) => {
                let index = cur.read_int()?;
                usize::try_from(index)
                    .ok()
                    .and_then(|i| branches.get(i))
                    .ok_or_else(|| {
                        ReadError::new(format!(
                            "union branch index {index} out of range ({} branches)",
                            branches.len()
                        ))
                    })?
            }
        };
        match read {
            Read::Null => Ok(None),
            Read::Error(message) => Err(ReadError::new(message.to_string())),
            read => Ok(Some(read)),
        }
    }
}

impl ValueRead {
    /// Whether a value takes no bytes on the wire (see [`Read::is_zero_width`]); a union
    /// always takes its branch index.
    pub fn is_zero_width(&self) -> bool {
        match self {
            ValueRead::Direct(read) => read.is_zero_width(),
            ValueRead::Union(_) => false,
        }
    }
}

impl Read {
    /// Whether a value takes no bytes on the wire: `null`, `fixed(0)`, a record whose every
    /// field does, and a resolution error (which fails before reading).
    pub fn is_zero_width(&self) -> bool {
        match self {
            Read::Null | Read::Error(_) | Read::Fixed(0) => true,
            Read::Record(rec) => rec.zero_width,
            _ => false,
        }
    }
}

/// The mapping of writer enum indexes to reader symbols.
#[derive(Debug)]
pub struct EnumRead {
    /// Per writer index, the reader symbol or the error for an unknown symbol.
    pub symbols: Vec<Result<Arc<str>, Arc<str>>>,
}

/// How to read one writer record into the reader's fields.
#[derive(Debug)]
pub struct RecordRead {
    /// One step per writer field, in writer order.
    pub steps: Vec<Step>,
    /// Reader fields the writer lacks, with their default.
    pub defaults: Vec<(usize, Value)>,
    /// Number of reader fields.
    pub reader_len: usize,
    /// Whether the record takes no bytes on the wire (every writer field takes none).
    pub zero_width: bool,
}

/// One writer field: read into a reader field, or skip.
#[derive(Debug)]
pub enum Step {
    /// Read into reader field `index`.
    Field {
        /// Reader field position.
        index: usize,
        /// How to read it.
        read: ValueRead,
    },
    /// The reader does not have this field.
    Skip(Skip),
}

/// Resolves a writer value schema against a reader schema.
pub fn resolve(writer: &AvroNode, reader: &AvroNode) -> ValueRead {
    match writer {
        AvroNode::Union(branches) => ValueRead::Union(
            branches
                .iter()
                .map(|b| resolve_non_union(b, reader))
                .collect(),
        ),
        other => ValueRead::Direct(resolve_non_union(other, reader)),
    }
}

fn error(writer: &AvroNode, reader: &AvroNode, extra: &str) -> Read {
    let expecting = match reader {
        AvroNode::Union(_) => "union".to_string(),
        r => r.describe(),
    };
    Read::Error(Arc::from(format!(
        "Found {}, expecting {expecting}{extra}",
        writer.describe()
    )))
}

fn resolve_non_union(writer: &AvroNode, reader: &AvroNode) -> Read {
    match reader {
        AvroNode::Union(branches) => match best_branch(writer, branches) {
            Some(j) => resolve_same(writer, &branches[j]),
            None => error(writer, reader, ""),
        },
        r => resolve_same(writer, r),
    }
}

fn names_match(writer_name: &str, reader_name: &str, reader_aliases: &[String]) -> bool {
    writer_name == reader_name || reader_aliases.iter().any(|a| a == writer_name)
}

fn short_name(full: &str) -> &str {
    full.rsplit('.').next().unwrap_or(full)
}

/// Java Avro's choice of the reader union branch for a writer value: an exact type match
/// (named types by name, records also by structure), then a promotion.
fn best_branch(writer: &AvroNode, branches: &[AvroNode]) -> Option<usize> {
    let mut structure_match: Option<usize> = None;
    for (j, b) in branches.iter().enumerate() {
        match (writer, b) {
            (AvroNode::Record(w), AvroNode::Record(r)) => {
                if names_match(&w.full_name, &r.full_name, &r.aliases) {
                    return Some(j);
                }
                if !has_match_error(&resolve_record(w, r)) {
                    let same_short = short_name(&w.full_name) == short_name(&r.full_name);
                    if structure_match.is_none() || same_short {
                        structure_match = Some(j);
                    }
                }
            }
            (AvroNode::Enum(w), AvroNode::Enum(r))
                if names_match(&w.full_name, &r.full_name, &r.aliases) =>
            {
                return Some(j)
            }
            (AvroNode::Fixed(w), AvroNode::Fixed(r))
                if names_match(&w.full_name, &r.full_name, &r.aliases) =>
            {
                return Some(j)
            }
            (AvroNode::Enum(_), AvroNode::Enum(_)) | (AvroNode::Fixed(_), AvroNode::Fixed(_)) => {}
            (w, b) if std::mem::discriminant(w) == std::mem::discriminant(b) => return Some(j),
            _ => {}
        }
    }
    if structure_match.is_some() {
        return structure_match;
    }
    branches.iter().position(|b| {
        matches!(
            (writer, b),
            (
                AvroNode::Int,
                AvroNode::Long | AvroNode::Float | AvroNode::Double
            ) | (AvroNode::Long, AvroNode::Float | AvroNode::Double)
                | (AvroNode::Float, AvroNode::Double)
                | (AvroNode::String, AvroNode::Bytes)
                | (AvroNode::Bytes, AvroNode::String)
        )
    })
}

fn has_match_error(read: &Read) -> bool {
    match read {
        Read::Error(_) => true,
        Read::Record(rec) => rec.steps.iter().any(|s| {
            matches!(
                s,
                Step::Field {
                    read: ValueRead::Direct(Read::Error(_)),
                    ..
                }
            )
        }),
        _ => false,
    }
}

fn resolve_same(writer: &AvroNode, reader: &AvroNode) -> Read {
    use AvroNode as N;
    match (writer, reader) {
        (N::Null, N::Null) => Read::Null,
        (N::Boolean, N::Boolean) => Read::Boolean,
        (N::Int, N::Int | N::Long | N::Float | N::Double) => Read::Int,
        (N::Long, N::Long | N::Float | N::Double) => Read::Long,
        (N::Float, N::Float | N::Double) => Read::Float,
        (N::Double, N::Double) => Read::Double,
        (N::Bytes, N::Bytes | N::String) => Read::Bytes,
        (N::String, N::String | N::Bytes) => Read::String,
        (N::Fixed(w), N::Fixed(r)) => {
            if !names_match(&w.full_name, &r.full_name, &r.aliases) {
                error(writer, reader, " (fixed names do not match)")
            } else if w.size != r.size {
                error(writer, reader, " (fixed sizes do not match)")
            } else {
                Read::Fixed(w.size)
            }
        }
        (N::Enum(w), N::Enum(r)) => {
            if !names_match(&w.full_name, &r.full_name, &r.aliases) {
                error(writer, reader, " (enum names do not match)")
            } else {
                Read::Enum(Arc::new(resolve_enum(w, r)))
            }
        }
        (N::Array(w), N::Array(r)) => Read::Array(Box::new(resolve(w, r))),
        (N::Map(w), N::Map(r)) => Read::Map(Box::new(resolve(w, r))),
        (N::Record(w), N::Record(r)) => resolve_record(w, r),
        (N::Recursive(name), _) | (_, N::Recursive(name)) => Read::Error(Arc::from(format!(
            "recursive Avro type '{name}' is not supported"
        ))),
        _ => error(writer, reader, ""),
    }
}

fn resolve_enum(writer: &EnumSchema, reader: &EnumSchema) -> EnumRead {
    let symbols = writer
        .symbols
        .iter()
        .map(|s| {
            if reader.symbols.contains(s) {
                Ok(Arc::from(s.as_str()))
            } else if let Some(d) = &reader.default {
                Ok(Arc::from(d.as_str()))
            } else {
                Err(Arc::from(format!(
                    "No match for {s} in enum {} (symbols {:?})",
                    reader.full_name, reader.symbols
                )))
            }
        })
        .collect();
    EnumRead { symbols }
}

fn resolve_record(writer: &RecordSchema, reader: &RecordSchema) -> Read {
    let mut matched = vec![false; reader.fields.len()];
    let mut steps = Vec::with_capacity(writer.fields.len());
    for wf in &writer.fields {
        let found = reader
            .fields
            .iter()
            .position(|rf| rf.name == wf.name)
            .or_else(|| {
                reader
                    .fields
                    .iter()
                    .position(|rf| rf.aliases.contains(&wf.name))
            });
        match found {
            Some(index) if !matched[index] => {
                matched[index] = true;
                steps.push(Step::Field {
                    index,
                    read: resolve(&wf.schema, &reader.fields[index].schema),
                });
            }
            _ => steps.push(Step::Skip(Skip::plan(&wf.schema))),
        }
    }
    let mut defaults = Vec::new();
    for (index, rf) in reader.fields.iter().enumerate() {
        if matched[index] {
            continue;
        }
        match &rf.default {
            Some(d) => defaults.push((index, d.clone())),
            None => {
                return Read::Error(Arc::from(format!(
                    "Found {}, expecting {}, missing required field {}",
                    writer.full_name, reader.full_name, rf.name
                )))
            }
        }
    }
    let zero_width = steps.iter().all(|step| match step {
        Step::Field { read, .. } => read.is_zero_width(),
        Step::Skip(skip) => skip.is_zero_width(),
    });
    Read::Record(Arc::new(RecordRead {
        steps,
        defaults,
        reader_len: reader.fields.len(),
        zero_width,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> AvroNode {
        AvroNode::parse(s).unwrap()
    }

    #[test]
    fn union_branch_choice_prefers_exact_then_promotion() {
        let reader = parse(r#"["null","long"]"#);
        assert!(matches!(
            resolve(&parse(r#""int""#), &reader),
            ValueRead::Direct(Read::Int)
        ));
        let ValueRead::Union(b) = resolve(&parse(r#"["null","int","string"]"#), &reader) else {
            panic!()
        };
        assert!(matches!(b[0], Read::Null));
        assert!(matches!(b[1], Read::Int));
        assert!(matches!(&b[2], Read::Error(m) if m.contains("Found string, expecting union")));
    }

    #[test]
    fn records_match_by_name_alias_and_defaults() {
        let writer = parse(
            r#"{"type":"record","name":"W","namespace":"x","fields":[
                {"name":"extra","type":{"type":"array","items":"string"}},
                {"name":"old","type":"int"},{"name":"a","type":"long"}]}"#,
        );
        let reader = parse(
            r#"{"type":"record","name":"record","fields":[
                {"name":"a","type":["null","double"],"default":null},
                {"name":"b","type":["null","int"],"default":null},
                {"name":"c","type":"int","aliases":["old"]}]}"#,
        );
        let ValueRead::Direct(Read::Record(rec)) = resolve(&writer, &reader) else {
            panic!()
        };
        assert!(matches!(rec.steps[0], Step::Skip(_)));
        assert!(matches!(
            rec.steps[1],
            Step::Field {
                index: 2,
                read: ValueRead::Direct(Read::Int)
            }
        ));
        assert!(matches!(
            rec.steps[2],
            Step::Field {
                index: 0,
                read: ValueRead::Direct(Read::Long)
            }
        ));
        assert_eq!(rec.defaults, vec![(1, Value::Null)]);

        let strict =
            parse(r#"{"type":"record","name":"record","fields":[{"name":"z","type":"int"}]}"#);
        let ValueRead::Direct(Read::Error(m)) = resolve(&writer, &strict) else {
            panic!()
        };
        assert!(m.contains("missing required field z"), "{m}");
    }

    #[test]
    fn illegal_promotions_and_enum_to_string_are_errors() {
        assert!(matches!(
            resolve(&parse(r#""long""#), &parse(r#""int""#)),
            ValueRead::Direct(Read::Error(_))
        ));
        let e = parse(r#"{"type":"enum","name":"E","symbols":["A"]}"#);
        assert!(matches!(
            resolve(&e, &parse(r#"["null","string"]"#)),
            ValueRead::Direct(Read::Error(_))
        ));
        let f = parse(r#"{"type":"fixed","name":"F","size":2}"#);
        assert!(matches!(
            resolve(&f, &parse(r#""bytes""#)),
            ValueRead::Direct(Read::Error(_))
        ));
    }
}
