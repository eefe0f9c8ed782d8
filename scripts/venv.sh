# Sourced by the scripts: make .venv and install pitable with the named extra into it.
ensure_venv() {
  local extra=$1
  local py=${PYTHON:-}
  if [ -z "$py" ]; then
    for candidate in python3.13 python3.12 python3.11 python3; do
      if command -v "$candidate" >/dev/null 2>&1 &&
        "$candidate" -c 'import sys; raise SystemExit(sys.version_info < (3, 11))' 2>/dev/null; then
        py=$candidate
        break
      fi
    done
  fi
  if [ -z "$py" ]; then
    echo "pitable needs Python 3.11 or newer; none was found on PATH" >&2
    exit 1
  fi
  if [ ! -x .venv/bin/python ]; then
    "$py" -m venv .venv
  fi
  # Reinstall only when pyproject.toml changed since the last install of this extra.
  local stamp=".venv/.installed-$extra"
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    echo "Setting up .venv with pitable[$extra] (once; pip's log: .venv/pip.log)" >&2
    if ! { .venv/bin/python -m pip install --upgrade pip &&
      .venv/bin/python -m pip install -e ".[$extra]"; } >.venv/pip.log 2>&1; then
      tail -n 30 .venv/pip.log >&2
      echo "pip could not install pitable[$extra]; the whole log is in .venv/pip.log" >&2
      exit 1
    fi
    touch "$stamp"
  fi
}
