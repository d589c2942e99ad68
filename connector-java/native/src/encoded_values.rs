//! Kafka values encoded from a batch of row images, laid out back to back with
//! `count + 1` offsets, as every format's batch encode call returns them.

use karrow_codecs::CodecError;

use crate::error::NativeError;

/// Encodes each image with `encode` into `out` (cleared first) and records the value
/// boundaries in `offsets` (value `i` spans `[offsets[i], offsets[i+1])`). A failing row
/// fails the batch with its index as the record index.
pub fn encode_all<'a>(
    images: impl IntoIterator<Item = &'a [u8]>,
    out: &mut Vec<u8>,
    offsets: &mut Vec<i32>,
    mut encode: impl FnMut(&[u8], &mut Vec<u8>) -> Result<(), CodecError>,
) -> Result<(), NativeError> {
    out.clear();
    offsets.clear();
    offsets.push(0);
    for (index, image) in images.into_iter().enumerate() {
        encode(image, out).map_err(|e| NativeError::at_record(e, index))?;
        let end = i32::try_from(out.len()).map_err(|_| {
            NativeError::InvalidCall(format!(
                "encoded batch exceeds 2 GiB at row {index}; encode smaller batches"
            ))
        })?;
        offsets.push(end);
    }
    Ok(())
}
