//! The compiled plan of one message for one Flink row type: which field number feeds
//! which column, how each value is read and written, and what an absent field becomes.
//!
//! Columns match proto fields by exact name, and types follow flink-protobuf's rules
//! (`PbSchemaValidationUtils`); the Java factory reports mismatches to the user at
//! planning time with Flink's messages, so the errors here only guard the native side.

use std::collections::HashMap;

use prost_reflect::{Cardinality, FieldDescriptor, Kind, MessageDescriptor, Syntax, Value};

use super::checks::Checks;
use super::features;
use super::flat_plan::FlatPlan;
use super::wire::WireType;
use crate::error::CodecError;
use crate::types::{FlinkField, FlinkKind, FlinkType};

/// Options that change how a message is read or written (the options of Flink's
/// `protobuf` format; every field defaults to the format's default).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProtobufOptions {
    /// `protobuf.ignore-parse-errors`: a message that fails gives no row.
    pub ignore_parse_errors: bool,
    /// `protobuf.read-default-values`: absent fields read as their defaults (proto2).
    pub read_default_values: bool,
    /// `protobuf.write-null-string-literal`: written for NULL strings inside containers.
    pub write_null_string_literal: String,
    /// Absent singular fields that track presence (proto3 `optional`, proto2 fields, oneof
    /// members) read as NULL even where flink-protobuf reads a default. Not a Flink option:
    /// `protobuf-confluent-native` (which has no Flink counterpart) sets it so that NULLs
    /// written through its derived schema read back as NULL.
    #[serde(skip)]
    pub presence_nulls: bool,
}

/// The plan of one message: one [`FieldPlan`] per column, in column order.
#[derive(Debug)]
pub(crate) struct MessagePlan {
    /// The message's full name, for errors.
    pub(crate) full_name: String,
    /// One entry per column of the row type, in column order.
    pub(crate) fields: Vec<FieldPlan>,
    /// Column indexes sorted by field number: the order protobuf-java writes fields in.
    pub(crate) encode_order: Vec<usize>,
    /// Index of this message's entry in the decoder's [`Checks`] (fields not read).
    pub(crate) check: usize,
    /// Oneof members that are not columns but share a oneof with one: setting them still
    /// clears the column's member.
    pub(crate) ghosts: Vec<Ghost>,
    /// The number of oneofs that have a member among the columns.
    pub(crate) oneof_count: usize,
    /// Raw tag value (field number and wire type) -> 1 + the index of the direct column it
    /// feeds, 0 for anything else; tags up to [`DIRECT_TAG_LIMIT`].
    pub(crate) direct_tags: Vec<u16>,
    /// The decoder's one-pass plan when the message is flat (set by the decoder once the
    /// plan is compiled; never for encoding).
    pub(crate) flat: Option<FlatPlan>,
    lookup: NumberLookup,
}

/// Raw tag values below this are looked up in [`MessagePlan::direct_tags`].
pub(crate) const DIRECT_TAG_LIMIT: u32 = 2048;

/// How a direct column's value goes from the wire into its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DirectOp {
    /// A varint kept as its low 32 bits (`int32`, `uint32`): an INT.
    Int32,
    /// A zig-zag varint (`sint32`): an INT.
    SInt32,
    /// A varint (`int64`, `uint64`): a BIGINT.
    Int64,
    /// A zig-zag varint (`sint64`): a BIGINT.
    SInt64,
    /// A varint as a BOOLEAN.
    Bool,
    /// 4 little-endian bytes as they are (`fixed32`, `sfixed32`, `float`).
    Fixed32,
    /// 8 little-endian bytes as they are (`fixed64`, `sfixed64`, `double`).
    Fixed64,
    /// A string (UTF-8 checked or converted as the field says).
    Text,
    /// Bytes.
    Bytes,
    /// An enum's name.
    EnumText,
}

impl DirectOp {
    fn of(scalar: Scalar) -> Self {
        match scalar {
            Scalar::Int32 | Scalar::UInt32 => DirectOp::Int32,
            Scalar::SInt32 => DirectOp::SInt32,
            Scalar::Int64 | Scalar::UInt64 => DirectOp::Int64,
            Scalar::SInt64 => DirectOp::SInt64,
            Scalar::Bool => DirectOp::Bool,
            Scalar::Fixed32 | Scalar::SFixed32 | Scalar::Float => DirectOp::Fixed32,
            Scalar::Fixed64 | Scalar::SFixed64 | Scalar::Double => DirectOp::Fixed64,
            Scalar::String => DirectOp::Text,
            Scalar::Bytes => DirectOp::Bytes,
        }
    }
}

/// The [`MessagePlan::direct_tags`] table of `plans`.
fn direct_tags(plans: &[FieldPlan]) -> Vec<u16> {
    let mut table = Vec::new();
    for (i, p) in plans.iter().enumerate() {
        let Shape::Single(value) = &p.shape else {
            continue;
        };
        let tag = (p.number << 3) | value.wire_type().bits();
        if p.direct.is_none() || p.number >= DIRECT_TAG_LIMIT >> 3 || i >= usize::from(u16::MAX) {
            continue;
        }
        if table.len() <= tag as usize {
            table.resize(tag as usize + 1, 0);
        }
        table[tag as usize] = (i + 1) as u16;
    }
    table
}

/// A oneof member the row type does not read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ghost {
    /// Its field number.
    pub(crate) number: u32,
    /// The wire type that sets it.
    pub(crate) wire: WireType,
    /// Index of its oneof among the plan's oneofs.
    pub(crate) oneof: usize,
}

/// How one column is read from and written to its proto field.
#[derive(Debug)]
pub(crate) struct FieldPlan {
    /// Column name, equal to the proto field name.
    pub(crate) name: String,
    /// Proto field number.
    pub(crate) number: u32,
    /// The column's Flink type.
    pub(crate) ty: FlinkType,
    /// Singular, repeated or map.
    pub(crate) shape: Shape,
    /// What the column holds when the field is absent from the message.
    pub(crate) absent: Absent,
    /// Index of the field's (non-synthetic) oneof among the plan's oneofs.
    pub(crate) oneof: Option<usize>,
    /// Whether the field tracks presence (proto2 optional/required, proto3 `optional`,
    /// message fields, oneof members): then a value equal to the default is still
    /// written on encode.
    pub(crate) explicit_presence: bool,
    /// How the decoder writes this column as it scans, when it can: a singular scalar
    /// outside any oneof (not an enum read into a number), the last value simply
    /// overwriting the slot.
    pub(crate) direct: Option<DirectOp>,
    /// Whether strings of this field (values, map keys and values) must be valid UTF-8
    /// (proto3: protobuf-java's parse fails otherwise; proto2 strings are converted
    /// lossily, invalid bytes becoming U+FFFD).
    pub(crate) utf8_checked: bool,
}

/// The cardinality of a field.
#[derive(Debug)]
pub(crate) enum Shape {
    /// One value (the last one on the wire wins; sub-messages merge).
    Single(ValuePlan),
    /// `repeated`: an ARRAY column.
    Repeated {
        /// The element.
        element: ValuePlan,
        /// Whether the field is written packed (proto3 scalars by default, proto2 with
        /// `[packed = true]`); both forms are read either way.
        packed: bool,
    },
    /// `map<K, V>`: a MAP column.
    Map {
        /// The key (field 1 of the entry).
        key: ValuePlan,
        /// The value (field 2 of the entry).
        value: ValuePlan,
    },
}

/// How one value (a singular field, an element or a map key/value) is read and written.
#[derive(Debug)]
pub(crate) enum ValuePlan {
    /// A number, bool, string or bytes.
    Scalar(Scalar),
    /// An enum, read into a text or a numeric column.
    Enum(EnumPlan),
    /// A length-delimited sub-message, read into a ROW column.
    Message(Box<MessagePlan>),
    /// A proto2 group (start/end tags), read into a ROW column.
    Group(Box<MessagePlan>),
}

/// The protobuf scalar types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scalar {
    /// `double`.
    Double,
    /// `float`.
    Float,
    /// `int32` (varint, sign-extended).
    Int32,
    /// `int64` (varint).
    Int64,
    /// `uint32` (varint), exposed as a signed Java int.
    UInt32,
    /// `uint64` (varint), exposed as a signed Java long.
    UInt64,
    /// `sint32` (zig-zag varint).
    SInt32,
    /// `sint64` (zig-zag varint).
    SInt64,
    /// `fixed32` (4 bytes), exposed as a signed Java int.
    Fixed32,
    /// `fixed64` (8 bytes), exposed as a signed Java long.
    Fixed64,
    /// `sfixed32` (4 bytes).
    SFixed32,
    /// `sfixed64` (8 bytes).
    SFixed64,
    /// `bool` (varint).
    Bool,
    /// `string` (length-delimited UTF-8).
    String,
    /// `bytes` (length-delimited).
    Bytes,
}

impl Scalar {
    /// Whether values of this type can be packed (every numeric type and bool).
    pub(crate) fn packable(self) -> bool {
        !matches!(self, Scalar::String | Scalar::Bytes)
    }

    /// The wire type values of this type are written with.
    pub(crate) fn wire_type(self) -> WireType {
        match self {
            Scalar::Double | Scalar::Fixed64 | Scalar::SFixed64 => WireType::Fixed64,
            Scalar::Float | Scalar::Fixed32 | Scalar::SFixed32 => WireType::Fixed32,
            Scalar::String | Scalar::Bytes => WireType::Len,
            _ => WireType::Varint,
        }
    }
}

impl ValuePlan {
    /// The wire type one (unpacked) value arrives with.
    #[inline]
    pub(crate) fn wire_type(&self) -> WireType {
        match self {
            ValuePlan::Scalar(s) => s.wire_type(),
            ValuePlan::Enum(_) => WireType::Varint,
            ValuePlan::Message(_) => WireType::Len,
            ValuePlan::Group(_) => WireType::StartGroup,
        }
    }

    /// Whether values can arrive packed in one length-delimited record.
    pub(crate) fn packable(&self) -> bool {
        match self {
            ValuePlan::Scalar(s) => s.packable(),
            ValuePlan::Enum(_) => true,
            ValuePlan::Message(_) | ValuePlan::Group(_) => false,
        }
    }
}

/// An enum's values, for reading numbers into names (or numbers) and back.
#[derive(Debug)]
pub(crate) struct EnumPlan {
    /// The enum's full name, for errors.
    pub(crate) full_name: String,
    /// Declared values: (number, name), in declaration order.
    pub(crate) values: Vec<(i32, String)>,
    /// Whether unknown numbers are kept (proto3 open enums: Java's `UNRECOGNIZED`) or
    /// dropped into the unknown fields (proto2 closed enums).
    pub(crate) open: bool,
    /// Whether the column is CHAR/VARCHAR (the value's name) rather than numeric.
    pub(crate) as_text: bool,
}

impl EnumPlan {
    /// The name Java's generated enum gives `number` (the first declared value with that
    /// number), if it is declared.
    pub(crate) fn name_of(&self, number: i32) -> Option<&str> {
        self.values
            .iter()
            .find(|(n, _)| *n == number)
            .map(|(_, name)| name.as_str())
    }

    /// The number of the value named `name`, if declared.
    pub(crate) fn number_of(&self, name: &str) -> Option<i32> {
        self.values
            .iter()
            .find(|(_, n)| n == name)
            .map(|(number, _)| *number)
    }

    /// Whether `number` is a declared value.
    pub(crate) fn is_known(&self, number: i32) -> bool {
        self.values.iter().any(|(n, _)| *n == number)
    }

    /// The first declared value: what flink-protobuf writes for an unknown name or
    /// number, and the default of a proto2 enum without an explicit default.
    pub(crate) fn first(&self) -> (i32, &str) {
        self.values
            .first()
            .map(|(n, name)| (*n, name.as_str()))
            .unwrap_or((0, ""))
    }
}

/// What a column holds when its field is absent (or a repeated/map field is empty).
#[derive(Debug)]
pub(crate) enum Absent {
    /// NULL (proto2 without `read-default-values`).
    Null,
    /// The getter's value: the scalar default, the default instance of a message as a
    /// ROW of defaults, an empty ARRAY or MAP.
    Default(DefaultValue),
}

/// The default value of a field, as protobuf-java's getter returns it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DefaultValue {
    /// A bool.
    Bool(bool),
    /// Any 32-bit integer type (unsigned ones as their signed bits).
    I32(i32),
    /// Any 64-bit integer type (unsigned ones as their signed bits).
    I64(i64),
    /// A float.
    F32(f32),
    /// A double.
    F64(f64),
    /// A string's UTF-8 bytes or a bytes value.
    Bytes(Vec<u8>),
    /// An enum value's number.
    Enum(i32),
    /// The message's default instance.
    Message,
    /// An empty repeated field.
    EmptyArray,
    /// An empty map field.
    EmptyMap,
}

/// What every level of a plan's compilation needs.
struct Context<'a> {
    options: &'a ProtobufOptions,
    checks: &'a Checks,
    /// Whether the top-level message's file is proto3 (flink-protobuf decides once).
    root_proto3: bool,
    /// Whether the plan reads (absent-field rules apply) or writes.
    decode: bool,
}

/// Field number -> column index; dense for the usual small field numbers.
#[derive(Debug)]
enum NumberLookup {
    Dense(Vec<Option<u16>>),
    Sparse(HashMap<u32, usize>),
}

/// Field numbers up to this use the dense table.
const DENSE_LIMIT: u32 = 1024;

impl MessagePlan {
    /// Compiles the plan of `message` for a row of `fields`, with `options`; `checks`
    /// must have been built from `message` (or a message reaching it).
    pub(crate) fn compile(
        message: &MessageDescriptor,
        fields: &[FlinkField],
        options: &ProtobufOptions,
        checks: &Checks,
    ) -> Result<Self, CodecError> {
        let root_proto3 = message.parent_file().syntax() == Syntax::Proto3;
        let context = Context {
            options,
            checks,
            root_proto3,
            decode: true,
        };
        Self::compile_at(message, fields, &context, 0)
    }

    /// As [`MessagePlan::compile`], for writing: absent-field rules (which may refuse a
    /// row type flink-protobuf cannot read) do not apply.
    pub(crate) fn compile_for_encode(
        message: &MessageDescriptor,
        fields: &[FlinkField],
        options: &ProtobufOptions,
        checks: &Checks,
    ) -> Result<Self, CodecError> {
        let context = Context {
            options,
            checks,
            root_proto3: message.parent_file().syntax() == Syntax::Proto3,
            decode: false,
        };
        Self::compile_at(message, fields, &context, 0)
    }

    fn compile_at(
        message: &MessageDescriptor,
        fields: &[FlinkField],
        cx: &Context<'_>,
        depth: usize,
    ) -> Result<Self, CodecError> {
        if depth > 100 {
            return Err(CodecError::InvalidType(format!(
                "row type nests message '{}' more than 100 levels deep",
                message.full_name()
            )));
        }
        let mut plans = Vec::with_capacity(fields.len());
        let mut oneof_ids: Vec<String> = Vec::new();
        for field in fields {
            let fd = message.get_field_by_name(&field.name).ok_or_else(|| {
                CodecError::InvalidType(format!(
                    "Column {} does not exists in definition of proto class.",
                    field.name
                ))
            })?;
            let oneof = fd
                .containing_oneof()
                .filter(|o| !o.is_synthetic())
                .map(|o| {
                    let id = o.name();
                    match oneof_ids.iter().position(|seen| seen == id) {
                        Some(i) => i,
                        None => {
                            oneof_ids.push(id.to_string());
                            oneof_ids.len() - 1
                        }
                    }
                });
            plans.push(FieldPlan {
                name: field.name.clone(),
                number: fd.number(),
                ty: field.ty.clone(),
                shape: shape_of(&fd, &field.ty, cx, depth)?,
                absent: if cx.decode {
                    absent_of(&fd, &field.ty, cx.options, cx.root_proto3)?
                } else {
                    Absent::Null
                },
                oneof,
                explicit_presence: features::has_presence(&fd),
                utf8_checked: features::validates_utf8(&fd),
                direct: None,
            });
        }
        for p in &mut plans {
            if p.oneof.is_none() {
                p.direct = match &p.shape {
                    Shape::Single(ValuePlan::Scalar(scalar)) => Some(DirectOp::of(*scalar)),
                    Shape::Single(ValuePlan::Enum(e)) if e.as_text => Some(DirectOp::EnumText),
                    _ => None,
                };
            }
        }
        let direct_tags = direct_tags(&plans);
        let mut ghosts = Vec::new();
        for (index, name) in oneof_ids.iter().enumerate() {
            let Some(oneof) = message.oneofs().find(|o| o.name() == name) else {
                continue;
            };
            for member in oneof.fields() {
                if plans.iter().all(|p| p.number != member.number()) {
                    ghosts.push(Ghost {
                        number: member.number(),
                        wire: super::checks::wire_type_of(&member),
                        oneof: index,
                    });
                }
            }
        }
        let mut encode_order: Vec<usize> = (0..plans.len()).collect();
        encode_order.sort_by_key(|&i| plans[i].number);
        let lookup = NumberLookup::build(&plans);
        let check = cx.checks.index_of(message.full_name()).ok_or_else(|| {
            CodecError::InvalidType(format!(
                "message '{}' is not reachable from the root message",
                message.full_name()
            ))
        })?;
        Ok(MessagePlan {
            full_name: message.full_name().to_string(),
            fields: plans,
            encode_order,
            check,
            oneof_count: oneof_ids.len(),
            ghosts,
            direct_tags,
            flat: None,
            lookup,
        })
    }

    /// The column fed by field `number`, if the row type has it.
    #[inline]
    pub(crate) fn column_of(&self, number: u32) -> Option<usize> {
        match &self.lookup {
            NumberLookup::Dense(table) => table
                .get(number as usize)
                .copied()
                .flatten()
                .map(usize::from),
            NumberLookup::Sparse(map) => map.get(&number).copied(),
        }
    }
}

impl NumberLookup {
    fn build(plans: &[FieldPlan]) -> Self {
        let max = plans.iter().map(|p| p.number).max().unwrap_or(0);
        if max <= DENSE_LIMIT && plans.len() <= usize::from(u16::MAX) {
            let mut table = vec![None; max as usize + 1];
            for (i, p) in plans.iter().enumerate() {
                table[p.number as usize] = Some(i as u16);
            }
            NumberLookup::Dense(table)
        } else {
            NumberLookup::Sparse(
                plans
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (p.number, i))
                    .collect(),
            )
        }
    }
}

/// What an absent field reads as, by flink-protobuf 2.2.0's rule: the getter's value
/// when `read-default-values` is set, or when the top-level message is proto3 and the
/// column has a simple type (scalars and enums; not ROW, ARRAY or MAP); else NULL, which
/// needs presence (`hasX()`): a field without it fails like Flink's generated code.
fn absent_of(
    fd: &FieldDescriptor,
    ty: &FlinkType,
    options: &ProtobufOptions,
    root_proto3: bool,
) -> Result<Absent, CodecError> {
    let simple = matches!(
        ty.kind,
        FlinkKind::Boolean
            | FlinkKind::Int
            | FlinkKind::BigInt
            | FlinkKind::Float
            | FlinkKind::Double
            | FlinkKind::Char(_)
            | FlinkKind::VarChar(_)
            | FlinkKind::Binary(_)
            | FlinkKind::VarBinary(_)
    );
    let tracks_presence = features::has_presence(fd);
    if options.presence_nulls && !options.read_default_values && tracks_presence {
        return Ok(Absent::Null);
    }
    if !(options.read_default_values || (root_proto3 && simple)) {
        if fd.cardinality() != Cardinality::Repeated && !features::has_presence(fd) {
            return Err(CodecError::InvalidType(format!(
                "Protobuf codegen compile error: field {} of {} has no presence (hasX()), so \
                 flink-protobuf cannot read it without 'read-default-values' unless the \
                 top-level message is proto3",
                fd.name(),
                fd.parent_message().full_name()
            )));
        }
        return Ok(Absent::Null);
    }
    Ok(if fd.is_map() {
        Absent::Default(DefaultValue::EmptyMap)
    } else if fd.is_list() {
        Absent::Default(DefaultValue::EmptyArray)
    } else {
        Absent::Default(default_of(fd))
    })
}

fn default_of(fd: &FieldDescriptor) -> DefaultValue {
    match fd.default_value() {
        Value::Bool(b) => DefaultValue::Bool(b),
        Value::I32(v) => DefaultValue::I32(v),
        Value::U32(v) => DefaultValue::I32(v as i32),
        Value::I64(v) => DefaultValue::I64(v),
        Value::U64(v) => DefaultValue::I64(v as i64),
        Value::F32(v) => DefaultValue::F32(v),
        Value::F64(v) => DefaultValue::F64(v),
        Value::String(s) => DefaultValue::Bytes(s.into_bytes()),
        Value::Bytes(b) => DefaultValue::Bytes(b.to_vec()),
        Value::EnumNumber(n) => DefaultValue::Enum(n),
        Value::Message(_) | Value::List(_) | Value::Map(_) => DefaultValue::Message,
    }
}

fn mismatch(fd_kind: &str, ty: &FlinkType) -> CodecError {
    CodecError::InvalidType(format!(
        "Protobuf field type does not match column type, {fd_kind}(protobuf) is not \
         compatible of {}",
        type_root(ty)
    ))
}

/// Flink's `LogicalTypeRoot` name of a type, as flink-protobuf's messages print it.
fn type_root(ty: &FlinkType) -> &'static str {
    match ty.kind {
        FlinkKind::Null => "NULL",
        FlinkKind::Boolean => "BOOLEAN",
        FlinkKind::TinyInt => "TINYINT",
        FlinkKind::SmallInt => "SMALLINT",
        FlinkKind::Int => "INTEGER",
        FlinkKind::BigInt => "BIGINT",
        FlinkKind::Float => "FLOAT",
        FlinkKind::Double => "DOUBLE",
        FlinkKind::Char(_) => "CHAR",
        FlinkKind::VarChar(_) => "VARCHAR",
        FlinkKind::Binary(_) => "BINARY",
        FlinkKind::VarBinary(_) => "VARBINARY",
        FlinkKind::Decimal { .. } => "DECIMAL",
        FlinkKind::Date => "DATE",
        FlinkKind::Time(_) => "TIME_WITHOUT_TIME_ZONE",
        FlinkKind::Timestamp(_) => "TIMESTAMP_WITHOUT_TIME_ZONE",
        FlinkKind::TimestampLtz(_) => "TIMESTAMP_WITH_LOCAL_TIME_ZONE",
        FlinkKind::IntervalYearMonth => "INTERVAL_YEAR_MONTH",
        FlinkKind::IntervalDayTime => "INTERVAL_DAY_TIME",
        FlinkKind::Array(_) => "ARRAY",
        FlinkKind::Map(..) => "MAP",
        FlinkKind::Multiset(_) => "MULTISET",
        FlinkKind::Row(_) => "ROW",
    }
}

fn shape_of(
    fd: &FieldDescriptor,
    ty: &FlinkType,
    cx: &Context<'_>,
    depth: usize,
) -> Result<Shape, CodecError> {
    if fd.is_map() {
        let FlinkKind::Map(key_ty, value_ty) = &ty.kind else {
            return Err(CodecError::InvalidType(format!(
                "Unexpected LogicalType: {}. It should be MapType",
                crate::types::summary_string(ty)
            )));
        };
        let Kind::Message(entry) = fd.kind() else {
            return Err(CodecError::InvalidType("map field without an entry".into()));
        };
        let key = value_plan(&entry.map_entry_key_field(), key_ty, cx, depth)?;
        let value = value_plan(&entry.map_entry_value_field(), value_ty, cx, depth)?;
        return Ok(Shape::Map { key, value });
    }
    if fd.cardinality() == Cardinality::Repeated {
        let FlinkKind::Array(element_ty) = &ty.kind else {
            return Err(CodecError::InvalidType(format!(
                "Unexpected LogicalType: {}. It should be ArrayType",
                crate::types::summary_string(ty)
            )));
        };
        let element = value_plan(fd, element_ty, cx, depth)?;
        return Ok(Shape::Repeated {
            element,
            packed: features::is_packed(fd),
        });
    }
    Ok(Shape::Single(value_plan(fd, ty, cx, depth)?))
}

fn value_plan(
    fd: &FieldDescriptor,
    ty: &FlinkType,
    cx: &Context<'_>,
    depth: usize,
) -> Result<ValuePlan, CodecError> {
    let scalar = |s: Scalar, java: &str, ok: bool| {
        if ok {
            Ok(ValuePlan::Scalar(s))
        } else {
            Err(mismatch(java, ty))
        }
    };
    let k = &ty.kind;
    let int = matches!(k, FlinkKind::Int);
    let long = matches!(k, FlinkKind::BigInt);
    let text = matches!(k, FlinkKind::Char(_) | FlinkKind::VarChar(_));
    let binary = matches!(k, FlinkKind::Binary(_) | FlinkKind::VarBinary(_));
    match fd.kind() {
        Kind::Double => scalar(Scalar::Double, "DOUBLE", matches!(k, FlinkKind::Double)),
        Kind::Float => scalar(Scalar::Float, "FLOAT", matches!(k, FlinkKind::Float)),
        Kind::Int32 => scalar(Scalar::Int32, "INT", int),
        Kind::Uint32 => scalar(Scalar::UInt32, "INT", int),
        Kind::Sint32 => scalar(Scalar::SInt32, "INT", int),
        Kind::Fixed32 => scalar(Scalar::Fixed32, "INT", int),
        Kind::Sfixed32 => scalar(Scalar::SFixed32, "INT", int),
        Kind::Int64 => scalar(Scalar::Int64, "LONG", long),
        Kind::Uint64 => scalar(Scalar::UInt64, "LONG", long),
        Kind::Sint64 => scalar(Scalar::SInt64, "LONG", long),
        Kind::Fixed64 => scalar(Scalar::Fixed64, "LONG", long),
        Kind::Sfixed64 => scalar(Scalar::SFixed64, "LONG", long),
        Kind::Bool => scalar(Scalar::Bool, "BOOLEAN", matches!(k, FlinkKind::Boolean)),
        Kind::String => scalar(Scalar::String, "STRING", text),
        Kind::Bytes => scalar(Scalar::Bytes, "BYTE_STRING", binary),
        Kind::Enum(e) => {
            if matches!(k, FlinkKind::TinyInt | FlinkKind::SmallInt) {
                // Accepted by Flink's validation, then refused when the code is generated.
                return Err(CodecError::InvalidType(format!(
                    "Do not support flink type: {}",
                    type_root(ty)
                )));
            }
            if !text && !matches!(k, FlinkKind::Int | FlinkKind::BigInt) {
                return Err(mismatch("ENUM", ty));
            }
            Ok(ValuePlan::Enum(EnumPlan {
                full_name: e.full_name().to_string(),
                // Declaration order (prost-reflect's `values()` sorts by number): Java's
                // first value and the canonical name of an alias depend on it.
                values: e
                    .enum_descriptor_proto()
                    .value
                    .iter()
                    .map(|v| (v.number(), v.name().to_string()))
                    .collect(),
                open: features::enum_is_open(fd, &e),
                as_text: text,
            }))
        }
        Kind::Message(m) => {
            let FlinkKind::Row(row_fields) = k else {
                return Err(CodecError::InvalidType(format!(
                    "Unexpected LogicalType: {}. It should be RowType",
                    crate::types::summary_string(ty)
                )));
            };
            let plan = Box::new(MessagePlan::compile_at(&m, row_fields, cx, depth + 1)?);
            Ok(if fd.is_group() {
                ValuePlan::Group(plan)
            } else {
                ValuePlan::Message(plan)
            })
        }
    }
}
