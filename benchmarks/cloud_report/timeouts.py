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
"""Default bounds of long remote waits, from their expected time.

A wait's bound is its expected time plus a margin: a quarter of the expected
time, at least BOUND_MIN_MARGIN_S and at most BOUND_MAX_MARGIN_S, so no
default lets a hung command run more than an hour past its expected time.
Pure: no flags, VMs or clock.

The rates of the expected times, and where they come from:
  IMPORT_WAREHOUSES_PER_NODE_HOUR  `cockroach workload fixtures import tpcc`
      of 20,000 warehouses took 2.5 hours on 6 nodes (a public CockroachDB
      issue report): 1,333 warehouses per node-hour.
  FILL_MBPS  the fill writes at up to 250 MB/s, the per-volume throughput
      limit of the report's gp2 and Azure Premium P50 disks.

The fill ends at the disk's end or at the job file's runtime, whichever
comes first: the report's file sets runtime in [global], and fio ends every
job at its runtime, time_based or not, so on a large disk the fill writes
only ramp + runtime seconds' worth.
"""

import math

IMPORT_WAREHOUSES_PER_NODE_HOUR = 20000 / 2.5 / 6
FILL_MBPS = 250.0
BOUND_MIN_MARGIN_S = 600
BOUND_MAX_MARGIN_S = 3600
BOUND_MARGIN_FRACTION = 0.25


def Bound(expected_s: float) -> int:
  """Seconds to wait for something expected to take expected_s."""
  if not math.isfinite(expected_s) or expected_s < 0:
    raise ValueError(f'expected time {expected_s!r} s is not a duration')
  margin = min(
      max(BOUND_MARGIN_FRACTION * expected_s, BOUND_MIN_MARGIN_S),
      BOUND_MAX_MARGIN_S,
  )
  return int(math.ceil(expected_s + margin))


def ImportSeconds(
    warehouses: int, nodes: int, per_node_hour: float | None = None
) -> float:
  """Expected seconds to import `warehouses` TPC-C warehouses on `nodes`.

  Args:
    warehouses: the warehouses loaded.
    nodes: the db nodes.
    per_node_hour: warehouses per node-hour (default
      IMPORT_WAREHOUSES_PER_NODE_HOUR).
  """
  rate = per_node_hour or IMPORT_WAREHOUSES_PER_NODE_HOUR
  if warehouses < 0 or nodes < 1 or not (math.isfinite(rate) and rate > 0):
    raise ValueError(
        f'{warehouses} warehouses on {nodes} node(s) at {rate!r} per node-hour'
    )
  return 3600.0 * warehouses / (rate * nodes)


def FillSeconds(
    size_gb: float, mbps: float | None = None, limit_s: float | None = None
) -> float:
  """Expected seconds of a fill of size_gb (decimal GB) at mbps (MB/s).

  Args:
    size_gb: what the fill writes when nothing ends it first.
    mbps: the write rate (default FILL_MBPS).
    limit_s: the job file's ramp + runtime, which ends the fill first on a
      disk too large to write in that time; None: no limit.
  """
  mbps = FILL_MBPS if mbps is None else mbps
  if not (math.isfinite(size_gb) and size_gb >= 0):
    raise ValueError(f'disk size {size_gb!r} GB')
  if not (math.isfinite(mbps) and mbps > 0):
    raise ValueError(f'fill rate {mbps!r} MB/s')
  seconds = size_gb * 1e3 / mbps
  if limit_s is not None:
    if not (math.isfinite(limit_s) and limit_s >= 0):
      raise ValueError(f'fill time limit {limit_s!r} s')
    seconds = min(seconds, float(limit_s))
  return seconds


def StepSeconds(ramp_s: float, duration_s: float) -> float:
  """Expected seconds of one TPC-C step: its ramp, then its duration."""
  return float(ramp_s + duration_s)
