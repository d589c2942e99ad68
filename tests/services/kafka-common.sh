# shellcheck shell=bash
# What kafka.sh (one broker) and kafka-cluster.sh (three nodes) share: the JVM, process checks, the
# log4j configuration, KRaft cluster ids and the tools' classpath. Sourced by both (after they set
# KAFKA_HOST and LIBS), never run.

if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
  JAVA="$JAVA_HOME/bin/java"
else
  JAVA="${JAVA:-java}"
fi

# A process exists and is not a zombie (kill -0 succeeds on an unreaped zombie).
alive() {
  local st; st="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  st="${st##*) }"
  [[ "${st%% *}" != Z ]]
}

# The pid in pid file $1 if that process is alive and really is a Kafka JVM, else nothing.
kafka_pid() {
  [[ -f "$1" ]] || return 1
  local pid; pid="$(cat "$1" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  alive "$pid" || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka' || return 1
  echo "$pid"
}

# Sends signal $2 to pid $1 and waits until it is gone, sending KILL after $3 seconds (saying so
# on stderr, naming it $4).
stop_and_wait() {
  local pid="$1" signal="$2" timeout="$3" what="$4"
  kill "-$signal" "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + timeout))
  while alive "$pid" && (( SECONDS < deadline )); do sleep 0.1; done
  if alive "$pid"; then
    echo "$what (pid $pid) ignored $signal for ${timeout}s, sending KILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
    while alive "$pid"; do sleep 0.1; done
  fi
}

port_open() { (exec 3<>"/dev/tcp/$KAFKA_HOST/$1") 2>/dev/null; }

# A Kafka cluster id is 16 random bytes in URL-safe base64 without padding (22 chars).
# Kafka's own generator avoids a leading '-' so the id never looks like an option.
new_cluster_id() {
  local id
  while :; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    [[ "$id" != -* ]] && { echo "$id"; return; }
  done
}

write_log4j() { # $1 file, $2 root level
  cat > "$1" <<EOF_LOG4J
status = warn
appender.console.type = Console
appender.console.name = STDOUT
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = $2
rootLogger.appenderRef.console.ref = STDOUT
logger.request.name = kafka.request.logger
logger.request.level = warn
logger.authorizer.name = kafka.authorizer.logger
logger.authorizer.level = warn
EOF_LOG4J
}

# JVM flags shared by the brokers and the tools. No hsperfdata files in /tmp.
jvm_common() { echo "-XX:-UsePerfData -Djava.awt.headless=true"; }

# Formats KRaft storage: $1 log4j file, $2 log to append the output to, $3 the JVM's
# java.io.tmpdir (empty: the default), then StorageTool format's arguments.
format_storage() {
  local log4j="$1" log="$2" tmp="$3"; shift 3
  # shellcheck disable=SC2207
  local jvm=($(jvm_common))
  [[ -z "$tmp" ]] || jvm+=(-Djava.io.tmpdir="$tmp")
  "$JAVA" "${jvm[@]}" -XX:TieredStopAtLevel=1 -Xmx256m -cp "$LIBS/*" \
    -Dlog4j2.configurationFile="$log4j" kafka.tools.StorageTool format "$@" >>"$log" 2>&1
}

# Runs (execs) main class $2 of the broker classpath with arguments $3..., logging through the
# warn-level log4j file $1 (written when missing).
exec_class() {
  local tools_log4j="$1" cls="$2"; shift 2
  mkdir -p "$(dirname "$tools_log4j")"
  [[ -f "$tools_log4j" ]] || write_log4j "$tools_log4j" warn
  # shellcheck disable=SC2046
  exec "$JAVA" $(jvm_common) -XX:TieredStopAtLevel=1 -Xmx256m \
    -Dlog4j2.configurationFile="$tools_log4j" -cp "$LIBS/*" "$cls" "$@"
}
