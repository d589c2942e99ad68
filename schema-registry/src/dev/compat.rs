//! Avro schema-resolution compatibility, the rule behind BACKWARD / FORWARD / FULL checks.
//!
//! `can_read(writer, reader)` answers whether data written with `writer` can be decoded with
//! `reader` under the Avro specification's resolution rules: numeric and string/bytes
//! promotion, record fields matched by name or reader alias (missing ones need a default),
//! enum symbols (or a reader default), fixed sizes, union branch matching, and named types
//! compared by name or alias. Logical types resolve as their underlying types.

use std::collections::{HashMap, HashSet};

use apache_avro::schema::{Name, RecordSchema, Schema};

use crate::model::CompatibilityLevel;

/// A parsed Avro schema with the named types it (and its references) define, so that
/// `Schema::Ref` nodes can be followed.
pub(crate) struct AvroSchema {
    root: Schema,
    names: HashMap<String, Schema>,
}

impl AvroSchema {
    /// Wraps a parsed schema and the parsed schemas it references.
    pub(crate) fn new(root: Schema, referenced: Vec<Schema>) -> Self {
        let mut names = HashMap::new();
        for schema in referenced.iter().chain(std::iter::once(&root)) {
            collect_names(schema, &mut names);
        }
        AvroSchema { root, names }
    }

    fn resolve<'a>(&'a self, schema: &'a Schema) -> Result<&'a Schema, String> {
        match schema {
            Schema::Ref { name } => self
                .names
                .get(&name.fullname(None))
                .ok_or_else(|| format!("unresolved reference to '{}'", name.fullname(None))),
            other => Ok(other),
        }
    }
}

fn collect_names(schema: &Schema, names: &mut HashMap<String, Schema>) {
    match schema {
        Schema::Record(r) => {
            names.insert(r.name.fullname(None), schema.clone());
            for field in &r.fields {
                collect_names(&field.schema, names);
            }
        }
        Schema::Enum(e) => {
            names.insert(e.name.fullname(None), schema.clone());
        }
        Schema::Fixed(f) => {
            names.insert(f.name.fullname(None), schema.clone());
        }
        Schema::Array(a) => collect_names(&a.items, names),
        Schema::Map(m) => collect_names(&m.types, names),
        Schema::Union(u) => u.variants().iter().for_each(|v| collect_names(v, names)),
        Schema::Decimal(d) => collect_names(&d.inner, names),
        _ => {}
    }
}

/// Checks a new schema against the existing versions of a subject (oldest first) under
/// `level`; the error lists what is incompatible and with which version.
pub(crate) fn check(
    level: CompatibilityLevel,
    new: &AvroSchema,
    existing: &[(i32, AvroSchema)],
) -> Result<(), Vec<String>> {
    use CompatibilityLevel as L;
    let (backward, forward, transitive) = match level {
        L::None => return Ok(()),
        L::Backward => (true, false, false),
        L::BackwardTransitive => (true, false, true),
        L::Forward => (false, true, false),
        L::ForwardTransitive => (false, true, true),
        L::Full => (true, true, false),
        L::FullTransitive => (true, true, true),
    };
    let against: &[(i32, AvroSchema)] = match (transitive, existing.split_last()) {
        (_, None) => &[],
        (true, Some(_)) => existing,
        (false, Some((last, _))) => std::slice::from_ref(last),
    };
    let mut problems = Vec::new();
    for (version, old) in against {
        if backward {
            if let Err(e) = can_read(old, new) {
                problems.push(format!(
                    "new schema cannot read data written with version {version}: {e}"
                ));
            }
        }
        if forward {
            if let Err(e) = can_read(new, old) {
                problems.push(format!(
                    "version {version} cannot read data written with the new schema: {e}"
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// Whether data written with `writer` can be read with `reader`; the error names the path.
pub(crate) fn can_read(writer: &AvroSchema, reader: &AvroSchema) -> Result<(), String> {
    let mut checker = Checker {
        writer,
        reader,
        seen: HashSet::new(),
    };
    checker.check(&writer.root, &reader.root, "")
}

struct Checker<'a> {
    writer: &'a AvroSchema,
    reader: &'a AvroSchema,
    /// (writer record, reader record) pairs under check, to stop on recursive types.
    seen: HashSet<(String, String)>,
}

/// The primitive (or named) shape a schema resolves as, logical types unwrapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    Null,
    Boolean,
    Int,
    Long,
    Float,
    Double,
    Bytes,
    String,
    Other,
}

impl<'a> Checker<'a> {
    fn check(&mut self, w: &'a Schema, r: &'a Schema, path: &str) -> Result<(), String> {
        let w = underlying(self.writer.resolve(w)?);
        let r = underlying(self.reader.resolve(r)?);
        if let Schema::Union(wu) = w {
            for (i, branch) in wu.variants().iter().enumerate() {
                self.check(branch, r, &format!("{path}/union[{i}]"))?;
            }
            return Ok(());
        }
        if let Schema::Union(ru) = r {
            for branch in ru.variants() {
                // Trial matches must not leave recursion marks behind.
                let saved = self.seen.clone();
                if self.check(w, branch, path).is_ok() {
                    return Ok(());
                }
                self.seen = saved;
            }
            return Err(format!(
                "{}: reader union has no branch that can read writer type {}",
                display_path(path),
                describe(w)
            ));
        }
        match (w, r) {
            (Schema::Record(wr), Schema::Record(rr)) => self.record(wr, rr, path),
            (Schema::Enum(we), Schema::Enum(re)) => {
                names_match(&we.name, &re.name, re.aliases.as_deref(), path)?;
                let missing: Vec<&str> = we
                    .symbols
                    .iter()
                    .filter(|s| !re.symbols.contains(s))
                    .map(String::as_str)
                    .collect();
                if missing.is_empty() || re.default.is_some() {
                    Ok(())
                } else {
                    Err(format!(
                        "{}: reader enum {} lacks writer symbols {:?} and has no default",
                        display_path(path),
                        re.name.fullname(None),
                        missing
                    ))
                }
            }
            (Schema::Fixed(wf), Schema::Fixed(rf)) => {
                names_match(&wf.name, &rf.name, rf.aliases.as_deref(), path)?;
                if wf.size == rf.size {
                    Ok(())
                } else {
                    Err(format!(
                        "{}: fixed {} has size {} in the writer but {} in the reader",
                        display_path(path),
                        rf.name.fullname(None),
                        wf.size,
                        rf.size
                    ))
                }
            }
            (Schema::Duration, Schema::Duration) => Ok(()),
            (Schema::Array(wa), Schema::Array(ra)) => {
                self.check(&wa.items, &ra.items, &format!("{path}/items"))
            }
            (Schema::Map(wm), Schema::Map(rm)) => {
                self.check(&wm.types, &rm.types, &format!("{path}/values"))
            }
            _ => {
                if promotes(base(w), base(r)) {
                    Ok(())
                } else {
                    Err(format!(
                        "{}: reader type {} cannot read writer type {}",
                        display_path(path),
                        describe(r),
                        describe(w)
                    ))
                }
            }
        }
    }

    fn record(
        &mut self,
        w: &'a RecordSchema,
        r: &'a RecordSchema,
        path: &str,
    ) -> Result<(), String> {
        names_match(&w.name, &r.name, r.aliases.as_deref(), path)?;
        let key = (w.name.fullname(None), r.name.fullname(None));
        if !self.seen.insert(key) {
            return Ok(());
        }
        for rf in &r.fields {
            let field_path = format!("{path}/{}", rf.name);
            let wf = w.fields.iter().find(|wf| {
                wf.name == rf.name
                    || rf
                        .aliases
                        .as_ref()
                        .is_some_and(|aliases| aliases.contains(&wf.name))
            });
            match wf {
                Some(wf) => self.check(&wf.schema, &rf.schema, &field_path)?,
                None if rf.default.is_some() => {}
                None => {
                    return Err(format!(
                        "{}: reader field '{}' of {} is missing from the writer and has no default",
                        display_path(&field_path),
                        rf.name,
                        r.name.fullname(None)
                    ))
                }
            }
        }
        Ok(())
    }
}

/// Logical types resolve as the type they annotate.
fn underlying(schema: &Schema) -> &Schema {
    match schema {
        Schema::Decimal(d) => underlying(&d.inner),
        other => other,
    }
}

fn base(schema: &Schema) -> Base {
    match schema {
        Schema::Null => Base::Null,
        Schema::Boolean => Base::Boolean,
        Schema::Int | Schema::Date | Schema::TimeMillis => Base::Int,
        Schema::Long
        | Schema::TimeMicros
        | Schema::TimestampMillis
        | Schema::TimestampMicros
        | Schema::TimestampNanos
        | Schema::LocalTimestampMillis
        | Schema::LocalTimestampMicros
        | Schema::LocalTimestampNanos => Base::Long,
        Schema::Float => Base::Float,
        Schema::Double => Base::Double,
        Schema::Bytes | Schema::BigDecimal => Base::Bytes,
        Schema::String | Schema::Uuid => Base::String,
        _ => Base::Other,
    }
}

/// The Avro promotion table: can a reader of `r` read a value written as `w`?
fn promotes(w: Base, r: Base) -> bool {
    use Base::*;
    match (w, r) {
        (Other, _) | (_, Other) => false,
        (Int, Long | Float | Double) | (Long, Float | Double) | (Float, Double) => true,
        (String, Bytes) | (Bytes, String) => true,
        (w, r) => w == r,
    }
}

/// Named types match when the unqualified names agree or a reader alias names the writer.
fn names_match(
    writer: &Name,
    reader: &Name,
    reader_aliases: Option<&[apache_avro::schema::Alias]>,
    path: &str,
) -> Result<(), String> {
    let by_alias = reader_aliases.is_some_and(|aliases| {
        aliases.iter().any(|a| {
            a.fullname(reader.namespace.clone()) == writer.fullname(None) || a.name() == writer.name
        })
    });
    if writer.name == reader.name || by_alias {
        Ok(())
    } else {
        Err(format!(
            "{}: writer type {} does not match reader type {}",
            display_path(path),
            writer.fullname(None),
            reader.fullname(None)
        ))
    }
}

fn describe(schema: &Schema) -> String {
    match schema {
        Schema::Record(r) => format!("record {}", r.name.fullname(None)),
        Schema::Enum(e) => format!("enum {}", e.name.fullname(None)),
        Schema::Fixed(f) => format!("fixed {}", f.name.fullname(None)),
        Schema::Array(_) => "array".into(),
        Schema::Map(_) => "map".into(),
        Schema::Union(_) => "union".into(),
        other => format!("{:?}", base(other)).to_lowercase(),
    }
}

fn display_path(path: &str) -> &str {
    if path.is_empty() {
        "/"
    } else {
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn avro(text: &str) -> AvroSchema {
        AvroSchema::new(Schema::parse_str(text).expect("valid schema"), Vec::new())
    }

    fn rec(fields: &str) -> AvroSchema {
        avro(&format!(
            r#"{{"type":"record","name":"R","namespace":"n","fields":[{fields}]}}"#
        ))
    }

    #[test]
    fn added_field_needs_default_for_backward() {
        let v1 = rec(r#"{"name":"a","type":"int"}"#);
        let with_default =
            rec(r#"{"name":"a","type":"int"},{"name":"b","type":"string","default":""}"#);
        let without = rec(r#"{"name":"a","type":"int"},{"name":"b","type":"string"}"#);
        assert!(can_read(&v1, &with_default).is_ok());
        let err = can_read(&v1, &without).unwrap_err();
        assert!(err.contains("/b"), "{err}");
        // Removing a field is fine for the reader.
        assert!(can_read(&with_default, &v1).is_ok());
    }

    #[test]
    fn promotions_and_unions() {
        let int = rec(r#"{"name":"a","type":"int"}"#);
        let long = rec(r#"{"name":"a","type":"long"}"#);
        let opt = rec(r#"{"name":"a","type":["null","long"],"default":null}"#);
        let string = rec(r#"{"name":"a","type":"string"}"#);
        assert!(can_read(&int, &long).is_ok());
        assert!(can_read(&long, &int).is_err());
        assert!(can_read(&int, &opt).is_ok());
        assert!(can_read(&opt, &long).is_err());
        assert!(can_read(&int, &string).is_err());
    }

    #[test]
    fn enums_and_recursion() {
        let e1 = avro(r#"{"type":"enum","name":"E","symbols":["A","B"]}"#);
        let e2 = avro(r#"{"type":"enum","name":"E","symbols":["A"]}"#);
        let e3 = avro(r#"{"type":"enum","name":"E","symbols":["A"],"default":"A"}"#);
        assert!(can_read(&e2, &e1).is_ok());
        assert!(can_read(&e1, &e2).is_err());
        assert!(can_read(&e1, &e3).is_ok());
        let list = avro(
            r#"{"type":"record","name":"L","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","L"]}]}"#,
        );
        assert!(can_read(&list, &list).is_ok());
    }

    #[test]
    fn levels() {
        let v1 = rec(r#"{"name":"a","type":"int"}"#);
        let v2 = rec(r#"{"name":"a","type":"int"},{"name":"b","type":"string"}"#);
        let existing = vec![(1, v1)];
        assert!(check(CompatibilityLevel::None, &v2, &existing).is_ok());
        assert!(check(CompatibilityLevel::Backward, &v2, &existing).is_err());
        assert!(check(CompatibilityLevel::Forward, &v2, &existing).is_ok());
        assert!(check(CompatibilityLevel::Full, &v2, &existing).is_err());
    }
}
