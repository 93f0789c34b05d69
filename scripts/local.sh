#!/usr/bin/env bash
# Copyright 2026 The pkb_ext Authors. Licensed under the Apache License 2.0.
#
# Runs the whole 2021 Cloud Report suite on the local cloud (what `make local`
# runs after setup): `pkb-ext local up --reset` (hosts on fresh layers of
# their image), then stock pkb.py with
# --benchmarks=cloud_report_2021 on its static VM file, with a preset of
# durations; writes out/ and prints a results summary. See docs/local_cloud.md.
#
# Usage: scripts/local.sh [--preset=smoke|report] [--s3-only] [--down]
#                         [PKB FLAGS...]
#   --preset=smoke    (default) seconds per timed part; a few minutes in all
#   --preset=report   the report's durations and counts
#   --s3-only         object storage on MinIO (s3) only: no gcs, azure runs
#   --down            run `pkb-ext local down` at the end (default: keep the
#                     cloud up for the next run; `make local-down` removes it)
#   PKB FLAGS         passed to pkb.py, e.g. --cloud_report_phases=cpu,io
# Environment:
#   PKB_EXT_OUT             output directory (default out/)
#   PKB_EXT_LOCAL_DISK_GIB  data disk size of each db host (default 2)
#   PKB_EXT_LOCAL_IMAGE     the hosts' OS image: debian12 (default), debian13,
#                           or host (this machine's software, installs off)
#   PKB_EXT_LOCAL_STATE     the local cloud's state dir (default cache/local)
#   PKB_EXT_LOCAL_PREFIX, PKB_EXT_LOCAL_SUBNET  a second cloud's names/subnet
#
# The suite runs with the object storage phase on MinIO (s3); then, if that
# phase is selected (and not --s3-only), the phase alone runs once more on
# fake-gcs-server (gcs) and once on Azurite (azure), so the samples hold all
# three providers.
#
# out/ receives samples.ndjson (one phase sample a line: metric, value, unit,
# metadata, timestamp, run_uri, sample_uri), spool/ (pkb_ext's publisher spool, if it has
# landed), pkb_samples*.json (PKB's --json_path), pkb*.log and report/.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

LOG_TAG=local
# shellcheck source=scripts/local-common.sh
source "$ROOT/scripts/local-common.sh" "$@"

PRESET=smoke
DOWN=0
PROVIDERS="gcs azure"
PKB_ARGS=()
EXPECT=
for arg in "$@"; do
  case "$arg" in
    --preset=*) PRESET=${arg#--preset=} ;;
    --down) DOWN=1 ;;
    --s3-only) PROVIDERS= ;;
    --cloud_report_phases=*) EXPECT=${arg#--cloud_report_phases=}; PKB_ARGS+=("$arg") ;;
    *) PKB_ARGS+=("$arg") ;;
  esac
done
case "$PRESET" in smoke|report) ;; *) die "--preset=$PRESET: choose smoke or report" ;; esac

VENV=$ROOT/.venv
[ -x "$VENV/bin/pkb.py" ] || die "no $VENV/bin/pkb.py: run 'make setup' (scripts/setup.sh) first"
OUT=${PKB_EXT_OUT:-$ROOT/out}
mkdir -p "$OUT"
rm -rf "$OUT/spool" "$OUT/report"
rm -f "$OUT/samples.ndjson" "$OUT"/pkb_samples*.json "$OUT"/pkb*.log
started=$(date +%s)

log "== pkb-ext local up"
"$VENV/bin/pkb-ext" local up --reset
up_done=$(date +%s)

if [ -z "$EXPECT" ]; then
  EXPECT=$("$VENV/bin/python" -c \
    'from pkb_ext.suite import phase_modules
print(",".join(phase_modules.LoadAll()))' 2>/dev/null)
fi
[ "$EXPECT" = none ] && EXPECT=  # --cloud_report_phases=none: no phase runs
log "phases: ${EXPECT:-none}; preset: $PRESET"

WORK=$(mktemp -d /tmp/pkb-ext-local.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
FLAGFILE=$WORK/flags  # names the keys file; the keys stay in it
(umask 077 && "$VENV/bin/pkb-ext" local flags --preset="$PRESET" \
  --spool-dir="$OUT/spool" > "$FLAGFILE" 2>"$WORK/flags.err") \
  || { cat "$WORK/flags.err" >&2; die "pkb-ext local flags failed"; }
sed 's/^/[local]   /' "$FLAGFILE"

# Runs pkb.py; $1 names the run (out/pkb_samples$1.json, out/pkb$1.log).
run_pkb() {
  local tag=$1 flagfile=$2; shift 2
  set +e
  "$VENV/bin/pkb.py" --benchmarks=cloud_report_2021 --flagfile="$flagfile" \
    --temp_dir="$WORK/pkb$tag" --json_path="$OUT/pkb_samples$tag.json" \
    "$@" 2>&1 | grep --line-buffered -E \
    'cloud_report: phase| ERROR |Success rate|PKB exiting|Traceback'
  local rc=${PIPESTATUS[0]}
  set -e
  cp "$WORK/pkb$tag"/runs/*/pkb.log "$OUT/pkb$tag.log" 2>/dev/null || true
  [ "$rc" -eq 0 ] || log "pkb.py exited $rc; its log: $OUT/pkb$tag.log"
  return "$rc"
}

log "== pkb.py --benchmarks=cloud_report_2021 ${PKB_ARGS[*]}"
pkb_rc=0
run_pkb "" "$FLAGFILE" "${PKB_ARGS[@]}" || pkb_rc=$?

case ",$EXPECT," in
  *,object_storage,*)
    OTHER_ARGS=()
    for arg in "${PKB_ARGS[@]}"; do
      case "$arg" in --cloud_report_phases=*) ;; *) OTHER_ARGS+=("$arg") ;; esac
    done
    for provider in $PROVIDERS; do
      if ! (umask 077 && "$VENV/bin/pkb-ext" local flags --preset="$PRESET" \
          --object-storage="$provider" --spool-dir="$OUT/spool" \
          > "$WORK/flags-$provider" 2>"$WORK/flags.err"); then
        log "no $provider object storage: $(tail -1 "$WORK/flags.err")"
        pkb_rc=1
        continue
      fi
      log "== pkb.py object_storage on $provider"
      run_pkb "-$provider" "$WORK/flags-$provider" \
        --cloud_report_phases=object_storage "${OTHER_ARGS[@]}" || pkb_rc=$?
    done
    ;;
esac
run_done=$(date +%s)

log "== results"
inputs=()
for f in "$OUT"/spool/*.ndjson "$OUT"/pkb_samples*.json; do
  [ -s "$f" ] && inputs+=("$f")
done
results_rc=1
if [ ${#inputs[@]} -gt 0 ]; then
  set +e
  "$VENV/bin/pkb-ext" local results "${inputs[@]}" --out "$OUT/samples.ndjson" \
    --expect="$EXPECT" 2> >(grep -v -e pkg_resources -e 'Redefining' >&2)
  results_rc=$?
  set -e
else
  log "pkb.py wrote no samples"
fi
build_report "$OUT" "$WORK" || true  # the samples are the result

if [ "$DOWN" = 1 ]; then
  log "== pkb-ext local down"
  "$VENV/bin/pkb-ext" local down > /dev/null
else
  log "the local cloud stays up: 'make local-down' (pkb-ext local down) removes it"
fi
log "wall time: $(( $(date +%s) - started )) s (up $(( up_done - started )) s, pkb.py $(( run_done - up_done )) s)"
[ "$pkb_rc" -eq 0 ] && [ "$results_rc" -eq 0 ]
