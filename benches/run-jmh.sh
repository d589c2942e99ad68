#!/usr/bin/env bash
# JMH benchmarks, oracle vs native in one run: 8,192 Nexmark bids decoded from and encoded to
# Confluent Avro and JSON, and Protobuf (KARROW_JMH_FILTER=<regex> runs a subset, e.g. 'io\.karrow\.bench\.Json.*').
#
#   benches/run-jmh.sh                 build (cargo + maven), run, print msgs/s and ratios
#   benches/run-jmh.sh -f 1 -wi 5 -i 10 -w 2s -r 5s   JMH options instead of the short defaults
#   KARROW_SKIP_BUILD=1 benches/run-jmh.sh   reuse the current build
#   KARROW_JMH_ROUNDS=5 benches/run-jmh.sh   five whole JMH runs one after the other: a ratio per
#                                            run, then their median and range (on a shared VM
#                                            scores move by a third within minutes, and one
#                                            run's ratio can land anywhere in that range)
#
# The benchmark starts its own dev registry (target/release/karrow registry serve, free port).
# Raw JMH results: benches/jvm/target/jmh-result.json (round r of several: jmh-result-r.json).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=benches/jvm-env.sh
source "$ROOT/benches/jvm-env.sh"

if [[ "${KARROW_SKIP_BUILD:-0}" != 1 ]]; then
  build_all
fi
require_build

ROUNDS="${KARROW_JMH_ROUNDS:-1}"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "KARROW_JMH_ROUNDS must be a positive integer" >&2; exit 2; }
# Short settings that fit a 2-core machine (about 25 s per benchmark); arguments replace them.
JMH_OPTS=(-f 1 -wi 3 -i 5 -w 2s -r 3s)
[[ $# -eq 0 ]] || JMH_OPTS=("$@")
RESULTS=()
for ((round = 1; round <= ROUNDS; round++)); do
  if [[ "$ROUNDS" -eq 1 ]]; then
    RESULT="$ROOT/benches/jvm/target/jmh-result.json"
  else
    RESULT="$ROOT/benches/jvm/target/jmh-result-$round.json"
    echo "== JMH round $round of $ROUNDS" >&2
  fi
  "$JAVA" "${KARROW_JVM_OPTS[@]}" -cp "$KARROW_CLASSPATH" org.openjdk.jmh.Main \
    "${KARROW_JMH_FILTER:-io\.karrow\.bench\.(AvroConfluent|Json)(De|En)codeBenchmark\..*}" \
    -t 1 -rf json -rff "$RESULT" "${JMH_OPTS[@]}"
  RESULTS+=("$RESULT")
done

python3 - "${RESULTS[@]}" <<'EOF'
import json, statistics, sys
# results[cls][name]: the primary metric of each run, in run order.
results = {}
for path in sys.argv[1:]:
    for r in json.load(open(path)):
        cls, name = r["benchmark"].rsplit(".", 2)[1:]
        results.setdefault(cls, {}).setdefault(name, []).append(r["primaryMetric"])
rounds = len(sys.argv) - 1
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
    print(f"{cls}: {what}, messages/s" + (f", median of {rounds} runs" if rounds > 1 else ""))
    for name in ("oracle", "nativePerRecord", "nativeBatch"):
        if name in rs:
            ms = rs[name]
            if rounds > 1:
                scores = [m["score"] for m in ms]
                spread = f"runs {min(scores):,.0f} .. {max(scores):,.0f}"
                print(f"  {name:16s} {statistics.median(scores):>14,.0f} msgs/s  ({spread})")
            else:
                err = ms[0]["scoreError"]
                err = f"+- {err:,.0f}" if isinstance(err, (int, float)) else "single iteration"
                print(f"  {name:16s} {ms[0]['score']:>14,.0f} msgs/s  ({err})")
    oracle = rs.get("oracle")
    if oracle:
        for name in ("nativePerRecord", "nativeBatch"):
            if name in rs and len(rs[name]) == len(oracle):
                # One ratio per run: both sides measured in the same JMH run.
                ratios = [n["score"] / o["score"] for n, o in zip(rs[name], oracle)]
                if rounds > 1:
                    listed = " ".join(f"{r:.2f}" for r in ratios)
                    print(f"  {name} / oracle: {statistics.median(ratios):.2f}x median (runs: {listed})")
                else:
                    print(f"  {name} / oracle: {ratios[0]:.2f}x")
EOF
