# Copyright 2026 The pkb_ext Authors. Licensed under the Apache License 2.0.
#
# MinIO and go-tpc for the local cloud, built at pinned versions through the
# Go module proxy into $CACHE/bin/ (sourced by scripts/setup.sh). Skipped when
# the binary for the pinned version is already there. Neither their source nor
# their binaries are ever committed to the repo.
#   PKB_EXT_SKIP_GO=1   skip this step (the local cloud then has no MinIO or
#                       go-tpc, and the phases that need them fail to prepare)
MINIO_MODULE=github.com/minio/minio
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c   # ~5 min to build, 150 MB
GO_TPC_MODULE=github.com/pingcap/go-tpc
GO_TPC_VERSION=v1.0.9                              # newer tags are refused

_GO_BIN=$CACHE/bin
mkdir -p "$_GO_BIN"

# Prints the version recorded beside a binary built by this step.
_go_stamp() { cat "$_GO_BIN/.$1.version" 2>/dev/null || true; }

_find_go() {
  local c
  for c in go /usr/local/go/bin/go /usr/lib/go/bin/go; do
    c=$(command -v "$c" 2>/dev/null) || continue
    echo "$c"; return 0
  done
  return 1
}

if [ "${PKB_EXT_SKIP_GO:-0}" = 1 ]; then
  log "skipping MinIO and go-tpc (PKB_EXT_SKIP_GO=1)"
elif [ -x "$_GO_BIN/minio" ] && [ "$(_go_stamp minio)" = "$MINIO_VERSION" ] \
    && [ -x "$_GO_BIN/go-tpc" ] && [ "$(_go_stamp go-tpc)" = "$GO_TPC_VERSION" ]; then
  log "MinIO $MINIO_VERSION and go-tpc $GO_TPC_VERSION cached in $_GO_BIN"
else
  _GO=$(_find_go) || die "need Go (1.24+) to build MinIO and go-tpc; install golang or set PKB_EXT_SKIP_GO=1"
  log "Go: $("$_GO" version)"
  # Module downloads and build cache inside our cache, so a fresh machine's
  # state is all under $CACHE (and `rm -rf $CACHE/go` cleans it).
  export GOPATH=$CACHE/go GOMODCACHE=$CACHE/go/pkg/mod GOCACHE=$CACHE/go/build
  export GOFLAGS=-buildvcs=false CGO_ENABLED=0 GOTOOLCHAIN=local

  if [ -x "$_GO_BIN/minio" ] && [ "$(_go_stamp minio)" = "$MINIO_VERSION" ]; then
    log "MinIO $MINIO_VERSION cached: $_GO_BIN/minio"
  else
    log "building MinIO $MINIO_VERSION (takes ~5 min)"
    _tmp=$(mktemp -d "$CACHE/go-minio.XXXXXX")
    GOBIN=$_tmp "$_GO" install "$MINIO_MODULE@$MINIO_VERSION" \
      || die "MinIO build failed ($MINIO_MODULE@$MINIO_VERSION)"
    mv -f "$_tmp/minio" "$_GO_BIN/minio"
    rm -rf "$_tmp"
    echo "$MINIO_VERSION" > "$_GO_BIN/.minio.version"
  fi

  if [ -x "$_GO_BIN/go-tpc" ] && [ "$(_go_stamp go-tpc)" = "$GO_TPC_VERSION" ]; then
    log "go-tpc $GO_TPC_VERSION cached: $_GO_BIN/go-tpc"
  else
    # go-tpc's go.mod has replace directives, which `go install mod@v` refuses;
    # configs/go_tpc is a module that requires it, and its go.sum pins every
    # module's sha256 (-mod=readonly: a differing download fails). The
    # benchmark's package builds on a VM from the same files.
    log "building go-tpc $GO_TPC_VERSION (configs/go_tpc, go.sum-checked)"
    _wrap=$CACHE/go/go-tpc-build
    rm -rf "$_wrap" && mkdir -p "$_wrap"
    cp "$ROOT"/configs/go_tpc/go.mod "$ROOT"/configs/go_tpc/go.sum \
      "$ROOT"/configs/go_tpc/tools.go "$_wrap"/
    ( cd "$_wrap" && GOFLAGS="$GOFLAGS -mod=readonly" \
        "$_GO" build -o "$_wrap/go-tpc" "$GO_TPC_MODULE/cmd/go-tpc" ) \
      || die "go-tpc build failed ($GO_TPC_MODULE@$GO_TPC_VERSION)"
    mv -f "$_wrap/go-tpc" "$_GO_BIN/go-tpc"
    echo "$GO_TPC_VERSION" > "$_GO_BIN/.go-tpc.version"
  fi
  unset GOPATH GOMODCACHE GOCACHE GOFLAGS CGO_ENABLED GOTOOLCHAIN
fi
[ -x "$_GO_BIN/minio" ] && log "MinIO: $("$_GO_BIN/minio" --version 2>/dev/null | head -1)"
if [ -x "$_GO_BIN/go-tpc" ]; then
  # The shortcut the go-tpc package takes before building on the VM: a
  # binary in the data search path under its pinned name.
  case $(uname -m) in x86_64) _arch=amd64 ;; aarch64) _arch=arm64 ;; *) _arch= ;; esac
  [ -n "$_arch" ] && ln -sfn "$_GO_BIN/go-tpc" "$CACHE/data/go-tpc-$GO_TPC_VERSION-linux-$_arch"
  log "go-tpc: $_GO_BIN/go-tpc"
fi
true
