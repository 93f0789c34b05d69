# Copyright 2026 The pkb_ext Authors. Licensed under the Apache License 2.0.
#
# What `pkb-ext upstream` and its test need besides the installed PKB:
#   - PKB's source at the pin as a tar ($CACHE/pkb-<commit>-src.tar): the
#     paths the PKB checkout has plus CHANGES.next.md (the patch adds an entry)
#     and .pylintrc (PKB's lint settings). The test extracts a fresh PKB from
#     it, so it is never touched by an installed or tested tree;
#   - pylint, pinned, to lint the patched files with PKB's .pylintrc.
PKB_SRC_TAR=$CACHE/pkb-$PKB_COMMIT-src.tar
_PKB_SRC_PATHS=("${_PKB_PATHS[@]}" CHANGES.next.md .pylintrc)
if [ -f "$PKB_SRC_TAR" ]; then
  log "PKB source archive cached: $PKB_SRC_TAR"
else
  _src=$(upstream_source "${PKB_EXT_PKB_SOURCE:-}" GoogleCloudPlatform+PerfKitBenchmarker \
    https://github.com/GoogleCloudPlatform/PerfKitBenchmarker)
  log "archiving PKB $PKB_COMMIT source from $_src"
  git_archive "$_src" "$PKB_COMMIT" --format=tar -- "${_PKB_SRC_PATHS[@]}" \
    > "$PKB_SRC_TAR.part"
  for _f in pkb.py CHANGES.next.md .pylintrc perfkitbenchmarker/benchmark_sets.py; do
    tar -tf "$PKB_SRC_TAR.part" "$_f" > /dev/null 2>&1 \
      || die "PKB source archive from $_src lacks $_f"
  done
  mv "$PKB_SRC_TAR.part" "$PKB_SRC_TAR"
fi

PYLINT_VERSION=4.1.4
if [ "$("$VENV/bin/python" -c 'import pylint; print(pylint.__version__)' 2>/dev/null)" \
    = "$PYLINT_VERSION" ]; then
  log "pylint $PYLINT_VERSION present"
else
  log "installing pylint $PYLINT_VERSION"
  "$VENV/bin/pip" install -q "pylint==$PYLINT_VERSION"
fi
