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
"""Published figures as one side of a comparison (configs/baselines).

configs/baselines/report<NAME>.yaml holds the figures a published report's
text states: per figure a benchmark of sql/benchmarks.sql, the machine
(cloud, machine type, optionally disk type), the value in the benchmark's
unit, flags the report raised (bimodal, over_limit) and the sentence it
comes from. A figure has no repetitions: it is a mean without its runs.
"""

import dataclasses
import importlib.resources
import math
import os
from typing import Any

import yaml

from pkb_ext import errors

FLAGS = ('bimodal', 'over_limit')


class BaselineError(errors.Error, ValueError):
  """A baseline file is missing or malformed; the message names it."""


@dataclasses.dataclass(frozen=True)
class Figure:
  benchmark: str
  cloud: str
  machine_type: str
  disk_type: str | None
  value: float
  flags: tuple[str, ...]
  approximate: bool
  quote: str
  note: str | None


@dataclasses.dataclass(frozen=True)
class Baseline:
  name: str
  report: str
  report_version: str
  published: str
  source: str
  path: str
  figures: tuple[Figure, ...]

  def Describe(self) -> str:
    return (
        f'baseline {self.name}: {len(self.figures)} figures stated in the'
        f' text of the {self.report} (published {self.published}, report'
        f' version {self.report_version}); no repetitions'
    )


def Directory() -> str:
  return str(importlib.resources.files('pkb_ext.configs') / 'baselines')


def Names(directory: str | None = None) -> list[str]:
  directory = directory or Directory()
  if not os.path.isdir(directory):
    return []
  return sorted(
      f[len('report') : -len('.yaml')]
      for f in os.listdir(directory)
      if f.startswith('report') and f.endswith('.yaml')
  )


def _Str(entry: dict[str, Any], key: str, where: str, required=True):
  value = entry.get(key)
  if value is None and not required:
    return None
  if not isinstance(value, str) or not value.strip():
    raise BaselineError(f'{where}: {key} must be a non-empty string')
  return value.strip()


def Load(
    name: str, benchmarks: set[str], directory: str | None = None
) -> Baseline:
  """Reads configs/baselines/report<name>.yaml.

  Args:
    name: e.g. '2021'.
    benchmarks: the benchmark keys a figure may name.
    directory: default configs/baselines of the installed package.

  Raises:
    BaselineError: no such baseline, or a figure is malformed.
  """
  directory = directory or Directory()
  path = os.path.join(directory, f'report{name}.yaml')
  if not os.path.isfile(path):
    raise BaselineError(
        f'no baseline {name!r} ({path}); baselines: '
        f'{", ".join(Names(directory)) or "none"}'
    )
  try:
    with open(path, encoding='utf-8') as f:
      doc = yaml.safe_load(f)
  except (OSError, yaml.YAMLError) as e:
    raise BaselineError(f'{path}: {e}') from e
  if not isinstance(doc, dict) or not isinstance(doc.get('figures'), list):
    raise BaselineError(f'{path}: expected a mapping with a list `figures`')
  head = {
      k: _Str(doc, k, path)
      for k in ('report', 'report_version', 'published', 'source')
  }
  figures = []
  seen = set()
  for i, entry in enumerate(doc['figures'], 1):
    where = f'{path}: figure {i}'
    if not isinstance(entry, dict):
      raise BaselineError(f'{where}: expected a mapping')
    benchmark = _Str(entry, 'benchmark', where)
    if benchmark not in benchmarks:
      raise BaselineError(
          f'{where}: unknown benchmark {benchmark!r}; benchmarks:'
          f' {", ".join(sorted(benchmarks))}'
      )
    value = entry.get('value')
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value <= 0
    ):
      raise BaselineError(f'{where}: value must be a positive number')
    flags = entry.get('flags') or []
    if not isinstance(flags, list) or not set(flags) <= set(FLAGS):
      raise BaselineError(f'{where}: flags must be a list of {FLAGS}')
    figure = Figure(
        benchmark=benchmark,
        cloud=_Str(entry, 'cloud', where),
        machine_type=_Str(entry, 'machine_type', where),
        disk_type=_Str(entry, 'disk_type', where, required=False),
        value=float(value),
        flags=tuple(flags),
        approximate=bool(entry.get('approximate', False)),
        quote=_Str(entry, 'quote', where),
        note=_Str(entry, 'note', where, required=False),
    )
    key = (figure.benchmark, figure.machine_type, figure.disk_type)
    if key in seen:
      raise BaselineError(f'{where}: a second figure for {key}')
    seen.add(key)
    figures.append(figure)
  return Baseline(name=name, path=path, figures=tuple(figures), **head)
