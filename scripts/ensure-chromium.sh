#!/usr/bin/env bash
# Installs Debian's Chromium when no browser is found (wayfarer never downloads one).
set -euo pipefail
if [ -n "${CHROME:-}" ] && [ -x "${CHROME}" ]; then exit 0; fi
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then exit 0; fi
echo "wayfarer: Chromium not found; installing Debian's chromium package..." >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
command -v chromium >/dev/null 2>&1 || { echo "wayfarer: Chromium install failed" >&2; exit 2; }
