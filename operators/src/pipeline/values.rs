//! Full fusion: a batch of Kafka values in, encoded output values (and keys) out. The values
//! are decoded only into the plan's input row (the pruned one Flink's projection push-down
//! left), the Calc keeps and projects rows, and the output rows are encoded by the sink's
//! formats. Value-only input tables: key and metadata columns of the source are not part of
//! this pipeline yet.

use karrow_codecs::avro::EncodedBatch;
use karrow_codecs::types::{FlinkField, FlinkKind};
use karrow_codecs::FlinkType;

use super::formats::{ValueDecoder, ValueEncoder};
use crate::calc::Calc;
use crate::error::PipelineError;

/// Which output columns one encoder writes (Flink's `key.fields` / `value.fields-include`).
pub struct Projection {
    /// The encoder.
    pub encoder: ValueEncoder,
    /// Output column indices, in the encoded row's field order.
    pub columns: Vec<usize>,
    row_type: FlinkType,
}

impl Projection {
    /// An encoder of `columns` of `output` (the plan's output row type).
    pub fn new(
        encoder: ValueEncoder,
        columns: Vec<usize>,
        output: &FlinkType,
    ) -> Result<Self, PipelineError> {
        let fields = output
            .row_fields()
            .map_err(|e| PipelineError::Internal(e.to_string()))?;
        let picked = columns
            .iter()
            .map(|&c| {
                fields
                    .get(c)
                    .cloned()
                    .ok_or_else(|| PipelineError::Internal(format!("no output column {c}")))
            })
            .collect::<Result<Vec<FlinkField>, _>>()?;
        Ok(Projection {
            encoder,
            columns,
            row_type: FlinkType {
                nullable: false,
                kind: FlinkKind::Row(picked),
            },
        })
    }
}

/// The encoded output of one batch.
#[derive(Debug, Default)]
pub struct EncodedOutput {
    /// One value per output row.
    pub values: EncodedBatch,
    /// One key per output row, when the sink has a key format.
    pub keys: Option<EncodedBatch>,
    /// Per output row, the index of the input value it came from (for its metadata).
    pub source: Vec<u32>,
}

/// A decode -> calc -> encode pipeline.
pub struct ValuesPipeline {
    decoder: ValueDecoder,
    calc: Calc,
    value: Projection,
    key: Option<Projection>,
}

impl ValuesPipeline {
    /// A pipeline decoding with `decoder` (built for the plan's input row type).
    pub fn new(
        decoder: ValueDecoder,
        calc: Calc,
        value: Projection,
        key: Option<Projection>,
    ) -> Self {
        ValuesPipeline {
            decoder,
            calc,
            value,
            key,
        }
    }

    /// Runs one batch of values (`None`: a null value).
    pub fn run<'a>(
        &mut self,
        values: impl IntoIterator<Item = Option<&'a [u8]>>,
    ) -> Result<EncodedOutput, PipelineError> {
        let decoded = self.decoder.decode(values, &self.calc.plan().input)?;
        let result = self
            .calc
            .run(decoded.batch.columns(), decoded.batch.num_rows())
            .map_err(|mut e| {
                // Report the failing row as the input value it came from.
                e.row = decoded
                    .value_of_row
                    .get(e.row)
                    .map_or(e.row, |v| *v as usize);
                e
            })?;
        let source = result
            .rows
            .iter()
            .map(|r| decoded.value_of_row.get(*r as usize).copied())
            .collect::<Option<Vec<u32>>>()
            .ok_or_else(|| PipelineError::Internal("output row without a source value".into()))?;
        let mut out = EncodedOutput {
            source,
            ..EncodedOutput::default()
        };
        let project = |p: &Projection| {
            result
                .batch
                .project(&p.columns)
                .map_err(|e| PipelineError::Internal(e.to_string()))
        };
        let values = project(&self.value)?;
        self.value
            .encoder
            .encode(&values, &self.value.row_type, &mut out.values)?;
        if let Some(key) = &mut self.key {
            let keys = result
                .batch
                .project(&key.columns)
                .map_err(|e| PipelineError::Internal(e.to_string()))?;
            let mut encoded = EncodedBatch::default();
            key.encoder.encode(&keys, &key.row_type, &mut encoded)?;
            out.keys = Some(encoded);
        }
        Ok(out)
    }
}
