# Copyright 2026 The pkb_ext Authors. Licensed under the Apache License 2.0.
#
# The local cloud's GCS and Azure Blob emulators and the object storage SDKs
# its hosts run the TTFB worker with, at pinned versions, in $CACHE/bin/
# (which the local hosts see read-only at /opt/pkb-ext/bin):
#   fake-gcs-server  Go module, built through the Go module proxy like MinIO;
#   azurite/         Azurite (npm) from scripts/azurite/package-lock.json with
#                    `npm ci`; needs Node (Debian's nodejs and npm if absent);
#   object-storage-sdk/  a venv of Debian's python3 (the hosts' interpreter)
#                    with configs/object_storage/requirements-*.txt.
# Each part is skipped when its stamp (version or lock file hash) matches.
#   PKB_EXT_SKIP_EMULATORS=1  skip this step (the local cloud then serves
#                             object storage through MinIO alone)
FAKE_GCS_MODULE=github.com/fsouza/fake-gcs-server
FAKE_GCS_VERSION=v1.53.1      # its go.mod needs Go 1.24, as MinIO does
_EMU_BIN=$CACHE/bin
_AZURITE_SRC=$ROOT/scripts/azurite
_SDK_PYTHON=${PKB_EXT_HOST_PYTHON:-/usr/bin/python3}
mkdir -p "$_EMU_BIN"

_stamp() { cat "$_EMU_BIN/.$1.version" 2>/dev/null || true; }
_hash() { cat "$@" | sha256sum | cut -c1-16; }

if [ "${PKB_EXT_SKIP_EMULATORS:-0}" = 1 ]; then
  log "skipping fake-gcs-server, Azurite and the SDK venv (PKB_EXT_SKIP_EMULATORS=1)"
else
  # --- fake-gcs-server (GCS) ---
  if [ -x "$_EMU_BIN/fake-gcs-server" ] && [ "$(_stamp fake-gcs-server)" = "$FAKE_GCS_VERSION" ]; then
    log "fake-gcs-server $FAKE_GCS_VERSION cached: $_EMU_BIN/fake-gcs-server"
  else
    _GO=$(command -v go || ls /usr/local/go/bin/go 2>/dev/null) \
      || die "need Go (1.24+) to build fake-gcs-server; or set PKB_EXT_SKIP_EMULATORS=1"
    log "building fake-gcs-server $FAKE_GCS_VERSION"
    _tmp=$(mktemp -d "$CACHE/go-fake-gcs.XXXXXX")
    ( export GOPATH=$CACHE/go GOMODCACHE=$CACHE/go/pkg/mod GOCACHE=$CACHE/go/build \
        GOFLAGS=-buildvcs=false CGO_ENABLED=0 GOTOOLCHAIN=local GOBIN=$_tmp
      "$_GO" install "$FAKE_GCS_MODULE@$FAKE_GCS_VERSION" ) \
      || die "fake-gcs-server build failed ($FAKE_GCS_MODULE@$FAKE_GCS_VERSION)"
    mv -f "$_tmp/fake-gcs-server" "$_EMU_BIN/fake-gcs-server"
    rm -rf "$_tmp"
    echo "$FAKE_GCS_VERSION" > "$_EMU_BIN/.fake-gcs-server.version"
  fi

  # --- Azurite (Azure Blob) ---
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    [ "${PKB_EXT_SKIP_APT:-0}" = 1 ] \
      && die "need node and npm for Azurite (Debian: nodejs npm); PKB_EXT_SKIP_APT=1 forbids installing them"
    log "installing Debian's nodejs and npm for Azurite"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends nodejs npm >/dev/null
  fi
  _azurite_want=$(_hash "$_AZURITE_SRC/package.json" "$_AZURITE_SRC/package-lock.json")
  _azurite_main=$_EMU_BIN/azurite/node_modules/azurite/dist/src/blob/main.js
  if [ -f "$_azurite_main" ] && [ "$(_stamp azurite)" = "$_azurite_want" ]; then
    log "Azurite cached: $_EMU_BIN/azurite (node $(node --version))"
  else
    log "installing Azurite with npm ci (node $(node --version), npm $(npm --version 2>/dev/null))"
    _tmp=$(mktemp -d "$_EMU_BIN/.azurite.XXXXXX")
    cp "$_AZURITE_SRC/package.json" "$_AZURITE_SRC/package-lock.json" "$_tmp/"
    ( cd "$_tmp" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
        --loglevel=error ) || die "npm ci of Azurite failed"
    chmod -R go+rX "$_tmp"
    rm -rf "$_EMU_BIN/azurite"
    mv "$_tmp" "$_EMU_BIN/azurite"
    echo "$_azurite_want" > "$_EMU_BIN/.azurite.version"
  fi

  # --- the hosts' object storage SDKs ---
  _sdk=$_EMU_BIN/object-storage-sdk
  _reqs=("$ROOT"/configs/object_storage/requirements-*.txt)
  _sdk_want=$(_hash "${_reqs[@]}")-$("$_SDK_PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  if [ -x "$_sdk/bin/python" ] && [ "$(_stamp object-storage-sdk)" = "$_sdk_want" ]; then
    log "object storage SDKs cached: $_sdk"
  else
    log "object storage SDKs for $_SDK_PYTHON into $_sdk"
    rm -rf "$_sdk"
    "$_SDK_PYTHON" -m venv "$_sdk" || die "$_SDK_PYTHON -m venv failed (python3-venv)"
    _req_args=()
    for r in "${_reqs[@]}"; do _req_args+=(-r "$r"); done
    "$_sdk/bin/python" -m pip install -q --disable-pip-version-check \
      "${_req_args[@]}" || die "pip install of the object storage SDKs failed"
    chmod -R go+rX "$_sdk"
    echo "$_sdk_want" > "$_EMU_BIN/.object-storage-sdk.version"
  fi
fi
true
