#!/usr/bin/env bash
# Copyright 2026 The pkb_ext Authors. Licensed under the Apache License 2.0.
#
# Runs the style check, the import contracts and every test tier (unit, pkb,
# upstream, suite, matrix, local, emulator): without arguments as three pytest
# processes at once (see below); extra arguments go to one pytest run of
# tests/, e.g.
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
  # Three pytest processes at once, each with its own absl temp dir; the
  # second's and third's output follow the first's:
  # 1. the local tier's first half (mostly waiting on hosts and timed tool
  #    runs), then the cloud set-up test, which installs PKB's AWS
  #    requirements into .venv as a user's set-up does (pip must not change
  #    .venv while another test runs PKB from it, so it waits for the other
  #    two processes), then the preflight tests that need that AWS CLI;
  # 2. the local tier's second half, on a test cloud of its own (prefix,
  #    subnet and state dir: pkb_ext_dev.local_cloud's overrides);
  # 3. the unit, pkb, upstream and suite tiers (mostly CPU), then the matrix tier
  #    (the local machine types, whose hosts' CPU weight holds their quotas
  #    under that load) and the emulator tier.
  # The local tier's CPU hog (one, in the first process) starts once the
  # third process has ended: until then, that process loads the machine.
  setup_test=tests/pkb/test_cloud_setup.py
  aws_tests=(tests/pkb/test_preflight_cloud_access.py
    tests/pkb/test_preflight_refusal.py)
  # (in this order: the CPU-heavy CoreMark pair of test_vs_pkb last, after
  # the first half's disk and network fidelity tests; the patched PKB's
  # benchmarks, tests/local/test_upstream_local.py, run in the first half)
  local_b=(tests/local/test_tpcc_cockroach_double.py
    tests/local/test_tpcc_fixtures_double.py
    tests/local/test_tpcc_postgres_fixtures.py tests/local/test_tpcc_phase.py
    tests/local/test_faults_local.py tests/local/test_tpcc_cockroach.py
    tests/local/test_vs_pkb.py)
  side_dir=$(mktemp -d)
  local_dir=$(mktemp -d)
  side= local_pid=
  trap 'for p in $side $local_pid; do kill "$p" 2>/dev/null; done
    rm -rf "$side_dir" "$local_dir"' EXIT
  echo "[test] pytest tests/unit tests/pkb tests/upstream tests/suite tests/matrix tests/emulator (at the same time; output below)"
  TEST_TMPDIR="$side_dir" .venv/bin/python -m pytest tests/unit tests/pkb \
    tests/upstream tests/suite tests/matrix tests/emulator --ignore="$setup_test" \
    "${aws_tests[@]/#/--ignore=}" \
    --durations=15 \
    -p no:cacheprovider >"$side_dir/log" 2>&1 &
  side=$!
  echo "[test] pytest ${local_b[*]} (at the same time; output below)"
  TEST_TMPDIR="$local_dir" PKB_EXT_LOCAL_HOGS=0 \
    PKB_EXT_TEST_LOCAL_PREFIX=pkbtstb \
    PKB_EXT_TEST_LOCAL_SUBNET=10.247.75.0/24 \
    PKB_EXT_TEST_LOCAL_STATE="$(.venv/bin/python -c \
      'from pkb_ext import paths; print(paths.CacheDir())')/local-test-b" \
    .venv/bin/python -m pytest "${local_b[@]}" --durations=15 \
    -p no:cacheprovider >"$local_dir/log" 2>&1 &
  local_pid=$!
  echo "[test] pytest tests/local (the rest), then $setup_test ${aws_tests[*]}"
  PKB_EXT_LOCAL_HOGS_AFTER_PID=$side \
    .venv/bin/python -m pytest tests/local "${local_b[@]/#/--ignore=}" \
    --durations=30
  rc=$?
  wait $local_pid
  local_rc=$?
  local_pid=
  wait $side
  side_rc=$?
  side=
  echo "[test] pytest $setup_test ${aws_tests[*]} (after every other test)"
  .venv/bin/python -m pytest "$setup_test" "${aws_tests[@]}" --durations=5
  setup_rc=$?
  echo "[test] pytest ${local_b[*]}: its output"
  cat "$local_dir/log"
  echo "[test] pytest tests/unit tests/pkb tests/upstream tests/suite tests/matrix tests/emulator: its output"
  cat "$side_dir/log"
  for r in $local_rc $setup_rc; do
    [ "$r" -ne 5 ] || rc=5
    [ "$rc" -ne 0 ] || rc=$r
  done
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
