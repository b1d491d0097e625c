#!/usr/bin/env python3
"""Dependencies a workspace crate declares and its code never names (issue 76's count).

    python3 scripts/unused-deps.py        # exit 1 when it finds any

For each Cargo.toml under crates/ and testapps/: a [dependencies] entry whose Rust name
(dashes as underscores, or the `package` rename's key) appears nowhere in the crate's
src/ as a word; a [dev-dependencies] entry nowhere in src/, tests/, benches/ or examples/;
a [build-dependencies] entry nowhere in build.rs. A word match is what cargo-machete does
too: a name in a comment counts as a use, so this can miss a dependency, never invent one.
"""
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WHERE = {
    "dependencies": ["src"],
    "dev-dependencies": ["src", "tests", "benches", "examples"],
    "build-dependencies": ["build.rs"],
}


def unused(manifest):
    crate = manifest.parent
    spec = tomllib.loads(manifest.read_text())
    for section, places in WHERE.items():
        paths = [str(crate / p) for p in places if (crate / p).exists()]
        for name in spec.get(section) or {}:
            ident = name.replace("-", "_")
            found = paths and subprocess.run(
                ["grep", "-rqw", "--include=*.rs", ident, *paths]).returncode == 0
            if not found:
                yield section, name


def main():
    manifests = sorted(ROOT.glob("crates/*/Cargo.toml")) + [ROOT / "testapps/Cargo.toml"]
    found = [(m.relative_to(ROOT), s, n) for m in manifests for s, n in unused(m)]
    for manifest, section, name in found:
        print(f"{manifest}: [{section}] {name} is never named in the crate's code")
    print(f"{len(found)} unused dependencies in {len(manifests)} crates")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
