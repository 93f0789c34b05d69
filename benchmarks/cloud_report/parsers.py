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
"""What the phases' pure parsers share, and the index of their tools.

Each phase's package has a parser module, <phase package>.parser, with

  Parse(text: str) -> <a frozen dataclass>

which reads nothing but `text` (no FLAGS, VM, clock or I/O) and raises
ParseError naming what is wrong for truncated, garbled or failed output,
and a samples module, <phase package>.samples, with

  FromResult(result) -> list[sample.Sample]

TOOLS maps each tool's name to its phase, and so to both modules, for
reading archived outputs.
"""

import dataclasses
import importlib
import types

from benchmarks.cloud_report import errors as report_errors


class ParseError(report_errors.Error, ValueError):
  """A tool's output is missing, truncated, garbled or reports a failure."""


@dataclasses.dataclass(frozen=True)
class Tool:
  """A tool whose output can be parsed: its parser and the phase it feeds."""

  name: str
  phase: str

  def Module(self, module: str) -> str:
    """The dotted name of its phase's `module` (parser or samples)."""
    package = __name__.rsplit('.', 1)[0]
    # Imported here: parsers stay free of PKB, which the samples use.
    samples = importlib.import_module(f'{package}.samples')
    return samples.PhaseModule(self.phase, module)

  @property
  def parser_module(self) -> str:
    return self.Module('parser')

  @property
  def samples_module(self) -> str:
    return self.Module('samples')


TOOLS = {
    t.name: t
    for t in (
        Tool('coremark', 'cpu'),
        Tool('fio', 'io'),
        Tool('netperf', 'net'),
        Tool('ttfb', 'object_storage'),
        Tool('tpcc', 'tpcc'),
    )
}


def Lookup(tool: str) -> tuple[types.ModuleType, types.ModuleType]:
  """Returns (parser module, samples module) of a tool.

  Raises:
    KeyError: unknown tool.
  """
  if tool not in TOOLS:
    raise KeyError(f'unknown tool {tool!r}; choose from {", ".join(TOOLS)}')
  t = TOOLS[tool]
  return importlib.import_module(t.parser_module), importlib.import_module(
      t.samples_module
  )


def ParseText(tool: str, text: str, **kwargs) -> list:
  """Parses one tool output into samples stamped with their phase.

  Args:
    tool: a name in TOOLS.
    text: the tool's output.
    **kwargs: passed to the parser (e.g. netperf's `required`).
  """
  parser, samples_module = Lookup(tool)
  result = parser.Parse(text, **kwargs)
  out = samples_module.FromResult(result)
  for s in out:
    s.metadata.setdefault('phase', TOOLS[tool].phase)
  return out
