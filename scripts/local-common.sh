# Copyright 2026 The pkb_ext Authors. Licensed under the Apache License 2.0.
#
# Sourced by scripts/local.sh and scripts/local-matrix.sh (as
# `source scripts/local-common.sh "$@"`, with LOG_TAG set): re-runs the
# caller with sudo unless it is root (namespaces, loop devices and mounts
# need root; the cache and venv are kept), and defines log and die.
if [ "$(id -u)" -ne 0 ]; then
  exec sudo -E PKB_EXT_CACHE="${PKB_EXT_CACHE:-$HOME/.cache/pkb-ext}" \
    bash "$0" "$@"
fi

log() { printf '[%s] %s\n' "$LOG_TAG" "$*"; }
die() { printf '[%s] ERROR: %s\n' "$LOG_TAG" "$*" >&2; exit 1; }

# Builds $1/report from $1/samples.ndjson (pkb-ext report), its output in
# $2/report.log; fails if the report cannot be built. No samples: nothing.
build_report() {
  local out=$1 work=$2
  [ -s "$out/samples.ndjson" ] || return 0
  if "$ROOT/.venv/bin/pkb-ext" report --samples "$out/samples.ndjson" \
      --out "$out/report" > "$work/report.log" 2>&1; then
    log "report: $out/report/report.md"
  else
    log "report not built ($(tail -1 "$work/report.log")); samples are in $out/samples.ndjson"
    return 1
  fi
}
