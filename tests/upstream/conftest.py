# Copyright 2026 PerfKitBenchmarker Authors. All rights reserved.
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
"""Keeps pytest away from the tests `pkb-ext upstream` exports to PKB.

The files under this directory are PKB's tests of the exported modules, laid
out as in PKB's tests/ (linux_benchmarks/cloud_report_*_test.py). They import
PKB's own test helpers (`from tests import pkb_common_test_case`), which only
a PKB tree has, so they run there: tests/pkb/test_upstream.py applies the
patch to a fresh PKB and runs them with `python -m unittest`.
"""

collect_ignore_glob = ['*_test.py']
