#!/usr/bin/env bash
# Fetch cost benchmark (phase two): what does reading a record cost with Kafka's Java consumer (what
# kafka-native uses today), with librdkafka, and with Kafka's fetch protocol parsed in place? Produces
# N records of 120 random bytes (default 2,000,000, about the size of an Avro Nexmark bid) to a new
# 2-partition topic on a real broker, then reads them all, each reader in turn, with
#   java     = Kafka's Java consumer as Flink's KafkaSource configures it (FetchCostBenchmark, rounds in
#              one JVM, so later rounds are JIT-warm)
#   rdkafka  = librdkafka 2.12 through rdkafka-sys, rd_kafka_consume_batch_queue, payloads not copied
#   protocol = Fetch v12 requests on one TCP connection, record batches walked in place with their
#              CRC32C checked (no object per record)
# (the last two: benches/fetch-cost, a crate outside the workspace, built here) and prints the best
# process CPU time per record of each and the ratios to java. Nobody decodes values.
#
#   benches/run-fetch-bench.sh                       build, start the broker, run, stop it
#   benches/run-fetch-bench.sh --records 4000000 --rounds 5
#   benches/run-fetch-bench.sh --rdkafka fetch.message.max.bytes=8388608   extra librdkafka setting (repeatable)
#   KARROW_SKIP_BUILD=1 benches/run-fetch-bench.sh   reuse the current JVM build
#
# Environment: KAFKA_PORT / KAFKA_CONTROLLER_PORT (default 9092 / 9093). A broker already running on
# KAFKA_PORT is used and left running; one this script starts is stopped on exit.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=benches/jvm-env.sh
source "$ROOT/benches/jvm-env.sh"

RECORDS=2000000
ROUNDS=5
RDKAFKA_SETTINGS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --records) RECORDS="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --rdkafka) RDKAFKA_SETTINGS+=("$2"); shift 2 ;;
    *) echo "unknown option $1 (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done

KAFKA_SH="$ROOT/tests/services/kafka.sh"
export KAFKA_PORT="${KAFKA_PORT:-9092}"
export KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
BOOTSTRAP="127.0.0.1:$KAFKA_PORT"
RDKAFKA_BIN="$ROOT/target/fetch-bench/release/rdkafka-reader"
PROTOCOL_BIN="$ROOT/target/fetch-bench/release/protocol-reader"

if [[ "${KARROW_SKIP_BUILD:-0}" != 1 ]]; then
  build_all
fi
require_build
echo "building: benches/fetch-cost (bundled librdkafka; about a minute the first time)" >&2
CARGO_TARGET_DIR="$ROOT/target/fetch-bench" cargo build --release --quiet \
  --manifest-path "$ROOT/benches/fetch-cost/Cargo.toml"

STARTED_KAFKA=0
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
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

TOPIC="karrow-fetch-bench-$(date +%s)"
"$KAFKA_SH" create-topic "$TOPIC" 2 >/dev/null
echo "producing $RECORDS records of 120 bytes to $TOPIC (2 partitions)"
"$KAFKA_SH" run-class org.apache.kafka.tools.ProducerPerformance --topic "$TOPIC" \
  --num-records "$RECORDS" --record-size 120 --throughput -1 \
  --producer-props "bootstrap.servers=$BOOTSTRAP" linger.ms=20 batch.size=262144 | tail -1

RESULTS="$(mktemp)"
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round"
  "$RDKAFKA_BIN" "$BOOTSTRAP" "$TOPIC" 2 "$RECORDS" "${RDKAFKA_SETTINGS[@]}" | tee -a "$RESULTS"
  "$PROTOCOL_BIN" "$BOOTSTRAP" "$TOPIC" 2 "$RECORDS" | tee -a "$RESULTS"
done
"$JAVA" -Xmx1g -cp "$KARROW_CLASSPATH" io.karrow.bench.FetchCostBenchmark \
  "$BOOTSTRAP" "$TOPIC" 2 "$RECORDS" "$ROUNDS" | tee -a "$RESULTS"

python3 - "$RESULTS" <<'PY'
import sys
readers = ("java", "rdkafka", "protocol")
best, sums = {}, {}
for line in open(sys.argv[1]):
    parts = line.split()
    if not parts or parts[0] not in readers:
        continue
    fields = dict(p.split("=", 1) for p in parts[1:])
    cost = float(fields["cpu_us_per_record"])
    best[parts[0]] = min(best.get(parts[0], cost), cost)
    sums.setdefault(parts[0], set()).add(fields["checksum"])
if set(best) != set(readers):
    sys.exit(f"readers without a result: {set(readers) - set(best)}")
if len(set().union(*sums.values())) != 1:
    sys.exit(f"checksums differ: {sums}")
print()
print(f"{'reader':<10} {'best CPU us/record':>20} {'vs java':>9}")
for r in readers:
    print(f"{r:<10} {best[r]:>20.3f} {best[r] / best['java']:>8.2f}x")
print("(same records, same checksum everywhere)")
PY
rm -f "$RESULTS"
