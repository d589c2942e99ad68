//! The native side's view of the verification sample: its rows through both decode paths
//! and its encoded messages through both encode paths, as text to compare.

use karrow_codecs::flink_binary::read_batch_rows;

use super::format::{Encoded, Format, Rows};
use super::messages::Messages;
use super::{render, verify, BenchError};

/// The sample rendered for comparison.
pub struct NativeSample {
    /// Messages in the sample (the first ones of the corpus).
    pub len: usize,
    /// Rows decoded into Flink binary rows.
    pub binary_rows: Vec<String>,
    /// Rows decoded into Arrow.
    pub arrow_rows: Vec<String>,
    /// Messages encoded from the Arrow rows (hex lines).
    pub encoded_from_arrow: Vec<String>,
    /// Messages encoded from the binary rows (hex lines).
    pub encoded_from_binary: Vec<String>,
}

/// Decodes and re-encodes the first `verify` messages (all when 0) through every path.
pub fn take(
    format: &dyn Format,
    corpus: &Messages,
    verify: usize,
) -> Result<NativeSample, BenchError> {
    let len = if verify == 0 {
        corpus.len()
    } else {
        verify.min(corpus.len())
    };
    let sample: Vec<Option<&[u8]>> = corpus[..len].iter().map(|m| m.as_deref()).collect();
    let mut session = format.session()?;
    let mut rows = Rows::default();
    session.decode_binary(&sample, &mut rows)?;
    let from_images = read_batch_rows(rows.images(), format.row_type())?;
    let binary_rows =
        render::render_messages(&from_images, rows.per_message().map(|r| r.is_some()));
    let batch = session.decode_arrow(&sample)?;
    let arrow_rows = render::render_messages(&batch, sample.iter().map(|m| m.is_some()));
    let mut encoded = Encoded::default();
    session.encode_arrow(&batch, &mut encoded)?;
    let encoded_from_arrow = verify::hex_lines(encoded.messages());
    encoded.clear();
    session.encode_binary(&rows, &mut encoded)?;
    let encoded_from_binary = verify::hex_lines(encoded.messages());
    Ok(NativeSample {
        len,
        binary_rows,
        arrow_rows,
        encoded_from_arrow,
        encoded_from_binary,
    })
}
