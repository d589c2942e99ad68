#!/usr/bin/env bash
# The Nexmark suite over Kafka, stock Flink against karrow (benches/nexmark/README.md):
#
#   benches/nexmark/run.sh                  the full suite (make nexmark): every query, JSON, Avro and
#                                           Protobuf, 1,000,000 events, 1 warm-up + 3 rounds
#   benches/nexmark/run.sh --short          the CI variant (make nexmark-short): a handful of queries,
#                                           small event count, one round, correctness only
#   benches/nexmark/run.sh --events 200000 --formats json --queries q0,q5 ...
#                                           NexmarkSuite options (see the README)
#
# Builds first unless KARROW_SKIP_BUILD=1; starts the Kafka broker (KAFKA_PORT / KAFKA_CONTROLLER_PORT,
# default 9092 / 9093; one already running there is used and left running) and the dev registry, and
# stops what it started. The report goes to benches/nexmark/target/report (results.json, index.html)
# unless --out is given.
MAIN_CLASS=io.karrow.bench.nexmark.NexmarkSuite
WORK_NAME=karrow-nexmark
ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
JOB_JVM_OPTS=(-Xmx4g -XX:+UseParallelGC)
ARGS=(--sql "$ROOT_DIR/benches/nexmark/sql")
SHORT=0
OUT_GIVEN=0
for a in "$@"; do
  [[ "$a" == --short ]] && SHORT=1
  [[ "$a" == --out ]] && OUT_GIVEN=1
done
if [[ "$SHORT" == 1 ]]; then
  ARGS+=(--events 10000 --formats json,avro,protobuf --queries q0,q4,q13 --warmup 0 --rounds 1 --check-only)
  JOB_JVM_OPTS=(-Xmx1g -XX:+UseParallelGC)
fi
[[ "$OUT_GIVEN" == 1 ]] || ARGS+=(--out "$ROOT_DIR/benches/nexmark/target/report$([[ "$SHORT" == 1 ]] && echo -short)")
PASS=()
for a in "$@"; do
  [[ "$a" == --short ]] || PASS+=("$a")
done
set -- "${ARGS[@]}" "${PASS[@]+"${PASS[@]}"}"
source "$ROOT_DIR/benches/run-kafka-job.sh"
