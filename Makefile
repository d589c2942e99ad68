# karrow — the commands a newcomer needs (see README.md).
#   make demo   the main job on the embedded default: broker + dev registry + Flink SQL, stock vs native
#   make test   every test: Rust unit/integration, lint, Java unit + parity, Kafka/Flink ITCases, Confluent client
#   make bench  JMH decode benchmark, stock vs native in one run
#   make nexmark  the Nexmark suite over Kafka, stock Flink vs karrow, outputs compared
#   make jar    the connector jar with the native library inside
#   make fuzz-short / fuzz-long   coverage-guided fuzzing of every parser (fuzz/README.md)

CARGO ?= cargo
MVN ?= mvn -B -ntp

.PHONY: native jar test test-rust test-rust-checked lint test-java test-python demo bench bench-source bench-fetch bench-produce fuzz-short fuzz-long nexmark nexmark-short clean

native:
	$(CARGO) build --release -p karrow-native -p karrow

jar: native
	$(MVN) -q -f connector-java/pom.xml -DskipTests package

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings

test-rust:
	$(CARGO) test --release --workspace

# The same tests with arithmetic overflow checks on (Cargo.toml's `checked` profile, in
# target/checked): a second optimized build of everything, so not part of `make test`.
test-rust-checked:
	$(CARGO) test --profile checked --workspace

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

# Fuzzing (fuzz/, outside the workspace): FUZZ_SECONDS per target for CI (13 targets), or
# FUZZ_RUNS executions per target; both start from seeds each target writes.
fuzz-short:
	FUZZ_SECONDS=$${FUZZ_SECONDS:-12} bash fuzz/run.sh short

fuzz-long:
	FUZZ_RUNS=$${FUZZ_RUNS:-10000000} bash fuzz/run.sh long

# Issue #22: the Nexmark suite over Kafka, stock Flink against karrow, outputs compared (benches/nexmark/README.md).
nexmark:
	bash benches/nexmark/run.sh

# Its CI variant: a handful of queries, small event count, one round, correctness only.
nexmark-short:
	bash benches/nexmark/run.sh --short

clean:
	$(CARGO) clean
	$(MVN) -q -f connector-java/pom.xml clean
