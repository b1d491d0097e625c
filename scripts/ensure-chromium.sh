#!/usr/bin/env bash
# Installs Debian's Chromium when no browser is found (wayfarer never downloads one), and
# DejaVu Sans (fonts-dejavu-core), which numbers the clickables on vision prompts'
# screenshots.
set -euo pipefail
pkgs=()
if ! { [ -n "${CHROME:-}" ] && [ -x "${CHROME}" ]; } \
  && ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
  echo "wayfarer: Chromium not found; installing Debian's chromium package..." >&2
  pkgs+=(chromium)
fi
if [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]; then
  pkgs+=(fonts-dejavu-core)
fi
[ "${#pkgs[@]}" -eq 0 ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${pkgs[@]}" >/dev/null
if [[ " ${pkgs[*]} " == *" chromium "* ]] && ! command -v chromium >/dev/null 2>&1; then
  echo "wayfarer: Chromium install failed" >&2
  exit 2
fi
