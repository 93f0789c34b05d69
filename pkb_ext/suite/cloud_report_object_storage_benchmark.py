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
"""Object storage time to first byte and throughput, from one client VM.

The object_storage phase of cloud_report_2021 on its own: from a client VM
to a bucket in its region (PKB's S3, GCS or Azure Blob service), TTFB
percentiles of PUTs and GETs on new and reused connections, single-stream
throughput per object size and aggregate throughput per concurrency level.
Unlike PKB's object_storage_service benchmark, which times whole requests,
it separates the first byte from the transfer. See cloud_report/
object_storage/.

Example:
  pkb.py --benchmarks=cloud_report_object_storage --cloud=AWS \
      --zone=us-east-1a --aws_ec2_instance_profile=... \
      --cloud_report_object_storage_concurrency=
"""

from pkb_ext.suite import standalone
from pkb_ext.suite.object_storage import stages as object_storage  # pylint: disable=unused-import

BENCHMARK_NAME = 'cloud_report_object_storage'
BENCHMARK_CONFIG = standalone.Config(
    BENCHMARK_NAME,
    'Object storage TTFB (p50/p90/p99/p99.9 over 1,000 PUTs and GETs, new'
    ' and reused connections) and throughput (100 transfers per size, 16 KiB'
    ' to 32 MiB; 1/5/10/20 streams) from a client VM to a same-region'
    ' bucket.',
    client=True,
)
_BENCHMARK = standalone.Benchmark(BENCHMARK_NAME, BENCHMARK_CONFIG)
PHASE = _BENCHMARK.phase
# PKB's module functions: the phase's stages on this benchmark's VMs.
# pylint: disable-next=invalid-name
GetConfig, CheckPrerequisites, Prepare, Run, Cleanup = _BENCHMARK.Functions()
