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
"""The 2021 Cloud Report's network phase alone: netperf in one zone.

netperf 2.6+ from the client VM to a netserver on the db VM, over internal
IPs: TCP_RR (min, mean, p50, p90, p99, max and stddev latency in µs, and the
transaction rate) and single-stream TCP_STREAM throughput (Mbit/s), 60 s per
iteration with -I 99,5 (cloud_report.net.stages has the flags: duration,
confidence, repetitions, streams, ports, output style, install mode).

Example:
  pkb.py --benchmarks=cloud_report_netperf --cloud=GCP \
      --machine_type=n2-standard-16 --cloud_report_netperf_repetitions=5
"""

from perfkitbenchmarker import configs

from benchmarks.cloud_report import phase_table
from benchmarks.cloud_report import preflight
from benchmarks.cloud_report import topology as topology_lib
from benchmarks.cloud_report.net import stages as network  # pylint: disable=unused-import

BENCHMARK_NAME = 'cloud_report_netperf'
BENCHMARK_CONFIG = """
cloud_report_netperf:
  description: >
    netperf TCP_RR latency percentiles and TCP_STREAM throughput between
    two VMs of one zone, as in the Cockroach Labs 2021 Cloud Report.
  vm_groups:
    db:
      vm_count: 1
      vm_spec: &cloud_report_netperf_vm
        AWS:
          machine_type: c5a.4xlarge
          zone: us-east-1a
        GCP:
          machine_type: n2-standard-16
          zone: us-east1-b
        Azure:
          machine_type: Standard_D16as_v4
          zone: eastus-1
    client:
      vm_count: 1
      vm_spec: *cloud_report_netperf_vm
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
