#!/usr/bin/env bash
# Copyright 2026 The pkb_ext Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#   http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
#
# Checks pyproject.toml's import-linter contracts. The installed name
# pkb_cloud_report.* has no folder (setup.py's package_dir maps it to
# benchmarks/ and linux_packages/), and import-linter reads packages from
# folders, so a copy laid out under the installed names comes first on
# PYTHONPATH; pkb_ext_dev comes from tests/. Exit status: lint-imports'.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/pkb_cloud_report"
: > "$tmp/pkb_cloud_report/__init__.py"
for top in benchmarks linux_packages; do
  cp -r "$root/$top" "$tmp/pkb_cloud_report/$top"
  find "$tmp/pkb_cloud_report/$top" -name __pycache__ -prune -exec rm -rf {} +
done
cd "$root"
PYTHONPATH="$tmp:$root/tests:$root" "$root/.venv/bin/lint-imports" --config pyproject.toml --no-cache "$@"
