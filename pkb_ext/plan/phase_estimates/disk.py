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
"""The io phase's expected wall time (pure; plan asks for it).

The fill (timeouts.FillSeconds) of the data disk the context names, at its
rate and ended by the job file's runtime + ramp if that comes first (fio
ends every job of the report's file there; a disk of unknown size is
planned at that bound), then each job's runtime + ramp.
A fio size given as a percentage fills that share of the disk; any other
size is planned as the whole disk. The context's io_job_overhead_s is added
per job (the fill is one) and its io_after_s once, after the jobs.
"""

import re

from benchmarks.cloud_report import timeouts
from pkb_ext.plan import estimates

_PERCENT = re.compile(r'^(\d+(?:\.\d+)?)%$')


def Estimate(params, context: estimates.Context) -> list[estimates.Phase]:
  """The fill (when on and the disk is known), then the jobs."""
  jobs = len(params.jobs)
  per_job = params.runtime_s + params.ramp_time_s
  overhead_s = context.Rate('io_job_overhead_s')
  after_s = context.Rate('io_after_s')
  seconds = jobs * (per_job + overhead_s) + after_s
  how = f'{jobs} fio jobs x {per_job} s'
  if overhead_s or after_s:
    how += (
        f' (+ {overhead_s:g} s a job, {after_s:g} s after them)'
        + context.Measured('io_job_overhead_s', 'io_after_s')
    )
  if params.fill:
    seconds += overhead_s
  fill = context.fill
  if not params.fill:
    return [estimates.Phase('io', seconds, how)]
  if fill is None:
    return [estimates.Phase('io', seconds, f'fill of no data disk + {how}')]
  if fill.gb is None:
    # The job file's runtime ends the fill of any size: its longest.
    return [
        estimates.Phase(
            'io',
            seconds + per_job,
            f'fill {fill.what}: its size is unknown, planned at the job'
            f" file's runtime, {per_job} s, its longest + {how}",
        )
    ]
  gb = fill.gb
  size = str(params.size)
  percent = _PERCENT.match(size)
  if percent:
    gb *= min(float(percent.group(1)), 100.0) / 100
  whole = timeouts.FillSeconds(gb, fill.mbps)
  seconds_fill = timeouts.FillSeconds(gb, fill.mbps, limit_s=per_job)
  of = f' ({size} of it)' if size != '100%' else ''
  if not percent:
    of = f' (fio size={size}, planned as the whole disk)'
  if seconds_fill < whole:
    took = (
        f" would take {whole / 60:.0f} min, but the job file's runtime ends"
        f' it at {per_job} s'
    )
  else:
    took = f': {seconds_fill / 60:.0f} min'
  return [
      estimates.Phase(
          'io',
          seconds + seconds_fill,
          f'fill {gb:g} GB{of} ({fill.what}) at {fill.mbps:g} MB/s'
          f' ({fill.rate}){took} + {how}',
      )
  ]
