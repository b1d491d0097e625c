#!/usr/bin/env bash
# Installs Debian's Chromium headless shell when no browser is found (wayfarer never
# downloads one), and DejaVu Sans (fonts-dejavu-core), which numbers the clickables on
# vision prompts' screenshots. The headless shell is what wayfarer takes first: it runs the
# same steps as `chromium --headless=new` with half the CPU (docs/src/getting-started.md).
set -euo pipefail
pkgs=()
if { [ -n "${CHROME:-}" ] && [ -x "${CHROME}" ]; } || [ -x /usr/lib/chromium/chromium-headless-shell ]; then
  :
elif [ -x /usr/bin/chromium ] || [ -x /usr/bin/chromium-browser ]; then
  echo "wayfarer: using Chromium; \`apt-get install -y chromium-headless-shell\` runs the same steps with half the CPU" >&2
else
  echo "wayfarer: Chromium not found; installing Debian's chromium-headless-shell package..." >&2
  pkgs+=(chromium-headless-shell)
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
if [[ " ${pkgs[*]} " == *" chromium-headless-shell "* ]] && [ ! -x /usr/lib/chromium/chromium-headless-shell ]; then
  echo "wayfarer: Chromium install failed" >&2
  exit 2
fi
