# The CoreMark v1.01 tarball, for PKB's data search path (offline installs).
COREMARK_COMMIT=cfa9ab377835911f23d9b0831c7be302ed1f58de  # tag v1.01
COREMARK_TAR=$CACHE/data/coremark-v1.01.tar.gz
if [ -f "$COREMARK_TAR" ]; then
  log "CoreMark tarball cached: $COREMARK_TAR"
else
  _src=$(upstream_source "${PKB_EXT_COREMARK_SOURCE:-}" eembc+coremark \
    https://github.com/eembc/coremark)
  log "making $COREMARK_TAR from $_src"
  git_archive "$_src" "$COREMARK_COMMIT" --format=tar.gz --prefix=coremark-1.01/ -- \
    > "$COREMARK_TAR.part"
  mv "$COREMARK_TAR.part" "$COREMARK_TAR"
fi
log "CoreMark sha256 $(sha256sum "$COREMARK_TAR" | cut -d' ' -f1)"
