#!/usr/bin/env bash
# `hpacalc audit` on a generated cluster dump (examples/generate_cluster.rs), side by side with
# `jq -c .` only parsing the same files; then checks that every planted problem is found where it was
# planted and nothing else. Prints a Markdown table and the ratios.
#   benches/audit.sh                               # 150,000 pods, 3,000 HPAs, 5,000 nodes
#   PODS=10000 HPAS=300 NODES=400 benches/audit.sh
# Needs jq and python3; uses GNU time (/usr/bin/time) for peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
pods=${PODS:-150000}
hpas=${HPAS:-3000}
nodes=${NODES:-5000}
cargo build --release --quiet --example generate_cluster
cargo build --release --quiet
bin=target/release/hpacalc
dir=target/bench/cluster-$pods
if [ ! -f "$dir/planted.json" ]; then
  target/release/examples/generate_cluster "$pods" "$hpas" "$nodes" "$dir"
fi
files=("$dir/cluster.json" "$dir/metrics.json" "$dir/nodes.json")
bytes=0
for f in "${files[@]}"; do bytes=$(( bytes + $(stat -c %s "$f") )); done

measure() { # prints "seconds peak_rss_kib"
  local out
  out=$(mktemp)
  /usr/bin/time -f "%e %M" -o "$out" "$@" >/dev/null 2>&1 || true
  cat "$out"
  rm -f "$out"
}
read -r ht hm < <(measure "$bin" audit --cluster "$dir/cluster.json" --metrics "$dir/metrics.json" --nodes "$dir/nodes.json" -o json)
read -r jt jm < <(measure jq -c . "${files[@]}")
echo "| pods | HPAs | nodes | input | hpacalc audit | jq -c . | audit / jq time | audit RSS / input |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
awk -v p="$pods" -v h="$hpas" -v n="$nodes" -v b="$bytes" -v ht="$ht" -v hm="$hm" -v jt="$jt" -v jm="$jm" 'BEGIN {
  mb = b / 1048576;
  printf "| %d | %d | %d | %.0f MB | %.2f s, %.0f MB | %.2f s, %.0f MB | %.2f | %.2f |\n",
    p, h, n, mb, ht, hm/1024, jt, jm/1024, (jt > 0 ? ht/jt : 0), hm/1024/mb
}'

# The planted problems, found exactly where planted.
"$bin" audit --cluster "$dir/cluster.json" --metrics "$dir/metrics.json" --nodes "$dir/nodes.json" -o json \
  | python3 -c '
import json, sys
found = sorted((f["code"], f["hpa"]) for f in json.load(sys.stdin)["findings"])
planted = sorted((p["code"], p["hpa"]) for p in json.load(open(sys.argv[1])))
if found != planted:
    print("planted problems: MISMATCH", [f for f in found if f not in planted][:5], [p for p in planted if p not in found][:5])
    sys.exit(1)
print(f"planted problems: all {len(planted)} found where planted, nothing else")
' "$dir/planted.json"
