//! Repeated fields (ARRAY columns): elements counted on the wire, then written in place.

use super::super::checks::Checks;
use super::super::plan::{FieldPlan, ValuePlan};
use super::super::wire::{WireReader, WireType};
use super::row::write_row;
use super::values::{for_each_packed, is_kept, raw_at, read_raw, write_raw, Raw};
use super::{point_at, DecodeFail, DecodeResult, Scratch, NONE};
use crate::flink_binary::elements::ElementImages;
use crate::flink_binary::layout::{
    array_header_bytes, element_size, put, round8, set_offset_and_size,
};
use crate::types::FlinkType;

/// Writes the ARRAY of a repeated field from its occurrences starting at `from` (packed
/// and unpacked records alike, in wire order); `false` when it has no element.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_array(
    field: &FieldPlan,
    element: &ValuePlan,
    element_ty: &FlinkType,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &mut Scratch,
    from: u32,
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
) -> DecodeResult<bool> {
    // A closed enum drops the numbers it does not declare, so only reading the values
    // tells how many elements there are; everything else is counted from the wire.
    let closed_enum = matches!(element, ValuePlan::Enum(e) if !e.open);
    if !closed_enum {
        let count = count_elements(element, buf, scratch, from);
        if count > 0 {
            return write_array_direct(
                field, element, element_ty, checks, buf, depth, scratch, from, count, out, base,
                slot,
            )
            .map(|()| true);
        }
        // No element counted: none, or a malformed packed record whose error the
        // buffered path reports.
    }
    let mut elements = scratch.take_elements();
    let result = collect_elements(
        field,
        element,
        element_ty,
        checks,
        buf,
        depth,
        scratch,
        from,
        &mut elements,
    );
    let written = match result {
        Ok(0) => Ok(false),
        Ok(_) => {
            let start = out.len();
            elements
                .write_array(element_ty, out)
                .map_err(DecodeFail::from)
                .and_then(|()| point_at(out, base, slot, start))
                .map(|()| true)
        }
        Err(e) => Err(e),
    };
    scratch.give_elements(elements);
    written
}

/// The number of elements of a repeated field whose every value counts (no closed enum):
/// one per unpacked record or message, one per varint end byte or fixed-width value of a
/// packed record. Exact for well-formed records; a malformed one fails when it is read.
fn count_elements(element: &ValuePlan, buf: &[u8], scratch: &Scratch, from: u32) -> usize {
    let packed =
        !matches!(element, ValuePlan::Message(_) | ValuePlan::Group(_)) && element.packable();
    let mut count = 0usize;
    let mut at = from;
    while at != NONE {
        let occ = scratch.occurrences[at as usize];
        at = occ.next;
        if packed && occ.wire == WireType::Len {
            let span = &buf[occ.start as usize..occ.end as usize];
            count += match element.wire_type() {
                WireType::Fixed32 => span.len() / 4,
                WireType::Fixed64 => span.len() / 8,
                // Every varint that reads ends with the first byte below 0x80.
                _ => span.iter().filter(|&&b| b < 0x80).count(),
            };
        } else {
            count += 1;
        }
    }
    count
}

/// Appends the fixed part of an array of `count` elements of type `ty` (count, null bits,
/// zeroed slots); returns its start and the offset of its first slot.
#[inline(always)]
pub(super) fn begin_array(
    out: &mut Vec<u8>,
    ty: &FlinkType,
    count: usize,
) -> DecodeResult<(usize, usize)> {
    let n = i32::try_from(count).map_err(|_| DecodeFail::new("array longer than 2^31"))?;
    let header = array_header_bytes(count);
    let start = out.len();
    out.resize(start + round8(header + element_size(ty) * count), 0);
    put(out, start, &n.to_le_bytes());
    Ok((start, start + header))
}

/// Writes the `count` elements of a repeated field straight into an array image at the
/// end of `out` (each string, bytes or row in the array's variable part, in element
/// order, as [`ElementImages::write_array`] lays them out) and points `slot` at it.
#[allow(clippy::too_many_arguments)]
fn write_array_direct(
    field: &FieldPlan,
    element: &ValuePlan,
    element_ty: &FlinkType,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &mut Scratch,
    from: u32,
    count: usize,
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
) -> DecodeResult<()> {
    let (array, first) = begin_array(out, element_ty, count)?;
    let size = element_size(element_ty);
    let mut written = 0usize;
    let mut next_slot = || -> DecodeResult<usize> {
        if written == count {
            return Err(DecodeFail::new("more array elements than counted"));
        }
        written += 1;
        Ok(first + size * (written - 1))
    };
    let mut at = from;
    while at != NONE {
        let occ = scratch.occurrences[at as usize];
        at = occ.next;
        let span = &buf[occ.start as usize..occ.end as usize];
        match element {
            ValuePlan::Message(p) | ValuePlan::Group(p) => {
                let element_slot = next_slot()?;
                let start = out.len();
                write_row(p, checks, span, depth + 1, scratch, out)?;
                let size = out.len() - start;
                set_offset_and_size(out, array, element_slot, start, size)?;
            }
            _ if occ.wire == WireType::Len && element.packable() => {
                let wire = element.wire_type();
                let mut reader = WireReader::new(span);
                while !reader.at_end() {
                    let raw = read_raw(&mut reader, span, wire)?;
                    let element_slot = next_slot()?;
                    write_raw(
                        element_ty,
                        element,
                        raw,
                        field.utf8_checked,
                        out,
                        array,
                        element_slot,
                    )?;
                }
            }
            _ => {
                let raw = raw_at(buf, occ.start as usize, occ.end as usize, occ.wire)?;
                let element_slot = next_slot()?;
                write_raw(
                    element_ty,
                    element,
                    raw,
                    field.utf8_checked,
                    out,
                    array,
                    element_slot,
                )?;
            }
        }
    }
    if written != count {
        return Err(DecodeFail::new("fewer array elements than counted"));
    }
    point_at(out, base, slot, array)
}

#[allow(clippy::too_many_arguments)]
fn collect_elements(
    field: &FieldPlan,
    element: &ValuePlan,
    element_ty: &FlinkType,
    checks: &Checks,
    buf: &[u8],
    depth: usize,
    scratch: &mut Scratch,
    from: u32,
    elements: &mut ElementImages,
) -> DecodeResult<usize> {
    let mut count = 0usize;
    let mut at = from;
    while at != NONE {
        let occ = scratch.occurrences[at as usize];
        at = occ.next;
        let span = &buf[occ.start as usize..occ.end as usize];
        match element {
            ValuePlan::Message(p) | ValuePlan::Group(p) => {
                elements.push_with(|images, slot| -> DecodeResult<bool> {
                    let start = images.len();
                    write_row(p, checks, span, depth + 1, scratch, images)?;
                    let size = images.len() - start;
                    set_offset_and_size(images, 0, slot, start, size)?;
                    Ok(true)
                })?;
                count += 1;
            }
            _ if occ.wire == WireType::Len && element.packable() => {
                let wire = element.wire_type();
                for_each_packed(span, wire, |raw| {
                    if is_kept(element, raw) {
                        push_raw(elements, element_ty, element, raw, field.utf8_checked)?;
                        count += 1;
                    }
                    Ok(())
                })?;
            }
            _ => {
                let raw = raw_at(buf, occ.start as usize, occ.end as usize, occ.wire)?;
                if is_kept(element, raw) {
                    push_raw(elements, element_ty, element, raw, field.utf8_checked)?;
                    count += 1;
                }
            }
        }
    }
    Ok(count)
}

fn push_raw(
    elements: &mut ElementImages,
    ty: &FlinkType,
    value: &ValuePlan,
    raw: Raw<'_>,
    utf8_checked: bool,
) -> DecodeResult<()> {
    elements.push_with(|images, slot| -> DecodeResult<bool> {
        write_raw(ty, value, raw, utf8_checked, images, 0, slot)?;
        Ok(true)
    })
}

#[cfg(test)]
mod tests {
    use super::super::ProtobufRowDecoder;
    use crate::flink_binary::elements::ElementImages;
    use crate::flink_binary::layout::{set_offset_and_size, write_var_bytes};
    use crate::protobuf::test_support::{array, message, row, ty};
    use crate::protobuf::ProtobufOptions;
    use crate::types::FlinkType;

    const PROTO: &str = r#"
syntax = "proto3";
package c;
message Inner { string t = 1; }
message A {
  repeated string s = 1;
  repeated int64 n = 2;
  repeated Inner rows = 3;
  repeated fixed32 f = 4;
}
"#;

    /// The image of the one row decoded from `bytes`.
    fn decode(name: &str, row_type: &FlinkType, bytes: &[u8]) -> Result<Vec<u8>, String> {
        let descriptor = message(PROTO, name);
        let mut d = ProtobufRowDecoder::new(&descriptor, row_type, ProtobufOptions::default())
            .map_err(|e| e.to_string())?;
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        d.decode_message(bytes, &mut out, &mut ends)
            .map_err(|e| e.to_string())?;
        Ok(out)
    }

    /// The bytes from where slot 0 of a one-column row points to the end of the row.
    fn column_image(image: &[u8]) -> &[u8] {
        let mut word = [0u8; 8];
        word.copy_from_slice(&image[8..16]);
        &image[(u64::from_le_bytes(word) >> 32) as usize..]
    }

    fn len_field(number: u8, bytes: &[u8], into: &mut Vec<u8>) {
        into.push((number << 3) | 2);
        into.push(bytes.len() as u8);
        into.extend_from_slice(bytes);
    }

    #[test]
    fn arrays_written_in_place_match_the_element_buffer_layout() {
        let strings: Vec<Vec<u8>> = (0..20).map(|n| vec![b'a' + n as u8; n]).collect();
        let mut wire = Vec::new();
        for s in &strings {
            len_field(1, s, &mut wire);
        }
        let t = row(&[("s", array(ty("STRING")))]);
        let image = decode("c.A", &t, &wire).unwrap();
        let mut elements = ElementImages::default();
        for s in &strings {
            elements
                .push_with(|images, slot| write_var_bytes(images, 0, slot, s).map(|()| true))
                .unwrap();
        }
        let mut expected = Vec::new();
        elements.write_array(&ty("STRING"), &mut expected).unwrap();
        assert_eq!(&column_image(&image)[..expected.len()], &expected[..]);
        assert_eq!(image.len(), 16 + expected.len());

        // Rows: each element's image as the decoder writes it alone.
        let inner = row(&[("t", ty("STRING"))]);
        let mut wire = Vec::new();
        let mut elements = ElementImages::default();
        for s in strings.iter().take(12) {
            let mut m = Vec::new();
            len_field(1, s, &mut m);
            len_field(3, &m, &mut wire);
            let alone = decode("c.Inner", &inner, &m).unwrap();
            elements
                .push_with(|images, slot| {
                    let start = images.len();
                    images.extend_from_slice(&alone);
                    set_offset_and_size(images, 0, slot, start, alone.len()).map(|()| true)
                })
                .unwrap();
        }
        let t = row(&[("rows", array(inner.clone()))]);
        let image = decode("c.A", &t, &wire).unwrap();
        let mut expected = Vec::new();
        elements.write_array(&inner, &mut expected).unwrap();
        assert_eq!(column_image(&image), &expected[..]);
    }

    #[test]
    fn packed_records_are_counted_and_still_fail_when_malformed() {
        let t = row(&[("n", array(ty("BIGINT"))), ("f", array(ty("INT")))]);
        // n: packed [1, 300, -1 (10 bytes)], then unpacked 5; f: packed [7, 8].
        let mut wire = vec![0x12, 13, 0x01, 0xac, 0x02];
        wire.extend_from_slice(&[0xff; 9]);
        wire.push(0x01);
        wire.extend_from_slice(&[0x10, 0x05, 0x22, 0x08, 7, 0, 0, 0, 8, 0, 0, 0]);
        let image = decode("c.A", &t, &wire).unwrap();
        let render = crate::protobuf::test_support::render(&image, &t);
        assert_eq!(render, "([1, 300, -1, 5], [7, 8])");
        // A packed record that ends inside a varint: with elements before it, and alone.
        for bad in [&[0x12, 0x02, 0x01, 0x80][..], &[0x12, 0x01, 0x80][..]] {
            let err = decode("c.A", &t, bad).unwrap_err();
            assert!(err.contains("ended unexpectedly"), "{err}");
        }
        // A packed fixed32 record with a partial element: with a whole one before, and alone.
        for bad in [&[0x22, 0x05, 1, 0, 0, 0, 2][..], &[0x22, 0x03, 1, 0, 0][..]] {
            let err = decode("c.A", &t, bad).unwrap_err();
            assert!(err.contains("ended unexpectedly"), "{err}");
        }
        // An 11-byte varint inside a packed record.
        let mut bad = vec![0x12, 11];
        bad.extend_from_slice(&[0x80; 10]);
        bad.push(0x01);
        let err = decode("c.A", &t, &bad).unwrap_err();
        assert!(err.contains("malformed varint"), "{err}");
    }
}
