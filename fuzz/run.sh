#!/usr/bin/env bash
# Builds and runs karrow's libFuzzer targets on the stable toolchain.
#   fuzz/run.sh build                   instrumented release build of every target
#   fuzz/run.sh short [TARGET...]       FUZZ_SECONDS (default 10) per target, from the seeds
#   fuzz/run.sh long [TARGET...]        FUZZ_RUNS (default 10,000,000) executions per target
#   fuzz/run.sh repro TARGET FILE...    runs the inputs once (a crash artifact, a seed)
# Corpora grow in fuzz/corpus/<target> (not committed); crashes land in fuzz/artifacts/<target>.
# Each run ends with one summary line per target: executions, coverage (edges), features,
# corpus size, and the outcome. Exit status 1 when any target found a crash.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

# rustc's SanitizerCoverage pass feeds libFuzzer (the flags cargo-fuzz passes, minus the
# sanitizers, which need a nightly toolchain): edge counters, the PC table for coverage
# reports, comparison tracing (so the fuzzer learns magic bytes and lengths) and stack-depth
# tracking (so deep recursion counts as new coverage).
export RUSTFLAGS="${RUSTFLAGS:-} --cfg fuzzing -Cpasses=sancov-module \
 -Cllvm-args=-sanitizer-coverage-level=4 \
 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
 -Cllvm-args=-sanitizer-coverage-pc-table \
 -Cllvm-args=-sanitizer-coverage-trace-compares \
 -Cllvm-args=-sanitizer-coverage-stack-depth"
export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$here/target}"
# An explicit --target keeps the flags off build scripts and proc macros (which have no
# libFuzzer to link against).
host="$(rustc -vV | sed -n 's/^host: //p')"
bin="$CARGO_TARGET_DIR/$host/release"

TARGETS=(
  avro_decode avro_writer_schema avro_schema avro_roundtrip
  json_decode json_confluent_decode
  protobuf_decode protobuf_confluent_decode protobuf_descriptor_set proto_text protobuf_registry_schema
  kafka_fetch_response kafka_record_batches kafka_decompress kafka_response_frame kafka_producer_responses kafka_sasl
  registry_request
)

build() { # not --locked: fuzz/Cargo.lock follows the path crates' dependencies as they change
  cargo build --release --bins --target "$host"
}

seed() { # each target writes its own seeds (see write_seeds_if_asked in src/lib.rs)
  for t in "${SELECTED[@]}"; do
    KARROW_FUZZ_SEEDS="$here/corpus/$t" "$bin/$t" >/dev/null 2>&1
  done
}

# Common libFuzzer flags: a value may take at most 1 GiB (a limit far above what a message of
# at most 64 KiB may legitimately need), 20 s per input.
FLAGS=(-max_len=65536 -malloc_limit_mb=1024 -rss_limit_mb=2048 -timeout=20 -print_final_stats=1)

run_one() { # target, extra libFuzzer flags...
  local t="$1"; shift
  mkdir -p "corpus/$t" "artifacts/$t" logs
  local log="logs/$t.log" status=ok
  "$bin/$t" "${FLAGS[@]}" -artifact_prefix="artifacts/$t/" "$@" "corpus/$t" >"$log" 2>&1 || status=CRASH
  local done_line runs cov ft corp
  done_line="$(grep -E '^#[0-9]+' "$log" | tail -1 || true)"
  runs="$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')"
  cov="$(grep -oE 'cov: [0-9]+' <<<"$done_line" | grep -oE '[0-9]+' || echo '?')"
  ft="$(grep -oE 'ft: [0-9]+' <<<"$done_line" | grep -oE '[0-9]+' || echo '?')"
  corp="$(grep -oE 'corp: [0-9]+' <<<"$done_line" | grep -oE '[0-9]+' || echo '?')"
  printf '%-28s execs %-10s cov %-6s ft %-6s corpus %-6s %s\n' "$t" "$runs" "$cov" "$ft" "$corp" "$status" | tee -a logs/summary.txt
  [[ $status == ok ]]
}

run_all() { # extra flags...; targets from SELECTED
  : >logs/summary.txt
  local failed=0
  for t in "${SELECTED[@]}"; do
    run_one "$t" "$@" || failed=1
  done
  return $failed
}

cmd="${1:-short}"; shift || true
SELECTED=("$@")
[[ ${#SELECTED[@]} -gt 0 ]] || SELECTED=("${TARGETS[@]}")
mkdir -p logs
case "$cmd" in
  build) build ;;
  short) build; seed; run_all -max_total_time="${FUZZ_SECONDS:-10}" ;;
  long) build; seed; run_all -runs="${FUZZ_RUNS:-10000000}" ;;
  repro) t="${SELECTED[0]}"; build; "$bin/$t" "${FLAGS[@]}" "${SELECTED[@]:1}" ;;
  *) echo "usage: $0 build|short|long|repro [TARGET...]" >&2; exit 2 ;;
esac
