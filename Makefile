# karrow — the commands a newcomer needs (see README.md).
#   make demo   the main job on the embedded default: broker + dev registry + Flink SQL, stock vs native
#   make test   every test: Rust unit/integration, lint, Java unit + parity, Kafka/Flink ITCases, Confluent client
#   make bench  JMH decode benchmark, stock vs native in one run
#   make jar    the connector jar with the native library inside

CARGO ?= cargo
MVN ?= mvn -B -ntp

.PHONY: native jar test test-rust lint test-java test-python demo bench bench-source bench-fetch bench-produce clean

native:
	$(CARGO) build --release -p karrow-native -p karrow

jar: native
	$(MVN) -q -f connector-java/pom.xml -DskipTests package

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings

test-rust:
	$(CARGO) test --release --workspace

test-java: native
	bash tests/run-java-tests.sh

# Confluent's own Python client (confluent-kafka from PyPI) against `karrow registry serve`.
test-python: native
	KARROW_BIN=$(CURDIR)/target/release/karrow bash tests/confluent-python/run.sh

# Java first: its Maven run also builds the JVM harness that the CLI's stock-Flink test needs.
test: native lint test-java test-rust test-python

demo:
	bash benches/run-demo.sh

bench:
	bash benches/run-jmh.sh

bench-source:
	bash benches/run-source-bench.sh

# Phase-two question: librdkafka's consumer CPU per record vs Kafka's Java consumer (no decoding).
bench-fetch:
	bash benches/run-fetch-bench.sh

# Issue #20's first question: Kafka's Java producer CPU per record vs record batches written natively.
bench-produce:
	bash benches/run-produce-bench.sh

clean:
	$(CARGO) clean
	$(MVN) -q -f connector-java/pom.xml clean
