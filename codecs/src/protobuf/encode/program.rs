//! The encoder's program: the shared [`MessagePlan`] turned into what writing needs —
//! fields in wire order with their tags, slot widths and oneof rivals, value readers, and
//! the required fields protobuf-java's `build()` checks.

use std::collections::HashMap;

use prost_reflect::{Cardinality, Kind, MessageDescriptor};

use super::super::plan::{EnumPlan, FieldPlan, MessagePlan, Scalar, Shape, ValuePlan};
use super::super::wire::{put_tag, WireType};
use crate::error::CodecError;
use crate::flink_binary::layout::element_size;
use crate::types::{FlinkKind, FlinkType};

/// Enums with more values than this look names up in a hash map.
const LINEAR_ENUM_LIMIT: usize = 16;

/// How to write the messages of one ROW.
#[derive(Debug)]
pub(super) struct MessageProgram {
    /// The number of columns of the row.
    pub(super) arity: usize,
    /// The columns' fields in field-number order (protobuf-java's write order).
    pub(super) fields: Vec<FieldProgram>,
    /// Indexes into `fields` in column order (the order flink-protobuf converts in).
    pub(super) column_order: Vec<usize>,
    /// The message type's required fields in declaration order: name and column (`None`
    /// when the row type lacks the field, so it is never set).
    pub(super) required: Vec<(String, Option<usize>)>,
    /// Whether building this message can fail for a missing required field, here or in
    /// a nested message.
    pub(super) check: bool,
}

/// How to write one column's field.
#[derive(Debug)]
pub(super) struct FieldProgram {
    /// The column index.
    pub(super) column: usize,
    /// The proto field name (for required-field paths).
    pub(super) name: String,
    /// What to write.
    pub(super) shape: FieldShape,
    /// proto3 implicit presence: a value equal to the default is not written.
    pub(super) implicit: bool,
    /// Columns of the members of this field's oneof that come later in column order: when
    /// one of them is not NULL, it replaces this one.
    pub(super) rivals: Box<[usize]>,
}

/// A field's cardinality with its tag(s).
#[derive(Debug)]
pub(super) enum FieldShape {
    /// One value; `tag` carries the value's wire type.
    Single { tag: Tag, value: ValueProgram },
    /// A packed repeated scalar: one length-delimited record of all elements.
    Packed {
        tag: Tag,
        value: ValueProgram,
        size: usize,
    },
    /// A repeated field written as one record per element.
    Repeated {
        tag: Tag,
        value: ValueProgram,
        size: usize,
    },
    /// A map: one length-delimited entry per key.
    Map(Box<MapProgram>),
}

/// How to write a map field's entries.
#[derive(Debug)]
pub(super) struct MapProgram {
    /// The field's tag (length-delimited).
    pub(super) tag: Tag,
    /// The key (entry field 1).
    pub(super) key: ValueProgram,
    /// The key's tag inside the entry.
    pub(super) key_tag: Tag,
    /// The width of a key slot in the key array.
    pub(super) key_size: usize,
    /// The value (entry field 2).
    pub(super) value: ValueProgram,
    /// The value's tag inside the entry.
    pub(super) value_tag: Tag,
    /// The width of a value slot in the value array.
    pub(super) value_size: usize,
}

/// How one value (a field, an element, a map key or value) is read from its slot and
/// written.
#[derive(Debug)]
pub(super) enum ValueProgram {
    /// `int32` from INT: sign-extended varint.
    Int32,
    /// `uint32` from INT: the 32 bits as an unsigned varint.
    UInt32,
    /// `sint32` from INT: zig-zag varint.
    SInt32,
    /// `fixed32` / `sfixed32` from INT: 4 bytes.
    Fixed32,
    /// `int64` / `uint64` from BIGINT: varint of the 64 bits.
    Int64,
    /// `sint64` from BIGINT: zig-zag varint.
    SInt64,
    /// `fixed64` / `sfixed64` from BIGINT: 8 bytes.
    Fixed64,
    /// `float` from FLOAT: 4 bytes of its bits.
    Float,
    /// `double` from DOUBLE: 8 bytes of its bits.
    Double,
    /// `bool` from BOOLEAN.
    Bool,
    /// `string` from CHAR/VARCHAR.
    String,
    /// `bytes` from BINARY/VARBINARY.
    Bytes,
    /// An enum.
    Enum(EnumProgram),
    /// A length-delimited sub-message.
    Message(Box<MessageProgram>),
    /// A group: its fields between the field's start tag and `end`.
    Group {
        message: Box<MessageProgram>,
        end: Tag,
    },
}

/// Where an enum's value comes from and which numbers it may take.
#[derive(Debug)]
pub(super) struct EnumProgram {
    /// The column holding the value.
    pub(super) source: EnumSource,
    /// The enum's values.
    plan: EnumPlan,
    /// Name -> number for large enums (the first value of a name wins, as Java's lookup).
    by_name: Option<HashMap<Box<[u8]>, i32>>,
    /// `values()[0]`: what unknown names and numbers and NULL elements become.
    pub(super) first: i32,
}

/// The column type an enum is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EnumSource {
    /// CHAR/VARCHAR: the value's name.
    Text,
    /// INT: the number.
    Int,
    /// BIGINT: the number, cast to a Java int.
    BigInt,
}

impl EnumProgram {
    /// The number written for the name `name` (`findValueByName`, else the first value).
    pub(super) fn number_of_name(&self, name: &[u8]) -> i32 {
        let found = match &self.by_name {
            Some(map) => map.get(name).copied(),
            // Names are identifiers: bytes that are not UTF-8 match none.
            None => std::str::from_utf8(name)
                .ok()
                .and_then(|name| self.plan.number_of(name)),
        };
        found.unwrap_or(self.first)
    }

    /// The number written for `number` (`forNumber`, else the first value).
    pub(super) fn resolve_number(&self, number: i32) -> i32 {
        if self.plan.is_known(number) {
            number
        } else {
            self.first
        }
    }
}

/// A precomputed tag (at most 5 bytes).
#[derive(Debug, Clone, Copy)]
pub(super) struct Tag {
    bytes: [u8; 5],
    len: u8,
}

impl Tag {
    /// The tag of field `number` with `wire`.
    pub(super) fn new(number: u32, wire: WireType) -> Self {
        let mut buf = Vec::with_capacity(5);
        put_tag(&mut buf, number, wire);
        let mut bytes = [0u8; 5];
        bytes[..buf.len()].copy_from_slice(&buf);
        Tag {
            bytes,
            len: buf.len() as u8,
        }
    }

    /// Appends the tag.
    #[inline]
    pub(super) fn put(&self, out: &mut Vec<u8>) {
        crate::protobuf::wire::put_prefix(out, &self.bytes, usize::from(self.len));
    }
}

/// A map key as the Java map sees it.
#[derive(Debug, Clone, Copy)]
pub(super) struct MapKey {
    /// Its `hashCode()`.
    pub(super) hash: i32,
    /// Integer, Long or Boolean (0/1) keys.
    pub(super) number: i64,
    /// String keys: the range of the bytes written for the key in the scratch key text.
    pub(super) text: (u32, u32),
    /// String keys of a marked image: the range of the Java text (lone surrogates kept)
    /// in the scratch Java key text.
    pub(super) java: (u32, u32),
}

impl ValueProgram {
    /// The wire type of a single value.
    pub(super) fn wire(&self) -> WireType {
        match self {
            ValueProgram::Int32
            | ValueProgram::UInt32
            | ValueProgram::SInt32
            | ValueProgram::Int64
            | ValueProgram::SInt64
            | ValueProgram::Bool
            | ValueProgram::Enum(_) => WireType::Varint,
            ValueProgram::Fixed32 | ValueProgram::Float => WireType::Fixed32,
            ValueProgram::Fixed64 | ValueProgram::Double => WireType::Fixed64,
            ValueProgram::String | ValueProgram::Bytes | ValueProgram::Message(_) => WireType::Len,
            ValueProgram::Group { .. } => WireType::StartGroup,
        }
    }

    /// The width of a packed element when it is fixed (fixed32/64, float, double).
    pub(super) fn fixed_width(&self) -> Option<usize> {
        match self {
            ValueProgram::Fixed32 | ValueProgram::Float => Some(4),
            ValueProgram::Fixed64 | ValueProgram::Double => Some(8),
            _ => None,
        }
    }

    /// The sub-message program of a message or group value.
    pub(super) fn message(&self) -> Option<&MessageProgram> {
        match self {
            ValueProgram::Message(m) | ValueProgram::Group { message: m, .. } => Some(m),
            _ => None,
        }
    }
}

impl MessageProgram {
    /// Compiles the program of `plan`, the plan of `descriptor` for one row type.
    pub(super) fn compile(
        plan: MessagePlan,
        descriptor: &MessageDescriptor,
    ) -> Result<Self, CodecError> {
        let arity = plan.fields.len();
        let oneofs: Vec<Option<usize>> = plan.fields.iter().map(|f| f.oneof).collect();
        let names: Vec<String> = plan.fields.iter().map(|f| f.name.clone()).collect();
        let mut by_column = Vec::with_capacity(arity);
        for (column, field) in plan.fields.into_iter().enumerate() {
            let rivals: Box<[usize]> = match field.oneof {
                Some(o) => (column + 1..arity)
                    .filter(|&c| oneofs[c] == Some(o))
                    .collect(),
                None => Box::new([]),
            };
            by_column.push(Some(FieldProgram::compile(
                field, column, rivals, descriptor,
            )?));
        }
        let mut fields = Vec::with_capacity(arity);
        let mut column_order = vec![0; arity];
        for &column in &plan.encode_order {
            if let Some(field) = by_column.get_mut(column).and_then(Option::take) {
                column_order[column] = fields.len();
                fields.push(field);
            }
        }
        if fields.len() != arity {
            return Err(CodecError::InvalidType(format!(
                "the plan of protobuf message '{}' does not order every column",
                plan.full_name
            )));
        }
        // Declaration order, as protobuf-java lists missing fields (`fields()` goes by
        // number).
        let required: Vec<(String, Option<usize>)> = descriptor
            .descriptor_proto()
            .field
            .iter()
            .filter_map(|raw| descriptor.get_field_by_name(raw.name()))
            .filter(|fd| fd.cardinality() == Cardinality::Required)
            .map(|fd| {
                let column = names.iter().position(|name| name == fd.name());
                (fd.name().to_string(), column)
            })
            .collect();
        let check = !required.is_empty()
            || fields.iter().any(|f| match &f.shape {
                FieldShape::Single { value, .. } | FieldShape::Repeated { value, .. } => {
                    value.message().is_some_and(|m| m.check)
                }
                FieldShape::Map(map) => map.value.message().is_some_and(|m| m.check),
                FieldShape::Packed { .. } => false,
            });
        Ok(MessageProgram {
            arity,
            fields,
            column_order,
            required,
            check,
        })
    }
}

impl FieldProgram {
    fn compile(
        field: FieldPlan,
        column: usize,
        rivals: Box<[usize]>,
        parent: &MessageDescriptor,
    ) -> Result<Self, CodecError> {
        let number = field.number;
        let fd = parent.get_field(number).ok_or_else(|| {
            CodecError::InvalidType(format!(
                "field {number} is not in protobuf message '{}'",
                parent.full_name()
            ))
        })?;
        let kind = fd.kind();
        let shape = match field.shape {
            Shape::Single(value) => {
                let value = ValueProgram::compile(value, &field.ty, &kind, number)?;
                FieldShape::Single {
                    tag: Tag::new(number, value.wire()),
                    value,
                }
            }
            Shape::Repeated { element, packed } => {
                let FlinkKind::Array(element_ty) = &field.ty.kind else {
                    return Err(shape_error(&field.name, "an ARRAY"));
                };
                let size = element_size(element_ty);
                let value = ValueProgram::compile(element, element_ty, &kind, number)?;
                if packed && value.message().is_none() {
                    FieldShape::Packed {
                        tag: Tag::new(number, WireType::Len),
                        value,
                        size,
                    }
                } else {
                    FieldShape::Repeated {
                        tag: Tag::new(number, value.wire()),
                        value,
                        size,
                    }
                }
            }
            Shape::Map { key, value } => {
                let FlinkKind::Map(key_ty, value_ty) = &field.ty.kind else {
                    return Err(shape_error(&field.name, "a MAP"));
                };
                let Kind::Message(entry) = &kind else {
                    return Err(shape_error(&field.name, "a map field"));
                };
                let key_kind = entry.map_entry_key_field().kind();
                let value_kind = entry.map_entry_value_field().kind();
                let key = ValueProgram::compile(key, key_ty, &key_kind, 1)?;
                if !matches!(
                    key,
                    ValueProgram::Int32
                        | ValueProgram::UInt32
                        | ValueProgram::SInt32
                        | ValueProgram::Fixed32
                        | ValueProgram::Int64
                        | ValueProgram::SInt64
                        | ValueProgram::Fixed64
                        | ValueProgram::Bool
                        | ValueProgram::String
                ) {
                    return Err(CodecError::InvalidType(format!(
                        "map field '{}' has a key type protobuf does not allow",
                        field.name
                    )));
                }
                let value = ValueProgram::compile(value, value_ty, &value_kind, 2)?;
                FieldShape::Map(Box::new(MapProgram {
                    tag: Tag::new(number, WireType::Len),
                    key_tag: Tag::new(1, key.wire()),
                    key,
                    key_size: element_size(key_ty),
                    value_tag: Tag::new(2, value.wire()),
                    value,
                    value_size: element_size(value_ty),
                }))
            }
        };
        Ok(FieldProgram {
            column,
            name: field.name,
            shape,
            implicit: !field.explicit_presence,
            rivals,
        })
    }
}

fn shape_error(name: &str, what: &str) -> CodecError {
    CodecError::InvalidType(format!("column '{name}' should be {what}"))
}

impl ValueProgram {
    /// The program of one value of Flink type `ty` and protobuf type `kind`; `number` is
    /// the field number (for a group's end tag).
    fn compile(
        plan: ValuePlan,
        ty: &FlinkType,
        kind: &Kind,
        number: u32,
    ) -> Result<Self, CodecError> {
        Ok(match plan {
            ValuePlan::Scalar(scalar) => match scalar {
                Scalar::Int32 => ValueProgram::Int32,
                Scalar::UInt32 => ValueProgram::UInt32,
                Scalar::SInt32 => ValueProgram::SInt32,
                Scalar::Fixed32 | Scalar::SFixed32 => ValueProgram::Fixed32,
                Scalar::Int64 | Scalar::UInt64 => ValueProgram::Int64,
                Scalar::SInt64 => ValueProgram::SInt64,
                Scalar::Fixed64 | Scalar::SFixed64 => ValueProgram::Fixed64,
                Scalar::Float => ValueProgram::Float,
                Scalar::Double => ValueProgram::Double,
                Scalar::Bool => ValueProgram::Bool,
                Scalar::String => ValueProgram::String,
                Scalar::Bytes => ValueProgram::Bytes,
            },
            ValuePlan::Enum(plan) => ValueProgram::Enum(EnumProgram::compile(plan, ty, kind)?),
            ValuePlan::Message(plan) => ValueProgram::Message(sub_message(*plan, kind, number)?),
            ValuePlan::Group(plan) => ValueProgram::Group {
                message: sub_message(*plan, kind, number)?,
                end: Tag::new(number, WireType::EndGroup),
            },
        })
    }
}

/// The program of a message or group value of type `kind`.
fn sub_message(
    plan: MessagePlan,
    kind: &Kind,
    number: u32,
) -> Result<Box<MessageProgram>, CodecError> {
    let Kind::Message(descriptor) = kind else {
        return Err(CodecError::InvalidType(format!(
            "no message type for the ROW of protobuf field {number}"
        )));
    };
    Ok(Box::new(MessageProgram::compile(plan, descriptor)?))
}

impl EnumProgram {
    fn compile(plan: EnumPlan, ty: &FlinkType, kind: &Kind) -> Result<Self, CodecError> {
        let source = match ty.kind {
            _ if plan.as_text => EnumSource::Text,
            FlinkKind::Int => EnumSource::Int,
            FlinkKind::BigInt => EnumSource::BigInt,
            FlinkKind::TinyInt => return Err(unsupported("TINYINT")),
            FlinkKind::SmallInt => return Err(unsupported("SMALLINT")),
            _ => {
                return Err(CodecError::InvalidType(format!(
                    "enum '{}' cannot be read from {}",
                    plan.full_name,
                    crate::types::summary_string(ty)
                )))
            }
        };
        // `values()[0]` is the first value in declaration order (prost-reflect lists them
        // by number).
        let first = match kind {
            Kind::Enum(e) => e
                .enum_descriptor_proto()
                .value
                .first()
                .map_or(plan.first().0, |v| v.number()),
            _ => plan.first().0,
        };
        let by_name = (plan.values.len() > LINEAR_ENUM_LIMIT).then(|| {
            let mut map = HashMap::with_capacity(plan.values.len());
            for (n, name) in &plan.values {
                map.entry(name.as_bytes().into()).or_insert(*n);
            }
            map
        });
        Ok(EnumProgram {
            source,
            plan,
            by_name,
            first,
        })
    }
}

/// flink-protobuf's code generator has no enum conversion from TINYINT and SMALLINT.
fn unsupported(type_name: &str) -> CodecError {
    CodecError::InvalidType(format!("Unsupported data type in schema: {type_name}"))
}
