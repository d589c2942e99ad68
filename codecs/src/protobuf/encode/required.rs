//! proto2 `required` fields: protobuf-java's `build()` fails with an
//! `UninitializedMessageException` when one is unset, and flink-protobuf builds every
//! message of a row (nested ones first, in column order, then the row's own message).
//!
//! A message built from a ROW lacks a required field when its column is NULL or not in
//! the row type. Its nested messages built from ROW values were checked by their own
//! `build()` already, so beyond its own fields only the default instances standing for
//! NULL array elements and NULL map values can be incomplete; protobuf-java names those
//! `field[i].x` and `field[i].value.x` (`i` the position in the repeated field or in the
//! map's iteration order). The message text is protobuf-java's: "Message missing required
//! fields: " and the paths, own fields first (declaration order), then sub-messages by
//! field number.

use super::program::{FieldShape, MessageProgram};
use super::write::{array_slots, map_slots, row_slots, Writer};
use crate::error::CodecError;
use crate::flink_binary::slots::Slots;

impl Writer<'_> {
    /// Fails as flink-protobuf does when a message of the row `row` of `program` would lack
    /// a required field.
    pub(super) fn check_required(
        &mut self,
        program: &MessageProgram,
        row: &Slots<'_>,
    ) -> Result<(), CodecError> {
        // Nested messages are built first, in column order.
        for column in 0..program.arity {
            if row.is_null(column) {
                continue;
            }
            let field = &program.fields[program.column_order[column]];
            match &field.shape {
                FieldShape::Single { value, .. } => {
                    if let Some(message) = value.message().filter(|m| m.check) {
                        let (at, _) = row.reference(column, 8);
                        let nested = row_slots(row.buf, at, message.arity)?;
                        self.check_required(message, &nested)?;
                    }
                }
                FieldShape::Repeated { value, size, .. } => {
                    if let Some(message) = value.message().filter(|m| m.check) {
                        let (at, _) = row.reference(column, 8);
                        let items = array_slots(row.buf, at, *size)?;
                        for j in 0..items.arity {
                            if !items.is_null(j) {
                                let (at, _) = items.reference(j, *size);
                                let nested = row_slots(items.buf, at, message.arity)?;
                                self.check_required(message, &nested)?;
                            }
                        }
                    }
                }
                FieldShape::Map(map) => {
                    if let Some(message) = map.value.message().filter(|m| m.check) {
                        let (at, _) = row.reference(column, 8);
                        let (_, values) = map_slots(row.buf, at, map.key_size, map.value_size)?;
                        for j in 0..values.arity {
                            if !values.is_null(j) {
                                let (at, _) = values.reference(j, map.value_size);
                                let nested = row_slots(values.buf, at, message.arity)?;
                                self.check_required(message, &nested)?;
                            }
                        }
                    }
                }
                FieldShape::Packed { .. } => {}
            }
        }

        let mut missing: Vec<String> = program
            .required
            .iter()
            .filter(|(_, column)| column.is_none_or(|c| row.is_null(c)))
            .map(|(name, _)| name.clone())
            .collect();
        for field in &program.fields {
            let column = field.column;
            if row.is_null(column) || field.rivals.iter().any(|&c| !row.is_null(c)) {
                continue;
            }
            match &field.shape {
                FieldShape::Repeated { value, size, .. } => {
                    let Some(message) = value.message().filter(|m| !m.required.is_empty()) else {
                        continue;
                    };
                    let (at, _) = row.reference(column, 8);
                    let items = array_slots(row.buf, at, *size)?;
                    for j in 0..items.arity {
                        if items.is_null(j) {
                            for (name, _) in &message.required {
                                missing.push(format!("{}[{j}].{name}", field.name));
                            }
                        }
                    }
                }
                FieldShape::Map(map) => {
                    let Some(message) = map.value.message().filter(|m| !m.required.is_empty())
                    else {
                        continue;
                    };
                    let (at, _) = row.reference(column, 8);
                    let (keys, values) = map_slots(row.buf, at, map.key_size, map.value_size)?;
                    if keys.arity == 0 {
                        continue;
                    }
                    let marks = self.order_map(&map.key, &keys, map.key_size)?;
                    for (i, n) in (marks.order..self.scratch.order.len()).enumerate() {
                        let (_, v) = self.scratch.order[n];
                        if values.is_null(v as usize) {
                            for (name, _) in &message.required {
                                missing.push(format!("{}[{i}].value.{name}", field.name));
                            }
                        }
                    }
                    self.release(&marks);
                }
                FieldShape::Single { .. } | FieldShape::Packed { .. } => {}
            }
        }
        if missing.is_empty() {
            Ok(())
        } else {
            Err(CodecError::ProtobufEncode(format!(
                "Message missing required fields: {}",
                missing.join(", ")
            )))
        }
    }
}
