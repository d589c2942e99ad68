#!/usr/bin/env bash
# The main karrow demo, Kafka to Kafka: 1,000,000 Confluent Avro Nexmark bids in a real Kafka
# broker, then INSERT INTO bids_out SELECT auction, bidder, price * 100 AS price_cents, date_time
# FROM bids WHERE price > 1000 in a local MiniCluster (parallelism 2, exactly-once), once on the
# stock path (kafka + flink-avro), once on karrow (kafka-native + avro-confluent-native) and once
# on karrow with its operator core on (the Calc fused into the source); prints rows/s for each and
# whether the three output topics hold identical bytes.
#
#   benches/run-demo.sh                     build, start broker + dev registry, run, stop both
#   benches/run-demo.sh --records 200000    KarrowDemo options (--records --rounds --parallelism ...)
#   KARROW_SKIP_BUILD=1 benches/run-demo.sh reuse the current build
#
# Environment: KAFKA_PORT / KAFKA_CONTROLLER_PORT (default 9092 / 9093, see tests/services/README.md),
# KARROW_REGISTRY_PORT (default: a free port).
MAIN_CLASS=io.karrow.bench.KarrowDemo
WORK_NAME=karrow-demo
source "$(dirname "${BASH_SOURCE[0]}")/run-kafka-job.sh"
