#!/usr/bin/env bash
# Installs what the tests of server coverage run the bundled servers with, once: Ruby
# (testapps/servers/notes.rb) and PHP with pcov (testapps/servers/php/) from Debian, and
# coverage.py for python3 (scripts/ensure-python-coverage.sh). Node comes with
# scripts/ensure-playwright.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
want=()
command -v ruby >/dev/null 2>&1 || want+=(ruby)
command -v php >/dev/null 2>&1 || want+=(php-cli)
if ! php -r 'exit(function_exists("pcov\\start") ? 0 : 1);' 2>/dev/null; then want+=(php-pcov); fi
if [ "${#want[@]}" -gt 0 ]; then
  echo "wayfarer: installing Debian's ${want[*]} (the bundled Ruby and PHP servers of the tests)..." >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -qq "${want[@]}" >/dev/null 2>&1 || {
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq "${want[@]}" >/dev/null
  }
fi
bash scripts/ensure-python-coverage.sh
