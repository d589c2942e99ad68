#!/usr/bin/env bash
# Run a real Apache Kafka 4.x broker (KRaft, combined broker+controller, one node) from
# Maven Central jars, on loopback only. See tests/services/README.md.
#
#   kafka.sh install                      fetch the broker classpath once (quick when present)
#   kafka.sh start                        format fresh storage, start, wait until ready
#   kafka.sh stop                         stop the broker, remove its data
#   kafka.sh restart                      stop the broker and start it again on the same data
#                                         (a broker restart mid-transaction)
#   kafka.sh status                       exit 0 if running and ready, 1 otherwise
#   kafka.sh create-topic NAME PARTITIONS create a topic (replication factor 1)
#   kafka.sh run-class CLASS [ARGS...]    run any main class from the broker classpath
#                                         (e.g. org.apache.kafka.tools.consumer.ConsoleConsumer)
#   KAFKA_SECURITY=1 kafka.sh start       also SSL (mTLS), SASL_SSL (SCRAM), SASL_PLAINTEXT
#                                         (PLAIN) and SASL_PLAINTEXT (OAUTHBEARER, unsecured
#                                         tokens) listeners on KAFKA_PORT+2..+4 and +7 (+5 and
#                                         +6 are the tv1 broker's), certificates generated in
#                                         $INSTANCE/security (see security_files)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
POM="$SCRIPT_DIR/kafka/pom.xml"

KARROW_WORK="${KARROW_WORK:-$REPO_ROOT/.work}"
KAFKA_HOME="$KARROW_WORK/kafka"
LIBS="$KAFKA_HOME/libs"
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
KAFKA_HOST=127.0.0.1
[[ "$KAFKA_PORT" =~ ^[0-9]+$ && "$KAFKA_CONTROLLER_PORT" =~ ^[0-9]+$ ]] \
  || { echo "kafka.sh: KAFKA_PORT / KAFKA_CONTROLLER_PORT must be numbers" >&2; exit 2; }
[[ "$KAFKA_PORT" != "$KAFKA_CONTROLLER_PORT" ]] \
  || { echo "kafka.sh: KAFKA_PORT and KAFKA_CONTROLLER_PORT must differ" >&2; exit 2; }
KAFKA_START_TIMEOUT="${KAFKA_START_TIMEOUT:-60}"
KAFKA_STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-30}"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
# Feature levels set when the storage is formatted, e.g. "transaction.version=1" for a broker on
# the old transaction protocol (Kafka 4.x defaults to transaction.version=2). Space-separated.
KAFKA_FEATURES="${KAFKA_FEATURES:-}"
# Extra server.properties lines (space-separated key=value), e.g. "transaction.max.timeout.ms=900000".
KAFKA_EXTRA_PROPS="${KAFKA_EXTRA_PROPS:-}"

# A secured broker (issue #21): KAFKA_SECURITY=1 adds TLS and SASL listeners next to PLAINTEXT.
KAFKA_SECURITY="${KAFKA_SECURITY:-0}"

# One instance directory per broker port, so two brokers on different ports do not collide.
INSTANCE="$KAFKA_HOME/broker-$KAFKA_PORT"
SECURITY_DIR="$INSTANCE/security"
PID_FILE="$INSTANCE/kafka.pid"
DATA_FILE="$INSTANCE/data-dir"   # holds the path of the current run's data dir
LOG_FILE="$INSTANCE/kafka.log"   # kept after stop for post-mortems; truncated on start

# shellcheck source=tests/services/kafka-common.sh
source "$SCRIPT_DIR/kafka-common.sh"

die() { echo "kafka.sh: $*" >&2; exit 1; }

# Serialise concurrent callers (two test runners calling start at once). fd 8 guards
# install, fd 9 guards one broker instance; the broker itself inherits neither.
lock() { # $1 fd (8|9), $2 lock file
  mkdir -p "$(dirname "$2")"
  case "$1" in
    8) exec 8>"$2" ;;
    9) exec 9>"$2" ;;
  esac
  flock "$1"
}

# ---------------------------------------------------------------- install

pom_stamp() { sha256sum "$POM" | cut -d' ' -f1; }

libs_current() { [[ -f "$LIBS/.installed" && "$(cat "$LIBS/.installed")" == "$(pom_stamp)" ]]; }

cmd_install() {
  libs_current && return 0
  lock 8 "$KAFKA_HOME/install.lock"
  libs_current && return 0
  local stamp; stamp="$(pom_stamp)"
  command -v mvn >/dev/null || die "mvn not found (needed once to fetch the Kafka jars)"
  mkdir -p "$KAFKA_HOME"
  local tmp="$KAFKA_HOME/libs.tmp.$$"
  rm -rf "$tmp"
  echo "kafka.sh: fetching Kafka jars from Maven Central into $LIBS" >&2
  # Maven's output (and the colour codes Debian's mvn 3.8 prints even with -B -q) only on failure.
  local mvn_log="$KAFKA_HOME/install.log"
  if ! mvn -B -q -f "$POM" dependency:copy-dependencies -DoutputDirectory="$tmp" >"$mvn_log" 2>&1; then
    cat "$mvn_log" >&2
    rm -rf "$tmp"
    die "mvn dependency:copy-dependencies failed (log: $mvn_log)"
  fi
  rm -f "$mvn_log"
  ls "$tmp"/kafka_2.13-*.jar >/dev/null 2>&1 || { rm -rf "$tmp"; die "no kafka_2.13 jar fetched"; }
  echo "$stamp" > "$tmp/.installed"
  rm -rf "$LIBS"
  mv "$tmp" "$LIBS"
}

# ---------------------------------------------------------------- helpers

# Pid of our broker if it is alive (and really is a Kafka JVM), else nothing.
running_pid() { kafka_pid "$PID_FILE"; }

ready() {
  port_open "$KAFKA_PORT" && grep -q 'Kafka Server started' "$LOG_FILE" 2>/dev/null
}

cleanup_instance() {
  if [[ -f "$DATA_FILE" ]]; then
    local d; d="$(cat "$DATA_FILE")"
    # Only ever delete a run directory we created under this instance.
    [[ -n "$d" && "$d" == "$INSTANCE"/run.* ]] && rm -rf -- "$d"
  fi
  rm -f "$PID_FILE" "$DATA_FILE"
  rm -rf -- "$SECURITY_DIR"
}

# ---------------------------------------------------------------- security (KAFKA_SECURITY=1)

# security_files: what a secured broker's tests find in $SECURITY_DIR (every store's password
# is karrow-test):
#   ports.env             SSL_PORT, SASL_SSL_PORT, SASL_PLAINTEXT_PORT, OAUTHBEARER_PORT
#                         (KAFKA_PORT+2, +3, +4, +7), OAUTHBEARER_REAUTH_MS
#   ca.pem / ca.der       the test CA; truststore.p12 (PKCS12) and truststore.jks hold it
#   client.p12            the client's key and chain (mTLS on the SSL listener, which requires it)
#   client.der, client-key.der   the client's certificate and PKCS#8 key, DER
#   other-ca.der, other-truststore.p12   a CA the broker's certificate is not issued by
#   users: alice / alice-secret (SCRAM-SHA-256 and -512 on SASL_SSL, PLAIN on SASL_PLAINTEXT)
#   OAUTHBEARER listener (named OAUTH, SASL_PLAINTEXT): Kafka's unsecured validator, so any
#   unsecured JWS ({"alg":"none"}) with a sub and an unexpired exp is accepted (a client's
#   OAuthBearerLoginModule with unsecuredLoginStringClaim_sub="alice" makes one); sessions
#   last at most OAUTHBEARER_REAUTH_MS (KIP-368: the client re-authenticates in time, or the
#   broker closes the connection; less when the token expires earlier)
# The broker's certificate names only ip:127.0.0.1 (a connection to "localhost" fails
# hostname verification).
SECURITY_PASS=karrow-test

generate_security() {
  local d="$SECURITY_DIR" kt="keytool"
  [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/keytool" ]] && kt="$JAVA_HOME/bin/keytool"
  rm -rf -- "$d"; mkdir -p "$d"
  local p="$SECURITY_PASS" log="$d/keytool.log"
  ca() { # $1 name: a self-signed CA in $1.p12, exported as $1.pem / $1.der
    "$kt" -genkeypair -alias "$1" -dname "CN=karrow $1" -keyalg RSA -keysize 2048 -validity 30 \
      -ext bc:c -keystore "$d/$1.p12" -storetype PKCS12 -storepass "$p" >>"$log" 2>&1
    "$kt" -exportcert -rfc -alias "$1" -keystore "$d/$1.p12" -storepass "$p" -file "$d/$1.pem" >>"$log" 2>&1
    "$kt" -exportcert -alias "$1" -keystore "$d/$1.p12" -storepass "$p" -file "$d/$1.der" >>"$log" 2>&1
  }
  leaf() { # $1 name: a key pair in $1.p12 with a certificate the test CA issued (SAN ip:127.0.0.1)
    "$kt" -genkeypair -alias "$1" -dname "CN=karrow $1" -keyalg RSA -keysize 2048 -validity 30 \
      -keystore "$d/$1.p12" -storetype PKCS12 -storepass "$p" >>"$log" 2>&1
    "$kt" -certreq -alias "$1" -keystore "$d/$1.p12" -storepass "$p" -file "$d/$1.csr" >>"$log" 2>&1
    "$kt" -gencert -alias ca -keystore "$d/ca.p12" -storepass "$p" -infile "$d/$1.csr" -rfc \
      -ext SAN=ip:127.0.0.1 -validity 30 -outfile "$d/$1.pem" >>"$log" 2>&1
    "$kt" -importcert -alias ca -file "$d/ca.pem" -keystore "$d/$1.p12" -storepass "$p" -noprompt >>"$log" 2>&1
    "$kt" -importcert -alias "$1" -file "$d/$1.pem" -keystore "$d/$1.p12" -storepass "$p" -noprompt >>"$log" 2>&1
    "$kt" -exportcert -alias "$1" -keystore "$d/$1.p12" -storepass "$p" -file "$d/$1.der" >>"$log" 2>&1
  }
  if ! { ca ca && ca other-ca && leaf broker && leaf client; }; then
    cat "$log" >&2; die "generating the test certificates failed"
  fi
  "$kt" -importcert -alias ca -file "$d/ca.pem" -keystore "$d/truststore.p12" -storetype PKCS12 \
    -storepass "$p" -noprompt >>"$log" 2>&1
  "$kt" -importcert -alias ca -file "$d/ca.pem" -keystore "$d/truststore.jks" -storetype JKS \
    -storepass "$p" -noprompt >>"$log" 2>&1
  "$kt" -importcert -alias other-ca -file "$d/other-ca.pem" -keystore "$d/other-truststore.p12" \
    -storetype PKCS12 -storepass "$p" -noprompt >>"$log" 2>&1
  # The client's key as PKCS#8 DER, for the Rust tests (the Java side reads client.p12 itself).
  command -v openssl >/dev/null || die "openssl not found (needed for the client key as DER)"
  openssl pkcs12 -in "$d/client.p12" -passin "pass:$p" -nocerts -nodes 2>>"$log" \
    | openssl pkcs8 -topk8 -nocrypt -outform DER -out "$d/client-key.der" 2>>"$log" \
    || { cat "$log" >&2; die "exporting the client key failed"; }
  cat > "$d/ports.env" <<EOF
SSL_PORT=$((KAFKA_PORT + 2))
SASL_SSL_PORT=$((KAFKA_PORT + 3))
SASL_PLAINTEXT_PORT=$((KAFKA_PORT + 4))
OAUTHBEARER_PORT=$((KAFKA_PORT + 7))
OAUTHBEARER_REAUTH_MS=$OAUTHBEARER_REAUTH_MS
EOF
}

# How long an OAUTHBEARER session lasts before the client must re-authenticate (KIP-368).
OAUTHBEARER_REAUTH_MS="${KAFKA_OAUTHBEARER_REAUTH_MS:-10000}"
[[ "$OAUTHBEARER_REAUTH_MS" =~ ^[0-9]+$ ]] \
  || { echo "kafka.sh: KAFKA_OAUTHBEARER_REAUTH_MS must be a number" >&2; exit 2; }

# server.properties lines of a secured broker.
security_props() {
  local d="$SECURITY_DIR" p="$SECURITY_PASS"
  cat <<EOF
ssl.keystore.location=$d/broker.p12
ssl.keystore.type=PKCS12
ssl.keystore.password=$p
ssl.key.password=$p
ssl.truststore.location=$d/truststore.p12
ssl.truststore.type=PKCS12
ssl.truststore.password=$p
listener.name.ssl.ssl.client.auth=required
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_plaintext.sasl.enabled.mechanisms=PLAIN
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";
listener.name.oauth.sasl.enabled.mechanisms=OAUTHBEARER
listener.name.oauth.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="broker";
listener.name.oauth.oauthbearer.sasl.server.callback.handler.class=org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredValidatorCallbackHandler
listener.name.oauth.oauthbearer.connections.max.reauth.ms=$OAUTHBEARER_REAUTH_MS
EOF
}

# ---------------------------------------------------------------- start

cmd_start() {
  cmd_install
  lock 9 "$INSTANCE/lock"

  if running_pid >/dev/null; then
    if ready; then
      echo "kafka ready on $KAFKA_HOST:$KAFKA_PORT"
      return 0
    fi
    wait_ready   # started by someone else moments ago
    return 0
  fi

  cleanup_instance   # stale pid file or data dir from a crashed run
  for p in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"; do
    port_open "$p" && die "port $KAFKA_HOST:$p is already in use by another process"
  done

  mkdir -p "$INSTANCE"
  local run; run="$(mktemp -d "$INSTANCE/run.XXXXXX")"
  echo "$run" > "$DATA_FILE"
  mkdir -p "$run/data" "$run/tmp"

  local props="$run/server.properties"
  local listeners="PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT,CONTROLLER://$KAFKA_HOST:$KAFKA_CONTROLLER_PORT"
  local protocols="CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"
  local scram=()
  if [[ "$KAFKA_SECURITY" == 1 ]]; then
    local p
    for p in $((KAFKA_PORT + 2)) $((KAFKA_PORT + 3)) $((KAFKA_PORT + 4)) $((KAFKA_PORT + 7)); do
      port_open "$p" && { cleanup_instance; die "port $KAFKA_HOST:$p is already in use by another process"; }
    done
    generate_security
    listeners+=",SSL://$KAFKA_HOST:$((KAFKA_PORT + 2)),SASL_SSL://$KAFKA_HOST:$((KAFKA_PORT + 3))"
    listeners+=",SASL_PLAINTEXT://$KAFKA_HOST:$((KAFKA_PORT + 4)),OAUTH://$KAFKA_HOST:$((KAFKA_PORT + 7))"
    protocols+=",SSL:SSL,SASL_SSL:SASL_SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,OAUTH:SASL_PLAINTEXT"
    scram=(--add-scram "SCRAM-SHA-256=[name=alice,password=alice-secret]"
           --add-scram "SCRAM-SHA-512=[name=alice,password=alice-secret]")
  fi
  # log.retention.ms=-1: tests write records with fixed timestamps (2023, e.g. 1700000000000), which
  # the default 7-day retention deletes whenever its 5-minute check happens to run mid-test.
  cat > "$props" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
listeners=$listeners
advertised.listeners=$listeners
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=$protocols
log.dirs=$run/data
num.partitions=1
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=${KAFKA_OFFSETS_PARTITIONS:-1}
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=${KAFKA_TXN_PARTITIONS:-1}
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.ms=-1
EOF
  if [[ "$KAFKA_SECURITY" == 1 ]]; then security_props >> "$props"; fi
  local extra
  for extra in $KAFKA_EXTRA_PROPS; do
    [[ "$extra" == *=* ]] || { cleanup_instance; die "KAFKA_EXTRA_PROPS entry '$extra' is not key=value"; }
    echo "$extra" >> "$props"
  done
  write_log4j "$run/log4j2.properties" info
  write_log4j "$run/log4j2-format.properties" warn

  local features=() feature
  for feature in $KAFKA_FEATURES; do
    features+=(--feature "$feature")
  done

  : > "$LOG_FILE"
  # Dynamic KRaft quorum (KIP-853): a single node formats itself as the only voter.
  if ! format_storage "$run/log4j2-format.properties" "$LOG_FILE" "$run/tmp" --standalone \
      -t "$(new_cluster_id)" -c "$props" "${features[@]}" "${scram[@]}"; then
    cat "$LOG_FILE" >&2
    cleanup_instance
    die "formatting KRaft storage failed"
  fi

  launch "$run"
}

# Starts the broker JVM on the formatted run dir $1 and waits until it is ready.
launch() {
  local run="$1"
  local props="$run/server.properties"
  # shellcheck disable=SC2207
  local jvm=($(jvm_common) -Djava.io.tmpdir="$run/tmp")
  # setsid: the broker outlives this script and is not hit by the caller's Ctrl-C.
  # The inner shell writes its own pid and execs java, so the pid file is the JVM's pid.
  # shellcheck disable=SC2086
  setsid bash -c 'echo $$ > "$1"; shift; exec "$@"' _ "$PID_FILE" \
    "$JAVA" $KAFKA_HEAP_OPTS "${jvm[@]}" -XX:+UseG1GC -cp "$LIBS/*" \
    -Dlog4j2.configurationFile="$run/log4j2.properties" kafka.Kafka "$props" >>"$LOG_FILE" 2>&1 </dev/null 8>&- 9>&- &
  disown || true

  wait_ready
}

wait_ready() {
  local deadline=$((SECONDS + KAFKA_START_TIMEOUT))
  while (( SECONDS < deadline )); do
    if ready; then
      echo "kafka ready on $KAFKA_HOST:$KAFKA_PORT"
      return 0
    fi
    # Give setsid a moment to write the pid file before declaring the JVM dead.
    if [[ -f "$PID_FILE" ]] && ! running_pid >/dev/null; then
      echo "kafka.sh: broker exited during startup; last log lines:" >&2
      tail -n 40 "$LOG_FILE" >&2 || true
      cleanup_instance
      exit 1
    fi
    sleep 0.25
  done
  echo "kafka.sh: broker not ready after ${KAFKA_START_TIMEOUT}s; last log lines:" >&2
  tail -n 40 "$LOG_FILE" >&2 || true
  cmd_stop >/dev/null 2>&1 || true
  exit 1
}

# ---------------------------------------------------------------- stop / status

# Stops the broker JVM (TERM, then KILL after KAFKA_STOP_TIMEOUT); prints what it did.
stop_jvm() {
  local pid
  if pid="$(running_pid)"; then
    stop_and_wait "$pid" TERM "$KAFKA_STOP_TIMEOUT" "kafka.sh: broker"
    echo "kafka stopped (pid $pid)"
  else
    echo "kafka not running"
  fi
}

cmd_stop() {
  lock 9 "$INSTANCE/lock"
  stop_jvm
  cleanup_instance
}

cmd_restart() {
  lock 9 "$INSTANCE/lock"
  [[ -f "$DATA_FILE" ]] || die "no broker data to restart on (start it first)"
  local run; run="$(cat "$DATA_FILE")"
  stop_jvm
  # The old JVM's pid must not be taken for the new one's: wait_ready would see it dead,
  # call the start failed and delete the run dir under the starting broker.
  rm -f "$PID_FILE"
  # The readiness check greps the log: start it afresh, keeping the old part as kafka.log.1.
  mv "$LOG_FILE" "$LOG_FILE.1"
  : > "$LOG_FILE"
  launch "$run"
}

cmd_status() {
  local pid
  if pid="$(running_pid)" && ready; then
    echo "kafka running (pid $pid) and ready on $KAFKA_HOST:$KAFKA_PORT"
  elif [[ -n "${pid:-}" ]]; then
    echo "kafka running (pid $pid) but not ready on $KAFKA_HOST:$KAFKA_PORT"
    return 1
  else
    echo "kafka not running"
    return 1
  fi
}

# ---------------------------------------------------------------- tools

cmd_run_class() {
  [[ $# -ge 1 ]] || die "usage: kafka.sh run-class CLASS [ARGS...]"
  cmd_install
  exec_class "$KAFKA_HOME/log4j2-tools.properties" "$@"
}

cmd_create_topic() {
  [[ $# -eq 2 ]] || die "usage: kafka.sh create-topic NAME PARTITIONS"
  [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "PARTITIONS must be a positive integer, got '$2'"
  cmd_run_class org.apache.kafka.tools.TopicCommand \
    --bootstrap-server "$KAFKA_HOST:$KAFKA_PORT" \
    --create --if-not-exists --topic "$1" --partitions "$2" --replication-factor 1
}

# ---------------------------------------------------------------- main

usage() { sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[[ $# -ge 1 ]] || usage
cmd="$1"; shift
case "$cmd" in
  install)      [[ $# -eq 0 ]] || usage; cmd_install; echo "kafka libs in $LIBS" ;;
  start)        [[ $# -eq 0 ]] || usage; cmd_start ;;
  stop)         [[ $# -eq 0 ]] || usage; cmd_stop ;;
  restart)      [[ $# -eq 0 ]] || usage; cmd_restart ;;
  status)       [[ $# -eq 0 ]] || usage; cmd_status ;;
  create-topic) cmd_create_topic "$@" ;;
  run-class)    cmd_run_class "$@" ;;
  -h|--help|help) usage ;;
  *) usage ;;
esac
