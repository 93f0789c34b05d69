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

from perfkitbenchmarker import configs

from benchmarks.cloud_report import phase_table
from benchmarks.cloud_report import preflight
from benchmarks.cloud_report import topology as topology_lib
from benchmarks.cloud_report.tpcc import stages as tpcc  # pylint: disable=unused-import

BENCHMARK_NAME = 'cloud_report_tpcc'
BENCHMARK_CONFIG = """
cloud_report_tpcc:
  description: >
    TPC-C stepped to the latency limit on 3 database nodes and a client,
    as in the Cockroach Labs 2021 Cloud Report.
  vm_groups:
    db:
      vm_count: 3
      vm_spec: &cloud_report_tpcc_vm
        AWS:
          machine_type: c5a.4xlarge
          zone: us-east-1a
        GCP:
          machine_type: n2-standard-16
          zone: us-east1-b
        Azure:
          machine_type: Standard_D16as_v4
          zone: eastus-1
      disk_spec:
        AWS:
          disk_type: gp2
          disk_size: 2500
          mount_point: /scratch
        GCP:
          disk_type: pd-ssd
          disk_size: 2500
          mount_point: /scratch
        Azure:
          disk_type: Premium_LRS
          disk_size: 2500
          mount_point: /scratch
    client:
      vm_count: 1
      vm_spec: *cloud_report_tpcc_vm
"""
PHASE = phase_table.ByBenchmark(BENCHMARK_NAME).sample


def GetConfig(user_config):
  return configs.LoadConfig(BENCHMARK_CONFIG, user_config, BENCHMARK_NAME)


def CheckPrerequisites(benchmark_config):
  """Fails before provisioning on what would fail after it (preflight)."""
  preflight.Check(benchmark_config, [PHASE])


def Prepare(spec):
  topology_lib.PreparePhase(spec, PHASE)


def Run(spec):
  return topology_lib.RunPhase(spec, PHASE)


def Cleanup(spec):
  topology_lib.CleanupPhase(spec, PHASE)
