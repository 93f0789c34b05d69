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
"""Runs the tests `pkb-ext upstream` exports to PKB in this repository too.

The files under this directory are PKB's tests of the exported modules, laid
out as in PKB's tests/ (linux_benchmarks/cloud_report_*_test.py). In PKB's
tree they run with `python -m unittest` (tests/pkb/test_upstream.py applies
the series to a fresh PKB and runs them there); here pytest runs them on the
installed modules:

  - they import PKB's own test helpers (`from tests import
    pkb_common_test_case`); under pytest's importlib mode `tests` is this
    repository's test tree, so PKB's module is loaded here first
    (pkb_ext_dev.pkb_tests) and the import finds it;
  - they read captured outputs from ../data/cloud_report/<tool>/, as in PKB's
    tree; here data/cloud_report is a link to tests/data.

cloud_report_2021_benchmark_test.py runs only in PKB's tree: it reads the
exported data files from PKB's data package, which only the patched tree
holds.
"""

from pkb_ext_dev import pkb_tests

# Loaded from the PKB checkout once, as tests.pkb_common_test_case: the
# tests' `from tests import pkb_common_test_case` finds it in sys.modules.
pkb_tests.Import('pkb_common_test_case')

# The scripts the series adds beside PKB's object storage API scripts are
# data files here (configs/object_storage_api_test_scripts/, where PKB's data
# search path finds them); the tests import them under PKB's module name.
pkb_tests.ImportScript('object_storage_api_test_scripts/ttfb.py')

collect_ignore = ['linux_benchmarks/cloud_report_2021_benchmark_test.py']
