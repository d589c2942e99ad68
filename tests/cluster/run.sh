#!/usr/bin/env bash
# Issue #23's cluster tests: a standalone Flink 2.2 cluster (tests/services/flink-cluster.sh:
# JobManager, two TaskManagers, SQL Gateway, each its own JVM) with karrow's sql bundle in lib/,
# against a real broker, jobs submitted through bin/sql-client.sh -f and the SQL Gateway's REST
# API (tests/cluster/cluster_test.py says what each case proves). Needs `make jar`.
# `run.sh` runs cases (a)-(c) (in make test); `run.sh --long` adds (e) (make test-cluster).
#
# Uses the broker on KAFKA_PORT if one is running there (tests/run-java-tests.sh has one), else
# starts its own and stops it on exit; starts the cluster and stops it on exit.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"

export KAFKA_PORT="${KAFKA_PORT:-35092}"
export KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"

own_kafka=0
if ! tests/services/kafka.sh status >/dev/null 2>&1; then
  own_kafka=1
fi
cleanup() {
  tests/services/flink-cluster.sh stop || true
  if [[ $own_kafka == 1 ]]; then tests/services/kafka.sh stop || true; fi
}
trap cleanup EXIT
if [[ $own_kafka == 1 ]]; then tests/services/kafka.sh start; fi
tests/services/flink-cluster.sh start

if ! python3 tests/cluster/cluster_test.py "$@"; then
  home=$(tests/services/flink-cluster.sh home)
  echo "--- cluster logs (tails) ---" >&2
  for f in "$(dirname "$home")"/cluster-"${FLINK_REST_PORT:-35100}"/log/*.log; do
    echo "== $f" >&2; grep -E 'ERROR|Exception' "$f" | tail -n 20 >&2 || true
  done
  exit 1
fi
