//! The `.proto` schema `protobuf-confluent-native` registers when the table gives none: a
//! proto3 file derived from the row type (`docs/formats/protobuf-confluent-native.md`).
//!
//! The top-level row is `message Row`, without a package; columns are fields numbered
//! 1..n in column order. A nullable scalar column is an `optional` field (its absence is
//! visible on the wire), a NOT NULL one an implicit-presence field. A nested ROW is a
//! message declared inside its parent, named after its column in PascalCase (made unique
//! in its scope). ARRAY is `repeated`, MAP is `map<K, V>`; containers of containers and
//! Flink types without a Protobuf scalar (DECIMAL, temporal types, TINYINT, ...) are
//! rejected with a message naming the column.

use std::collections::HashSet;

use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
use prost_reflect::prost_types::{
    DescriptorProto, FieldDescriptorProto, FileDescriptorProto, MessageOptions,
    OneofDescriptorProto,
};

use super::printer::print_file;
use crate::error::CodecError;
use crate::types::{FlinkField, FlinkKind, FlinkType};

/// Name of the top-level message of a derived schema.
pub const DERIVED_MESSAGE_NAME: &str = "Row";

/// The proto3 schema text derived from `row_type` (a ROW type).
pub fn derive_proto_schema(row_type: &FlinkType) -> Result<String, CodecError> {
    print_file(&derive_proto_file(row_type)?, &[])
}

/// The proto3 file derived from `row_type` (a ROW type), as a descriptor.
pub fn derive_proto_file(row_type: &FlinkType) -> Result<FileDescriptorProto, CodecError> {
    let fields = row_type.row_fields()?;
    let message = build_message(DERIVED_MESSAGE_NAME, fields, "", "")?;
    Ok(FileDescriptorProto {
        name: Some("derived.proto".into()),
        syntax: Some("proto3".into()),
        message_type: vec![message],
        ..FileDescriptorProto::default()
    })
}

/// Whether `name` can be a Protobuf field name: `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_proto_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A field's type: a scalar, or a message by full name.
enum FieldType {
    Scalar(Type),
    Message(String),
}

fn field(name: &str, number: usize, label: Label, ty: &FieldType) -> FieldDescriptorProto {
    let (r#type, type_name) = match ty {
        FieldType::Scalar(t) => (*t, None),
        FieldType::Message(full) => (Type::Message, Some(full.clone())),
    };
    FieldDescriptorProto {
        name: Some(name.to_string()),
        number: Some(i32::try_from(number).unwrap_or(i32::MAX)),
        label: Some(label as i32),
        r#type: Some(r#type as i32),
        type_name,
        ..FieldDescriptorProto::default()
    }
}

/// The message `name` for `fields`; `scope` is its parent's full name with a leading dot
/// (empty at the top), `path` the column path of this message, for errors. Columns are fields
/// 1..n in order; nested ROWs become nested messages declared after the fields (map entry
/// types, which the text does not declare, sit where their map field is).
fn build_message(
    name: &str,
    fields: &[FlinkField],
    scope: &str,
    path: &str,
) -> Result<DescriptorProto, CodecError> {
    let full = format!("{scope}.{name}");
    let mut message = DescriptorProto {
        name: Some(name.to_string()),
        ..DescriptorProto::default()
    };
    // Nested message names must not clash with the field names of this scope.
    let mut taken: HashSet<String> = fields.iter().map(|f| f.name.clone()).collect();
    let mut nested: Vec<DescriptorProto> = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        let number = i + 1;
        let column = if path.is_empty() {
            f.name.clone()
        } else {
            format!("{path}.{}", f.name)
        };
        if !is_proto_identifier(&f.name) {
            return Err(invalid(
                &column,
                "the name is not a Protobuf field name ([A-Za-z_][A-Za-z0-9_]*)",
            ));
        }
        let mut nested_row = |row: &FlinkType| -> Result<FieldType, CodecError> {
            let message_name = unique_name(&pascal_case(&f.name), &mut taken);
            nested.push(build_message(
                &message_name,
                row.row_fields()?,
                &full,
                &column,
            )?);
            Ok(FieldType::Message(format!("{full}.{message_name}")))
        };
        match &f.ty.kind {
            FlinkKind::Row(_) => {
                let ty = nested_row(&f.ty)?;
                message
                    .field
                    .push(field(&f.name, number, Label::Optional, &ty));
            }
            FlinkKind::Array(element) => {
                let ty = match &element.kind {
                    FlinkKind::Row(_) => nested_row(element)?,
                    _ => FieldType::Scalar(scalar(element).ok_or_else(|| {
                        invalid(
                            &column,
                            &format!(
                                "ARRAY elements must be scalars or ROWs, not {}",
                                kind_name(element)
                            ),
                        )
                    })?),
                };
                message
                    .field
                    .push(field(&f.name, number, Label::Repeated, &ty));
            }
            FlinkKind::Map(key, value) => {
                let key = match key.kind {
                    FlinkKind::Char(_) | FlinkKind::VarChar(_) => Type::String,
                    FlinkKind::Int => Type::Int32,
                    FlinkKind::BigInt => Type::Int64,
                    FlinkKind::Boolean => Type::Bool,
                    _ => {
                        return Err(invalid(
                            &column,
                            &format!(
                                "MAP keys must be STRING, INT, BIGINT or BOOLEAN, not {}",
                                kind_name(key)
                            ),
                        ))
                    }
                };
                let value = match &value.kind {
                    FlinkKind::Row(_) => nested_row(value)?,
                    _ => FieldType::Scalar(scalar(value).ok_or_else(|| {
                        invalid(
                            &column,
                            &format!(
                                "MAP values must be scalars or ROWs, not {}",
                                kind_name(value)
                            ),
                        )
                    })?),
                };
                // protoc's entry type: the field name in PascalCase plus `Entry`.
                let entry_name = format!("{}Entry", pascal_case(&f.name));
                let entry = DescriptorProto {
                    name: Some(entry_name.clone()),
                    field: vec![
                        field("key", 1, Label::Optional, &FieldType::Scalar(key)),
                        field("value", 2, Label::Optional, &value),
                    ],
                    options: Some(MessageOptions {
                        map_entry: Some(true),
                        ..MessageOptions::default()
                    }),
                    ..DescriptorProto::default()
                };
                // The entry is declared at the field, before the nested messages.
                message.nested_type.push(entry);
                let ty = FieldType::Message(format!("{full}.{entry_name}"));
                message
                    .field
                    .push(field(&f.name, number, Label::Repeated, &ty));
            }
            _ => {
                let ty = scalar(&f.ty).ok_or_else(|| {
                    invalid(
                        &column,
                        &format!("{} has no Protobuf scalar type", kind_name(&f.ty)),
                    )
                })?;
                let mut declared = field(&f.name, number, Label::Optional, &FieldType::Scalar(ty));
                if f.ty.nullable {
                    // proto3 `optional`: a synthetic oneof of its own.
                    declared.proto3_optional = Some(true);
                    declared.oneof_index = Some(0);
                    message.oneof_decl.push(OneofDescriptorProto {
                        name: Some(format!("_{}", f.name)),
                        ..OneofDescriptorProto::default()
                    });
                }
                message.field.push(declared);
            }
        }
    }
    // Synthetic oneofs in field order.
    let mut next_oneof = 0;
    for f in &mut message.field {
        if f.proto3_optional == Some(true) {
            f.oneof_index = Some(next_oneof);
            next_oneof += 1;
        }
    }
    message.nested_type.extend(nested);
    Ok(message)
}

/// The Protobuf scalar type of a scalar Flink type, `None` for other types.
fn scalar(ty: &FlinkType) -> Option<Type> {
    Some(match ty.kind {
        FlinkKind::Boolean => Type::Bool,
        FlinkKind::Int => Type::Int32,
        FlinkKind::BigInt => Type::Int64,
        FlinkKind::Float => Type::Float,
        FlinkKind::Double => Type::Double,
        FlinkKind::Char(_) | FlinkKind::VarChar(_) => Type::String,
        FlinkKind::Binary(_) | FlinkKind::VarBinary(_) => Type::Bytes,
        _ => return None,
    })
}

/// The SQL name of a type's kind, for messages.
fn kind_name(ty: &FlinkType) -> &'static str {
    match ty.kind {
        FlinkKind::Null => "NULL",
        FlinkKind::Boolean => "BOOLEAN",
        FlinkKind::TinyInt => "TINYINT",
        FlinkKind::SmallInt => "SMALLINT",
        FlinkKind::Int => "INT",
        FlinkKind::BigInt => "BIGINT",
        FlinkKind::Float => "FLOAT",
        FlinkKind::Double => "DOUBLE",
        FlinkKind::Char(_) => "CHAR",
        FlinkKind::VarChar(_) => "VARCHAR",
        FlinkKind::Binary(_) => "BINARY",
        FlinkKind::VarBinary(_) => "VARBINARY",
        FlinkKind::Decimal { .. } => "DECIMAL",
        FlinkKind::Date => "DATE",
        FlinkKind::Time(_) => "TIME",
        FlinkKind::Timestamp(_) => "TIMESTAMP",
        FlinkKind::TimestampLtz(_) => "TIMESTAMP_LTZ",
        FlinkKind::IntervalYearMonth => "INTERVAL YEAR TO MONTH",
        FlinkKind::IntervalDayTime => "INTERVAL DAY TO SECOND",
        FlinkKind::Array(_) => "ARRAY",
        FlinkKind::Map(..) => "MAP",
        FlinkKind::Multiset(_) => "MULTISET",
        FlinkKind::Row(_) => "ROW",
    }
}

/// `snake_case` (or any identifier) to `PascalCase`: `_`-separated parts capitalised.
fn pascal_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'M');
    }
    out
}

/// `base`, or `base_2`, `base_3`, ... : the first one not in `taken` (then added to it).
fn unique_name(base: &str, taken: &mut HashSet<String>) -> String {
    let mut name = base.to_string();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

fn invalid(column: &str, reason: &str) -> CodecError {
    CodecError::InvalidType(format!(
        "protobuf-confluent-native cannot derive a Protobuf schema for column '{column}': {reason}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protobuf::test_support::{array, map, pool, row, ty};

    fn not_null(mut t: FlinkType) -> FlinkType {
        t.nullable = false;
        t
    }

    #[test]
    fn derives_proto3_text_with_optional_nullable_scalars_and_nested_messages() {
        let row_type = row(&[
            ("id", not_null(ty("BIGINT"))),
            ("name", ty("STRING")),
            ("ok", ty("BOOLEAN")),
            ("f", ty("FLOAT")),
            ("d", not_null(ty("DOUBLE"))),
            ("raw", ty("BYTES")),
            ("n", ty("INT")),
            ("tags", array(ty("STRING"))),
            ("counts", map(ty("STRING"), ty("BIGINT"))),
            (
                "home_address",
                row(&[("street", ty("STRING")), ("zip", not_null(ty("INT")))]),
            ),
            ("items", array(row(&[("sku", ty("STRING"))]))),
            ("by_id", map(ty("INT"), row(&[("v", ty("DOUBLE"))]))),
        ]);
        let text = derive_proto_schema(&row_type).unwrap();
        let expected = "syntax = \"proto3\";\n\n\
            message Row {\n\
            \x20 int64 id = 1;\n\
            \x20 optional string name = 2;\n\
            \x20 optional bool ok = 3;\n\
            \x20 optional float f = 4;\n\
            \x20 double d = 5;\n\
            \x20 optional bytes raw = 6;\n\
            \x20 optional int32 n = 7;\n\
            \x20 repeated string tags = 8;\n\
            \x20 map<string, int64> counts = 9;\n\
            \x20 HomeAddress home_address = 10;\n\
            \x20 repeated Items items = 11;\n\
            \x20 map<int32, ById> by_id = 12;\n\
            \x20 message HomeAddress {\n\
            \x20   optional string street = 1;\n\
            \x20   int32 zip = 2;\n\
            \x20 }\n\
            \x20 message Items {\n\
            \x20   optional string sku = 1;\n\
            \x20 }\n\
            \x20 message ById {\n\
            \x20   optional double v = 1;\n\
            \x20 }\n\
            }\n";
        assert_eq!(text, expected);
        // It compiles, and the fields carry the documented presence.
        let pool = pool(&[("derived.proto", &text)]);
        let message = pool.get_message_by_name("Row").unwrap();
        let name = message.get_field_by_name("name").unwrap();
        assert!(name.supports_presence());
        assert!(!message.get_field_by_name("id").unwrap().supports_presence());
        assert!(message.get_field_by_name("counts").unwrap().is_map());
    }

    #[test]
    fn nested_names_avoid_field_names_of_their_scope() {
        let row_type = row(&[("Inner", ty("INT")), ("inner", row(&[("x", ty("INT"))]))]);
        let text = derive_proto_schema(&row_type).unwrap();
        assert!(text.contains("Inner_2 inner = 2;"), "{text}");
        assert!(text.contains("message Inner_2 {"), "{text}");
        // Such columns cannot share a proto3 message anyway (their JSON names clash): the
        // writer schema compiled from the text says so.
        let err = crate::protobuf::confluent::writer_schema(&row_type, None, "")
            .unwrap_err()
            .to_string();
        assert!(err.contains("conflicts with field"), "{err}");
    }

    #[test]
    fn unsupported_types_name_the_column() {
        let decimal = FlinkType {
            nullable: true,
            kind: FlinkKind::Decimal {
                precision: 10,
                scale: 2,
            },
        };
        let cases = [
            (row(&[("price", decimal)]), "column 'price'", "DECIMAL"),
            (
                row(&[("r", row(&[("t", ty("TINYINT"))]))]),
                "column 'r.t'",
                "TINYINT",
            ),
            (
                row(&[("aa", array(array(ty("INT"))))]),
                "column 'aa'",
                "ARRAY elements must be scalars or ROWs, not ARRAY",
            ),
            (
                row(&[("am", array(map(ty("STRING"), ty("INT"))))]),
                "column 'am'",
                "not MAP",
            ),
            (
                row(&[("mm", map(ty("STRING"), map(ty("STRING"), ty("INT"))))]),
                "column 'mm'",
                "MAP values must be scalars or ROWs, not MAP",
            ),
            (
                row(&[("md", map(ty("DOUBLE"), ty("INT")))]),
                "column 'md'",
                "MAP keys must be STRING, INT, BIGINT or BOOLEAN, not DOUBLE",
            ),
            (
                row(&[("bad name", ty("INT"))]),
                "column 'bad name'",
                "not a Protobuf field name",
            ),
        ];
        for (row_type, column, reason) in cases {
            let err = derive_proto_schema(&row_type).unwrap_err().to_string();
            assert!(err.contains(column), "{err}");
            assert!(err.contains(reason), "{err}");
        }
    }

    #[test]
    fn identifiers() {
        assert!(is_proto_identifier("_a1"));
        assert!(is_proto_identifier("A"));
        assert!(!is_proto_identifier("1a"));
        assert!(!is_proto_identifier(""));
        assert!(!is_proto_identifier("a-b"));
        assert_eq!(pascal_case("home_address"), "HomeAddress");
        assert_eq!(pascal_case("_x"), "X");
        assert_eq!(pascal_case("9lives"), "M9lives");
    }
}
