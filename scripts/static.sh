#!/usr/bin/env bash
# The statically linked hpacalc of the Containerfile and the release, built here and checked:
#   scripts/static.sh
# Builds `--release` into target/static/: for x86_64-unknown-linux-musl when musl-gcc is
# installed (ring compiles C for the target and looks for a musl compiler; `rustup target add`
# the target first when missing), else for x86_64-unknown-linux-gnu linked statically
# (`-C target-feature=+crt-static`, glibc's libc.a). Then runs the deploy tests with it: it answers
# the README example as the test build does and needs no dynamic loader; where podman is
# installed, `podman build` makes the Containerfile's image from it. A cold release build takes
# minutes: .ci/run leaves it out.
set -euo pipefail
cd "$(dirname "$0")/.."

if command -v musl-gcc >/dev/null 2>&1; then
  target=x86_64-unknown-linux-musl
  if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
    rustup target add "$target"
  fi
  export CC_x86_64_unknown_linux_musl=musl-gcc
else
  echo "note: musl-gcc is not installed: building a static glibc binary (+crt-static)" >&2
  target=x86_64-unknown-linux-gnu
  # With --target, RUSTFLAGS reach only the target's crates, not the build scripts and macros.
  static_flags="-C target-feature=+crt-static"
fi
RUSTFLAGS="${RUSTFLAGS:-} ${static_flags:-}" CARGO_TARGET_DIR=target/static \
  cargo build --release --locked --bin hpacalc --target "$target"
binary="$PWD/target/static/$target/release/hpacalc"
HPACALC_STATIC_BIN="$binary" cargo test --locked --test integration deploy:: -- --nocapture
