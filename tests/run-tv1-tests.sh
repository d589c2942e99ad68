#!/usr/bin/env bash
# Issue #20: the tests that run only when a broker on the old transaction protocol is there
# (transaction.version=1), on one started here and stopped on exit: the native producer's
# real-broker tests (kafka/tests/producer_broker.rs, KARROW_TEST_KAFKA_BOOTSTRAP_TV1), and the
# Flink ITCases' protocol-1 variants (-Dkarrow.kafka.bootstrap.tv1): KafkaNativeSinkITCase's
# exactly-once, failover, failing-committer and transaction-timeout tests, and
# KafkaNativeProduceSavepointITCase's job restarts. Their protocol-2 variants need the default
# broker as well (KAFKA_PORT), started here too. The native library must be built (make native).
# Not part of `make test` (measured: more than the 90 s it may add; docs/architecture.md).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

lib="$repo/target/release/libkarrow_native.so"
[ -f "$lib" ] || { echo "missing $lib: run 'make native' first" >&2; exit 1; }

export KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_TV1_PORT="${KAFKA_TV1_PORT:-$((KAFKA_PORT + 5))}"
KAFKA_TV1_CONTROLLER_PORT="${KAFKA_TV1_CONTROLLER_PORT:-$((KAFKA_PORT + 6))}"
tv1_broker() { # $1 start|stop
  KAFKA_PORT="$KAFKA_TV1_PORT" KAFKA_CONTROLLER_PORT="$KAFKA_TV1_CONTROLLER_PORT" \
    KAFKA_FEATURES="transaction.version=1" tests/services/kafka.sh "$1"
}
tests/services/kafka.sh install
trap 'tests/services/kafka.sh stop || true; tv1_broker stop || true' EXIT
tests/services/kafka.sh start
tv1_broker start
tv1="127.0.0.1:${KAFKA_TV1_PORT}"

KARROW_TEST_KAFKA_BOOTSTRAP="127.0.0.1:${KAFKA_PORT}" KARROW_TEST_KAFKA_BOOTSTRAP_TV1="$tv1" \
  cargo test --release -p karrow-kafka --test producer_broker

if ! mvn -B -ntp -f pom.xml -pl connector-java/formats,connector-java verify \
  -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false \
  '-Dit.test=KafkaNativeSinkITCase#exactlyOnceOnTheOldTransactionProtocol+aTransactionOpenPastItsTimeoutFailsTheJobOnTheOldTransactionProtocol,KafkaNativeProduceSavepointITCase#aJobRestarted*' \
  -Dkarrow.native.library="$lib" \
  -Dkarrow.registry.binary="$repo/target/release/karrow" \
  -Dkarrow.kafka.bootstrap="127.0.0.1:${KAFKA_PORT}" \
  -Dkarrow.kafka.bootstrap.tv1="$tv1"; then
  tests/print-test-failures.sh connector-java/formats connector-java
  exit 1
fi
