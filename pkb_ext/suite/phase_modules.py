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
"""Every phase's modules, imported by name: what needs all the phases at once.

The layers of cloud_report, each importing only the ones below it:

  benchmark modules   the suite imports this module; a standalone benchmark
                      imports its own phase's stages module and nothing of
                      the other phases.
  this module         imports every phase's stages module, and pairs it,
                      its parser and its samples module with its row of
                      phase_table.
  phase packages      cpu, disk, net, object_storage, tpcc: each stands
                      alone, and uses the shared modules below.
  shared modules      phase_table, phases, parsers, samples, topology,
                      runner, ... : none imports a phase package. Where one
                      runs a phase by name (runner, preflight, standalone),
                      phases.Load finds the stages
                      module a benchmark module above imported.

pyproject.toml's import-linter contracts hold these layers. Importing this
module defines every phase's flags.
"""

import dataclasses
import types

from pkb_ext.suite import phase_table
from pkb_ext.suite import phases
from pkb_ext.suite import samples as samples_lib
from pkb_ext.suite.tpcc import stages as tpcc_stages
from pkb_ext.suite.cpu import stages as cpu_stages
from pkb_ext.suite.disk import stages as disk_stages
from pkb_ext.suite.net import stages as net_stages
from pkb_ext.suite.object_storage import stages as os_stages


@dataclasses.dataclass(frozen=True)
class Modules:
  """One phase's row and its modules."""

  phase: phase_table.Phase
  stages: types.ModuleType
  parser: types.ModuleType
  samples: types.ModuleType


def _Pair(stages: types.ModuleType) -> Modules:
  """Pairs a phase's stages module, and its PARSER and SAMPLES, with its row.

  Only the stages modules are imported here: a standalone benchmark module
  reaches its phase's modules in fewer imports than the suite does.
  """
  modules = (stages, stages.PARSER, stages.SAMPLES)
  packages = {m.__name__.rsplit('.', 2)[-2] for m in modules}
  if len(packages) != 1:
    raise ValueError(f'modules of more than one phase: {sorted(packages)}')
  return Modules(phase_table.ByPackage(packages.pop()), *modules)


_ALL = (
    _Pair(cpu_stages),
    _Pair(disk_stages),
    _Pair(net_stages),
    _Pair(os_stages),
    _Pair(tpcc_stages),
)
BY_PHASE = {m.phase.sample: m for m in _ALL}
if tuple(BY_PHASE) != phase_table.ORDER:
  raise ValueError(
      f'the phase modules ({",".join(BY_PHASE)}) are not the table'
      f"'s phases ({','.join(phase_table.ORDER)}) in its order"
  )


def LoadAll() -> list[str]:
  """The phases, in the report's order: each one's module is imported."""
  return [name for name in BY_PHASE if phases.Load(name)]


def Catalog() -> dict[str, str]:
  """Returns every metric of every phase, name -> unit."""
  catalog = dict(samples_lib.METRICS)
  for modules in _ALL:
    # A phase's samples module, which pylint takes for a bare module.
    # pylint: disable-next=no-member
    for name, unit in modules.samples.METRICS.items():
      if name in catalog:
        raise ValueError(f'metric {name!r} is defined twice')
      catalog[name] = unit
  return catalog


def Lookup(tool: str) -> tuple[types.ModuleType, types.ModuleType]:
  """Returns (parser module, samples module) of a tool.

  Raises:
    KeyError: unknown tool.
  """
  modules = BY_PHASE[phase_table.ByTool(tool).sample]
  return modules.parser, modules.samples


def ParseText(tool: str, text: str, **kwargs) -> list:
  """Parses one tool output into samples stamped with their phase.

  Args:
    tool: a tool of phase_table.
    text: the tool's output.
    **kwargs: passed to the parser (e.g. netperf's `required`).
  """
  parser, samples_module = Lookup(tool)
  result = parser.Parse(text, **kwargs)
  out = samples_module.FromResult(result)
  for s in out:
    s.metadata.setdefault('phase', phase_table.ByTool(tool).sample)
  return out
