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
"""Deterministic PKB sample dicts shaped like the suite's, for the publishing
tests and benchmark (never for results).

Each has the common run metadata (cloud_report.samples.RunMetadata), a phase and
an iteration, and the fields PKB's SampleCollector adds.
"""

import random
import uuid
from typing import Any

from pkb_ext.suite import samples as pkb_ext_samples

_RUNS = (
    pkb_ext_samples.RunMetadata(
        cloud='GCP',
        region='us-east4',
        zone='us-east4-c',
        machine_type='n2-standard-16',
        vcpus=16,
        cpu_platform='Intel Cascade Lake',
        disk_type='pd-ssd',
        disk_size_gb=2500,
        provisioned_iops=None,
        provisioned_mbps=None,
        report_version='2021',
    ),
    pkb_ext_samples.RunMetadata(
        cloud='AWS',
        region='us-east-2',
        zone='us-east-2a',
        machine_type='c5a.4xlarge',
        vcpus=16,
        cpu_platform='AMD EPYC 7R32',
        disk_type='io2',
        disk_size_gb=2500,
        provisioned_iops=5400,
        provisioned_mbps=None,
        report_version='2021',
    ),
)
# (phase, metric, unit, extra metadata)
_KINDS = (
    ('cpu', 'coremark_score', 'iterations/s', {'mode': 'single_core'}),
    ('cpu', 'coremark_score', 'iterations/s', {'mode': 'all_core'}),
    ('io', 'fio_bandwidth', 'MB/s', {'job': 'rd-bw', 'queue_depth': 64}),
    ('io', 'fio_iops', 'IOPS', {'job': 'wr-iops', 'queue_depth': 512}),
    ('net', 'netperf_latency_p99', 'us', {'test': 'TCP_RR'}),
    ('object_storage', 'ttfb_p99', 'ms', {'operation': 'GET'}),
    ('tpcc', 'tpmc', 'tpmC', {'warehouses': 2750, 'passed': True}),
)


def MakeSamples(
    n: int,
    run_uri: str = 'synthetic-0000',
    seed: int = 0,
    start: float = 1_612_137_600.0,  # 2021-02-01
) -> list[dict[str, Any]]:
  """Returns n sample dicts as PKB's SampleCollector publishes them."""
  rng = random.Random(seed)
  out = []
  for i in range(n):
    phase, metric, unit, extra = _KINDS[i % len(_KINDS)]
    run = _RUNS[(i // len(_KINDS)) % len(_RUNS)]
    metadata = run.ForSample(phase, 1 + i % 10) | extra
    out.append({
        'metric': metric,
        'value': round(rng.uniform(1, 100_000), 6),
        'unit': unit,
        'metadata': metadata,
        'timestamp': start + i * 0.001 + (i % 3) * 86_400,
        'test': 'cloud_report_2021',
        'product_name': 'PerfKitBenchmarker',
        'official': False,
        'owner': 'pkb-ext',
        'run_uri': run_uri,
        'sample_uri': str(uuid.UUID(int=rng.getrandbits(128), version=4)),
    })
  return out
