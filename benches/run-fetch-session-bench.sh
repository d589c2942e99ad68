#!/usr/bin/env bash
# Fetch sessions (KIP-227) against full fetches, one native FetchSession reading a topic of
# many partitions (issue #21), both in the same run on one real broker: see
# kafka/examples/fetch_session_bench.rs for what is measured. Figures go to docs/benchmarks.md.
#
#   benches/run-fetch-session-bench.sh [--partitions 500] [--records 200] [--idle-polls 2000]
#
# Starts its own broker (KAFKA_PORT, default 19392, and the next port) and stops it afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
PARTITIONS=500 RECORDS=200 IDLE=2000
while [[ $# -gt 0 ]]; do
  case "$1" in
    --partitions) PARTITIONS="$2"; shift 2 ;;
    --records) RECORDS="$2"; shift 2 ;;
    --idle-polls) IDLE="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
export KAFKA_PORT="${KAFKA_PORT:-19392}" KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"
BOOTSTRAP="127.0.0.1:$KAFKA_PORT"
cargo build -q --release -p karrow-kafka --example fetch_session_bench
bash tests/services/kafka.sh start
trap 'bash tests/services/kafka.sh stop >/dev/null' EXIT
TOPIC="karrow-session-bench-$(date +%s)"
bash tests/services/kafka.sh create-topic "$TOPIC" "$PARTITIONS" >/dev/null
sleep 5  # the leaders of hundreds of new partitions take a moment
# RECORDS values of 100 bytes per partition (ProducerPerformance spreads them over the partitions).
bash tests/services/kafka.sh run-class org.apache.kafka.tools.ProducerPerformance --topic "$TOPIC" \
  --num-records $((PARTITIONS * RECORDS)) --record-size 100 --throughput -1 \
  --producer-props bootstrap.servers="$BOOTSTRAP" acks=1 delivery.timeout.ms=600000 partitioner.class=org.apache.kafka.clients.producer.RoundRobinPartitioner >/dev/null
echo "$PARTITIONS partitions, $RECORDS records of 100 bytes each, $IDLE idle polls, broker $BOOTSTRAP"
target/release/examples/fetch_session_bench "$BOOTSTRAP" "$TOPIC" "$PARTITIONS" "$RECORDS" "$IDLE"
