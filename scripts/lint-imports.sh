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
# Checks pyproject.toml's import-linter contracts, with the repo's top-level
# packages (benchmarks/, linux_packages/, pkb_ext/) and pkb_ext_dev from
# tests/ on PYTHONPATH. Exit status: lint-imports'.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
PYTHONPATH="$root/tests:$root" "$root/.venv/bin/lint-imports" --config pyproject.toml --no-cache "$@"
