#!/usr/bin/env bash
# The statically linked hpacalc of the Containerfile and the release, built here and checked:
#   scripts/static.sh
# Builds `--release` for x86_64-unknown-linux-musl (`rustup target add` it first when missing)
# into target/static/, then runs the deploy tests with it: it answers the README example as the
# test build does and needs no dynamic loader; where podman is installed, `podman build` makes
# the Containerfile's image from it. A cold release build takes minutes: .ci/run leaves it out.
set -euo pipefail
cd "$(dirname "$0")/.."

target=x86_64-unknown-linux-musl
if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
  rustup target add "$target"
fi
CARGO_TARGET_DIR=target/static cargo build --release --locked --bin hpacalc --target "$target"
binary="$PWD/target/static/$target/release/hpacalc"
HPACALC_STATIC_BIN="$binary" cargo test --locked --test integration deploy:: -- --nocapture
