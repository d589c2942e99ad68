//! Timing: the corpus split into batches and shared out to `--threads` threads (each with its
//! own codec session), warm-up passes, then `--trials` timed trials of `reps` passes over the
//! corpus each, `reps` chosen so a trial lasts at least `--min-trial-ms`. Then one untimed
//! single-threaded pass with the counting allocator on, and the peak RSS of the operation.

use std::hint::black_box;
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;

use super::alloc;
use super::error::BenchError;
use super::format::{Encoded, Format, Rows, Session};
use super::memory;
use super::progress::Progress;

/// The operations measured natively.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Messages -> Flink binary row images (what the Flink format runs).
    DecodeBinary,
    /// Messages -> Arrow batch.
    DecodeArrow,
    /// Arrow batch -> messages.
    EncodeArrow,
    /// Flink binary row images -> Arrow -> messages (what the Flink sink runs).
    EncodeBinary,
}

impl Op {
    /// All operations, in report order.
    pub const ALL: [Op; 4] = [
        Op::DecodeBinary,
        Op::DecodeArrow,
        Op::EncodeBinary,
        Op::EncodeArrow,
    ];

    /// Stable name used in the table, JSON and report.
    pub fn name(self) -> &'static str {
        match self {
            Op::DecodeBinary => "decode to Flink rows",
            Op::DecodeArrow => "decode to Arrow",
            Op::EncodeArrow => "encode from Arrow",
            Op::EncodeBinary => "encode from Flink rows",
        }
    }

    /// Machine name for JSON.
    pub fn id(self) -> &'static str {
        match self {
            Op::DecodeBinary => "decode_binary",
            Op::DecodeArrow => "decode_arrow",
            Op::EncodeArrow => "encode_arrow",
            Op::EncodeBinary => "encode_binary",
        }
    }

    /// Whether the stock counterpart is the decoder (else the encoder).
    pub fn is_decode(self) -> bool {
        matches!(self, Op::DecodeBinary | Op::DecodeArrow)
    }
}

/// How to measure.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Threads, each with its own session over its share of the batches.
    pub threads: usize,
    /// Untimed passes before the trials (at least one, which also calibrates `reps`).
    pub warmup: usize,
    /// Timed trials.
    pub trials: usize,
    /// Minimum duration of one trial.
    pub min_trial: Duration,
}

/// The figures of one operation.
#[derive(Debug, Clone)]
pub struct Figures {
    /// Records (messages, or rows for encode) in one pass over the corpus.
    pub records: u64,
    /// Bytes (message bytes in for decode, out for encode) in one pass.
    pub bytes: u64,
    /// Passes per trial.
    pub reps: u64,
    /// Wall time of each trial.
    pub trial_ns: Vec<u64>,
    /// Allocations per record (single-threaded pass), when measured.
    pub allocs_per_record: Option<f64>,
    /// Bytes allocated per record, when measured.
    pub alloc_bytes_per_record: Option<f64>,
    /// Peak RSS of the process during the operation, KiB.
    pub peak_rss_kib: Option<u64>,
}

impl Figures {
    /// (median, min, max) trial time in ns.
    pub fn spread(&self) -> (u64, u64, u64) {
        let mut t = self.trial_ns.clone();
        t.sort_unstable();
        let median = if t.is_empty() {
            0
        } else if t.len() % 2 == 1 {
            t[t.len() / 2]
        } else {
            (t[t.len() / 2 - 1] + t[t.len() / 2]) / 2
        };
        (
            median,
            t.first().copied().unwrap_or(0),
            t.last().copied().unwrap_or(0),
        )
    }

    fn per_trial(&self) -> f64 {
        (self.records * self.reps) as f64
    }

    /// Records per second at trial time `ns`.
    pub fn records_per_s(&self, ns: u64) -> f64 {
        self.per_trial() / (ns.max(1) as f64 / 1e9)
    }

    /// MB (10^6 bytes) per second at trial time `ns`.
    pub fn mb_per_s(&self, ns: u64) -> f64 {
        (self.bytes * self.reps) as f64 / 1e6 / (ns.max(1) as f64 / 1e9)
    }

    /// Nanoseconds per record at trial time `ns` (wall time, all threads).
    pub fn ns_per_record(&self, ns: u64) -> f64 {
        ns as f64 / self.per_trial().max(1.0)
    }
}

/// One batch of the corpus with everything each operation needs as input.
#[derive(Debug)]
pub struct Batch<'a> {
    /// The messages (`None` = null value).
    pub messages: Vec<Option<&'a [u8]>>,
    /// Their Arrow rows.
    pub arrow: RecordBatch,
    /// Their Flink binary row images.
    pub rows: Rows,
    /// Bytes of the messages.
    pub message_bytes: u64,
}

/// Splits the corpus into batches and decodes each once both ways (which also finds a
/// message that does not decode, with its index in the corpus).
pub fn prepare<'a>(
    format: &dyn Format,
    messages: &'a [Option<Vec<u8>>],
    batch_size: usize,
) -> Result<Vec<Batch<'a>>, BenchError> {
    let mut session = format.session()?;
    let mut out = Vec::new();
    for (n, chunk) in messages.chunks(batch_size.max(1)).enumerate() {
        let start = n * batch_size.max(1);
        let at = |e: BenchError| match e {
            BenchError::Decode { index, message } => BenchError::Decode {
                index: start + index,
                message,
            },
            other => other,
        };
        let view: Vec<Option<&[u8]>> = chunk.iter().map(|m| m.as_deref()).collect();
        let mut rows = Rows::default();
        session.decode_binary(&view, &mut rows).map_err(at)?;
        let arrow = session.decode_arrow(&view).map_err(at)?;
        out.push(Batch {
            message_bytes: view.iter().flatten().map(|m| m.len() as u64).sum(),
            messages: view,
            arrow,
            rows,
        });
    }
    Ok(out)
}

#[derive(Default)]
struct Scratch {
    rows: Rows,
    encoded: Encoded,
}

fn pass(
    op: Op,
    session: &mut dyn Session,
    batches: &[Batch<'_>],
    scratch: &mut Scratch,
) -> Result<u64, BenchError> {
    let mut bytes = 0u64;
    for b in batches {
        match op {
            Op::DecodeBinary => {
                session.decode_binary(&b.messages, &mut scratch.rows)?;
                black_box(&scratch.rows);
                bytes += b.message_bytes;
            }
            Op::DecodeArrow => {
                black_box(session.decode_arrow(&b.messages)?);
                bytes += b.message_bytes;
            }
            Op::EncodeArrow | Op::EncodeBinary => {
                scratch.encoded.clear();
                if op == Op::EncodeArrow {
                    session.encode_arrow(&b.arrow, &mut scratch.encoded)?;
                } else {
                    session.encode_binary(&b.rows, &mut scratch.encoded)?;
                }
                bytes += scratch.encoded.bytes.len() as u64;
                black_box(&scratch.encoded);
            }
        }
    }
    Ok(bytes)
}

struct Worker<'s, 'a> {
    session: Box<dyn Session>,
    batches: &'s [Batch<'a>],
    scratch: Scratch,
}

/// One trial: `reps` passes on every worker; returns the wall time.
fn trial(op: Op, workers: &mut [Worker<'_, '_>], reps: u64) -> Result<Duration, BenchError> {
    let run = |w: &mut Worker<'_, '_>| -> Result<(Instant, Instant), BenchError> {
        let start = Instant::now();
        for _ in 0..reps {
            pass(op, w.session.as_mut(), w.batches, &mut w.scratch)?;
        }
        Ok((start, Instant::now()))
    };
    let spans: Vec<(Instant, Instant)> = if workers.len() == 1 {
        vec![run(&mut workers[0])?]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = workers
                .iter_mut()
                .map(|w| s.spawn(move || run(w)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(BenchError::Usage("a benchmark thread panicked".into()))
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        })?
    };
    let first = spans.iter().map(|s| s.0).min();
    let last = spans.iter().map(|s| s.1).max();
    Ok(match (first, last) {
        (Some(a), Some(b)) => b.duration_since(a),
        _ => Duration::ZERO,
    })
}

/// Measures `op` over `batches`.
pub fn measure(
    format: &dyn Format,
    op: Op,
    batches: &[Batch<'_>],
    plan: &Plan,
    progress: &Progress,
) -> Result<Figures, BenchError> {
    let rss_reset = memory::reset_peak();
    let threads = plan.threads.clamp(1, batches.len().max(1));
    let per = batches.len().div_ceil(threads).max(1);
    let mut workers = batches
        .chunks(per)
        .map(|share| {
            Ok(Worker {
                session: format.session()?,
                batches: share,
                scratch: Scratch::default(),
            })
        })
        .collect::<Result<Vec<_>, BenchError>>()?;
    let records: u64 = batches
        .iter()
        .map(|b| if op.is_decode() { b.messages.len() } else { b.arrow.num_rows() } as u64)
        .sum();

    // Calibrate with the first warm-up pass.
    progress.update(&format!("native {}: warming up", op.name()));
    let once = trial(op, &mut workers, 1)?;
    let reps = (plan.min_trial.as_nanos() / once.as_nanos().max(1) + 1).min(1_000_000) as u64;
    for w in 1..plan.warmup {
        progress.update(&format!(
            "native {}: warm-up {}/{}",
            op.name(),
            w + 1,
            plan.warmup
        ));
        trial(op, &mut workers, reps)?;
    }
    let mut trial_ns = Vec::with_capacity(plan.trials);
    for t in 0..plan.trials {
        progress.update(&format!(
            "native {}: trial {}/{} ({} passes)",
            op.name(),
            t + 1,
            plan.trials,
            reps
        ));
        trial_ns.push(trial(op, &mut workers, reps)?.as_nanos() as u64);
    }

    // One untimed pass on one thread with the counting allocator.
    let mut session = format.session()?;
    let mut scratch = Scratch::default();
    pass(op, session.as_mut(), batches, &mut scratch)?; // grow the scratch buffers first
    let (bytes, allocs, alloc_bytes) =
        alloc::counted(|| pass(op, session.as_mut(), batches, &mut scratch));
    let bytes = bytes?;
    // Without a reset (old kernel) this is the peak of the whole process so far.
    let _ = rss_reset;
    let peak = memory::peak_rss_kib();
    Ok(Figures {
        records,
        bytes,
        reps,
        trial_ns,
        allocs_per_record: Some(allocs as f64 / records.max(1) as f64),
        alloc_bytes_per_record: Some(alloc_bytes as f64 / records.max(1) as f64),
        peak_rss_kib: peak,
    })
}
