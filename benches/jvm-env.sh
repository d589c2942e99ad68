# Shared by benches/run-jmh.sh and benches/run-demo.sh (sourced, not run): the build, the
# classpath and the JVM flags of the JVM benchmarks. Expects $ROOT (the repository root).

if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
  JAVA="$JAVA_HOME/bin/java"
else
  JAVA="${JAVA:-java}"
fi

KARROW_NATIVE_LIB="$ROOT/target/release/libkarrow_native.so"
KARROW_BIN="$ROOT/target/release/karrow"
KARROW_CP_FILE="$ROOT/benches/jvm/target/classpath.txt"

# Release native library and dev-registry binary, then the connector (jar + test-jar) and benches.
build_all() {
  echo "building: cargo build --release -p karrow-native -p karrow" >&2
  cargo build --release -p karrow-native -p karrow
  echo "building: mvn -q -f pom.xml -DskipTests package" >&2
  mvn -q -B -f "$ROOT/pom.xml" -DskipTests package
}

require_build() {
  local f
  for f in "$KARROW_NATIVE_LIB" "$KARROW_BIN" "$KARROW_CP_FILE" "$ROOT/benches/jvm/target/classes/META-INF/BenchmarkList"; do
    [[ -e "$f" ]] || { echo "missing $f: run without KARROW_SKIP_BUILD=1 to build it" >&2; exit 1; }
  done
  KARROW_CLASSPATH="$ROOT/benches/jvm/target/classes:$(cat "$KARROW_CP_FILE")"
}

# Java 17 opens Flink (Kryo, the MiniCluster) and Arrow need; JMH forks inherit these flags.
KARROW_JVM_OPTS=(
  -Xmx2g
  "-Dkarrow.native.library=$KARROW_NATIVE_LIB"
  "-Dkarrow.registry.binary=$KARROW_BIN"
  --add-opens=java.base/java.util=ALL-UNNAMED
  --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.text=ALL-UNNAMED
  --add-opens=java.base/java.time=ALL-UNNAMED
  --add-opens=java.base/java.math=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED
  --add-opens=java.sql/java.sql=ALL-UNNAMED
)
