#!/usr/bin/env bash
# Copyright 2026 The pkb_ext Authors. Licensed under the Apache License 2.0.
#
# Runs the local machine matrix (what `make local-matrix` runs after setup):
# one local cloud per machine type of pkb_ext/local/machine_types.py
# (`pkb-ext local --machine-type=T up`: hosts capped at the type's CPU time,
# disk IOPS and MB/s, and network bandwidth), then stock pkb.py on
# configs/machines/local.yaml --flag_matrix=types, the types in parallel
# (--run_processes), each measuring REPS times (--run_stage_iterations: the
# installs once, the phases REPS times; tpcc, whose database lives on the
# disk io writes raw, once in a run of its own); then the samples and the
# report.
#
# Usage: scripts/local-matrix.sh [--reps=N] [--preset=smoke|report]
#                                [--no-up] [--down] [PKB FLAGS...]
#   --reps=N          each configuration's repetitions (default 3), which the
#                     report's CIs and compare use
#   --preset=smoke    (default) seconds per timed part
#   --no-up           run on the types' clouds as they are (default: `up
#                     --reset` each, hosts on fresh layers of their image)
#   --down            remove the types' clouds at the end (default: keep them
#                     for the next run; `pkb-ext local --machine-type=T down`)
#   PKB FLAGS         passed to every pkb.py run
# Environment:
#   PKB_EXT_MATRIX_OUT    output directory (default out/matrix)
#   PKB_EXT_MATRIX_IMAGE  the hosts' image (default $PKB_EXT_LOCAL_IMAGE or
#                         debian12; host: this machine's software, no installs)
#
# The output directory receives samples.ndjson, spool/, pkb_samples-*.json,
# pkb-*.log, report/, and what `pkb-ext plan` needs to predict the runs'
# wall time: flags (the flag file every pkb.py run was given), pkb-args (the
# PKB FLAGS, one a line) and pkb-runs.tsv (each pkb.py run: its tag, phases,
# Run stage iterations, --run_processes and seconds). The static VM file of
# each type goes to out/matrix/vms/<type>.json, where
# configs/machines/local.yaml names it (relative to the repo root, where
# pkb.py runs).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

LOG_TAG=matrix
# shellcheck source=scripts/local-common.sh
source "$ROOT/scripts/local-common.sh" "$@"

REPS=3
PRESET=smoke
DOWN=0
UP=1
EXPECT=cpu,io,net,tpcc  # configs/machines/local.yaml's phases
PKB_ARGS=()
for arg in "$@"; do
  case "$arg" in
    --reps=*) REPS=${arg#--reps=} ;;
    --preset=*) PRESET=${arg#--preset=} ;;
    --down) DOWN=1 ;;
    --no-up) UP=0 ;;
    --cloud_report_phases=*) EXPECT=${arg#--cloud_report_phases=} ;;
    *) PKB_ARGS+=("$arg") ;;
  esac
done
case "$REPS" in ''|*[!0-9]*|0) die "--reps=$REPS: need a whole number >= 1" ;; esac
case "$PRESET" in smoke|report) ;; *) die "--preset=$PRESET: choose smoke or report" ;; esac

VENV=$ROOT/.venv
[ -x "$VENV/bin/pkb.py" ] || die "no $VENV/bin/pkb.py: run 'make setup' (scripts/setup.sh) first"
OUT=${PKB_EXT_MATRIX_OUT:-$ROOT/out/matrix}
VMS=$ROOT/out/matrix/vms  # where configs/machines/local.yaml looks
TYPES=$("$VENV/bin/python" -c \
  'from pkb_ext.local import machine_types; print(*machine_types.NAMES)')
mkdir -p "$OUT" "$VMS"
rm -rf "$OUT/report" "$OUT/spool"
rm -f "$OUT/samples.ndjson" "$OUT"/pkb_samples*.json "$OUT"/pkb*.log \
  "$OUT/flags" "$OUT/pkb-args" "$OUT/pkb-runs.tsv"
started=$(date +%s)

IMAGE=${PKB_EXT_MATRIX_IMAGE:-${PKB_EXT_LOCAL_IMAGE:-debian12}}
for type in $TYPES; do
  if [ "$UP" = 1 ]; then
    log "== pkb-ext local --machine-type=$type up --image=$IMAGE"
    "$VENV/bin/pkb-ext" local --machine-type="$type" up --no-minio --reset \
      --image="$IMAGE" | sed 's/^/[matrix]   /'
  fi
  vm_file=$("$VENV/bin/pkb-ext" local --machine-type="$type" status --json \
    | "$VENV/bin/python" -c 'import json,sys; print(json.load(sys.stdin)["static_vm_file"])')
  cp "$vm_file" "$VMS/$type.json"
done
up_done=$(date +%s)

WORK=$(mktemp -d /tmp/pkb-ext-matrix.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
FLAGFILE=$WORK/flags
first=${TYPES%% *}
"$VENV/bin/pkb-ext" local --machine-type="$first" flags --for-matrix \
  --preset="$PRESET" --spool-dir="$OUT/spool" > "$FLAGFILE"
sed 's/^/[matrix]   /' "$FLAGFILE"
n_types=$(wc -w <<< "$TYPES")
cp "$FLAGFILE" "$OUT/flags"
printf '%s\n' ${PKB_ARGS[@]+"${PKB_ARGS[@]}"} > "$OUT/pkb-args"

# Runs pkb.py on the matrix; $1 names the run (pkb_samples-$1.json,
# pkb-$1.log), $2 the phases, $3 the Run stage iterations.
run_pkb() {
  local tag=$1 phases=$2 reps=$3 rc began
  began=$(date +%s)
  log "== pkb.py --flag_matrix=types --run_processes=$n_types --cloud_report_phases=$phases --run_stage_iterations=$reps"
  set +e
  "$VENV/bin/pkb.py" --benchmarks=cloud_report_2021 \
    --benchmark_config_file=configs/machines/local.yaml --flag_matrix=types \
    --run_processes="$n_types" --run_stage_iterations="$reps" \
    --flagfile="$FLAGFILE" --temp_dir="$WORK/pkb-$tag" \
    --json_path="$OUT/pkb_samples-$tag.json" "${PKB_ARGS[@]}" \
    --cloud_report_phases="$phases" 2>&1 \
    | grep --line-buffered -E \
    'cloud_report: phase| ERROR |Success rate|PKB exiting|Traceback'
  rc=${PIPESTATUS[0]}
  set -e
  printf '%s\t%s\t%s\t%s\t%s\n' "$tag" "$phases" "$reps" "$n_types" \
    "$(( $(date +%s) - began ))" >> "$OUT/pkb-runs.tsv"
  cat "$WORK/pkb-$tag"/runs/*/pkb.log > "$OUT/pkb-$tag.log" 2>/dev/null || true
  [ "$rc" -eq 0 ] || log "pkb.py exited $rc; its log: $OUT/pkb-$tag.log"
  return "$rc"
}

# tpcc keeps its database on the data disk io writes raw, so io cannot be
# repeated after it in one pkb.py (preflight refuses it): the other phases
# are repeated in one run, tpcc runs once in a second.
REPEATED=$(tr ',' '\n' <<< "$EXPECT" | grep -vx tpcc | paste -sd, -)
pkb_rc=0
if [ -n "$REPEATED" ]; then
  run_pkb repeated "$REPEATED" "$REPS" || pkb_rc=$?
fi
if grep -qx tpcc <<< "$(tr ',' '\n' <<< "$EXPECT")"; then
  run_pkb tpcc tpcc 1 || pkb_rc=$?
fi
run_done=$(date +%s)

log "== results"
results_rc=1
set +e
"$VENV/bin/pkb-ext" local results "$OUT"/spool/*.ndjson \
  --out "$OUT/samples.ndjson" --expect="$EXPECT"
results_rc=$?
set -e
build_report "$OUT" "$WORK" || results_rc=1
if [ "$DOWN" = 1 ]; then
  for type in $TYPES; do
    "$VENV/bin/pkb-ext" local --machine-type="$type" down > /dev/null
  done
fi
log "wall time: $(( $(date +%s) - started )) s (up $(( up_done - started )) s, pkb.py $(( run_done - up_done )) s)"
[ "$pkb_rc" -eq 0 ] && [ "$results_rc" -eq 0 ]
