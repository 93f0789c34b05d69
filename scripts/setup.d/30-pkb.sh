# PKB at the pinned commit, extracted into the cache and installed editable.
PKB_COMMIT=946ea317692cac6c78e4aec1cd041b538f1a0285
PKB_DIR=$CACHE/pkb-$PKB_COMMIT
# Only what PKB needs: some snapshots lack large files elsewhere (tutorials/).
_PKB_PATHS=(perfkitbenchmarker pkb.py setup.py setup.cfg requirements.txt
  requirements-testing.txt tests MANIFEST.in LICENSE)
if [ -f "$PKB_DIR/.complete" ]; then
  log "PKB $PKB_COMMIT cached: $PKB_DIR"
else
  _src=$(upstream_source "${PKB_EXT_PKB_SOURCE:-}" GoogleCloudPlatform+PerfKitBenchmarker \
    https://github.com/GoogleCloudPlatform/PerfKitBenchmarker)
  log "extracting PKB $PKB_COMMIT from $_src"
  rm -rf "$PKB_DIR.part" && mkdir -p "$PKB_DIR.part"
  git_archive "$_src" "$PKB_COMMIT" --format=tar -- "${_PKB_PATHS[@]}" \
    | tar -x -C "$PKB_DIR.part"
  [ -f "$PKB_DIR.part/pkb.py" ] || die "PKB extraction from $_src failed"
  echo "$PKB_COMMIT" > "$PKB_DIR.part/.complete"
  rm -rf "$PKB_DIR" && mv "$PKB_DIR.part" "$PKB_DIR"
fi
ln -sfn "$PKB_DIR" "$CACHE/pkb"

# Python packages. A stamp of the inputs skips pip when nothing changed.
_stamp=$VENV/.pkb-ext-stamp
_want=$(cat "$PKB_DIR/requirements.txt" "$ROOT/setup.py" "$ROOT/scripts/setup.d/30-pkb.sh" \
  | sha256sum | cut -d' ' -f1)
if [ -f "$_stamp" ] && [ "$(cat "$_stamp")" = "$_want" ] \
    && "$VENV/bin/python" -c 'import perfkitbenchmarker, pkb_ext' 2>/dev/null; then
  log "Python packages up to date"
else
  log "installing PKB requirements (pint==0.26.1, setuptools<81)"
  pip_install --upgrade pip 'setuptools<81' wheel
  pip_install -r "$PKB_DIR/requirements.txt" 'pint==0.26.1' 'setuptools<81'
  log "installing PKB editable from $PKB_DIR"
  "$VENV/bin/pip" install -q --no-deps -e "$PKB_DIR"
  log "installing pkb-ext editable with test extras"
  pip_install -e "$ROOT[test]" 'pint==0.26.1' 'setuptools<81'
  echo "$_want" > "$_stamp"
fi
