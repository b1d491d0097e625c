# What realapps/bench.sh and realapps/ab.sh share; sourced, from the repository's root.

# The build the results belong to: the last commit that changed what the binary is built
# from, or the apps' configs (not the commit that adds the results). Sets `rev`; exits
# when that code has uncommitted changes. $1: the calling script, for the message.
code_rev() {
  local code=(crates testapps Cargo.toml Cargo.lock 'realapps/*.toml')
  rev=$(git log -1 --format=%h -- "${code[@]}")
  if [ -n "$(git status --porcelain --untracked-files=no -- "${code[@]}")" ]; then
    echo "$1: the code has uncommitted changes; commit them so the results name the build" >&2
    exit 2
  fi
}

# The applications named, else those of apps.toml in its order. Sets `apps`.
app_list() {
  apps=("$@")
  if [ "${#apps[@]}" -eq 0 ]; then
    mapfile -t apps < <(sed -n 's/^name = "\(.*\)"/\1/p' realapps/apps.toml)
  fi
}

# Install each application of `apps` (its scripts here, as wordpress's, else the shared
# set's), and coverage.py into a Python application's own environment, where its server
# coverage is read. $1: the calling script, for the message.
install_apps() {
  local a install venv_py
  for a in "${apps[@]}"; do
    install="realapps/$a/install.sh"
    [ -f "$install" ] || install="$WAYFARER_REALAPPS/$a/install.sh"
    bash "$install" >/dev/null || { echo "install of $a failed" >&2; exit 2; }
    venv_py="${REALAPPS_PREFIX:-/opt/realapps}/$a/venv/bin/python"
    if grep -q '^coverage = "python"' "realapps/$a.toml" && [ -x "$venv_py" ] \
      && ! "$venv_py" -c 'import coverage' 2>/dev/null; then
      echo "$1: installing coverage.py into $a's environment" >&2
      "$venv_py" -m pip install --quiet "coverage==7.6.1" || { echo "coverage.py for $a failed" >&2; exit 2; }
    fi
  done
}
