# Python >= 3.12 and .venv/ at the repo root.
_py_ok() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; }
_find_python() {
  local c
  for c in ${PYTHON:-} python3.12 python3.13 \
      "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3 \
      "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13*/bin/python3 python3; do
    c=$(command -v "$c" 2>/dev/null) || continue
    if _py_ok "$c"; then echo "$c"; return 0; fi
  done
  return 1
}
if [ -x "$VENV/bin/python" ] && _py_ok "$VENV/bin/python"; then
  log "venv present: $VENV ($("$VENV/bin/python" -V))"
else
  PY=$(_find_python) || die "no Python >= 3.12 found; set PYTHON=/path/to/python3.12"
  log "creating $VENV with $PY ($("$PY" -V))"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
fi
