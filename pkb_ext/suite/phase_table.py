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
"""The report's phases, each named once: the one table of their names.

A phase has four names, one per place a reader meets it:

  sample     the `phase` of every sample's metadata (and of the published
             rows); it never changes, or old samples would stop matching.
  package    its sub-package of cloud_report (stages, parser, samples).
  tool       the tool whose output its parser reads (phase_modules.ParseText
             takes it), and its captured outputs' directory.
  benchmark  its standalone PKB benchmark module's BENCHMARK_NAME.

Where a name differs from the sample name, the row says why. TABLE lists
the rows in the report's order, the order the suite runs them in. The
rest of the row says where the phase runs (the VMs it uses, whether it uses
the db VMs' data disks, and whether it can run beside the disk fill: see
phases.MakeSchedule); provision.ProvisionFor reads it to provision only what
a selection of phases uses.

Pure data: this module imports nothing of PKB or of the phases, so every
module of the suite may read it.
"""

import dataclasses

# The VM roles a phase runs on (Phase.vms), expanded by phases.Topology:
DB = 'db'  # the phase's db VM (db1, or the side db VM under overlap)
EVERY_DB = 'every db'  # db1..dbN
CLIENT = 'client'  # the client VM, which the phase needs
CLIENT_IF_ANY = 'client if any'  # the client VM, when the spec has one


@dataclasses.dataclass(frozen=True)
class Phase:
  """One phase's names, and where it runs."""

  sample: str  # the `phase` metadata of its samples
  package: str  # its sub-package of cloud_report
  tool: str  # the tool whose output its parser reads
  benchmark: str  # its standalone benchmark's BENCHMARK_NAME
  vms: tuple[str, ...]  # the roles of the VMs it runs on, in this order
  fills: bool = False  # fills the first db VM's data disk before it measures
  data_disk: bool = False  # uses the data disk of the db VMs it runs on
  side: bool = False  # can run beside the fill, on other VMs (overlap)
  side_db: bool = False  # beside the fill, it runs on a db VM but the first
  why: str = ''  # why a name differs from the sample name

  @property
  def needs_client(self) -> bool:
    return CLIENT in self.vms


CPU = Phase(
    sample='cpu',
    package='cpu',
    tool='coremark',
    benchmark='cloud_report_coremark',
    vms=(DB,),
    side=True,
    side_db=True,
    why='tool and benchmark: CoreMark is what the phase runs',
)
IO = Phase(
    sample='io',
    package='disk',
    tool='fio',
    benchmark='cloud_report_fio',
    vms=(DB,),
    fills=True,
    data_disk=True,
    why=(
        'package: a package named io would shadow the standard library'
        "'s; tool and benchmark: fio is what the phase runs"
    ),
)
NET = Phase(
    sample='net',
    package='net',
    tool='netperf',
    benchmark='cloud_report_netperf',
    vms=(CLIENT, DB),
    side=True,
    side_db=True,
    why='tool and benchmark: netperf is what the phase runs',
)
OBJECT_STORAGE = Phase(
    sample='object_storage',
    package='object_storage',
    tool='ttfb',
    benchmark='cloud_report_object_storage',
    vms=(CLIENT,),
    side=True,
    why=(
        "tool: its output is the worker's time-to-first-byte JSON, what"
        ' the phase measures besides throughput'
    ),
)
TPCC = Phase(
    sample='tpcc',
    package='tpcc',
    tool='tpcc',
    benchmark='cloud_report_tpcc',
    vms=(EVERY_DB, CLIENT_IF_ANY),
    data_disk=True,
)

# The report's order.
TABLE = (CPU, IO, NET, OBJECT_STORAGE, TPCC)
ORDER = tuple(p.sample for p in TABLE)
TOOLS = tuple(p.tool for p in TABLE)
BENCHMARKS = tuple(p.benchmark for p in TABLE)


def _Index(field: str) -> dict[str, Phase]:
  index = {getattr(p, field): p for p in TABLE}
  if len(index) != len(TABLE):
    raise ValueError(f'two phases have the same {field} name')
  return index


_BY_SAMPLE = _Index('sample')
_BY_PACKAGE = _Index('package')
_BY_TOOL = _Index('tool')
_BY_BENCHMARK = _Index('benchmark')


def _Find(index: dict[str, Phase], kind: str, name: str) -> Phase:
  if name not in index:
    raise KeyError(f'unknown {kind} {name!r}; choose from {", ".join(index)}')
  return index[name]


def Get(phase: str) -> Phase:
  """The row of a phase, by its sample name.

  Raises:
    KeyError: no phase has that name.
  """
  return _Find(_BY_SAMPLE, 'phase', phase)


def ByPackage(package: str) -> Phase:
  """The row of the phase whose package is `package`."""
  return _Find(_BY_PACKAGE, 'phase package', package)


def ByTool(tool: str) -> Phase:
  """The row of the phase whose tool is `tool`."""
  return _Find(_BY_TOOL, 'tool', tool)


def ByBenchmark(benchmark: str) -> Phase:
  """The row of the phase whose standalone benchmark is `benchmark`."""
  return _Find(_BY_BENCHMARK, 'benchmark', benchmark)
