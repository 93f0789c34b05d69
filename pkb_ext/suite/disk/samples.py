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
"""Samples of the io phase (fio on the raw data disk).

One set of samples per reported job and data direction. The job, direction,
rw, bs, iodepth, numjobs and percentile are metadata, never part of a metric
name. Jobs whose name ends in '-ignore' (the report's fill-disk-ignore
precondition) are never reported, as in the report's job file.
"""

from typing import Any, Mapping

from perfkitbenchmarker import sample

from pkb_ext.suite import samples as samples_lib
from pkb_ext.suite.disk import parser as fio_parser

METRICS = {
    'fio_iops': 'ops/s',
    'fio_bandwidth': 'MB/s',  # 10^6 bytes/s
    'fio_bandwidth_kib': 'KiB/s',
    'fio_clat_mean': 'us',
    'fio_clat_min': 'us',
    'fio_clat_max': 'us',
    'fio_clat_stddev': 'us',
    'fio_clat_percentile': 'us',  # metadata: percentile
    'fio_latency_target_depth': 'count',  # queue depth the target settled at
}

# The completion-latency percentiles reported (fio's default list has them).
PERCENTILES = (50.0, 90.0, 95.0, 99.0, 99.9, 99.99)
IGNORED_JOB_SUFFIX = '-ignore'


def IsReported(job_name: str) -> bool:
  """False for the report's precondition jobs (name ends in -ignore)."""
  return not job_name.endswith(IGNORED_JOB_SUFFIX)


def _Int(value: str | None, default: int) -> int | str:
  if value is None:
    return default
  return int(value) if value.isdigit() else value


def JobMetadata(result: fio_parser.Result, job: fio_parser.Job) -> dict:
  """The metadata every sample of a job carries."""
  metadata = {
      'fio_job': job.name,
      'rw': job.Option('rw', 'read'),
      'bs': job.Option('bs', '4k'),
      'iodepth': _Int(job.Option('iodepth'), 1),
      'numjobs': _Int(job.Option('numjobs'), 1),
      'ioengine': job.Option('ioengine', 'psync'),
      'fio_version': result.fio_version,
  }
  target = job.latency_target
  if target:
    metadata |= {
        'latency_target_us': target.target_us,
        'latency_percentile': target.percentile,
        'latency_window_us': target.window_us,
    }
  return metadata


def _DirectionSamples(
    direction: fio_parser.Direction, metadata: dict
) -> list[sample.Sample]:
  """The samples of one direction (read or write) of a fio job."""
  md = metadata | {'direction': direction.name}

  def Make(metric, value, extra=None):
    return samples_lib.Make(METRICS, metric, value, md | (extra or {}))

  out = [
      Make('fio_iops', direction.iops),
      Make('fio_bandwidth', direction.bw_mb),
      Make('fio_bandwidth_kib', direction.bw_kib),
      Make('fio_clat_mean', direction.clat_mean_us),
      Make('fio_clat_min', direction.clat_min_us),
      Make('fio_clat_max', direction.clat_max_us),
      Make('fio_clat_stddev', direction.clat_stddev_us),
  ]
  for pct in PERCENTILES:
    value = direction.Percentile(pct)
    if value is not None:
      out.append(Make('fio_clat_percentile', value, {'percentile': pct}))
  return out


def FromResult(
    result: fio_parser.Result, metadata: Mapping[str, Any] | None = None
) -> list[sample.Sample]:
  """Returns the samples of every reported job of a parsed fio run.

  Args:
    result: a parsed fio JSON output.
    metadata: extra metadata for every sample (the phase's settings).
  """
  out = []
  for job in result.jobs:
    if not IsReported(job.name):
      continue
    job_metadata = dict(metadata or {}) | JobMetadata(result, job)
    for direction in job.directions:
      out.extend(_DirectionSamples(direction, job_metadata))
    if job.latency_target:
      out.append(
          samples_lib.Make(
              METRICS,
              'fio_latency_target_depth',
              job.latency_target.depth,
              job_metadata,
          )
      )
  return out
