#!/usr/bin/env bash
# Copyright 2026 The pkb_ext Authors. Licensed under the Apache License 2.0.
#
# Runs the style check, the import contracts and every test tier (unit, pkb, local, emulator).
# Extra arguments go to pytest, e.g. `scripts/test.sh -m unit`.
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

echo "[test] pytest tests/ $*"
.venv/bin/python -m pytest tests --durations=30 "$@"
rc=$?
if [ $rc -eq 5 ]; then
  echo "[test] FAILED: pytest collected no tests (exit 5)"
  exit 1
fi
if [ $style -ne 0 ]; then
  echo "[test] FAILED: style check (see above)"
  exit 1
fi
if [ $imports -ne 0 ]; then
  echo "[test] FAILED: import contracts (see above)"
  exit 1
fi
exit $rc
