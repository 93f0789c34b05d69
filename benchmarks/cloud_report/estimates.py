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
"""How long the phases' long remote waits should take, and their bounds.

One source for the run (each wait's default timeout) and for the plan (each
phase's expected wall time, which the estimate module of the phase's package
computes from the phase's Params and a Context, as a list of Phase). Pure:
no flags, VMs or clock.

A wait's bound is its expected time plus a margin: a quarter of the expected
time, at least BOUND_MIN_MARGIN_S and at most BOUND_MAX_MARGIN_S, so no
default lets a hung command run more than an hour past its expected time.

The rates, and where they come from:
  IMPORT_WAREHOUSES_PER_NODE_HOUR  `cockroach workload fixtures import tpcc`
      of 20,000 warehouses took 2.5 hours on 6 nodes (a public CockroachDB
      issue report): 1,333 warehouses per node-hour.
  FIXTURE_WAREHOUSES_PER_NODE_HOUR  a prebuilt TPC-C fixture restored from
      a bucket (`cockroach workload fixtures load tpcc`, a RESTORE): a
      public CockroachDB restore test (6 nodes of 8 vCPUs, 2,500 GB pd-ssd)
      restored a TPC-C backup of 600 GB of replicated data in about 20
      minutes, 83 MB/s per node; a CockroachDB TPC-C backup holds about 70
      MB per warehouse (5,000 warehouses in 350 GB, a public CockroachDB
      restore benchmark), 210 MB replicated 3 times: 1,429 warehouses per
      node-hour, about the import's rate.
  FILL_MBPS  the fill writes at up to 250 MB/s, the per-volume throughput
      limit of the report's gp2 and Azure Premium P50 disks.
  cpu_run_s  a CoreMark run that CoreMark calibrates (to at least 10 s)
      takes 19 s from its command to its result, whatever the CPU: a
      single-core run's measured time on machines two and four times as
      fast as each other (calibration, then a timed run of about 15 s).

Each rate an estimate uses has a name in RATES, with its default; a
Context's rates give other values (plan takes them from the `rates:` entry
of the cloud's price table, measured on that cloud's machines).

The fill ends at the disk's end or at the job file's runtime, whichever
comes first: the report's file sets runtime in [global], and fio ends every
job at its runtime, time_based or not, so on a large disk the fill writes
only ramp + runtime seconds' worth.
"""

import dataclasses
import math
from typing import Mapping

from benchmarks.cloud_report import errors as report_errors

IMPORT_WAREHOUSES_PER_NODE_HOUR = 20000 / 2.5 / 6
FIXTURE_WAREHOUSES_PER_NODE_HOUR = (600e3 / 6 / (20 * 60)) * 3600 / (70 * 3)
FILL_MBPS = 250.0
# Every rate an estimate uses: name -> (default, what it is). A price
# table's `rates:` entry may give any of them for its cloud's machines.
RATES = {
    'provision_s': (
        600.0,
        (
            'seconds to provision a configuration and tear it down (an'
            ' assumption for clouds)'
        ),
    ),
    'run_stage_overhead_s': (
        0.0,
        'seconds each Run stage spends outside its phases',
    ),
    'cpu_run_s': (19.0, 'seconds per CoreMark run CoreMark calibrates'),
    'coremark_iterations_per_s': (
        0.0,
        (
            'CoreMark iterations per second of a run of fixed iterations (0:'
            ' unknown, such a run is planned at cpu_run_s)'
        ),
    ),
    'cpu_build_s': (60.0, "seconds to install and build CoreMark's binaries"),
    'io_job_overhead_s': (
        0.0,
        'seconds per fio job beyond its ramp and runtime (start, parse)',
    ),
    'io_after_s': (
        0.0,
        'seconds after the fio jobs (formatting the data disk for tpcc)',
    ),
    'net_run_overhead_s': (0.0, 'seconds per netperf run beyond its tests'),
    'import_warehouses_per_node_hour': (
        IMPORT_WAREHOUSES_PER_NODE_HOUR,
        'TPC-C warehouses generated per db node-hour',
    ),
    'fixture_warehouses_per_node_hour': (
        FIXTURE_WAREHOUSES_PER_NODE_HOUR,
        'TPC-C warehouses loaded from a fixture per db node-hour',
    ),
}
BOUND_MIN_MARGIN_S = 600
BOUND_MAX_MARGIN_S = 3600
BOUND_MARGIN_FRACTION = 0.25


class EstimateError(report_errors.Error, ValueError):
  """A phase's settings give no estimate; the message says why."""


@dataclasses.dataclass(frozen=True)
class Phase:
  """One phase's (or part of a phase's) expected wall time, and how."""

  name: str
  seconds: float
  how: str
  linear_seconds: float | None = None  # tpcc: the same with linear search
  # Of seconds, what runs once however many Run stages there are (an
  # install, the TPC-C data's load).
  once_s: float = 0.0
  # tpcc_import from a fixture: the same generated.
  generate_s: float | None = None


@dataclasses.dataclass(frozen=True)
class Fill:
  """What the io phase's fill writes, and how fast."""

  gb: float | None  # None: the size is unknown
  mbps: float
  what: str  # the disk written
  rate: str  # where mbps comes from


@dataclasses.dataclass(frozen=True)
class Context:
  """What an estimate needs besides the phase's own settings."""

  fill: Fill | None = None  # the io phase's data disk; None: none known
  db_nodes: int = 1
  # Rates other than RATES' defaults (name -> value); the estimate's text
  # says which of its rates are these.
  rates: Mapping[str, float] = dataclasses.field(default_factory=dict)
  # TPC-C data: loaded from a prebuilt fixture in the run's bucket (when
  # one matches), rather than generated.
  fixtures: bool = False

  def Rate(self, name: str) -> float:
    """The rate of that name: the context's, else its RATES default."""
    if name not in RATES:
      raise KeyError(f'{name}: not a rate an estimate knows')
    return float(self.rates.get(name, RATES[name][0]))

  def Measured(self, *names: str) -> str:
    """' (measured)' if the context gives one of names, else ''."""
    if any(n in self.rates for n in names):
      return ' (measured)'
    return ''


def Hms(seconds: float) -> str:
  """Seconds as hours and minutes, rounded up: 3720 -> '1h02m'."""
  minutes = int(math.ceil(seconds / 60))
  return f'{minutes // 60}h{minutes % 60:02d}m'


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
