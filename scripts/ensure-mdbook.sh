#!/usr/bin/env bash
# Installs mdBook (from crates.io, pinned) when missing: CI builds the book in docs/ with
# it. Without its default features (a local server, file watching): `mdbook build` only,
# which keeps the install to about two minutes on 2 cores (2m12 measured, 2026-11-29).
set -euo pipefail
version="0.5.4"
if command -v mdbook >/dev/null 2>&1 && mdbook --version | grep -q "v$version"; then exit 0; fi
echo "wayfarer: mdbook $version not found; installing it with cargo..." >&2
cargo install mdbook --version "$version" --locked --no-default-features --quiet
command -v mdbook >/dev/null 2>&1 || {
  echo "wayfarer: mdbook is installed in ~/.cargo/bin, which is not on PATH" >&2
  exit 2
}
