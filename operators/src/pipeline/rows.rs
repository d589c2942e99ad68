//! Source fusion: Flink binary row images of the plan's input type in, binary row images of
//! its output type out (only the rows the filter keeps, projected).

use karrow_codecs::flink_binary::{read_batch_rows, write_batch_rows, RowImages};

use crate::calc::Calc;
use crate::error::PipelineError;

/// Runs `calc` over row images (each a whole `BinaryRowData` of the plan's input type) and
/// appends the output rows' images to `out`; returns, per output row, its input row index.
pub fn calc_rows<'a>(
    calc: &Calc,
    images: impl IntoIterator<Item = &'a [u8]>,
    out: &mut RowImages,
) -> Result<Vec<u32>, PipelineError> {
    let batch = read_batch_rows(images, &calc.plan().input)?;
    let result = calc.run(batch.columns(), batch.num_rows())?;
    write_batch_rows(&result.batch, &calc.plan().output, out)?;
    Ok(result.rows)
}
