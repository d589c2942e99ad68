//! A validated plan run on Arrow batches: the filter over every row, then the projections
//! over the rows it keeps (Flink's Calc evaluates the projections of passing rows only).

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions};
use arrow_schema::{Schema, SchemaRef};
use karrow_codecs::types::row_arrow_fields;

use crate::error::{EvalError, PipelineError, RowError};
use crate::expr::eval_strict;
use crate::plan::RunnablePlan;

/// A runnable Calc: the plan and its output schema.
#[derive(Debug)]
pub struct Calc {
    plan: RunnablePlan,
    output: SchemaRef,
    /// The input columns the projections read (sorted).
    projected: Vec<usize>,
}

/// The rows a Calc kept and their projected values.
#[derive(Debug)]
pub struct CalcOutput {
    /// The output batch (columns of the output row type).
    pub batch: RecordBatch,
    /// For each output row, its row index in the input batch.
    pub rows: Vec<u32>,
    /// The watermark rows of the input rows the filter dropped, when the plan asks for them
    /// (`watermark_columns`); `None` when it does not or nothing was dropped.
    pub watermark: Option<WatermarkRows>,
}

/// One row per input row the filter dropped, for the source's watermark generator, which in
/// Flink sees every row the scan produces, also those its Calc then drops: the output row
/// type with only the watermark columns set (each the input column it projects unchanged),
/// every other column NULL (the columns of `batch` are all nullable).
#[derive(Debug)]
pub struct WatermarkRows {
    /// The rows (one column per output column).
    pub batch: RecordBatch,
    /// For each row, its row index in the input batch (ascending).
    pub rows: Vec<u32>,
}

impl Calc {
    /// A Calc for a validated plan.
    pub fn new(plan: RunnablePlan) -> Result<Self, PipelineError> {
        let fields = plan
            .output
            .row_fields()
            .map_err(|e| PipelineError::Internal(e.to_string()))?;
        let output = Arc::new(Schema::new(row_arrow_fields(fields)));
        let mut projected = Vec::new();
        for p in &plan.projections {
            p.collect_columns(&mut projected);
        }
        projected.sort_unstable();
        projected.dedup();
        Ok(Calc {
            plan,
            output,
            projected,
        })
    }

    /// The plan.
    pub fn plan(&self) -> &RunnablePlan {
        &self.plan
    }

    /// The Arrow schema of the output batches.
    pub fn output_schema(&self) -> SchemaRef {
        self.output.clone()
    }

    /// Runs the filter and projections over `columns` (the input row's columns, each of
    /// `rows` values; columns the plan does not read may be placeholders of any type).
    pub fn run(&self, columns: &[ArrayRef], rows: usize) -> Result<CalcOutput, RowError> {
        let session = &self.plan.session;
        let mut watermark = None;
        let (kept, selected): (Vec<ArrayRef>, Vec<u32>) = match &self.plan.filter {
            None => (columns.to_vec(), (0..rows as u32).collect()),
            Some(filter) => {
                let mask = eval_strict(filter, columns, rows, session)?;
                let mask = mask
                    .as_any()
                    .downcast_ref::<BooleanArray>()
                    .ok_or_else(|| internal_row("the filter is not BOOLEAN"))?;
                // TRUE keeps a row; FALSE and NULL drop it.
                let keep = match mask.nulls() {
                    None => BooleanArray::new(mask.values().clone(), None),
                    Some(valid) => BooleanArray::new(mask.values() & valid.inner(), None),
                };
                let selected: Vec<u32> = keep.values().set_indices().map(|i| i as u32).collect();
                if selected.len() < rows && !self.plan.watermark_columns.is_empty() {
                    watermark = Some(self.watermark_rows(columns, &keep)?);
                }
                let kept = if selected.len() == rows {
                    columns.to_vec()
                } else {
                    let predicate = arrow_select::filter::FilterBuilder::new(&keep)
                        .optimize()
                        .build();
                    // Only the columns the projections read are filtered; the others become
                    // NULL placeholders of the kept length.
                    let n = selected.len();
                    columns
                        .iter()
                        .enumerate()
                        .map(|(i, c)| {
                            if self.projected.binary_search(&i).is_ok() {
                                predicate.filter(c.as_ref())
                            } else {
                                Ok(arrow_array::new_null_array(
                                    &arrow_schema::DataType::Null,
                                    n,
                                ))
                            }
                        })
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| internal_row(&e.to_string()))?
                };
                (kept, selected)
            }
        };
        let n = selected.len();
        let ctx_rows = n;
        let mut out = Vec::with_capacity(self.plan.projections.len());
        for p in &self.plan.projections {
            let array = eval_strict(p, &kept, ctx_rows, session).map_err(|e| RowError {
                row: selected.get(e.row).map_or(e.row, |r| *r as usize),
                error: e.error,
            })?;
            out.push(array);
        }
        let batch = RecordBatch::try_new_with_options(
            self.output.clone(),
            out,
            &RecordBatchOptions::new().with_row_count(Some(n)),
        )
        .map_err(|e| internal_row(&e.to_string()))?;
        Ok(CalcOutput {
            batch,
            rows: selected,
            watermark,
        })
    }

    /// The watermark rows of the rows `keep` does not keep (see [`WatermarkRows`]).
    fn watermark_rows(
        &self,
        columns: &[ArrayRef],
        keep: &BooleanArray,
    ) -> Result<WatermarkRows, RowError> {
        let dropped = BooleanArray::new(!keep.values(), None);
        let rows: Vec<u32> = dropped.values().set_indices().map(|i| i as u32).collect();
        let predicate = arrow_select::filter::FilterBuilder::new(&dropped)
            .optimize()
            .build();
        let n = rows.len();
        let mut out = Vec::with_capacity(self.output.fields().len());
        let mut fields = Vec::with_capacity(self.output.fields().len());
        for (o, field) in self.output.fields().iter().enumerate() {
            let array = match self
                .plan
                .watermark_columns
                .iter()
                .find(|&&(column, _)| column == o)
            {
                Some(&(_, input)) => {
                    let column = columns
                        .get(input)
                        .ok_or_else(|| internal_row("a watermark column is not in the input"))?;
                    predicate
                        .filter(column.as_ref())
                        .map_err(|e| internal_row(&e.to_string()))?
                }
                None => arrow_array::new_null_array(field.data_type(), n),
            };
            fields.push(arrow_schema::Field::new(
                field.name(),
                array.data_type().clone(),
                true,
            ));
            out.push(array);
        }
        let batch = RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            out,
            &RecordBatchOptions::new().with_row_count(Some(n)),
        )
        .map_err(|e| internal_row(&e.to_string()))?;
        Ok(WatermarkRows { batch, rows })
    }
}

fn internal_row(message: &str) -> RowError {
    RowError {
        row: 0,
        error: EvalError::Invalid(format!("internal error: {message}")),
    }
}
