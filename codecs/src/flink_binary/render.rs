//! Test support: a binary row image rendered as compact text, e.g.
//! `(7, "x", [1, 2], {"k"=1}, NULL)`, so that tests can state whole expected rows.

use super::layout::element_size;
use super::slots::{read_i32, Slots};
use crate::types::{FlinkKind, FlinkType};

/// Renders the row image at the start of `image` whose fields have types `fields`.
pub(crate) fn render_row(image: &[u8], fields: &[FlinkType]) -> String {
    let slots = Slots::row(image, 0, fields.len()).expect("row image");
    render_slots(&slots, fields.iter(), 8, "(", ")")
}

fn render_slots<'t>(
    slots: &Slots<'_>,
    types: impl Iterator<Item = &'t FlinkType>,
    size: usize,
    open: &str,
    close: &str,
) -> String {
    let parts: Vec<String> = types
        .enumerate()
        .map(|(i, ty)| render_value(slots, i, ty, size))
        .collect();
    format!("{open}{}{close}", parts.join(", "))
}

fn render_value(slots: &Slots<'_>, i: usize, ty: &FlinkType, size: usize) -> String {
    if slots.is_null(i) {
        return "NULL".into();
    }
    match &ty.kind {
        FlinkKind::Boolean => (slots.fixed::<1>(i, size)[0] != 0).to_string(),
        FlinkKind::TinyInt => (slots.fixed::<1>(i, size)[0] as i8).to_string(),
        FlinkKind::SmallInt => i16::from_le_bytes(slots.fixed::<2>(i, size)).to_string(),
        FlinkKind::Int => i32::from_le_bytes(slots.fixed::<4>(i, size)).to_string(),
        FlinkKind::BigInt => i64::from_le_bytes(slots.fixed::<8>(i, size)).to_string(),
        FlinkKind::Float => format!("{:?}f", f32::from_le_bytes(slots.fixed::<4>(i, size))),
        FlinkKind::Double => format!("{:?}", f64::from_le_bytes(slots.fixed::<8>(i, size))),
        FlinkKind::Char(_) | FlinkKind::VarChar(_) => {
            format!(
                "{:?}",
                String::from_utf8_lossy(slots.var(i, size).expect("text"))
            )
        }
        FlinkKind::Binary(_) | FlinkKind::VarBinary(_) => {
            let bytes = slots.var(i, size).expect("bytes");
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            format!("0x{hex}")
        }
        FlinkKind::Row(fields) => {
            let (at, _) = slots.reference(i, size);
            let inner = Slots::row(slots.buf, at, fields.len()).expect("nested row");
            render_slots(&inner, fields.iter().map(|f| &f.ty), 8, "(", ")")
        }
        FlinkKind::Array(element) => {
            let (at, _) = slots.reference(i, size);
            render_array(slots.buf, at, element, "[", "]")
        }
        FlinkKind::Map(key, value) => {
            let (at, _) = slots.reference(i, size);
            let key_size = read_i32(slots.buf, at).expect("key array size") as usize;
            let keys = Slots::array(slots.buf, at + 4, element_size(key)).expect("keys");
            let values =
                Slots::array(slots.buf, at + 4 + key_size, element_size(value)).expect("values");
            let entries: Vec<String> = (0..keys.arity)
                .map(|j| {
                    format!(
                        "{}={}",
                        render_value(&keys, j, key, element_size(key)),
                        render_value(&values, j, value, element_size(value))
                    )
                })
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        other => format!("<{other:?}>"),
    }
}

fn render_array(buf: &[u8], at: usize, element: &FlinkType, open: &str, close: &str) -> String {
    let size = element_size(element);
    let slots = Slots::array(buf, at, size).expect("array");
    render_slots(
        &slots,
        std::iter::repeat_n(element, slots.arity),
        size,
        open,
        close,
    )
}
