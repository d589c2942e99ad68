#!/usr/bin/env bash
# Runs a JVM job of benches/jvm against a real Kafka broker and the dev registry (sourced by
# run-demo.sh and run-source-bench.sh, which set MAIN_CLASS and WORK_NAME): builds unless
# KARROW_SKIP_BUILD=1, starts the broker (tests/services/kafka.sh, KAFKA_PORT, default 9092; a broker
# already running there is used and left running) and the dev registry (free port, or
# KARROW_REGISTRY_PORT), runs MAIN_CLASS with --bootstrap/--registry plus the caller's arguments,
# and stops what it started on exit, whatever happens.
#
# Environment: KAFKA_PORT / KAFKA_CONTROLLER_PORT (default 9092 / 9093, see tests/services/README.md),
# KARROW_REGISTRY_PORT (default: a free port). A broker that is already running on KAFKA_PORT is
# used and left running; one this script starts is stopped on exit, as is the registry.
set -euo pipefail
JOB_JVM_OPTS=("${JOB_JVM_OPTS[@]+"${JOB_JVM_OPTS[@]}"}")

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=benches/jvm-env.sh
source "$ROOT/benches/jvm-env.sh"

KAFKA_SH="$ROOT/tests/services/kafka.sh"
export KAFKA_PORT="${KAFKA_PORT:-9092}"
export KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"

if [[ "${KARROW_SKIP_BUILD:-0}" != 1 ]]; then
  build_all
fi
require_build

REGISTRY_PID=""
STARTED_KAFKA=0
WORK="$(mktemp -d "${TMPDIR:-/tmp}/${WORK_NAME}.XXXXXX")"

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ -n "$REGISTRY_PID" ]] && kill -0 "$REGISTRY_PID" 2>/dev/null; then
    kill "$REGISTRY_PID" 2>/dev/null || true
    wait "$REGISTRY_PID" 2>/dev/null || true
  fi
  if [[ "$STARTED_KAFKA" == 1 ]]; then
    "$KAFKA_SH" stop >/dev/null || true
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Kafka: reuse a running broker on this port, else start one (and own it).
if "$KAFKA_SH" status >/dev/null 2>&1; then
  echo "using the Kafka broker already running on 127.0.0.1:$KAFKA_PORT (left running)"
else
  STARTED_KAFKA=1
  "$KAFKA_SH" start
fi

# Dev schema registry on loopback.
REGISTRY_PORT="${KARROW_REGISTRY_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}"
"$KARROW_BIN" registry serve --port "$REGISTRY_PORT" >"$WORK/registry.log" 2>&1 &
REGISTRY_PID=$!
for _ in $(seq 1 100); do
  grep -q 'listening on' "$WORK/registry.log" 2>/dev/null && break
  kill -0 "$REGISTRY_PID" 2>/dev/null || { cat "$WORK/registry.log" >&2; echo "dev registry exited" >&2; exit 1; }
  sleep 0.1
done
grep -q 'listening on' "$WORK/registry.log" || { cat "$WORK/registry.log" >&2; echo "dev registry did not start" >&2; exit 1; }
echo "dev registry on http://127.0.0.1:$REGISTRY_PORT"

# A caller may add JVM flags (e.g. a larger heap) in JOB_JVM_OPTS (an array) before sourcing this file.
"$JAVA" "${KARROW_JVM_OPTS[@]}" "${JOB_JVM_OPTS[@]}" -Djava.io.tmpdir="$WORK" -cp "$KARROW_CLASSPATH" "$MAIN_CLASS" \
  --bootstrap "127.0.0.1:$KAFKA_PORT" --registry "http://127.0.0.1:$REGISTRY_PORT" "$@"
