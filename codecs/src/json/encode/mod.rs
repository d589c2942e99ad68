//! Flink binary rows written as the JSON bytes flink-json 2.2.0's
//! `JsonRowDataSerializationSchema` produces (spec §1.8, encode half of §1.6).
//!
//! flink-json converts the row into a Jackson `ObjectNode` tree
//! (`RowDataToJsonConverters`) and writes it compactly. This encoder reads the binary image
//! and writes the same bytes directly, without a tree:
//! - object keys in declared field order; a NULL field is `"f":null`, or left out with
//!   `encode.ignore-null-fields` (rows at any depth; never array elements or map values);
//! - the NULL bit decides NULL whatever the declared nullability (Flink 2.2's field and
//!   element getters always check it); the NULL type itself is rejected at creation, as
//!   Flink's getters throw for it;
//! - MAP and MULTISET entries in the order of the binary map; a NULL key follows
//!   `map-null-key.mode`; a key that occurs again (equal as Java strings) keeps the
//!   position of its first occurrence and takes the later value, as `ObjectNode.set` does.
//!   With `ignore-null-fields` and ROW values the later row is merged into the earlier
//!   one (Flink hands the earlier node to the converter for reuse and skips NULL fields),
//!   so the earlier row's values survive where the later row has NULLs;
//! - errors inside a field are reported under Flink's "Fail to serialize at field: f."
//!   prefix, one per enclosing ROW field.
//!
//! Scalars are spelled in `values.rs`, strings escaped in `escape.rs`.

pub(crate) mod escape;
mod values;

use std::collections::HashMap;
use std::ops::Range;

use self::escape::{write_image_string, write_json_str};
use self::values::{write_scalar, Scalar};
use crate::error::CodecError;
use crate::flink_binary::java_detail::ImageForm;
use crate::flink_binary::layout::{element_size, is_fixed_length};
use crate::flink_binary::slots::{bad, read_i32, Slots};
use crate::json::options::{JsonEncodeOptions, MapNullKeyMode};
use crate::types::{FlinkField, FlinkKind, FlinkType};

/// The message flink-json fails with on a NULL map key under `map-null-key.mode` FAIL.
const NULL_KEY_MESSAGE: &str = "JSON format doesn't support to serialize map data with null \
     keys. You can drop null key entries or encode null in literals by specifying \
     map-null-key.mode option.";

/// Writes Flink rows of one row type as flink-json does.
#[derive(Debug, Clone)]
pub struct JsonRowEncoder {
    row: RowPlan,
    options: JsonEncodeOptions,
}

/// How to write a value of one type.
#[derive(Debug, Clone)]
enum Plan {
    /// One JSON scalar.
    Scalar(Scalar),
    /// ARRAY: a JSON array of its elements.
    Array(Box<Element>),
    /// MAP with string keys, or MULTISET (element -> INT count): a JSON object.
    Map(Box<Element>),
    /// ROW: a JSON object of its fields.
    Row(RowPlan),
}

/// An array element or map value: its plan and slot width.
#[derive(Debug, Clone)]
struct Element {
    plan: Plan,
    size: usize,
}

#[derive(Debug, Clone)]
struct RowPlan {
    fields: Vec<FieldPlan>,
}

#[derive(Debug, Clone)]
struct FieldPlan {
    name: String,
    /// `"name":` with the name escaped.
    key: Box<[u8]>,
    plan: Plan,
}

/// A value built for a repeated map key whose ROW values are merged (Jackson node reuse).
enum Node {
    /// Finished JSON text.
    Raw(Vec<u8>),
    /// An object: `"key":` texts and values, in insertion order.
    Object(Vec<(Box<[u8]>, Node)>),
}

impl JsonRowEncoder {
    /// Fails (CodecError::InvalidType) for types flink-json rejects at creation: MAP/MULTISET
    /// whose key is not CHAR/VARCHAR ("JSON format doesn't support non-string as key type of
    /// map. The type is: ..."), the NULL type anywhere (Flink's field getters throw for it),
    /// or a row type that is not a ROW.
    pub fn new(row_type: &FlinkType, options: JsonEncodeOptions) -> Result<Self, CodecError> {
        let row = row_plan(row_type.row_fields()?)?;
        Ok(JsonRowEncoder { row, options })
    }

    /// Appends the JSON text of the row whose binary image is `image` (one contiguous
    /// BinaryRowData image of the row type; the RowKind in the header byte is ignored, its
    /// Java-detail mark is read: `crate::flink_binary::java_detail`) to `out`. On error
    /// `out` is left as it was.
    pub fn encode_row(&self, image: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError> {
        let start = out.len();
        let result = self.write_row(image, 0, &self.row, ImageForm::of(image), out);
        if result.is_err() {
            out.truncate(start);
        }
        result
    }

    fn write_row(
        &self,
        buf: &[u8],
        base: usize,
        row: &RowPlan,
        form: ImageForm,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        let slots = row_slots(buf, base, row.fields.len())?;
        out.push(b'{');
        let mut first = true;
        for (i, field) in row.fields.iter().enumerate() {
            let null = slots.is_null(i);
            if null && self.options.ignore_null_fields {
                continue;
            }
            if !first {
                out.push(b',');
            }
            first = false;
            out.extend_from_slice(&field.key);
            if null {
                out.extend_from_slice(b"null");
            } else {
                self.write_value(&slots, i, 8, &field.plan, form, out)
                    .map_err(|e| at_field(&field.name, e))?;
            }
        }
        out.push(b'}');
        Ok(())
    }

    /// Writes element `i` (slots of `size` bytes), known not to be NULL.
    fn write_value(
        &self,
        slots: &Slots<'_>,
        i: usize,
        size: usize,
        plan: &Plan,
        form: ImageForm,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        match plan {
            Plan::Scalar(scalar) => {
                write_scalar(slots, i, size, *scalar, &self.options, form, out)?
            }
            Plan::Array(element) => {
                let (at, _) = slots.reference(i, size);
                let items = array_slots(slots.buf, at, element.size)?;
                out.push(b'[');
                for j in 0..items.arity {
                    if j > 0 {
                        out.push(b',');
                    }
                    self.write_element(&items, j, element, form, out)?;
                }
                out.push(b']');
            }
            Plan::Map(value) => {
                let (at, _) = slots.reference(i, size);
                self.write_map(slots.buf, at, value, form, out)?;
            }
            Plan::Row(row) => {
                let (at, _) = slots.reference(i, size);
                self.write_row(slots.buf, at, row, form, out)?;
            }
        }
        Ok(())
    }

    /// Writes an array element or map value: `null` or its value.
    fn write_element(
        &self,
        items: &Slots<'_>,
        j: usize,
        element: &Element,
        form: ImageForm,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        if items.is_null(j) {
            out.extend_from_slice(b"null");
            Ok(())
        } else {
            self.write_value(items, j, element.size, &element.plan, form, out)
        }
    }

    /// Writes the binary map at `at` of `buf` (4-byte key-array size, key array, value
    /// array) as a JSON object.
    fn write_map(
        &self,
        buf: &[u8],
        at: usize,
        value: &Element,
        form: ImageForm,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        let key_bytes = read_i32(buf, at)?;
        let key_bytes = usize::try_from(key_bytes)
            .map_err(|_| bad(format!("negative map key array size {key_bytes}")))?;
        let keys = array_slots(buf, at + 4, 8)?;
        let values = array_slots(buf, at + 4 + key_bytes, value.size)?;
        if keys.arity != values.arity {
            return Err(bad(format!(
                "map with {} keys and {} values",
                keys.arity, values.arity
            )));
        }
        // `"key":` of every entry (None: dropped NULL key), escaped once into `names`.
        let mut names = Vec::new();
        let mut spans: Vec<Option<Range<usize>>> = Vec::with_capacity(keys.arity);
        for k in 0..keys.arity {
            let start = names.len();
            if keys.is_null(k) {
                match &self.options.map_null_key {
                    MapNullKeyMode::Fail => {
                        return Err(CodecError::JsonEncode(NULL_KEY_MESSAGE.into()));
                    }
                    MapNullKeyMode::Drop => {
                        spans.push(None);
                        continue;
                    }
                    MapNullKeyMode::Literal(literal) => write_json_str(literal, &mut names),
                }
            } else {
                write_image_string(keys.var(k, 8)?, form, &mut names);
            }
            names.push(b':');
            spans.push(Some(start..names.len()));
        }

        out.push(b'{');
        let mut first = true;
        let mut separate = |out: &mut Vec<u8>| {
            if !first {
                out.push(b',');
            }
            first = false;
        };
        match repeated_keys(&names, &spans) {
            None => {
                for (k, span) in spans.iter().enumerate() {
                    if let Some(span) = span {
                        separate(out);
                        out.extend_from_slice(&names[span.clone()]);
                        self.write_element(&values, k, value, form, out)?;
                    }
                }
            }
            Some(groups) => {
                for (span, members) in groups {
                    separate(out);
                    out.extend_from_slice(&names[span]);
                    self.write_repeated(&values, &members, value, form, out)?;
                }
            }
        }
        out.push(b'}');
        Ok(())
    }

    /// Writes the value a key ends with when it occurs at `members` (in order).
    fn write_repeated(
        &self,
        values: &Slots<'_>,
        members: &[usize],
        value: &Element,
        form: ImageForm,
        out: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        let last = members.last().copied().unwrap_or_default();
        let Plan::Row(row) = &value.plan else {
            // Every other converter replaces the node's content: the last value wins.
            return self.write_element(values, last, value, form, out);
        };
        if !self.options.ignore_null_fields {
            // Every field is set again, in place: the same as the last row.
            return self.write_element(values, last, value, form, out);
        }
        let mut node: Option<Node> = None;
        for &k in members {
            if values.is_null(k) {
                node = Some(Node::Raw(b"null".to_vec()));
                continue;
            }
            let mut fields = match node.take() {
                Some(Node::Object(fields)) => fields,
                _ => Vec::new(),
            };
            let (at, _) = values.reference(k, value.size);
            self.merge_row(&mut fields, values.buf, at, row, form)?;
            node = Some(Node::Object(fields));
        }
        match node {
            Some(node) => write_node(&node, out),
            None => out.extend_from_slice(b"null"),
        }
        Ok(())
    }

    /// Sets the fields of the row at `base` into an object node the way the row converter
    /// does with a reused node (only called with `ignore-null-fields`, so NULL fields are
    /// skipped and the earlier values stay).
    fn merge_row(
        &self,
        node: &mut Vec<(Box<[u8]>, Node)>,
        buf: &[u8],
        base: usize,
        row: &RowPlan,
        form: ImageForm,
    ) -> Result<(), CodecError> {
        let slots = row_slots(buf, base, row.fields.len())?;
        for (i, field) in row.fields.iter().enumerate() {
            let null = slots.is_null(i);
            if null && self.options.ignore_null_fields {
                continue;
            }
            let existing = node.iter().position(|(key, _)| **key == *field.key);
            let value = if null {
                Node::Raw(b"null".to_vec())
            } else if let Plan::Row(inner) = &field.plan {
                let mut fields = match existing.map(|p| take_node(&mut node[p].1)) {
                    Some(Node::Object(fields)) => fields,
                    _ => Vec::new(),
                };
                let (at, _) = slots.reference(i, 8);
                self.merge_row(&mut fields, buf, at, inner, form)
                    .map_err(|e| at_field(&field.name, e))?;
                Node::Object(fields)
            } else {
                let mut text = Vec::new();
                self.write_value(&slots, i, 8, &field.plan, form, &mut text)
                    .map_err(|e| at_field(&field.name, e))?;
                Node::Raw(text)
            };
            match existing {
                Some(p) => node[p].1 = value,
                None => node.push((field.key.clone(), value)),
            }
        }
        Ok(())
    }
}

fn take_node(node: &mut Node) -> Node {
    std::mem::replace(node, Node::Raw(Vec::new()))
}

fn write_node(node: &Node, out: &mut Vec<u8>) {
    match node {
        Node::Raw(text) => out.extend_from_slice(text),
        Node::Object(fields) => {
            out.push(b'{');
            for (n, (key, value)) in fields.iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(key);
                write_node(value, out);
            }
            out.push(b'}');
        }
    }
}

/// When some key occurs more than once: the distinct keys in order of first occurrence,
/// each with the entries that carry it. `None` (without allocating) when every key is
/// unique.
fn repeated_keys(
    names: &[u8],
    spans: &[Option<Range<usize>>],
) -> Option<Vec<(Range<usize>, Vec<usize>)>> {
    let present = || {
        spans
            .iter()
            .enumerate()
            .filter_map(|(k, s)| s.clone().map(|s| (k, s)))
    };
    let count = present().count();
    if count < 2 {
        return None;
    }
    if count <= 16 {
        let unique = present().all(|(k, a)| {
            present()
                .skip_while(|(j, _)| *j <= k)
                .all(|(_, b)| names[a.clone()] != names[b])
        });
        if unique {
            return None;
        }
    }
    let mut seen: HashMap<&[u8], usize> = HashMap::with_capacity(count);
    let mut groups: Vec<(Range<usize>, Vec<usize>)> = Vec::with_capacity(count);
    for (k, span) in present() {
        match seen.get(&names[span.clone()]) {
            Some(&g) => groups[g].1.push(k),
            None => {
                seen.insert(&names[span.clone()], groups.len());
                groups.push((span, vec![k]));
            }
        }
    }
    (groups.len() < count).then_some(groups)
}

/// Prefixes an error with the field it happened in, as Flink's row converter does.
fn at_field(name: &str, error: CodecError) -> CodecError {
    let prefix = format!("Fail to serialize at field: {name}.");
    match error {
        CodecError::JsonEncode(message) => CodecError::JsonEncode(format!("{prefix} {message}")),
        CodecError::Rows(message) => CodecError::Rows(format!("{prefix} {message}")),
        other => other,
    }
}

fn row_slots(buf: &[u8], base: usize, arity: usize) -> Result<Slots<'_>, CodecError> {
    if base > buf.len() {
        return Err(bad(format!("a nested row at {base} is outside the image")));
    }
    Slots::row(buf, base, arity)
}

fn array_slots(buf: &[u8], base: usize, size: usize) -> Result<Slots<'_>, CodecError> {
    if base > buf.len() {
        return Err(bad(format!("an array at {base} is outside the image")));
    }
    Slots::array(buf, base, size)
}

fn row_plan(fields: &[FlinkField]) -> Result<RowPlan, CodecError> {
    let fields = fields
        .iter()
        .map(|field| {
            let mut key = Vec::with_capacity(field.name.len() + 3);
            write_json_str(&field.name, &mut key);
            key.push(b':');
            Ok(FieldPlan {
                name: field.name.clone(),
                key: key.into_boxed_slice(),
                plan: plan(&field.ty)?,
            })
        })
        .collect::<Result<_, CodecError>>()?;
    Ok(RowPlan { fields })
}

fn element(ty: &FlinkType) -> Result<Element, CodecError> {
    Ok(Element {
        plan: plan(ty)?,
        size: element_size(ty),
    })
}

fn plan(ty: &FlinkType) -> Result<Plan, CodecError> {
    let compact = is_fixed_length(ty);
    let scalar = match &ty.kind {
        FlinkKind::Null => {
            // `RowData.createFieldGetter` / `ArrayData.createElementGetter` throw
            // `IllegalArgumentException` for it when flink-json builds its converters.
            return Err(CodecError::InvalidType(format!(
                "JSON format cannot write type {}: Flink has no field getter for it",
                crate::types::summary_string(ty)
            )));
        }
        FlinkKind::Boolean => Scalar::Boolean,
        FlinkKind::TinyInt => Scalar::TinyInt,
        FlinkKind::SmallInt => Scalar::SmallInt,
        FlinkKind::Int | FlinkKind::IntervalYearMonth => Scalar::Int,
        FlinkKind::BigInt | FlinkKind::IntervalDayTime => Scalar::BigInt,
        FlinkKind::Float => Scalar::Float,
        FlinkKind::Double => Scalar::Double,
        FlinkKind::Char(_) | FlinkKind::VarChar(_) => Scalar::Text,
        FlinkKind::Binary(_) | FlinkKind::VarBinary(_) => Scalar::Binary,
        FlinkKind::Decimal { scale, .. } => Scalar::Decimal {
            compact,
            scale: *scale,
        },
        FlinkKind::Date => Scalar::Date,
        FlinkKind::Time(_) => Scalar::Time,
        FlinkKind::Timestamp(_) => Scalar::Timestamp { compact },
        FlinkKind::TimestampLtz(_) => Scalar::TimestampLtz { compact },
        FlinkKind::Array(item) => return Ok(Plan::Array(Box::new(element(item)?))),
        FlinkKind::Map(key, value) => {
            check_map_key(ty, key)?;
            return Ok(Plan::Map(Box::new(element(value)?)));
        }
        FlinkKind::Multiset(item) => {
            check_map_key(ty, item)?;
            // `new IntType()` counts.
            let count = Element {
                plan: Plan::Scalar(Scalar::Int),
                size: 4,
            };
            return Ok(Plan::Map(Box::new(count)));
        }
        FlinkKind::Row(fields) => return Ok(Plan::Row(row_plan(fields)?)),
    };
    Ok(Plan::Scalar(scalar))
}

fn check_map_key(container: &FlinkType, key: &FlinkType) -> Result<(), CodecError> {
    match key.kind {
        FlinkKind::Char(_) | FlinkKind::VarChar(_) => Ok(()),
        _ => Err(CodecError::InvalidType(format!(
            "JSON format doesn't support non-string as key type of map. The type is: {}",
            crate::types::summary_string(container)
        ))),
    }
}

#[cfg(test)]
mod tests;
