#!/usr/bin/env bash
# Runs the connector's Java tests: unit and parity tests (Surefire), then the
# integration tests (Failsafe) against a real Kafka broker started here and stopped on
# exit (ConfluentPythonClientITCase also needs Confluent's Python client, installed here);
# the same Maven run builds the JVM benchmarks (benches/jvm: the stock Flink harness and
# TopicDump of `karrow bench`). Then, in the same broker window, the CLI's topic-input
# test (cli/tests/bench_topic.rs) and the native producer's (kafka/tests/producer_broker.rs)
# with KARROW_TEST_KAFKA_BOOTSTRAP set, the TLS/SASL tests (kafka/tests/security_broker.rs) on
# the broker's secured listeners, and the Nexmark suite's short variant
# (benches/nexmark/run.sh --short), and the cluster tests (tests/cluster/run.sh). The native library
# must be built (make native).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

lib="$repo/target/release/libkarrow_native.so"
[ -f "$lib" ] || { echo "missing $lib: run 'make native' first" >&2; exit 1; }

# ConfluentPythonClientITCase runs Confluent's own Python client (pinned) as its peer.
python3 -m pip install -q --disable-pip-version-check -r tests/confluent-python/requirements.txt

export KAFKA_PORT="${KAFKA_PORT:-9092}"
# Issue #21: the broker also has SSL, SASL_SSL, SASL_PLAINTEXT (KAFKA_PORT+2..+4) and OAUTHBEARER (+7) listeners
# for the native client's TLS/SASL tests; their certificates are in $security_dir.
export KAFKA_SECURITY=1
security_dir="${KARROW_WORK:-$repo/.work}/kafka/broker-${KAFKA_PORT}/security"
tests/services/kafka.sh install
# Issue #20: KAFKA_TV1=1 adds a second broker formatted with the old transaction protocol
# (transaction.version=1) on KAFKA_TV1_PORT (default KAFKA_PORT+5, controller +6), and the tests
# that run only when one is there (-Dkarrow.kafka.bootstrap.tv1, KARROW_TEST_KAFKA_BOOTSTRAP_TV1).
# Off by default: measured, it adds more than the 90 s make test may grow by; `make test-tv1` runs
# those tests alone (tests/run-tv1-tests.sh).
KAFKA_TV1="${KAFKA_TV1:-0}"
KAFKA_TV1_PORT="${KAFKA_TV1_PORT:-$((KAFKA_PORT + 5))}"
KAFKA_TV1_CONTROLLER_PORT="${KAFKA_TV1_CONTROLLER_PORT:-$((KAFKA_PORT + 6))}"
tv1_broker() { # $1 start|stop
  KAFKA_PORT="$KAFKA_TV1_PORT" KAFKA_CONTROLLER_PORT="$KAFKA_TV1_CONTROLLER_PORT" KAFKA_SECURITY=0 \
    KAFKA_FEATURES="transaction.version=1" tests/services/kafka.sh "$1"
}
trap 'tests/services/kafka.sh stop || true; if [ "$KAFKA_TV1" = 1 ]; then tv1_broker stop || true; fi' EXIT
tests/services/kafka.sh start
tv1_bootstrap=""
if [ "$KAFKA_TV1" = 1 ]; then
  tv1_broker start
  tv1_bootstrap="127.0.0.1:${KAFKA_TV1_PORT}"
fi

if ! mvn -B -ntp -f pom.xml verify \
  -Dkarrow.native.library="$lib" \
  -Dkarrow.registry.binary="$repo/target/release/karrow" \
  -Dkarrow.kafka.bootstrap="127.0.0.1:${KAFKA_PORT}" \
  -Dkarrow.kafka.bootstrap.tv1="$tv1_bootstrap" \
  -Dkarrow.kafka.security.dir="$security_dir"; then
  # The causes last, where a truncated CI log still shows them.
  tests/print-test-failures.sh connector-java/formats connector-java connector-java/sql benches/jvm
  exit 1
fi

KARROW_TEST_KAFKA_BOOTSTRAP="127.0.0.1:${KAFKA_PORT}" \
  cargo test --release -p karrow --test bench_topic
env KARROW_TEST_KAFKA_BOOTSTRAP="127.0.0.1:${KAFKA_PORT}" ${tv1_bootstrap:+KARROW_TEST_KAFKA_BOOTSTRAP_TV1="$tv1_bootstrap"} \
  cargo test --release -p karrow-kafka --test producer_broker
KARROW_TEST_KAFKA_BOOTSTRAP="127.0.0.1:${KAFKA_PORT}" \
  cargo test --release -p karrow-kafka --test fetch_epochs_broker
KARROW_TEST_KAFKA_BOOTSTRAP="127.0.0.1:${KAFKA_PORT}" KARROW_TEST_KAFKA_SECURITY_DIR="$security_dir" \
  cargo test --release -p karrow-kafka --test security_broker

# Issue #23: karrow jobs on a standalone Flink 2.2 cluster (JobManager, two TaskManagers, SQL
# Gateway; the sql bundle the Maven run just built in lib/), on the same broker: cases (a)-(c) of
# tests/cluster/cluster_test.py.
bash tests/cluster/run.sh

# Issue #22: the Nexmark suite's short variant on the same broker (three queries, 10,000
# events, JSON, Avro and Protobuf): every output compared between stock Flink and karrow.
KARROW_SKIP_BUILD=1 bash benches/nexmark/run.sh --short
