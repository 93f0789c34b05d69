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
"""The 2021 Cloud Report's OLTP phase alone: TPC-C stepping.

A 3-node CockroachDB cluster (stores on the 2,500 GB data disks) and a
client running `cockroach workload`: load the warehouses, then 30-minute
steps from 2,500 active warehouses by +250 until a step fails its pass rule
(report: p90 < 5 s). cloud_report.tpcc.stages has the flags (the engine among
them); a crashed run resumes with the same --run_uri and --run_stage=run.

Example:
  pkb.py --benchmarks=cloud_report_tpcc --cloud=GCP \
      --machine_type=c2-standard-16
"""

from pkb_ext.suite import standalone
from pkb_ext.suite.tpcc import stages as tpcc  # pylint: disable=unused-import

BENCHMARK_NAME = 'cloud_report_tpcc'
BENCHMARK_CONFIG = standalone.Config(
    BENCHMARK_NAME,
    'TPC-C stepped to the latency limit on 3 database nodes and a client, as'
    ' in the Cockroach Labs 2021 Cloud Report.',
    db_vms=3,
    client=True,
    data_disks=True,
    mount_point='/scratch',
)
_BENCHMARK = standalone.Benchmark(BENCHMARK_NAME, BENCHMARK_CONFIG)
PHASE = _BENCHMARK.phase
# PKB's module functions: the phase's stages on this benchmark's VMs.
# pylint: disable-next=invalid-name
GetConfig, CheckPrerequisites, Prepare, Run, Cleanup = _BENCHMARK.Functions()
