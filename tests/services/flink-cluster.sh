#!/usr/bin/env bash
# A standalone Apache Flink 2.2 cluster from PyPI and Maven Central artifacts (no Docker, nothing
# from elsewhere), on loopback only: one JobManager, two TaskManagers (2 slots each) and a SQL
# Gateway, each its own JVM. See tests/services/README.md and docs/installing.md.
#
#   flink-cluster.sh install   assemble FLINK_HOME once: the apache-flink-libraries and
#                              apache-flink 2.2.0 wheels (pip download), flink-sql-gateway in opt/,
#                              flink-sql-connector-kafka 5.0.0-2.2 (Maven Central) and karrow's
#                              sql bundle (make jar) in lib/
#   flink-cluster.sh start     write conf/config.yaml, start the JVMs, wait until the REST API
#                              shows 2 TaskManagers and the SQL Gateway answers
#   flink-cluster.sh stop      stop the JVMs this script started (pid files)
#   flink-cluster.sh status    exit 0 if all are running and 2 TaskManagers are registered
#   flink-cluster.sh kill-tm N SIGKILL TaskManager N (1|2): a crash, for failover tests
#   flink-cluster.sh start-tm N start TaskManager N again
#   flink-cluster.sh home      print FLINK_HOME (bin/sql-client.sh, bin/flink live there)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
POM="$SCRIPT_DIR/flink/pom.xml"

KARROW_WORK="${KARROW_WORK:-$REPO_ROOT/.work}"
FLINK_BASE="$KARROW_WORK/flink"
WHEELS="$FLINK_BASE/wheels"
FLINK_VERSION=2.2.0
FLINK_HOME="$FLINK_BASE/flink-$FLINK_VERSION"
# Ports, all on 127.0.0.1. Defaults in 35100-35199 (this worktree's range).
FLINK_REST_PORT="${FLINK_REST_PORT:-35100}"
FLINK_RPC_PORT="${FLINK_RPC_PORT:-35101}"
FLINK_BLOB_PORT="${FLINK_BLOB_PORT:-35102}"
FLINK_TM_RPC_PORTS="${FLINK_TM_RPC_PORTS:-35110-35119}"
FLINK_TM_DATA_PORT_BASE="${FLINK_TM_DATA_PORT_BASE:-35120}"   # TaskManager N: base + N (0: any free port)
FLINK_QUERY_PORTS="${FLINK_QUERY_PORTS:-35140-35149}"
FLINK_GATEWAY_PORT="${FLINK_GATEWAY_PORT:-35130}"
# Flink's Prometheus metric reporter (plugins/metrics-prometheus): each JVM takes the first free
# port of this range (tests/cluster/cluster_test.py reads karrow's metrics there).
FLINK_PROM_PORTS="${FLINK_PROM_PORTS:-35150-35159}"
FLINK_START_TIMEOUT="${FLINK_START_TIMEOUT:-120}"
HOST=127.0.0.1
# Memory for a 2-core / 24 GiB machine shared with other builds: small, fixed process sizes.
FLINK_JM_MEMORY="${FLINK_JM_MEMORY:-1024m}"
FLINK_TM_MEMORY="${FLINK_TM_MEMORY:-1536m}"
KARROW_SQL_JAR_GLOB="$REPO_ROOT/connector-java/sql/target/karrow-sql-connector-kafka-*.jar"

INSTANCE="$FLINK_BASE/cluster-$FLINK_REST_PORT"
PIDS="$INSTANCE/pids"
LOGS="$INSTANCE/log"
CONF="$INSTANCE/conf"

if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
  export JAVA_HOME
fi

die() { echo "flink-cluster.sh: $*" >&2; exit 1; }

lock() { # $1 lock file: serialises install/start/stop of one instance
  mkdir -p "$(dirname "$1")"
  exec 9>"$1"
  flock 9
}

# ---------------------------------------------------------------- install

stamp() {
  { sha256sum "$POM" | cut -d' ' -f1; echo "$FLINK_VERSION"; } | sha256sum | cut -d' ' -f1
}

home_current() { [[ -f "$FLINK_HOME/.installed" && "$(cat "$FLINK_HOME/.installed")" == "$(stamp)" ]]; }

fetch_wheels() {
  mkdir -p "$WHEELS"
  if ls "$WHEELS"/apache_flink_libraries-$FLINK_VERSION-*.whl >/dev/null 2>&1 \
     && ls "$WHEELS"/apache_flink-$FLINK_VERSION-cp311-*.whl >/dev/null 2>&1; then
    return 0
  fi
  command -v pip >/dev/null || die "pip not found (needed once to fetch the Flink wheels)"
  echo "flink-cluster.sh: downloading apache-flink-libraries and apache-flink $FLINK_VERSION from PyPI" >&2
  # apache-flink is a cp311 wheel (it holds bin/ and conf/; its compiled Python parts are not
  # used here): ask for that interpreter's wheel whatever python runs pip.
  pip download -q --no-deps --only-binary=:all: --python-version 3.11 \
    --platform manylinux2014_x86_64 -d "$WHEELS" \
    "apache-flink-libraries==$FLINK_VERSION" "apache-flink==$FLINK_VERSION" \
    || die "pip download of the Flink wheels failed"
}

cmd_install() {
  local jar
  # shellcheck disable=SC2086
  jar="$(ls $KARROW_SQL_JAR_GLOB 2>/dev/null | grep -v -e '-sources' -e 'original-' | head -n1 || true)"
  [[ -n "$jar" ]] || die "no karrow sql bundle at $KARROW_SQL_JAR_GLOB: run 'make jar' first"
  if home_current && cmp -s "$jar" "$FLINK_HOME/lib/$(basename "$jar")"; then
    return 0
  fi
  lock "$FLINK_BASE/install.lock"
  if ! home_current; then
    fetch_wheels
    local tmp="$FLINK_BASE/home.tmp.$$"
    rm -rf "$tmp"; mkdir -p "$tmp"
    # The two wheels together are a Flink distribution under pyflink/.
    local w
    for w in "$WHEELS"/apache_flink_libraries-$FLINK_VERSION-*.whl "$WHEELS"/apache_flink-$FLINK_VERSION-cp311-*.whl; do
      unzip -q -o "$w" 'pyflink/bin/*' 'pyflink/conf/*' 'pyflink/lib/*' 'pyflink/opt/*' 'pyflink/plugins/*' -d "$tmp" 2>/dev/null || true
    done
    [[ -f "$tmp/pyflink/lib/flink-dist-$FLINK_VERSION.jar" && -f "$tmp/pyflink/bin/jobmanager.sh" ]] \
      || { rm -rf "$tmp"; die "the wheels did not give lib/flink-dist and bin/jobmanager.sh"; }
    chmod +x "$tmp"/pyflink/bin/*
    local mvn_log="$FLINK_BASE/install.log"
    mkdir -p "$tmp/maven"
    if ! mvn -B -q -f "$POM" dependency:copy -DoutputDirectory="$tmp/maven" >"$mvn_log" 2>&1; then
      cat "$mvn_log" >&2; rm -rf "$tmp"; die "mvn dependency:copy failed (log: $mvn_log)"
    fi
    rm -f "$mvn_log"
    mv "$tmp"/maven/flink-sql-connector-kafka-*.jar "$tmp/pyflink/lib/"
    mv "$tmp"/maven/flink-sql-gateway-*.jar "$tmp/pyflink/opt/"
    stamp > "$tmp/pyflink/.installed"
    rm -rf "$FLINK_HOME"
    mv "$tmp/pyflink" "$FLINK_HOME"
    rm -rf "$tmp"
  fi
  # karrow's sql bundle: refreshed on every install, so lib/ holds the jar `make jar` built last.
  rm -f "$FLINK_HOME"/lib/karrow-sql-connector-kafka-*.jar
  cp "$jar" "$FLINK_HOME/lib/"
}

# ---------------------------------------------------------------- helpers

alive() {
  local st; st="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  st="${st##*) }"
  [[ "${st%% *}" != Z ]]
}

# Pid from pid file $1 if that process is alive and is a Flink JVM of this instance.
running_pid() {
  local f="$PIDS/$1.pid" pid
  [[ -f "$f" ]] || return 1
  pid="$(cat "$f" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  alive "$pid" || return 1
  # The JVM names this instance's dirs; before its exec it is one of Flink's bin/ scripts.
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q -e "$INSTANCE/" -e "$FLINK_HOME/bin/" || return 1
  echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

rest() { curl -fsS --max-time 5 "http://$HOST:$FLINK_REST_PORT$1"; }

registered_tms() {
  rest /taskmanagers 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["taskmanagers"]))' 2>/dev/null || echo 0
}

write_conf() {
  rm -rf "$CONF"; mkdir -p "$CONF" "$LOGS" "$PIDS" "$INSTANCE/checkpoints" "$INSTANCE/savepoints" "$INSTANCE/tmp"
  cp "$FLINK_HOME"/conf/log4j*.properties "$CONF/"
  # The distribution's own Java 17 flags (env.java.opts.all), kept as shipped.
  local java_opts
  java_opts="$(sed -n 's/^ *all: *\(--add-.*\)$/\1/p' "$FLINK_HOME/conf/config.yaml" | head -n1)"
  [[ -n "$java_opts" ]] || die "no env.java.opts.all in the distribution's config.yaml"
  cat > "$CONF/config.yaml" <<EOF
# Written by tests/services/flink-cluster.sh start; edit that script, not this file.
env.java.opts.all: $java_opts -XX:-UsePerfData
env.log.dir: $LOGS
env.pid.dir: $PIDS/flink
io.tmp.dirs: $INSTANCE/tmp
jobmanager.rpc.address: $HOST
jobmanager.bind-host: $HOST
jobmanager.rpc.port: $FLINK_RPC_PORT
jobmanager.memory.process.size: $FLINK_JM_MEMORY
jobmanager.execution.failover-strategy: region
blob.server.port: $FLINK_BLOB_PORT
rest.address: $HOST
rest.bind-address: $HOST
rest.port: $FLINK_REST_PORT
taskmanager.host: $HOST
taskmanager.bind-host: $HOST
taskmanager.rpc.port: $FLINK_TM_RPC_PORTS
taskmanager.numberOfTaskSlots: 2
taskmanager.memory.process.size: $FLINK_TM_MEMORY
taskmanager.memory.managed.size: 128m
metrics.internal.query-service.port: $FLINK_QUERY_PORTS
metrics.reporter.prom.factory.class: org.apache.flink.metrics.prometheus.PrometheusReporterFactory
metrics.reporter.prom.port: $FLINK_PROM_PORTS
parallelism.default: 1
# Clients (sql-client.sh, the SQL Gateway, bin/flink) submit to this cluster.
execution.target: remote
execution.checkpointing.dir: file://$INSTANCE/checkpoints
execution.checkpointing.savepoint-dir: file://$INSTANCE/savepoints
restart-strategy.type: fixed-delay
restart-strategy.fixed-delay.attempts: 10
restart-strategy.fixed-delay.delay: 2 s
heartbeat.timeout: 20000
sql-gateway.endpoint.rest.address: $HOST
sql-gateway.endpoint.rest.bind-address: $HOST
sql-gateway.endpoint.rest.port: $FLINK_GATEWAY_PORT
EOF
}

# launch NAME CMD...: runs CMD (a Flink script that execs its JVM) in its own session; the pid
# file holds the JVM's pid.
launch() {
  local name="$1"; shift
  setsid bash -c 'echo $$ > "$1"; shift; exec "$@"' _ "$PIDS/$name.pid" \
    env FLINK_CONF_DIR="$CONF" FLINK_LOG_DIR="$LOGS" FLINK_PID_DIR="$PIDS/flink" FLINK_IDENT_STRING="$name" \
    "$@" >>"$LOGS/$name.out" 2>&1 </dev/null 9>&- &
  disown || true
}

start_tm() { # $1 = 1|2
  running_pid "tm-$1" >/dev/null && return 0
  launch "tm-$1" "$FLINK_HOME/bin/taskmanager.sh" start-foreground \
    -D "taskmanager.resource-id=tm-$1" \
    -D "taskmanager.data.port=$(( FLINK_TM_DATA_PORT_BASE == 0 ? 0 : FLINK_TM_DATA_PORT_BASE + $1 ))"
}

wait_for() { # $1 description, $2 command
  local deadline=$((SECONDS + FLINK_START_TIMEOUT))
  while (( SECONDS < deadline )); do
    eval "$2" && return 0
    local n
    for n in jobmanager tm-1 tm-2 sql-gateway; do
      if [[ -f "$PIDS/$n.pid" ]] && ! alive "$(cat "$PIDS/$n.pid")"; then
        echo "flink-cluster.sh: $n exited during startup; its log tail:" >&2
        tail -n 30 "$LOGS"/*"$n"*.log "$LOGS/$n.out" 2>/dev/null >&2 || true
        return 1
      fi
    done
    sleep 0.5
  done
  echo "flink-cluster.sh: $1 not reached after ${FLINK_START_TIMEOUT}s" >&2
  return 1
}

# ---------------------------------------------------------------- commands

cmd_start() {
  cmd_install
  lock "$INSTANCE/lock"
  if running_pid jobmanager >/dev/null && [[ "$(registered_tms)" == 2 ]] && running_pid sql-gateway >/dev/null; then
    echo "flink cluster ready: REST http://$HOST:$FLINK_REST_PORT, SQL Gateway http://$HOST:$FLINK_GATEWAY_PORT"
    return 0
  fi
  stop_all
  local p
  for p in "$FLINK_REST_PORT" "$FLINK_RPC_PORT" "$FLINK_BLOB_PORT" "$FLINK_GATEWAY_PORT"; do
    port_open "$p" && die "port $HOST:$p is already in use by another process"
  done
  write_conf
  rm -f "$LOGS"/*
  launch jobmanager "$FLINK_HOME/bin/jobmanager.sh" start-foreground
  start_tm 1
  start_tm 2
  if ! wait_for "2 TaskManagers registered" '[[ "$(registered_tms)" == 2 ]]'; then
    stop_all; exit 1
  fi
  # The gateway submits to the cluster named in config.yaml (remote execution target).
  launch sql-gateway "$FLINK_HOME/bin/sql-gateway.sh" start-foreground \
    -Drest.address=$HOST -Drest.port="$FLINK_REST_PORT"
  if ! wait_for "SQL Gateway" "curl -fsS --max-time 2 http://$HOST:$FLINK_GATEWAY_PORT/v1/info >/dev/null 2>&1"; then
    stop_all; exit 1
  fi
  echo "flink cluster ready: REST http://$HOST:$FLINK_REST_PORT, SQL Gateway http://$HOST:$FLINK_GATEWAY_PORT"
}

stop_one() { # $1 name, $2 signal
  local pid
  pid="$(running_pid "$1")" || { rm -f "$PIDS/$1.pid"; return 0; }
  kill "-$2" "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + 30))
  while alive "$pid" && (( SECONDS < deadline )); do sleep 0.2; done
  if alive "$pid"; then
    kill -KILL "$pid" 2>/dev/null || true
    while alive "$pid"; do sleep 0.1; done
  fi
  rm -f "$PIDS/$1.pid"
  echo "stopped $1 (pid $pid)"
}

stop_all() {
  local n
  for n in sql-gateway tm-1 tm-2 jobmanager; do stop_one "$n" TERM; done
}

cmd_stop() {
  lock "$INSTANCE/lock"
  stop_all
}

cmd_status() {
  local n ok=0
  for n in jobmanager tm-1 tm-2 sql-gateway; do
    if pid="$(running_pid "$n")"; then echo "$n running (pid $pid)"; else echo "$n not running"; ok=1; fi
  done
  local tms; tms="$(registered_tms)"
  echo "taskmanagers registered: $tms"
  [[ "$tms" == 2 ]] || ok=1
  return $ok
}

usage() { sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[[ $# -ge 1 ]] || usage
cmd="$1"; shift
case "$cmd" in
  install)  cmd_install; echo "FLINK_HOME=$FLINK_HOME" ;;
  start)    cmd_start ;;
  stop)     cmd_stop ;;
  status)   cmd_status ;;
  kill-tm)  [[ "${1:-}" =~ ^[12]$ ]] || usage; stop_one "tm-$1" KILL ;;
  start-tm) [[ "${1:-}" =~ ^[12]$ ]] || usage; start_tm "$1" ;;
  home)     echo "$FLINK_HOME" ;;
  *) usage ;;
esac
