//! Source fusion: Flink binary row images of the plan's input type in, binary row images of
//! its output type out (only the rows the filter keeps, projected; plus, when the plan asks
//! for them, one watermark row per dropped row, in input order).

use karrow_codecs::flink_binary::{read_batch_rows, write_batch_rows, RowImages};

use crate::calc::Calc;
use crate::error::PipelineError;

/// The row kind byte of a watermark row's image: `RowKind.DELETE` (a fused scan's rows are
/// otherwise all INSERT; the operator in the Calc's place drops these after the source's
/// watermark generator saw them).
pub const WATERMARK_ROW_KIND: u8 = 3;

/// Runs `calc` over row images (each a whole `BinaryRowData` of the plan's input type) and
/// appends the output rows' images to `out`; returns, per output row, its input row index
/// (ascending). The plan's watermark rows are output rows too, interleaved in input order.
pub fn calc_rows<'a>(
    calc: &Calc,
    images: impl IntoIterator<Item = &'a [u8]>,
    out: &mut RowImages,
) -> Result<Vec<u32>, PipelineError> {
    let batch = read_batch_rows(images, &calc.plan().input)?;
    let result = calc.run(batch.columns(), batch.num_rows())?;
    let Some(watermark) = result.watermark else {
        write_batch_rows(&result.batch, &calc.plan().output, out)?;
        return Ok(result.rows);
    };
    let mut kept = RowImages::default();
    write_batch_rows(&result.batch, &calc.plan().output, &mut kept)?;
    let mut marks = RowImages::default();
    write_batch_rows(&watermark.batch, &calc.plan().output, &mut marks)?;
    let image = |images: &RowImages, i: usize| -> Result<std::ops::Range<usize>, PipelineError> {
        match (images.offsets.get(i), images.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) if a >= 0 && a <= b && b as usize <= images.bytes.len() => {
                Ok(a as usize..b as usize)
            }
            _ => Err(PipelineError::Internal(
                "row image offsets out of range".into(),
            )),
        }
    };
    let offset = |n: usize| {
        i32::try_from(n).map_err(|_| PipelineError::Internal("row images exceed 2 GiB".into()))
    };
    if out.offsets.is_empty() {
        out.offsets.push(offset(out.bytes.len())?);
    }
    let total = result.rows.len() + watermark.rows.len();
    let mut rows = Vec::with_capacity(total);
    let (mut k, mut m) = (0, 0);
    while k + m < total {
        let take_kept = match (result.rows.get(k), watermark.rows.get(m)) {
            (Some(a), Some(b)) => a < b,
            (Some(_), None) => true,
            _ => false,
        };
        if take_kept {
            let span = image(&kept, k)?;
            out.bytes.extend_from_slice(&kept.bytes[span]);
            rows.push(result.rows[k]);
            k += 1;
        } else {
            let span = image(&marks, m)?;
            let start = out.bytes.len();
            out.bytes.extend_from_slice(&marks.bytes[span]);
            if let Some(header) = out.bytes.get_mut(start) {
                *header = WATERMARK_ROW_KIND;
            }
            rows.push(watermark.rows[m]);
            m += 1;
        }
        out.offsets.push(offset(out.bytes.len())?);
    }
    Ok(rows)
}
