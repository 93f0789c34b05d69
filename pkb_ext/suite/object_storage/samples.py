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
"""Object storage samples: TTFB, request time and throughput.

One sample per statistic of each distribution that
cloud_report.object_storage.parser aggregates. Dimensions are metadata:
  statistic          min, max, mean, p50, p90, p99, p99.9 (throughput: p1,
                     p10, p50, p90, p99), percentiles linearly interpolated;
  op                 get or put;
  workload           latency, throughput or concurrency;
  connection         new or reused (latency workload);
  object_size_bytes  the object size;
  concurrency        simultaneous requests (aggregate throughput);
  n                  how many requests (or rounds) the statistic is over;
plus provider, sdk, sdk_version, worker_python and partial (the worker
stopped early; parse_problems says why).
"""

from perfkitbenchmarker import sample

from pkb_ext.suite import samples as samples_lib
from pkb_ext.suite.object_storage import parser as ttfb

METRICS = {
    # GET: request sent -> first body byte; PUT: -> first byte of the final
    # response after the body was sent (see the data file
    # object_storage/ttfb_worker.py).
    'object_storage_ttfb': 'ms',
    # Request sent -> SDK call done (whole body read for a GET).
    'object_storage_request_time': 'ms',
    # One request: object bytes / request time, in 10^6 bytes per second.
    'object_storage_throughput': 'MB/s',
    # One concurrency round: bytes of all its requests / its wall time.
    'object_storage_aggregate_throughput': 'MB/s',
    'object_storage_request_errors': 'count',
}

_METRIC_OF_GROUP = {
    'ttfb': 'object_storage_ttfb',
    'request_time': 'object_storage_request_time',
    'throughput': 'object_storage_throughput',
    'aggregate_throughput': 'object_storage_aggregate_throughput',
}


def _Common(result: ttfb.TtfbResult) -> dict:
  h = result.header
  common = {
      'provider': h.provider,
      'sdk': h.sdk,
      'sdk_version': h.sdk_version,
      'worker_python': h.python,
      'partial': result.partial,
  }
  if result.problems:
    common['parse_problems'] = '; '.join(result.problems)
  return common


def FromResult(result: ttfb.TtfbResult) -> list[sample.Sample]:
  """Returns one sample per statistic of each group, plus error counts."""
  common = _Common(result)
  out = []
  for g in result.groups:
    dims = {'workload': g.workload, 'op': g.op, 'n': g.distribution.n}
    for name in ('connection', 'object_size_bytes', 'concurrency'):
      if getattr(g, name) is not None:
        dims[name] = getattr(g, name)
    metric = _METRIC_OF_GROUP[g.metric]
    if METRICS[metric] != g.unit:
      raise ValueError(
          f'{g.metric} is in {g.unit}, {metric} in ' + METRICS[metric]
      )
    for stat, value in g.distribution.Stats().items():
      out.append(
          samples_lib.Make(
              METRICS, metric, value, common | dims | {'statistic': stat}
          )
      )
  for e in result.errors:
    out.append(
        samples_lib.Make(
            METRICS,
            'object_storage_request_errors',
            e.errors,
            common | {'workload': e.workload, 'op': e.op, 'n': e.requests},
        )
    )
  return out
