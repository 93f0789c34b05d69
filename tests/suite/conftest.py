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
"""Tests of pkb_ext's suite package, in PKB's test style.

They are PKB-style test cases (absltest, `from tests import
pkb_common_test_case`), as the exported tests under tests/upstream are, but
test pkb_ext.suite, which is not exported: the suite's benchmark, the cpu,
io and net phases that run PKB's own coremark, fio and netperf, and the
preflight laid over every benchmark. pkb_ext is registered with PKB before
their first test, not when they are collected: by tests/conftest.py's
session fixture, as its .pth autoload does for pkb.py. Collecting them
leaves PKB as other tiers collected in the same process find it.
"""

from pkb_ext_dev import pkb_tests

# Loaded from the PKB checkout once, as tests.pkb_common_test_case: the
# tests' `from tests import pkb_common_test_case` finds it in sys.modules.
pkb_tests.Import('pkb_common_test_case')
