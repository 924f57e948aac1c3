#!/usr/bin/env bash
# Builds mcphost's Rust plugins offline with Debian's toolchain and packaged
# crates: tests the guest crate (pdk/rust) and each Rust example natively,
# builds each example for wasm32-unknown-unknown --release, and copies the
# modules to OUT_DIR as <name>.wasm.
#
#   scripts/build-rust-plugins.sh OUT_DIR
#   NO_TESTS=1 scripts/build-rust-plugins.sh OUT_DIR    # build only
#
# Installs the Debian packages when they are missing (apt-get, as root or
# through sudo). No network is needed otherwise: crates come from
# /usr/share/cargo/registry through pdk/rust/debian-offline.toml.
#
# Debian's cargo and rustc are used by absolute path because a rustup
# toolchain (often first in PATH) usually lacks the wasm32 standard library,
# and mixing a newer rustc with Debian's wasm32 std does not work.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)

examples=(redact-secrets truncate read-only description-guard)
packages=(cargo rustc libstd-rust-dev-wasm32 librust-serde-dev librust-serde-derive-dev librust-serde-json-dev)
registry=/usr/share/cargo/registry

say() { printf 'build-rust-plugins: %s\n' "$*" >&2; }

have_toolchain() {
  [ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ] &&
    [ -d /usr/lib/rustlib/wasm32-unknown-unknown/lib ] &&
    compgen -G "$registry/serde-1.*" >/dev/null &&
    compgen -G "$registry/serde_derive-1.*" >/dev/null &&
    compgen -G "$registry/serde_json-1.*" >/dev/null
}

install_toolchain() {
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      say "not root and no sudo: cannot install ${packages[*]}"
      return 1
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    say "apt-get is not available (not Debian or Ubuntu?)"
    return 1
  fi
  say "installing Debian's Rust toolchain and crates: ${packages[*]}"
  # Try without a package-list refresh first: it is slow and often recent.
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${packages[@]}" >&2 ||
    { "${sudo[@]}" apt-get update >&2 &&
      "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${packages[@]}" >&2; }
}

if ! have_toolchain; then
  if ! install_toolchain || ! have_toolchain; then
    say "the Rust plugins need Debian's packages: ${packages[*]}"
    say "(Debian 12 or later; they provide rustc with the wasm32 standard library and serde offline)"
    exit 1
  fi
fi

export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
# rustup's proxies in PATH would otherwise pick the toolchain for anything
# cargo runs by name.
export PATH="/usr/bin:$PATH"
cargo_cfg="$root/pdk/rust/debian-offline.toml"
cargo() { /usr/bin/cargo --config "$cargo_cfg" "$@"; }

# Cargo.lock files are not committed: the crates come from the OS, so the
# lock would pin versions another Debian release does not have. A lock
# written by a newer cargo (format 4) cannot be read by Debian 12's cargo;
# it is derived data, so drop it.
for dir in pdk/rust "${examples[@]/#/examples/plugins/}"; do
  lock="$root/$dir/Cargo.lock"
  if [ -f "$lock" ] && grep -qE '^version = ([4-9]|[1-9][0-9])' "$lock"; then
    say "$dir/Cargo.lock is from a newer cargo; regenerating it"
    rm -f "$lock"
  fi
done

say "$(/usr/bin/cargo --version), $(/usr/bin/rustc --version)"

if [ -z "${NO_TESTS:-}" ]; then
  say "testing pdk/rust"
  (cd "$root/pdk/rust" && cargo test --quiet)
fi

for name in "${examples[@]}"; do
  dir="$root/examples/plugins/$name"
  if [ -z "${NO_TESTS:-}" ]; then
    say "testing $name"
    (cd "$dir" && cargo test --quiet)
  fi
  say "building $name for wasm32-unknown-unknown"
  # Source paths end up in panic messages inside the module: map the
  # checkout's location away, so that no path of the build machine ships.
  # (These flags replace debian-offline.toml's, so they repeat bulk-memory.)
  (cd "$dir" && CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+bulk-memory --remap-path-prefix=$root=/mcphost" \
    cargo build --quiet --release --target wasm32-unknown-unknown)
  # Cargo names the module after the crate, with '-' as '_'.
  cp "$dir/target/wasm32-unknown-unknown/release/${name//-/_}.wasm" "$out/$name.wasm"
done

for name in "${examples[@]}"; do
  printf '%s\t%s bytes\n' "$out/$name.wasm" "$(wc -c <"$out/$name.wasm")"
done
