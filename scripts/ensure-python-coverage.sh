#!/usr/bin/env bash
# Installs coverage.py for the python3 on PATH when it lacks it, once: the tests read the
# bundled Python server's coverage (testapps/servers/notes.py, `[server] coverage`).
# Debian's python3 gets Debian's package; another Python (pyenv, a venv) gets it from PyPI.
set -euo pipefail
if python3 -c 'import coverage' 2>/dev/null; then exit 0; fi
py=$(readlink -f "$(command -v python3)")
if [[ "$py" == /usr/bin/* ]] && command -v apt-get >/dev/null 2>&1; then
  echo "wayfarer: installing Debian's python3-coverage (coverage.py for the tests)..." >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -qq python3-coverage >/dev/null 2>&1 || {
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq python3-coverage >/dev/null
  }
else
  echo "wayfarer: installing coverage.py into $py from PyPI (for the tests)..." >&2
  python3 -m pip install --quiet "coverage>=6.5,<8"
fi
python3 -c 'import coverage' || {
  echo "wayfarer: coverage.py is still not importable by python3" >&2
  exit 2
}
