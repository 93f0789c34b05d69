#!/usr/bin/env bash
# Copyright 2026 The pkb_ext Authors. Licensed under the Apache License 2.0.
#
# Runs the style check, the import contracts and every test tier (unit, pkb,
# upstream, matrix, local, emulator): without arguments as two pytest
# processes at once (see below); extra arguments go to one pytest run of tests/, e.g.
# `scripts/test.sh -m unit`.
# pytest's exit code 5 (no tests collected) counts as a failure.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

echo "[test] pyink --check (PKB style: 2-space, 80 columns)"
style=0
.venv/bin/pyink --check --quiet . || { style=1; echo "[test] style check FAILED: run 'make format'"; }

echo "[test] lint-imports (pyproject.toml's import contracts)"
imports=0
scripts/lint-imports.sh || { imports=1; echo "[test] import contracts BROKEN (see above)"; }

if [ $# -gt 0 ]; then
  echo "[test] pytest tests/ $*"
  .venv/bin/python -m pytest tests --durations=30 "$@"
  rc=$?
  side_rc=0
else
  # Two pytest processes at once: the local tier (mostly waiting on hosts
  # and timed tool runs, under its CPU hog), and the unit, pkb and upstream
  # tiers (mostly CPU) followed by the matrix tier (the local machine types,
  # whose hosts' CPU weight holds their quotas under that load) and the
  # emulator tier, which end well before the first. Each has its own absl
  # temp dir; the second's output follows the first's. The cloud set-up
  # test installs PKB's AWS requirements into .venv, as a user's set-up
  # does, so it runs in the first process after the local tier (pip must not
  # change .venv while the local tier runs PKB from it), followed by the
  # tests that need the AWS CLI it installs.
  setup_test=tests/pkb/test_cloud_setup.py
  aws_tests=(tests/pkb/test_preflight_cloud_access.py
    tests/pkb/test_preflight_refusal.py)
  side_dir=$(mktemp -d)
  side=
  trap '[ -z "$side" ] || kill "$side" 2>/dev/null; rm -rf "$side_dir"' EXIT
  echo "[test] pytest tests/unit tests/pkb tests/upstream tests/matrix tests/emulator (at the same time; output below)"
  TEST_TMPDIR="$side_dir" .venv/bin/python -m pytest tests/unit tests/pkb \
    tests/upstream tests/matrix tests/emulator --ignore="$setup_test" \
    "${aws_tests[@]/#/--ignore=}" \
    --durations=15 \
    -p no:cacheprovider >"$side_dir/log" 2>&1 &
  side=$!
  echo "[test] pytest tests/local $setup_test ${aws_tests[*]}"
  # The local tier's CPU hog waits for the second process to end: until
  # then, that process loads the machine.
  PKB_EXT_LOCAL_HOGS_AFTER_PID=$side \
    .venv/bin/python -m pytest tests/local "$setup_test" "${aws_tests[@]}" \
    --durations=30
  rc=$?
  wait $side
  side_rc=$?
  side=
  echo "[test] pytest tests/unit tests/pkb tests/upstream tests/matrix tests/emulator: its output"
  cat "$side_dir/log"
fi
if [ $rc -eq 5 ] || [ $side_rc -eq 5 ]; then
  echo "[test] FAILED: pytest collected no tests (exit 5)"
  exit 1
fi
[ $rc -ne 0 ] || rc=$side_rc
if [ $style -ne 0 ]; then
  echo "[test] FAILED: style check (see above)"
  exit 1
fi
if [ $imports -ne 0 ]; then
  echo "[test] FAILED: import contracts (see above)"
  exit 1
fi
exit $rc
