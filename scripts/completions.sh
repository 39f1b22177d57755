#!/usr/bin/env bash
# Regenerates completions/ from the binary (a test checks they are in sync).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet
bin=target/debug/hpacalc
$bin completions bash > completions/hpacalc.bash
$bin completions zsh > completions/_hpacalc
$bin completions fish > completions/hpacalc.fish
$bin completions powershell > completions/_hpacalc.ps1
$bin completions elvish > completions/hpacalc.elv
