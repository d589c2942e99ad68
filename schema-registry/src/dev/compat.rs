//! Avro schema-resolution compatibility, the rule behind BACKWARD / FORWARD / FULL checks.
//!
//! `can_read(writer, reader)` answers whether data written with `writer` can be decoded with
//! `reader` under the Avro specification's resolution rules (as Java Avro's
//! `SchemaCompatibility` checks them): numeric and string/bytes promotion, record fields
//! matched by name or reader alias (missing ones need a default), enum symbols (or a reader
//! default), fixed sizes, union branch matching, and named types compared by unqualified
//! name or reader alias. Logical types resolve as their underlying types.
//!
//! Cost: each (writer record, reader record) pair is decided once. The answer for all pairs is
//! the greatest fixpoint (a recursive pair is compatible unless something in it is not): every
//! pair starts compatible, a pair whose fields fail is marked incompatible and the pairs that
//! used it are checked again. Each pair turns incompatible at most once, so the work is
//! polynomial in the schemas' sizes (the trial-and-error over union branches that made the
//! old check exponential in nested unions of aliased records only ever re-reads a decided
//! pair), and it is capped by [`MAX_STEPS`] anyway.

use std::collections::{HashMap, VecDeque};

use karrow_codecs::avro::model::{AvroNode, RecordSchema};

use super::schema::avro::AvroParsed;
use crate::model::CompatibilityLevel;

/// Most comparisons one check may make (then the schema is refused as too complex).
pub(crate) const MAX_STEPS: u64 = 4_000_000;

/// The check gave up: the schemas are too large or too entangled to compare in bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TooComplex;

/// Checks a new schema against the existing versions of a subject (oldest first) under
/// `level`; the error lists what is incompatible and with which version.
pub(crate) fn check(
    level: CompatibilityLevel,
    new: &AvroParsed,
    existing: &[(i32, &AvroParsed)],
) -> Result<Result<(), Vec<String>>, TooComplex> {
    use CompatibilityLevel as L;
    let (backward, forward, transitive) = match level {
        L::None => return Ok(Ok(())),
        L::Backward => (true, false, false),
        L::BackwardTransitive => (true, false, true),
        L::Forward => (false, true, false),
        L::ForwardTransitive => (false, true, true),
        L::Full => (true, true, false),
        L::FullTransitive => (true, true, true),
    };
    let against: &[(i32, &AvroParsed)] = match (transitive, existing.split_last()) {
        (_, None) => &[],
        (true, Some(_)) => existing,
        (false, Some((last, _))) => std::slice::from_ref(last),
    };
    let mut problems = Vec::new();
    for (version, old) in against {
        if backward {
            if let Err(e) = can_read(old, new)? {
                problems.push(format!(
                    "new schema cannot read data written with version {version}: {e}"
                ));
            }
        }
        if forward {
            if let Err(e) = can_read(new, old)? {
                problems.push(format!(
                    "version {version} cannot read data written with the new schema: {e}"
                ));
            }
        }
    }
    Ok(if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    })
}

/// Whether data written with `writer` can be read with `reader`; the error names the path.
pub(crate) fn can_read(
    writer: &AvroParsed,
    reader: &AvroParsed,
) -> Result<Result<(), String>, TooComplex> {
    let mut checker = Checker {
        writer,
        reader,
        index: HashMap::new(),
        pairs: Vec::new(),
        queue: VecDeque::new(),
        steps: 0,
    };
    // Discover the pairs the roots reach, settle them, then read the roots' answer.
    let _ = checker.eval(&writer.root, &reader.root, String::new(), None)?;
    while let Some(p) = checker.queue.pop_front() {
        checker.pairs[p].queued = false;
        if !checker.pairs[p].ok {
            continue;
        }
        if let Err(failure) = checker.eval_record(p)? {
            checker.pairs[p].ok = false;
            checker.pairs[p].failure = Some(failure);
            let dependents = std::mem::take(&mut checker.pairs[p].dependents);
            for d in dependents {
                checker.enqueue(d);
            }
        }
    }
    Ok(
        match checker.eval(&writer.root, &reader.root, String::new(), None)? {
            Ok(()) => Ok(()),
            Err(failure) => Err(checker.render(failure)),
        },
    )
}

type PairId = usize;

/// Why a comparison failed: at `path`, for a reason of its own or because a record pair
/// found incompatible earlier is there.
#[derive(Debug, Clone)]
enum Failure {
    Direct { path: String, text: String },
    Nested { path: String, pair: PairId },
}

struct Pair<'a> {
    writer: &'a RecordSchema,
    reader: &'a RecordSchema,
    ok: bool,
    queued: bool,
    failure: Option<Failure>,
    /// Pairs whose answer used this one (checked again when it turns incompatible).
    dependents: Vec<PairId>,
}

struct Checker<'a> {
    writer: &'a AvroParsed,
    reader: &'a AvroParsed,
    index: HashMap<(*const RecordSchema, *const RecordSchema), PairId>,
    pairs: Vec<Pair<'a>>,
    queue: VecDeque<PairId>,
    steps: u64,
}

/// The primitive shape a schema resolves as.
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

type Step = Result<Result<(), Failure>, TooComplex>;

impl<'a> Checker<'a> {
    fn enqueue(&mut self, p: PairId) {
        let pair = &mut self.pairs[p];
        if pair.ok && !pair.queued {
            pair.queued = true;
            self.queue.push_back(p);
        }
    }

    /// The pair of these records, created (compatible until shown otherwise) on first use.
    fn pair(&mut self, w: &'a RecordSchema, r: &'a RecordSchema) -> PairId {
        let key = (w as *const RecordSchema, r as *const RecordSchema);
        if let Some(p) = self.index.get(&key) {
            return *p;
        }
        let p = self.pairs.len();
        self.pairs.push(Pair {
            writer: w,
            reader: r,
            ok: true,
            queued: false,
            failure: None,
            dependents: Vec::new(),
        });
        self.index.insert(key, p);
        self.enqueue(p);
        p
    }

    /// The fields of pair `p`, under the current answers for the pairs they reach.
    fn eval_record(&mut self, p: PairId) -> Step {
        let (w, r) = (self.pairs[p].writer, self.pairs[p].reader);
        for rf in &r.fields {
            let wf = w
                .fields
                .iter()
                .find(|wf| wf.name == rf.name || rf.aliases.contains(&wf.name));
            match wf {
                Some(wf) => {
                    if let Err(f) =
                        self.eval(&wf.schema, &rf.schema, format!("/{}", rf.name), Some(p))?
                    {
                        return Ok(Err(f));
                    }
                }
                None if rf.default.is_some() => {}
                None => {
                    return Ok(Err(Failure::Direct {
                        path: format!("/{}", rf.name),
                        text: format!(
                            "reader field '{}' of {} is missing from the writer and has no default",
                            rf.name, r.full_name
                        ),
                    }))
                }
            }
        }
        Ok(Ok(()))
    }

    fn eval(
        &mut self,
        w: &'a AvroNode,
        r: &'a AvroNode,
        path: String,
        from: Option<PairId>,
    ) -> Step {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(TooComplex);
        }
        let direct = |path: String, text: String| Ok(Err(Failure::Direct { path, text }));
        let w = match resolve(self.writer, w) {
            Ok(w) => w,
            Err(text) => return direct(path, text),
        };
        let r = match resolve(self.reader, r) {
            Ok(r) => r,
            Err(text) => return direct(path, text),
        };
        if let AvroNode::Union(branches) = w {
            for (i, branch) in branches.iter().enumerate() {
                if let Err(f) = self.eval(branch, r, format!("{path}/union[{i}]"), from)? {
                    return Ok(Err(f));
                }
            }
            return Ok(Ok(()));
        }
        if let AvroNode::Union(branches) = r {
            for branch in branches.iter() {
                if self.eval(w, branch, path.clone(), from)?.is_ok() {
                    return Ok(Ok(()));
                }
            }
            let text = format!(
                "reader union has no branch that can read writer type {}",
                describe(w)
            );
            return direct(path, text);
        }
        match (w, r) {
            (AvroNode::Record(wr), AvroNode::Record(rr)) => {
                if let Err(text) = names_match(&wr.full_name, &rr.full_name, &rr.aliases) {
                    return direct(path, text);
                }
                let p = self.pair(wr, rr);
                if let Some(from) = from {
                    self.pairs[p].dependents.push(from);
                }
                if self.pairs[p].ok {
                    Ok(Ok(()))
                } else {
                    Ok(Err(Failure::Nested { path, pair: p }))
                }
            }
            (AvroNode::Enum(we), AvroNode::Enum(re)) => {
                if let Err(text) = names_match(&we.full_name, &re.full_name, &re.aliases) {
                    return direct(path, text);
                }
                let missing: Vec<&str> = we
                    .symbols
                    .iter()
                    .filter(|s| !re.symbols.contains(s))
                    .map(String::as_str)
                    .collect();
                if missing.is_empty() || re.default.is_some() {
                    Ok(Ok(()))
                } else {
                    direct(
                        path,
                        format!(
                            "reader enum {} lacks writer symbols {missing:?} and has no default",
                            re.full_name
                        ),
                    )
                }
            }
            (AvroNode::Fixed(wf), AvroNode::Fixed(rf)) => {
                if let Err(text) = names_match(&wf.full_name, &rf.full_name, &rf.aliases) {
                    return direct(path, text);
                }
                if wf.size == rf.size {
                    Ok(Ok(()))
                } else {
                    direct(
                        path,
                        format!(
                            "fixed {} has size {} in the writer but {} in the reader",
                            rf.full_name, wf.size, rf.size
                        ),
                    )
                }
            }
            (AvroNode::Array(wi), AvroNode::Array(ri)) => {
                self.eval(wi, ri, format!("{path}/items"), from)
            }
            (AvroNode::Map(wv), AvroNode::Map(rv)) => {
                self.eval(wv, rv, format!("{path}/values"), from)
            }
            _ => {
                if promotes(base(w), base(r)) {
                    Ok(Ok(()))
                } else {
                    direct(
                        path,
                        format!(
                            "reader type {} cannot read writer type {}",
                            describe(r),
                            describe(w)
                        ),
                    )
                }
            }
        }
    }

    /// The message of a failure: the path from the root, then the reason at its end.
    fn render(&self, mut failure: Failure) -> String {
        let mut prefix = String::new();
        // Each nested pair failed strictly before the one that used it: the chain ends.
        for _ in 0..=self.pairs.len() {
            match failure {
                Failure::Direct { path, text } => {
                    prefix.push_str(&path);
                    let shown = if prefix.is_empty() { "/" } else { &prefix };
                    return format!("{shown}: {text}");
                }
                Failure::Nested { path, pair } => {
                    prefix.push_str(&path);
                    match &self.pairs[pair].failure {
                        Some(inner) => failure = inner.clone(),
                        None => break,
                    }
                }
            }
        }
        format!("{prefix}: incompatible")
    }
}

/// Follows a reference to a named type being defined (a recursive schema).
fn resolve<'a>(schema: &'a AvroParsed, node: &'a AvroNode) -> Result<&'a AvroNode, String> {
    match node {
        AvroNode::Recursive(name) => schema
            .names
            .get(name.as_ref())
            .ok_or_else(|| format!("unresolved reference to '{name}'")),
        other => Ok(other),
    }
}

fn base(schema: &AvroNode) -> Base {
    match schema {
        AvroNode::Null => Base::Null,
        AvroNode::Boolean => Base::Boolean,
        AvroNode::Int => Base::Int,
        AvroNode::Long => Base::Long,
        AvroNode::Float => Base::Float,
        AvroNode::Double => Base::Double,
        AvroNode::Bytes => Base::Bytes,
        AvroNode::String => Base::String,
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

fn simple_name(full: &str) -> &str {
    full.rsplit('.').next().unwrap_or(full)
}

/// Named types match when the unqualified names agree or a reader alias names the writer.
fn names_match(writer: &str, reader: &str, reader_aliases: &[String]) -> Result<(), String> {
    let by_alias = reader_aliases
        .iter()
        .any(|a| a == writer || simple_name(a) == simple_name(writer));
    if simple_name(writer) == simple_name(reader) || by_alias {
        Ok(())
    } else {
        Err(format!(
            "writer type {writer} does not match reader type {reader}"
        ))
    }
}

fn describe(schema: &AvroNode) -> String {
    match schema {
        AvroNode::Record(r) => format!("record {}", r.full_name),
        AvroNode::Enum(e) => format!("enum {}", e.full_name),
        AvroNode::Fixed(f) => format!("fixed {}", f.full_name),
        other => other.type_name().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dev::schema::avro::parse;

    fn avro(text: &str) -> AvroParsed {
        parse(text, &[]).expect("valid schema")
    }

    fn rec(fields: &str) -> AvroParsed {
        avro(&format!(
            r#"{{"type":"record","name":"R","namespace":"n","fields":[{fields}]}}"#
        ))
    }

    fn reads(w: &AvroParsed, r: &AvroParsed) -> Result<(), String> {
        can_read(w, r).expect("within bounds")
    }

    #[test]
    fn added_field_needs_default_for_backward() {
        let v1 = rec(r#"{"name":"a","type":"int"}"#);
        let with_default =
            rec(r#"{"name":"a","type":"int"},{"name":"b","type":"string","default":""}"#);
        let without = rec(r#"{"name":"a","type":"int"},{"name":"b","type":"string"}"#);
        assert!(reads(&v1, &with_default).is_ok());
        let err = reads(&v1, &without).unwrap_err();
        assert!(err.starts_with("/b: reader field 'b'"), "{err}");
        assert!(reads(&with_default, &v1).is_ok());
    }

    #[test]
    fn promotions_and_unions() {
        let int = rec(r#"{"name":"a","type":"int"}"#);
        let long = rec(r#"{"name":"a","type":"long"}"#);
        let opt = rec(r#"{"name":"a","type":["null","long"],"default":null}"#);
        let string = rec(r#"{"name":"a","type":"string"}"#);
        assert!(reads(&int, &long).is_ok());
        assert!(reads(&long, &int).is_err());
        assert!(reads(&int, &opt).is_ok());
        let err = reads(&opt, &long).unwrap_err();
        assert!(err.starts_with("/a/union[0]: "), "{err}");
        assert!(reads(&int, &string).is_err());
    }

    #[test]
    fn enums_and_recursion() {
        let e1 = avro(r#"{"type":"enum","name":"E","symbols":["A","B"]}"#);
        let e2 = avro(r#"{"type":"enum","name":"E","symbols":["A"]}"#);
        let e3 = avro(r#"{"type":"enum","name":"E","symbols":["A"],"default":"A"}"#);
        assert!(reads(&e2, &e1).is_ok());
        assert!(reads(&e1, &e2).is_err());
        assert!(reads(&e1, &e3).is_ok());
        let list = avro(
            r#"{"type":"record","name":"L","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","L"]}]}"#,
        );
        assert!(reads(&list, &list).is_ok());
        // A recursive reader that fails deep inside: the path reaches the failing field.
        let list_long = avro(
            r#"{"type":"record","name":"L","fields":[{"name":"v","type":"string"},{"name":"next","type":["null","L"]}]}"#,
        );
        let err = reads(&list, &list_long).unwrap_err();
        assert!(err.starts_with("/v: "), "{err}");
    }

    #[test]
    fn a_pair_assumed_compatible_while_recursing_is_revisited() {
        // Writer A{b: B}, B{a: A, x: int}; reader A{b: B}, B{a: A, x: string}: the pair
        // (B, B) fails only after (A, A) was assumed compatible inside it.
        let w = avro(
            r#"{"type":"record","name":"A","fields":[{"name":"b","type":["null",{"type":"record","name":"B","fields":[{"name":"a","type":["null","A"]},{"name":"x","type":"int"}]}]}]}"#,
        );
        let r = avro(
            r#"{"type":"record","name":"A","fields":[{"name":"b","type":["null",{"type":"record","name":"B","fields":[{"name":"a","type":["null","A"]},{"name":"x","type":"boolean"}]}]}]}"#,
        );
        let err = reads(&w, &r).unwrap_err();
        assert!(err.contains("/b/union[1]"), "{err}");
    }

    #[test]
    fn levels() {
        let v1 = rec(r#"{"name":"a","type":"int"}"#);
        let v2 = rec(r#"{"name":"a","type":"int"},{"name":"b","type":"string"}"#);
        let existing = vec![(1, &v1)];
        let check = |level| check(level, &v2, &existing).expect("within bounds");
        assert!(check(CompatibilityLevel::None).is_ok());
        assert!(check(CompatibilityLevel::Backward).is_err());
        assert!(check(CompatibilityLevel::Forward).is_ok());
        assert!(check(CompatibilityLevel::Full).is_err());
    }

    /// A writer and a reader schema, `depth` levels of nested unions of aliased records:
    /// at each level the reader union offers two records aliased to the writer's (`A{i}`,
    /// which fails on its last field, and `B{i}`, which fits), each reaching the level below.
    /// A check that retries union branches without remembering decided pairs doubles its work
    /// per level (the one before this took 79 s at 22 levels).
    pub(crate) fn nested_aliased_unions(depth: usize) -> (String, String) {
        let record = |name: &str, aliases: &str, fields: &str| {
            format!(
                r#"{{"type":"record","name":"{name}","aliases":[{aliases}],"fields":[{fields}]}}"#
            )
        };
        let mut writer = record("W0", "", r#"{"name":"v","type":"int"}"#);
        let mut union = format!(
            r#"["null",{},{}]"#,
            record("A0", r#""W0""#, r#"{"name":"v","type":"string"}"#),
            record("B0", r#""W0""#, r#"{"name":"v","type":"int"}"#)
        );
        for i in 1..depth {
            let alias = format!(r#""W{i}""#);
            writer = record(
                &format!("W{i}"),
                "",
                &format!(r#"{{"name":"f","type":["null",{writer}]}},{{"name":"g","type":"int"}}"#),
            );
            let a = record(
                &format!("A{i}"),
                &alias,
                &format!(r#"{{"name":"f","type":{union}}},{{"name":"g","type":"string"}}"#),
            );
            let b = record(
                &format!("B{i}"),
                &alias,
                &format!(
                    r#"{{"name":"f","type":["null","A{p}","B{p}"]}},{{"name":"g","type":"int"}}"#,
                    p = i - 1
                ),
            );
            union = format!(r#"["null",{a},{b}]"#);
        }
        let fields = |f: &str| format!(r#"{{"name":"f","type":{f}}},{{"name":"g","type":"int"}}"#);
        let top = format!("W{depth}");
        let writer = record(&top, "", &fields(&format!(r#"["null",{writer}]"#)));
        let reader = record("R", &format!(r#""{top}""#), &fields(&union));
        (writer, reader)
    }

    #[test]
    fn nested_unions_of_aliased_records_are_polynomial() {
        let (w, r) = nested_aliased_unions(30);
        let (w, r) = (avro(&w), avro(&r));
        let mut c = Checker {
            writer: &w,
            reader: &r,
            index: HashMap::new(),
            pairs: Vec::new(),
            queue: VecDeque::new(),
            steps: 0,
        };
        let _ = c.eval(&w.root, &r.root, String::new(), None).unwrap();
        while let Some(p) = c.queue.pop_front() {
            c.pairs[p].queued = false;
            if let Err(f) = c.eval_record(p).unwrap() {
                c.pairs[p].ok = false;
                c.pairs[p].failure = Some(f);
            }
        }
        // Two pairs per level (W{i}, A{i}) and (W{i}, B{i}), each compared once: a bound on
        // the work, where the branch-retrying check made 2^30 comparisons.
        assert!(c.pairs.len() <= 2 * 31 + 1, "{} pairs", c.pairs.len());
        assert!(c.steps < 10_000, "{} steps", c.steps);
        assert!(reads(&w, &r).is_ok());
    }
}
