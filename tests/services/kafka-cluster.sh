#!/usr/bin/env bash
# A real three-node Apache Kafka 4.x KRaft cluster on loopback (issue #21): every node is broker
# and controller, a static quorum of the three, the jars kafka.sh installs from Maven Central.
# See tests/services/README.md ("Kafka cluster").
#
#   kafka-cluster.sh start              format fresh storage on every node, start them, wait ready
#   kafka-cluster.sh stop               stop every node, remove the data
#   kafka-cluster.sh kill-node N        KILL node N (1..3) at once (a broker crash); data kept
#   kafka-cluster.sh stop-node N        stop node N gracefully (TERM: controlled shutdown)
#   kafka-cluster.sh start-node N       start node N again on its data, wait until it is ready
#   kafka-cluster.sh status             exit 0 if every node runs and is ready
#   kafka-cluster.sh bootstrap          print the three PLAINTEXT addresses, comma-separated
#   kafka-cluster.sh run-class CLASS [ARGS...]   any main class of the broker classpath
#
# Node N (1..3) listens on KAFKA_CLUSTER_PORT + 2(N-1) (PLAINTEXT) and the port after it
# (CONTROLLER), and has broker.rack=rack-N. The leader answers a consumer that names its rack
# (client.rack) with the replica in that rack (RackAwareReplicaSelector, KIP-392).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
KARROW_WORK="${KARROW_WORK:-$REPO_ROOT/.work}"
LIBS="$KARROW_WORK/kafka/libs"
KAFKA_CLUSTER_PORT="${KAFKA_CLUSTER_PORT:-31092}"
[[ "$KAFKA_CLUSTER_PORT" =~ ^[0-9]+$ ]] || { echo "kafka-cluster.sh: KAFKA_CLUSTER_PORT must be a number" >&2; exit 2; }
KAFKA_START_TIMEOUT="${KAFKA_START_TIMEOUT:-90}"
KAFKA_STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-30}"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms128m -Xmx384m}"
KAFKA_HOST=127.0.0.1
NODES=(1 2 3)
HOME_DIR="$KARROW_WORK/kafka/cluster-$KAFKA_CLUSTER_PORT"

# shellcheck source=tests/services/kafka-common.sh
source "$SCRIPT_DIR/kafka-common.sh"

die() { echo "kafka-cluster.sh: $*" >&2; exit 1; }

broker_port() { echo $((KAFKA_CLUSTER_PORT + 2 * ($1 - 1))); }
controller_port() { echo $((KAFKA_CLUSTER_PORT + 2 * ($1 - 1) + 1)); }
node_dir() { echo "$HOME_DIR/node-$1"; }
pid_file() { echo "$(node_dir "$1")/kafka.pid"; }
log_file() { echo "$(node_dir "$1")/kafka.log"; }

running_pid() { kafka_pid "$(pid_file "$1")"; } # $1 node

ready() { # $1 node
  port_open "$(broker_port "$1")" && grep -q 'Kafka Server started' "$(log_file "$1")" 2>/dev/null
}

check_node() { [[ "${1:-}" =~ ^[123]$ ]] || die "node must be 1, 2 or 3, got '${1:-}'"; }

lock() { mkdir -p "$HOME_DIR"; exec 9>"$HOME_DIR/lock"; flock 9; }

write_props() { # $1 node
  local n="$1" d; d="$(node_dir "$1")"
  local voters="" m
  for m in "${NODES[@]}"; do
    voters+="${voters:+,}$m@$KAFKA_HOST:$(controller_port "$m")"
  done
  local listeners="PLAINTEXT://$KAFKA_HOST:$(broker_port "$n"),CONTROLLER://$KAFKA_HOST:$(controller_port "$n")"
  # Leaders move only when a test moves them (no automatic preferred-leader rebalance). A killed
  # node is fenced after broker.session.timeout.ms (Kafka's default is 9 s).
  cat > "$d/server.properties" <<EOF
process.roles=broker,controller
node.id=$n
controller.quorum.voters=$voters
listeners=$listeners
advertised.listeners=$listeners
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$d/data
broker.rack=rack-$n
replica.selector.class=org.apache.kafka.common.replica.RackAwareReplicaSelector
num.partitions=1
default.replication.factor=3
auto.create.topics.enable=false
auto.leader.rebalance.enable=false
broker.heartbeat.interval.ms=1000
broker.session.timeout.ms=6000
offsets.topic.replication.factor=3
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=3
share.coordinator.state.topic.min.isr=2
group.initial.rebalance.delay.ms=0
log.retention.ms=-1
EOF
  write_log4j "$d/log4j2.properties" info
  write_log4j "$d/log4j2-format.properties" warn
}

launch() { # $1 node
  local n="$1" d; d="$(node_dir "$1")"
  local f; f="$(pid_file "$n")"
  rm -f "$f"
  [[ -f "$(log_file "$n")" ]] && mv "$(log_file "$n")" "$(log_file "$n").1"
  : > "$(log_file "$n")"
  # shellcheck disable=SC2207
  local jvm=($(jvm_common) -Djava.io.tmpdir="$d/tmp")
  # shellcheck disable=SC2086
  setsid bash -c 'echo $$ > "$1"; shift; exec "$@"' _ "$f" \
    "$JAVA" $KAFKA_HEAP_OPTS "${jvm[@]}" -XX:+UseG1GC -XX:TieredStopAtLevel=1 -cp "$LIBS/*" \
    -Dlog4j2.configurationFile="$d/log4j2.properties" kafka.Kafka "$d/server.properties" \
    >>"$(log_file "$n")" 2>&1 </dev/null 9>&- &
  disown || true
}

wait_ready() { # nodes...
  local deadline=$((SECONDS + KAFKA_START_TIMEOUT)) n pending
  while (( SECONDS < deadline )); do
    pending=0
    for n in "$@"; do
      if ! ready "$n"; then
        pending=1
        if [[ -f "$(pid_file "$n")" ]] && ! running_pid "$n" >/dev/null; then
          echo "kafka-cluster.sh: node $n exited during startup; last log lines:" >&2
          tail -n 40 "$(log_file "$n")" >&2 || true
          exit 1
        fi
      fi
    done
    (( pending == 0 )) && { echo "kafka cluster ready: $(bootstrap)"; return 0; }
    sleep 0.25
  done
  for n in "$@"; do
    ready "$n" || { echo "kafka-cluster.sh: node $n not ready after ${KAFKA_START_TIMEOUT}s:" >&2; tail -n 30 "$(log_file "$n")" >&2 || true; }
  done
  exit 1
}

bootstrap() {
  local out="" n
  for n in "${NODES[@]}"; do out+="${out:+,}$KAFKA_HOST:$(broker_port "$n")"; done
  echo "$out"
}

stop_node() { # $1 node, $2 signal
  local pid
  if pid="$(running_pid "$1")"; then
    stop_and_wait "$pid" "$2" "$KAFKA_STOP_TIMEOUT" "kafka-cluster.sh: node $1"
    echo "node $1 stopped (pid $pid, $2)"
  else
    echo "node $1 not running"
  fi
}

cmd_start() {
  bash "$SCRIPT_DIR/kafka.sh" install >/dev/null
  lock
  local n p all_running=1
  for n in "${NODES[@]}"; do running_pid "$n" >/dev/null || all_running=0; done
  if (( all_running )); then wait_ready "${NODES[@]}"; return 0; fi
  for n in "${NODES[@]}"; do stop_node "$n" KILL >/dev/null; done
  rm -rf -- "$HOME_DIR"/node-*
  for n in "${NODES[@]}"; do
    for p in "$(broker_port "$n")" "$(controller_port "$n")"; do
      port_open "$p" && die "port $KAFKA_HOST:$p is already in use by another process"
    done
  done
  local id; id="$(new_cluster_id)"
  for n in "${NODES[@]}"; do
    local d; d="$(node_dir "$n")"
    mkdir -p "$d/data" "$d/tmp"
    write_props "$n"
    if ! format_storage "$d/log4j2-format.properties" "$d/format.log" "" -t "$id" -c "$d/server.properties"; then
      cat "$d/format.log" >&2
      die "formatting node $n failed"
    fi
  done
  for n in "${NODES[@]}"; do launch "$n"; done
  wait_ready "${NODES[@]}"
}

cmd_stop() {
  lock
  local n
  for n in "${NODES[@]}"; do stop_node "$n" TERM; done
  rm -rf -- "$HOME_DIR"/node-*/data "$HOME_DIR"/node-*/tmp
}

cmd_start_node() {
  check_node "${1:-}"
  lock
  [[ -d "$(node_dir "$1")/data" ]] || die "node $1 has no data (start the cluster first)"
  if running_pid "$1" >/dev/null; then wait_ready "$1"; return 0; fi
  launch "$1"
  wait_ready "$1"
}

cmd_status() {
  local n rc=0
  for n in "${NODES[@]}"; do
    if running_pid "$n" >/dev/null && ready "$n"; then
      echo "node $n ready on $KAFKA_HOST:$(broker_port "$n")"
    else
      echo "node $n not ready"; rc=1
    fi
  done
  return $rc
}

cmd_run_class() {
  [[ $# -ge 1 ]] || die "usage: kafka-cluster.sh run-class CLASS [ARGS...]"
  exec_class "$HOME_DIR/log4j2-tools.properties" "$@"
}

usage() { sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[[ $# -ge 1 ]] || usage
cmd="$1"; shift
case "$cmd" in
  start)      cmd_start ;;
  stop)       cmd_stop ;;
  kill-node)  check_node "${1:-}"; lock; stop_node "$1" KILL ;;
  stop-node)  check_node "${1:-}"; lock; stop_node "$1" TERM ;;
  start-node) cmd_start_node "${1:-}" ;;
  status)     cmd_status ;;
  bootstrap)  bootstrap ;;
  run-class)  cmd_run_class "$@" ;;
  *) usage ;;
esac
