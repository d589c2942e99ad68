#!/usr/bin/env bash
# JMH benchmarks, oracle vs native in one run: 8,192 Nexmark bids decoded from and encoded to
# Confluent Avro and JSON, and Protobuf (KARROW_JMH_FILTER=<regex> runs a subset, e.g. 'io\.karrow\.bench\.Json.*').
#
#   benches/run-jmh.sh                 build (cargo + maven), run, print msgs/s and ratios
#   benches/run-jmh.sh -f 1 -wi 5 -i 10 -w 2s -r 5s   JMH options instead of the short defaults
#   KARROW_SKIP_BUILD=1 benches/run-jmh.sh   reuse the current build
#
# The benchmark starts its own dev registry (target/release/karrow registry serve, free port).
# Raw JMH results: benches/jvm/target/jmh-result.json.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=benches/jvm-env.sh
source "$ROOT/benches/jvm-env.sh"

if [[ "${KARROW_SKIP_BUILD:-0}" != 1 ]]; then
  build_all
fi
require_build

RESULT="$ROOT/benches/jvm/target/jmh-result.json"
# Short settings that fit a 2-core machine (about 25 s per benchmark); arguments replace them.
JMH_OPTS=(-f 1 -wi 3 -i 5 -w 2s -r 3s)
[[ $# -eq 0 ]] || JMH_OPTS=("$@")
"$JAVA" "${KARROW_JVM_OPTS[@]}" -cp "$KARROW_CLASSPATH" org.openjdk.jmh.Main \
  "${KARROW_JMH_FILTER:-io\.karrow\.bench\.(AvroConfluent|Json)(De|En)codeBenchmark\..*}" \
  -t 1 -rf json -rff "$RESULT" "${JMH_OPTS[@]}"

python3 - "$RESULT" <<'EOF'
import json, sys
results = {}
for r in json.load(open(sys.argv[1])):
    cls, name = r["benchmark"].rsplit(".", 2)[1:]
    results.setdefault(cls, {})[name] = r["primaryMetric"]
for cls, what in (("AvroConfluentDecodeBenchmark", "decode 8,192 Nexmark bids into Flink rows"),
                  ("AvroConfluentEncodeBenchmark", "encode 8,192 Nexmark bid rows into Confluent Avro"),
                  ("JsonDecodeBenchmark", "decode 8,192 JSON Nexmark bids into Flink rows (oracle: flink-json's default decoder)"),
                  ("JsonEncodeBenchmark", "encode 8,192 Nexmark bid rows into JSON (oracle: flink-json)"),
                  ("ProtobufDecodeBenchmark", "decode 8,192 Protobuf Nexmark bids into Flink rows (oracle: flink-protobuf)"),
                  ("ProtobufEncodeBenchmark", "encode 8,192 Nexmark bid rows into Protobuf (oracle: flink-protobuf)"),
                  ("ProtobufOrderDecodeBenchmark", "decode 8,192 nested Protobuf orders into Flink rows (oracle: flink-protobuf)"),
                  ("ProtobufOrderEncodeBenchmark", "encode 8,192 nested order rows into Protobuf (oracle: flink-protobuf)")):
    if cls not in results:
        continue
    rs = results[cls]
    print()
    print(f"{cls}: {what}, messages/s")
    for name in ("oracle", "nativePerRecord", "nativeBatch"):
        if name in rs:
            m = rs[name]
            err = m["scoreError"]
            err = f"+- {err:,.0f}" if isinstance(err, (int, float)) else "single iteration"
            print(f"  {name:16s} {m['score']:>14,.0f} msgs/s  ({err})")
    oracle = rs.get("oracle")
    if oracle:
        for name in ("nativePerRecord", "nativeBatch"):
            if name in rs:
                print(f"  {name} / oracle: {rs[name]['score'] / oracle['score']:.2f}x")
EOF
