//! Decoded rows handed to Java in the "row list" layout of `docs/jni-contract.md`: the
//! decode session of every format (Avro, JSON, Protobuf), which decodes one value or a
//! batch of values into 0..n Flink binary rows each.

use karrow_codecs::CodecError;

use crate::error::NativeError;
use crate::session::{OneValueRows, Session, SessionKind};
use crate::value_batch::ValueBatch;

/// What a format's value decoder does for the shared session.
pub trait MessageRows: Send {
    /// The session kind of this format's decoder.
    const KIND: SessionKind;

    /// Whether a value gives at most one row (Avro, Protobuf): the per-record call then
    /// returns the row's image alone, without the row-list header.
    const AT_MOST_ONE_ROW: bool;

    /// Decodes one Kafka value, appending its row images to `out` and each image's end
    /// offset in `out` to `row_ends`; on error nothing is appended.
    fn decode_message(
        &mut self,
        message: &[u8],
        out: &mut Vec<u8>,
        row_ends: &mut Vec<usize>,
    ) -> Result<(), CodecError>;

    /// What a null Kafka value (a tombstone) gives: no row by default.
    fn decode_null(
        &mut self,
        _out: &mut Vec<u8>,
        _row_ends: &mut Vec<usize>,
    ) -> Result<(), CodecError> {
        Ok(())
    }
}

/// One decoder per parallel Flink reader, with the buffers its calls reuse.
pub struct RowListSession<D> {
    decoder: D,
    /// Reused buffer of the row images of the last call, back to back.
    images: Vec<u8>,
    /// Reused end offsets (in `images`) of the rows of the last call.
    row_ends: Vec<usize>,
    /// Reused buffer of the row-list header of the last call.
    header: Vec<u8>,
    /// Reused per-value running row counts of the last batch.
    value_row_ends: Vec<i32>,
}

/// Decoded rows in the contract's "row list" layout, as two parts that the caller writes
/// back to back: `header` (`i32` row count, then `count + 1` `i32` absolute offsets, all
/// little-endian) and `images` (the row images, row `i` at `[off[i], off[i+1])` of the
/// whole).
#[derive(Debug, Clone, Copy)]
pub struct RowList<'a> {
    /// Row count and offsets.
    pub header: &'a [u8],
    /// The row images.
    pub images: &'a [u8],
}

impl RowList<'_> {
    /// Total length of the layout in bytes.
    pub fn len(&self) -> usize {
        self.header.len() + self.images.len()
    }

    /// Whether the layout is empty (never: it always holds the row count).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<D: MessageRows> RowListSession<D> {
    /// A session around `decoder`.
    pub fn new(decoder: D) -> Self {
        RowListSession {
            decoder,
            images: Vec::new(),
            row_ends: Vec::new(),
            header: Vec::new(),
            value_row_ends: Vec::new(),
        }
    }

    /// The format's value decoder.
    pub fn decoder(&self) -> &D {
        &self.decoder
    }
    /// Decodes one message (the per-record path); `None` when it yields no row (for JSON
    /// an empty message or `[]`; for any format an unreadable message under
    /// `ignore-parse-errors`).
    pub fn decode_message(&mut self, message: &[u8]) -> Result<Option<RowList<'_>>, NativeError> {
        self.decode_value(Some(message))
    }

    /// [`RowListSession::decode_message`] of a value that may be null (a tombstone, which
    /// the format's [`MessageRows::decode_null`] decides about).
    pub fn decode_value(
        &mut self,
        value: Option<&[u8]>,
    ) -> Result<Option<RowList<'_>>, NativeError> {
        self.decode_into(value)?;
        if self.row_ends.is_empty() {
            return Ok(None);
        }
        write_header(&self.row_ends, self.images.len(), &mut self.header)?;
        Ok(Some(RowList {
            header: &self.header,
            images: &self.images,
        }))
    }

    /// Decodes one message of a format that yields at most one row per value (Protobuf)
    /// and returns that row's image alone, without the row-list header; `None` when it
    /// yields no row. More than one row is an error.
    pub fn decode_single(&mut self, message: &[u8]) -> Result<Option<&[u8]>, NativeError> {
        self.decode_single_value(Some(message))
    }

    /// [`RowListSession::decode_single`] of a value that may be null.
    pub fn decode_single_value(
        &mut self,
        value: Option<&[u8]>,
    ) -> Result<Option<&[u8]>, NativeError> {
        self.decode_into(value)?;
        match self.row_ends.as_slice() {
            [] => Ok(None),
            [end] if *end == self.images.len() => Ok(Some(&self.images)),
            ends => Err(NativeError::InvalidCall(format!(
                "one row expected from a value, the decoder gave {} ending at {ends:?} of {} bytes",
                ends.len(),
                self.images.len()
            ))),
        }
    }

    /// Decodes one value into the cleared buffers.
    #[inline]
    fn decode_into(&mut self, value: Option<&[u8]>) -> Result<(), CodecError> {
        self.images.clear();
        self.row_ends.clear();
        match value {
            Some(message) => {
                self.decoder
                    .decode_message(message, &mut self.images, &mut self.row_ends)
            }
            None => self
                .decoder
                .decode_null(&mut self.images, &mut self.row_ends),
        }
    }

    /// Decodes a batch of values (`None` = null value, no row) into the rows of all values
    /// in order; returns them with, per value `i`, the number of rows of values `0..=i`.
    /// A failing value fails the batch with its index as the record index.
    pub fn decode_batch<'a>(
        &mut self,
        values: impl IntoIterator<Item = Option<&'a [u8]>>,
    ) -> Result<(RowList<'_>, &[i32]), NativeError> {
        self.images.clear();
        self.row_ends.clear();
        self.value_row_ends.clear();
        for (index, value) in values.into_iter().enumerate() {
            match value {
                Some(message) => {
                    self.decoder
                        .decode_message(message, &mut self.images, &mut self.row_ends)
                }
                None => self
                    .decoder
                    .decode_null(&mut self.images, &mut self.row_ends),
            }
            .map_err(|e| NativeError::at_record(e, index))?;
            // The batch goes to Java as one array: stop at its limit after the value that
            // crosses it, not after the whole batch (a batch's images may grow far faster
            // than its values: an empty JSON object is a whole row of NULLs).
            to_i32(self.images.len(), "decoded batch size")?;
            self.value_row_ends
                .push(to_i32(self.row_ends.len(), "row count")?);
        }
        write_header(&self.row_ends, self.images.len(), &mut self.header)?;
        Ok((
            RowList {
                header: &self.header,
                images: &self.images,
            },
            &self.value_row_ends,
        ))
    }
}

impl<D: MessageRows> Session for RowListSession<D> {
    fn kind(&self) -> SessionKind {
        D::KIND
    }

    fn retained_bytes(&self) -> usize {
        self.images.capacity()
            + self.header.capacity()
            + self.row_ends.capacity() * std::mem::size_of::<usize>()
            + self.value_row_ends.capacity() * std::mem::size_of::<i32>()
    }

    #[inline]
    fn decode_one(
        &mut self,
        value: Option<&[u8]>,
    ) -> Result<Option<OneValueRows<'_>>, NativeError> {
        if D::AT_MOST_ONE_ROW {
            Ok(self
                .decode_single_value(value)?
                .map(|image| [image, &[][..]]))
        } else {
            Ok(self
                .decode_value(value)?
                .map(|rows| [rows.header, rows.images]))
        }
    }

    fn decode_batch(
        &mut self,
        values: ValueBatch<'_>,
    ) -> Result<(RowList<'_>, &[i32]), NativeError> {
        RowListSession::decode_batch(self, values)
    }
}

/// Writes the row-list header for rows ending at `row_ends` in an image buffer of
/// `images_len` bytes: the count, then every row start and the end, shifted by the
/// header's own length so that they index the whole layout.
fn write_header(
    row_ends: &[usize],
    images_len: usize,
    header: &mut Vec<u8>,
) -> Result<(), NativeError> {
    let count = row_ends.len();
    let header_len = 4 * (count + 2);
    let total = header_len + images_len;
    let total_i32 = to_i32(total, "decoded batch size")?;
    let mut start = 0usize;
    for &end in row_ends {
        if end < start || end > images_len {
            return Err(NativeError::InvalidCall(format!(
                "the decoder reported a row ending at {end} after {start} in {images_len} bytes"
            )));
        }
        start = end;
    }
    if start != images_len {
        return Err(NativeError::InvalidCall(format!(
            "the decoder wrote {images_len} image bytes but its rows end at {start}"
        )));
    }
    header.clear();
    header.reserve(header_len);
    header.extend_from_slice(&to_i32(count, "row count")?.to_le_bytes());
    // Every offset is at most `total`, which fits an i32 (checked above).
    // Row i starts where row i - 1 ends.
    for start in std::iter::once(0)
        .chain(row_ends.iter().copied())
        .take(count)
    {
        header.extend_from_slice(&((header_len + start) as i32).to_le_bytes());
    }
    header.extend_from_slice(&total_i32.to_le_bytes());
    Ok(())
}

fn to_i32(value: usize, what: &str) -> Result<i32, NativeError> {
    i32::try_from(value).map_err(|_| {
        NativeError::InvalidCall(format!(
            "{what} {value} does not fit a Java array; decode smaller batches"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(bytes: &[u8]) -> Vec<i32> {
        bytes
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn header_offsets_index_the_whole_layout() {
        let mut header = Vec::new();
        write_header(&[8, 8, 24], 24, &mut header).unwrap();
        // count 3, header of 4 * (3 + 2) = 20 bytes, rows [20,28) [28,28) [28,44).
        assert_eq!(ints(&header), vec![3, 20, 28, 28, 44]);

        write_header(&[], 0, &mut header).unwrap();
        assert_eq!(ints(&header), vec![0, 8]);
    }

    /// A decoder that yields as many 8-byte rows as the value's first byte says.
    struct Rows;

    impl MessageRows for Rows {
        const KIND: SessionKind = SessionKind::JsonDecoder;
        const AT_MOST_ONE_ROW: bool = false;

        fn decode_message(
            &mut self,
            message: &[u8],
            out: &mut Vec<u8>,
            row_ends: &mut Vec<usize>,
        ) -> Result<(), CodecError> {
            for row in 0..message[0] {
                out.extend_from_slice(&[row; 8]);
                row_ends.push(out.len());
            }
            Ok(())
        }
    }

    #[test]
    fn a_single_row_is_returned_without_a_header() {
        let mut session = RowListSession::new(Rows);
        assert_eq!(session.decode_single(&[0]).unwrap(), None);
        assert_eq!(session.decode_single(&[1]).unwrap(), Some(&[0u8; 8][..]));
        let error = session.decode_single(&[2]).unwrap_err().to_string();
        assert!(error.contains("one row expected"), "{error}");
        // The buffers of the failed call do not leak into the next one.
        assert_eq!(session.decode_single(&[1]).unwrap(), Some(&[0u8; 8][..]));
    }

    #[test]
    fn header_rejects_inconsistent_row_ends() {
        let mut header = Vec::new();
        assert!(write_header(&[16, 8], 16, &mut header).is_err());
        assert!(write_header(&[8], 16, &mut header).is_err());
        assert!(write_header(&[32], 16, &mut header).is_err());
    }
}
