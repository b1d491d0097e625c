#!/usr/bin/env bash
# Installs xmllint (Debian's libxml2-utils) when missing: the tests validate junit.xml
# against the JUnit schema with it.
set -euo pipefail
if command -v xmllint >/dev/null 2>&1; then exit 0; fi
echo "wayfarer: xmllint not found; installing libxml2-utils..." >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq libxml2-utils >/dev/null
command -v xmllint >/dev/null 2>&1 || { echo "wayfarer: xmllint install failed" >&2; exit 2; }
