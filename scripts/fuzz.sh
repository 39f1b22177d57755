#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for a bounded time each and prints the executions.
#   scripts/fuzz.sh [SECONDS] [TARGET...]      default: 600 seconds, every target in fuzz/
#   NO_BUILD=1 scripts/fuzz.sh ...             run the binaries already built
# Needs cargo-fuzz (`cargo install cargo-fuzz`). The machine's one toolchain is stable, so
# RUSTC_BOOTSTRAP=1 lets cargo-fuzz use the sanitizer flags it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz list)
fi
export RUSTC_BOOTSTRAP=1
# Build once, then run the binaries: `cargo fuzz run` would rebuild whenever a source changes.
[ -n "${NO_BUILD:-}" ] || cargo fuzz build -O
bin_dir=fuzz/target/x86_64-unknown-linux-gnu/release
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t" fuzz/artifacts
  log=$(mktemp)
  if "$bin_dir/$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -max_total_time="$secs" -print_final_stats=1 \
      -artifact_prefix="fuzz/artifacts/$t-" -rss_limit_mb=2048 >"$log" 2>&1; then
    execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
    echo "$t: clean, ${execs:-?} executions in ${secs}s"
  else
    echo "$t: FAILED (crash or error); last lines:"
    tail -30 "$log"
    exit 1
  fi
  rm -f "$log"
done
