#!/usr/bin/env bash
# Speed and memory of one decision on a whole namespace, side by side with jq and Python only
# parsing the same files. Prints a Markdown table and the ratios.
#   benches/bench.sh                 # 1,000, 10,000 and 100,000 pods
#   SIZES="1000 10000" RUNS=5 benches/bench.sh
# Needs jq and python3; uses GNU time (/usr/bin/time) for peak RSS. Best of RUNS runs.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${SIZES:-"1000 10000 100000"}
runs=${RUNS:-3}
cargo build --release --quiet --example generate_capture
cargo build --release --quiet
bin=target/release/hpacalc
now=2026-11-29T15:00:00Z

# best_of CMD...: prints "seconds peak_rss_kib" of the fastest run.
best_of() {
  local best_t="" best_m="" out
  out=$(mktemp)
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$out" "$@" >/dev/null 2>&1
    local t m
    read -r t m < "$out"
    if [ -z "$best_t" ] || awk "BEGIN{exit !($t < $best_t)}"; then best_t=$t; best_m=$m; fi
  done
  rm -f "$out"
  echo "$best_t $best_m"
}

echo "| pods | input | hpacalc decision | jq parse only | python parse only | hpacalc / jq time | hpacalc RSS / input |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for n in $sizes; do
  dir=target/bench/$n
  if [ ! -f "$dir/pods.json" ]; then
    target/release/examples/generate_capture "$n" "$dir"
  fi
  bytes=$(( $(stat -c %s "$dir/pods.json") + $(stat -c %s "$dir/metrics.json") ))
  read -r ht hm < <(best_of "$bin" --hpa "$dir/hpa.yaml" --pods "$dir/pods.json" --metrics "$dir/metrics.json" --now "$now" -o json)
  read -r jt jm < <(best_of jq -c . "$dir/pods.json" "$dir/metrics.json")
  read -r pt pm < <(best_of python3 -c 'import json,sys; [json.load(open(f)) for f in sys.argv[1:]]' "$dir/pods.json" "$dir/metrics.json")
  awk -v n="$n" -v b="$bytes" -v ht="$ht" -v hm="$hm" -v jt="$jt" -v jm="$jm" -v pt="$pt" -v pm="$pm" 'BEGIN {
    mb = b / 1048576;
    printf "| %d | %.1f MB | %.3f s, %.0f MB | %.3f s, %.0f MB | %.3f s, %.0f MB | %.2f | %.2f |\n",
      n, mb, ht, hm/1024, jt, jm/1024, pt, pm/1024, (jt > 0 ? ht/jt : 0), hm/1024/mb
  }'
done

# One small decision (the README example), including process start: mean of 200 runs.
python3 - "$bin" "$now" <<'PY'
import subprocess, sys, time
bin, now = sys.argv[1], sys.argv[2]
args = [bin, "--hpa", "fixtures/hpa/web-cpu.yaml", "--pods", "fixtures/samples/web-cpu.csv", "--now", now, "-o", "json"]
subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
start = time.perf_counter()
for _ in range(200):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
print(f"\nREADME example, one decision including process start: {(time.perf_counter() - start) / 200 * 1000:.2f} ms")
PY
