#!/usr/bin/env bash
# Produce cost benchmark (issue #20, "measure first"): what does writing a record cost with Kafka's
# Java producer as Flink's KafkaSink drives it, and with v2 record batches written natively from
# encoded buffers? Writes N pre-encoded values (default 500,000 Avro-bid-shaped values of ~106 bytes,
# generated once) to a fresh 2-partition topic per run, with
#   java    = Kafka's Java producer (ProduceCostBenchmark: one ProducerRecord + callback per record,
#             flush at every checkpoint, rounds in one JVM so later rounds are JIT-warm)
#   native  = benches/produce-cost's protocol-writer: karrow-kafka's batch writer, pipelined Produce
#             requests on one connection, one process per run
# for each mode (acks-all: idempotence off; idempotent: Kafka's default; transactional: Flink's
# exactly-once, a transaction per checkpoint) x codec (none, lz4, zstd by default), reads every topic
# back (read_committed: same count and checksum) and prints the process CPU time per record of each:
# the best and the median of the rounds, their spread, and native / java.
#
#   benches/run-produce-bench.sh                          build, start the broker, run, stop it
#   benches/run-produce-bench.sh --records 1000000 --rounds 5
#   benches/run-produce-bench.sh --configs "idempotent:none transactional:zstd"
#   KARROW_SKIP_BUILD=1 benches/run-produce-bench.sh      reuse the current JVM build
#
# Environment: KAFKA_PORT / KAFKA_CONTROLLER_PORT (default 9092 / 9093). A broker already running on
# KAFKA_PORT is used and left running; one this script starts is stopped on exit.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=benches/jvm-env.sh
source "$ROOT/benches/jvm-env.sh"

RECORDS=500000
ROUNDS=3
CONFIGS="acks-all:none acks-all:lz4 acks-all:zstd idempotent:none idempotent:lz4 idempotent:zstd transactional:none transactional:lz4 transactional:zstd"
CHECKPOINT_RECORDS=100000
while [[ $# -gt 0 ]]; do
  case "$1" in
    --records) RECORDS="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --configs) CONFIGS="$2"; shift 2 ;;
    --checkpoint-records) CHECKPOINT_RECORDS="$2"; shift 2 ;;
    *) echo "unknown option $1 (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done

KAFKA_SH="$ROOT/tests/services/kafka.sh"
export KAFKA_PORT="${KAFKA_PORT:-9092}"
export KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
BOOTSTRAP="127.0.0.1:$KAFKA_PORT"
WRITER_BIN="$ROOT/target/produce-bench/release/protocol-writer"

if [[ "${KARROW_SKIP_BUILD:-0}" != 1 ]]; then
  build_all
fi
require_build
echo "building: benches/produce-cost" >&2
CARGO_TARGET_DIR="$ROOT/target/produce-bench" cargo build --release --quiet \
  --manifest-path "$ROOT/benches/produce-cost/Cargo.toml"

STARTED_KAFKA=0
VALUES="$(mktemp --suffix=.values)"
RESULTS="$(mktemp)"
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  rm -f "$VALUES" "$RESULTS"
  if [[ "$STARTED_KAFKA" == 1 ]]; then
    "$KAFKA_SH" stop >/dev/null || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if "$KAFKA_SH" status >/dev/null 2>&1; then
  echo "using the Kafka broker already running on $BOOTSTRAP (left running)"
else
  STARTED_KAFKA=1
  "$KAFKA_SH" start
fi

"$WRITER_BIN" gen-values "$VALUES" "$RECORDS"
echo "writing $RECORDS values ($(stat -c %s "$VALUES") bytes with their lengths), $ROUNDS rounds: $CONFIGS"
# shellcheck disable=SC2086
"$JAVA" -Xmx2g -Dkarrow.checkpoint.records="$CHECKPOINT_RECORDS" -cp "$KARROW_CLASSPATH" \
  io.karrow.bench.ProduceCostBenchmark "$BOOTSTRAP" 2 "$VALUES" "$ROUNDS" "$WRITER_BIN" $CONFIGS \
  | tee "$RESULTS"

python3 - "$RESULTS" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if not parts or parts[0] not in ("java", "native"):
        continue
    f = dict(p.split("=", 1) for p in parts[1:])
    runs.setdefault((f["mode"], f["codec"], parts[0]), []).append(float(f["cpu_us_per_record"]))
configs = sorted({(m, c) for m, c, _ in runs}, key=lambda k: (k[0], ["none", "gzip", "snappy", "lz4", "zstd"].index(k[1])))
print()
print(f"{'mode':<14} {'codec':<6} {'java best/median (spread)':>30} {'native best/median (spread)':>30} {'native/java':>12}")
for m, c in configs:
    cells = []
    for w in ("java", "native"):
        xs = runs.get((m, c, w), [])
        if not xs:
            cells.append("-")
            continue
        spread = (max(xs) - min(xs)) / min(xs) * 100 if min(xs) > 0 else 0
        cells.append(f"{min(xs):.3f} / {statistics.median(xs):.3f} ({spread:.0f}%)")
    j, n = runs.get((m, c, "java")), runs.get((m, c, "native"))
    ratio = f"{statistics.median(n) / statistics.median(j):.2f}x" if j and n else "-"
    print(f"{m:<14} {c:<6} {cells[0]:>30} {cells[1]:>30} {ratio:>12}")
print("(process CPU us per record; spread = (max - min) / min over the rounds; ratio of medians)")
PY
