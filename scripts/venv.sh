# Sourced by the scripts (with the source directory as the working directory): make .venv
# and install pitable with the named extra into it. Each step of the set-up is one line on
# stderr, with pip's "Collecting" and "Installing" lines as its progress; the whole of pip's
# output goes to .venv/pip.log. When the venv is already current nothing is printed.

# Lines on stderr, so that `scripts/pitable ... --json` keeps stdout for its answer.
say() {
  echo "set-up: $*" >&2
}

# The extra's install is current: done since pyproject.toml last changed. The test extra
# holds the sim extra, so a venv set up for the tests serves the simulator too.
venv_current() {
  local extra
  for extra in "$@"; do
    local stamp=".venv/.installed-$extra"
    if [ -x .venv/bin/python ] && [ -f "$stamp" ] && [ ! pyproject.toml -nt "$stamp" ]; then
      return 0
    fi
  done
  return 1
}

# pip, with its progress lines indented on stderr and everything it says in .venv/pip.log.
# pip draws no progress bar when its output is not a terminal, so its per-package lines
# are the progress there is. Returns pip's own exit status.
pip_step() {
  .venv/bin/python -m pip "$@" 2>&1 | tee -a .venv/pip.log |
    awk '/^(Collecting|Installing collected packages)/ { print "    " $0; fflush() }' >&2
  return "${PIPESTATUS[0]}"
}

# ensure_venv EXTRA TAKES: TAKES says how long the first set-up takes ("1 to 4 minutes").
ensure_venv() {
  local extra=$1 takes=$2
  if [ "$extra" = sim ] && venv_current sim test; then
    return 0
  elif venv_current "$extra"; then
    return 0
  fi
  local started=$SECONDS
  say "installing pitable[$extra] into .venv/ (the first time takes $takes; pip's log: .venv/pip.log)"
  local py=${PYTHON:-} new_enough='import sys; raise SystemExit(sys.version_info < (3, 11))'
  if [ -n "$py" ] && ! "$py" -c "$new_enough" 2>/dev/null; then
    echo "PYTHON=$py is not a Python 3.11 or newer that runs here" >&2
    exit 1
  fi
  if [ -z "$py" ]; then
    for candidate in python3.13 python3.12 python3.11 python3; do
      if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c "$new_enough" 2>/dev/null; then
        py=$candidate
        break
      fi
    done
  fi
  if [ -z "$py" ]; then
    echo "pitable needs Python 3.11 or newer; none was found on PATH (or set PYTHON=/path/to/python3)" >&2
    exit 1
  fi
  say "Python: $(command -v "$py") ($("$py" -c 'import platform; print(platform.python_version())'))"
  if [ ! -x .venv/bin/python ]; then
    say "making the virtual environment .venv/"
    if ! "$py" -m venv .venv; then
      echo "$py could not make .venv; its own message above says why" >&2
      exit 1
    fi
  fi
  : >.venv/pip.log
  say "upgrading pip"
  if ! pip_step install --upgrade pip; then
    tail -n 30 .venv/pip.log >&2
    echo "pip could not upgrade itself; the whole log is in .venv/pip.log" >&2
    exit 1
  fi
  say "installing pitable[$extra] and the libraries it needs"
  if ! pip_step install -e ".[$extra]"; then
    tail -n 30 .venv/pip.log >&2
    echo "pip could not install pitable[$extra]; the whole log is in .venv/pip.log" >&2
    exit 1
  fi
  touch ".venv/.installed-$extra"
  say "done in $((SECONDS - started)) s; from now on .venv/ is used as it is"
}
