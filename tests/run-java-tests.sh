#!/usr/bin/env bash
# Runs the connector's Java tests: unit and parity tests (Surefire), then the
# integration tests (Failsafe) against a real Kafka broker started here and stopped on
# exit. The native library must be built (make native).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

lib="$repo/target/release/libkarrow_native.so"
[ -f "$lib" ] || { echo "missing $lib: run 'make native' first" >&2; exit 1; }

export KAFKA_PORT="${KAFKA_PORT:-9092}"
tests/services/kafka.sh install
trap 'tests/services/kafka.sh stop || true' EXIT
tests/services/kafka.sh start

mvn -B -ntp -f connector-java/pom.xml verify \
  -Dkarrow.native.library="$lib" \
  -Dkarrow.registry.binary="$repo/target/release/karrow" \
  -Dkarrow.kafka.bootstrap="127.0.0.1:${KAFKA_PORT}"
