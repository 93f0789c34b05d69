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
"""The 2021 Cloud Report's CPU phase alone: CoreMark 1.0 on one db VM.

Runs CoreMark v1.01 through PKB's coremark modules 10 times single-core,
then 10 times on all vCPUs with pthreads (-DMULTITHREAD=$(nproc)
-DUSE_PTHREAD; PKB's --coremark_parallelism_method picks another method),
emitting one coremark_score sample per run and the mean, min, max, stddev,
CI95 half-width and CV per mode (cloud_report.cpu.stages has the flags).

Example:
  pkb.py --benchmarks=cloud_report_coremark --cloud=AWS \
      --machine_type=c5a.4xlarge
"""

from pkb_ext.suite import standalone
from pkb_ext.suite.cpu import stages as cpu

BENCHMARK_NAME = 'cloud_report_coremark'
BENCHMARK_CONFIG = standalone.Config(
    BENCHMARK_NAME,
    'CoreMark 1.0, 10 runs single-core and 10 runs all-core (pthreads), as'
    ' in the Cockroach Labs 2021 Cloud Report.',
    db_vms=1,
    config_flags=cpu.CONFIG_FLAGS,  # PKB's --coremark_parallelism_method
)
_BENCHMARK = standalone.Benchmark(BENCHMARK_NAME, BENCHMARK_CONFIG)
PHASE = _BENCHMARK.phase
# PKB's module functions: the phase's stages on this benchmark's VMs.
# pylint: disable-next=invalid-name
GetConfig, CheckPrerequisites, Prepare, Run, Cleanup = _BENCHMARK.Functions()
