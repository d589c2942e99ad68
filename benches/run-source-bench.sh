#!/usr/bin/env bash
# Source throughput benchmark (issue 3): N Confluent Avro Nexmark bids (default 2,000,000) produced
# once to a new 2-partition topic on a real Kafka broker, then read into a blackhole by a Flink SQL job
# in a local MiniCluster (parallelism 2, bounded latest-offset), several rounds, with
#   stock  = 'kafka' + 'avro-confluent-reference'   (the stock path)
#   format = 'kafka' + 'avro-confluent-native'      (format swap, one native call per record)
#   native = 'kafka-native' + 'avro-confluent-native' (one native call per fetched batch)
#   fetch  = the same with 'scan.fetch-mode' = 'native' (Kafka's Fetch protocol read natively)
# and prints rows/s (best job net runtime over the rounds) and the ratios vs stock.
#
#   benches/run-source-bench.sh                     build, start broker + dev registry, run, stop both
#   benches/run-source-bench.sh --records 500000    SourceThroughputBenchmark options
#                                                   (--records --rounds --partitions --parallelism --topic
#                                                   --only stock|format|native|fetch)
#   benches/run-source-bench.sh --format json       the same with JSON bids: kafka + json (stock),
#                                                   kafka + json-native, kafka-native + json-native
#   benches/run-source-bench.sh --format protobuf   the same with Protobuf bids (karrow.test.Bid): kafka +
#                                                   protobuf (stock), kafka + protobuf-native, kafka-native + ...
#   KARROW_SKIP_BUILD=1 benches/run-source-bench.sh reuse the current build
#
# Environment: KAFKA_PORT / KAFKA_CONTROLLER_PORT (default 9092 / 9093, see tests/services/README.md),
# KARROW_REGISTRY_PORT (default: a free port). A broker that is already running on KAFKA_PORT is
# used and left running; one this script starts is stopped on exit, as is the registry.
MAIN_CLASS=io.karrow.bench.SourceThroughputBenchmark
WORK_NAME=karrow-source-bench
source "$(dirname "${BASH_SOURCE[0]}")/run-kafka-job.sh"
