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
"""The 2021 Cloud Report's storage phase alone: fio on one raw data disk.

Runs the report's fio job file (data file fio/cloud_report_2021.fio.j2) on the
db VM's 2,500 GB network data disk: the fill-disk precondition (never
reported), then wr-bw, wr-iops, wr-latency, rd-bw, rd-iops, rd-latency and
the latency-target job, each 2 minutes with a 2 s ramp, libaio, direct=1.
The disk is unmounted first, checked by the safety guard, and given a fresh
file system afterwards (cloud_report/disk/stages.py has the
cloud_report_fio_* flags).

WARNING: this destroys whatever is on the data disk.

Example:
  pkb.py --benchmarks=cloud_report_fio --cloud=AWS --machine_type=c5a.4xlarge
"""

from pkb_ext.suite import standalone
from pkb_ext.suite.disk import stages as storage  # pylint: disable=unused-import

BENCHMARK_NAME = 'cloud_report_fio'
BENCHMARK_CONFIG = standalone.Config(
    BENCHMARK_NAME,
    'fio on the raw 2,500 GB data disk with the Cockroach Labs 2021 Cloud'
    " Report's job file (fill, then bandwidth, IOPS, latency, latency"
    ' target).',
    db_vms=1,
    data_disks=True,
)
_BENCHMARK = standalone.Benchmark(BENCHMARK_NAME, BENCHMARK_CONFIG)
PHASE = _BENCHMARK.phase
# PKB's module functions: the phase's stages on this benchmark's VMs.
# pylint: disable-next=invalid-name
GetConfig, CheckPrerequisites, Prepare, Run, Cleanup = _BENCHMARK.Functions()
