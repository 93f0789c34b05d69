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

from pkb_ext.suite import standalone
from pkb_ext.suite.net import stages as network  # pylint: disable=unused-import

BENCHMARK_NAME = 'cloud_report_netperf'
BENCHMARK_CONFIG = standalone.Config(
    BENCHMARK_NAME,
    'netperf TCP_RR latency percentiles and TCP_STREAM throughput between'
    ' two VMs of one zone, as in the Cockroach Labs 2021 Cloud Report.',
    db_vms=1,
    client=True,
)
_BENCHMARK = standalone.Benchmark(BENCHMARK_NAME, BENCHMARK_CONFIG)
PHASE = _BENCHMARK.phase
# PKB's module functions: the phase's stages on this benchmark's VMs.
# pylint: disable-next=invalid-name
GetConfig, CheckPrerequisites, Prepare, Run, Cleanup = _BENCHMARK.Functions()
