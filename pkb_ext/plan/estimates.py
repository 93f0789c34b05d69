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
"""What the phases' estimates share: their rates, parts, context and text.

Each phase's estimate module (phase_estimates) computes its expected wall
time from the phase's Params and a Context, as a list of Phase. Pure: no
flags, VMs or clock. The run's own timeouts use the same expected times
(benchmarks.cloud_report.timeouts: the import and fill rates, a TPC-C
step's time), so plan and run agree.

The rates this module adds to the timeouts' ones, and where they come from:
  FIXTURE_WAREHOUSES_PER_NODE_HOUR  a prebuilt TPC-C fixture restored from
      a bucket (`cockroach workload fixtures load tpcc`, a RESTORE): a
      public CockroachDB restore test (6 nodes of 8 vCPUs, 2,500 GB pd-ssd)
      restored a TPC-C backup of 600 GB of replicated data in about 20
      minutes, 83 MB/s per node; a CockroachDB TPC-C backup holds about 70
      MB per warehouse (5,000 warehouses in 350 GB, a public CockroachDB
      restore benchmark), 210 MB replicated 3 times: 1,429 warehouses per
      node-hour, about the import's rate.
  cpu_run_s  a CoreMark run that CoreMark calibrates (to at least 10 s)
      takes 19 s from its command to its result, whatever the CPU: a
      single-core run's measured time on machines two and four times as
      fast as each other (calibration, then a timed run of about 15 s).

Each rate an estimate uses has a name in RATES, with its default; a
Context's rates give other values (plan takes them from the `rates:` entry
of the cloud's price table, measured on that cloud's machines).
"""

import dataclasses
import math
from typing import Mapping

from benchmarks.cloud_report import timeouts
from pkb_ext import errors

FIXTURE_WAREHOUSES_PER_NODE_HOUR = (600e3 / 6 / (20 * 60)) * 3600 / (70 * 3)
# The io phase's fill rate where no figure of the disk is known: the
# timeouts' (the rate its default bound assumes).
FILL_MBPS = timeouts.FILL_MBPS
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
    'cpu_build_s': (
        60.0,
        (
            "seconds to install CoreMark (PKB's coremark package: a compiler"
            ' and the v1.01 tree)'
        ),
    ),
    'cpu_make_s': (
        1.0,
        (
            "seconds PKB's make spends compiling CoreMark before each run (an"
            ' assumption for clouds: six C files at -O2)'
        ),
    ),
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
        timeouts.IMPORT_WAREHOUSES_PER_NODE_HOUR,
        'TPC-C warehouses generated per db node-hour',
    ),
    'fixture_warehouses_per_node_hour': (
        FIXTURE_WAREHOUSES_PER_NODE_HOUR,
        'TPC-C warehouses loaded from a fixture per db node-hour',
    ),
}


class EstimateError(errors.Error, ValueError):
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
