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
"""The phase registry: the report's phases, in the report's order.

A phase is a module of this package with three functions, used both by the
combined cloud_report_2021 benchmark and by the standalone per-phase
benchmark modules:

  Prepare(topology: Topology) -> None      installs what the phase needs
  Run(topology: Topology) -> list[sample.Sample]
  Cleanup(topology: Topology) -> None

Importing a phase module defines its flags, so the benchmark modules import
this registry, which imports every phase module, before PKB parses flags.
"""

import dataclasses
import importlib
import logging
import time
import types
from typing import Any, Callable, Sequence

from pkb_cloud_report.benchmarks.cloud_report import samples as samples_lib

ORDER = samples_lib.PHASES
DB_GROUP = 'db'
CLIENT_GROUP = 'client'
_PACKAGE = __name__.rsplit('.', 1)[0]


class PhaseError(Exception):
  """One or more phases failed; the message names each and why."""


class PhaseFailure(Exception):
  """A phase failed after measuring: its samples are kept all the same.

  Raised by a phase's Run where the run cannot give the phase's result but
  what it measured is worth keeping (e.g. a TPC-C search whose lowest level
  gave no result: every step's samples).
  """

  def __init__(self, message: str, samples: Sequence[Any]):
    super().__init__(message)
    self.samples = list(samples)


def ModuleName(name: str) -> str:
  if name not in ORDER:
    raise ValueError(f'unknown phase {name!r}; expected one of {ORDER}')
  return f'{_PACKAGE}.{samples_lib.PHASE_MODULES[name]}'


def Load(name: str) -> types.ModuleType:
  """Returns a phase's module."""
  return importlib.import_module(ModuleName(name))


def LoadAll() -> list[str]:
  """Imports every phase module (defining its flags); returns their names."""
  for name in ORDER:
    Load(name)
  return list(ORDER)


def Validate(names: Sequence[str]) -> list[str]:
  """Checks a phase selection and returns it in the report's order.

  Args:
    names: phase names, any order.

  Returns:
    The names in the report's order.

  Raises:
    ValueError: a name is unknown or repeated.
  """
  unknown = sorted(set(names) - set(ORDER))
  if unknown:
    raise ValueError(
        f'unknown phase(s) {", ".join(unknown)}; choose from {", ".join(ORDER)}'
    )
  if len(set(names)) != len(names):
    raise ValueError(f'phase listed twice in {",".join(names)}')
  return [n for n in ORDER if n in names]


@dataclasses.dataclass(frozen=True)
class Topology:
  """The report's VMs: 3 db nodes with data disks and 1 client."""

  db_vms: tuple[Any, ...]
  client_vm: Any  # None when the benchmark has no client group
  run_metadata: samples_lib.RunMetadata | None  # None in Prepare/Cleanup

  @property
  def first_db(self):
    if not self.db_vms:
      raise ValueError('this benchmark has no "db" vm_group')
    return self.db_vms[0]

  def RequireClient(self, phase: str):
    """Returns the client VM, or raises naming the phase that needs it."""
    if self.client_vm is None:
      raise ValueError(f'phase {phase} needs a "client" vm_group')
    return self.client_vm


def _RunOne(name, topology, step):
  module = Load(name)
  started = time.monotonic()
  logging.info('cloud_report: phase %s: %s starting', name, step)
  result = getattr(module, step)(topology)
  logging.info(
      'cloud_report: phase %s: %s done in %.1f s',
      name,
      step,
      time.monotonic() - started,
  )
  return result


def PrepareAll(topology: Topology, names: Sequence[str]) -> None:
  for name in names:
    _RunOne(name, topology, 'Prepare')


def RunAll(
    topology: Topology,
    names: Sequence[str],
    on_samples: Callable[[str, list[Any]], None] | None = None,
    keep_going: bool = True,
    prepare: bool = False,
    store: Any = None,
) -> list[Any]:
  """Runs phases in order and stamps the common metadata on their samples.

  Args:
    topology: the VMs.
    names: phases to run, already validated.
    on_samples: called with (phase, samples) as soon as a phase ends, so a
      later failure cannot lose them.
    keep_going: run the remaining phases after one fails.
    prepare: run each phase's Prepare right before its Run. The combined
      suite needs this: phases share the db nodes' data disks in the report's
      order (io measures the raw device, then tpcc formats it), so no phase
      may set the disks up before the phases ahead of it have run.
    store: a resume.PhaseStore: each phase's samples are saved in it as the
      phase ends, and a phase it holds is not run again: its samples are
      returned (and handed to on_samples) unless an earlier attempt handed
      them to PKB already.

  Returns:
    All samples.

  Raises:
    PhaseError: after the remaining phases ran, if any phase failed.
  """
  collected, failures = [], []
  finished = store.Finished() if store else {}
  for name in names:
    if name in finished:
      saved, handed = finished[name]
      logging.info(
          'cloud_report: phase %s finished in an earlier attempt of this run'
          ' (%s); %s',
          name,
          store.path,
          'its samples were handed to PKB then'
          if handed
          else f'its {len(saved)} samples are returned now',
      )
      if not handed:
        collected.extend(saved)
        if on_samples:
          on_samples(name, saved)
      continue
    try:
      if prepare:
        _RunOne(name, topology, 'Prepare')
      phase_samples = samples_lib.Stamp(
          list(_RunOne(name, topology, 'Run')), topology.run_metadata, name
      )
    except Exception as e:  # pylint: disable=broad-except
      logging.exception('cloud_report: phase %s failed', name)
      failures.append(f'{name}: {type(e).__name__}: {e}')
      if isinstance(e, PhaseFailure) and e.samples:
        kept = samples_lib.Stamp(e.samples, topology.run_metadata, name)
        collected.extend(kept)
        if on_samples:
          on_samples(name, kept)
      if not keep_going:
        break
      continue
    if store:
      store.SaveFinished(name, phase_samples)
    collected.extend(phase_samples)
    if on_samples:
      on_samples(name, phase_samples)
  if failures:
    raise PhaseError(
        'cloud_report phase(s) failed (samples of the others were handed to'
        ' on_samples): '
        + '; '.join(failures)
    )
  return collected


def CleanupAll(topology: Topology, names: Sequence[str]) -> None:
  """Cleans up every phase, in reverse order, even if one cleanup fails."""
  errors = []
  for name in reversed(list(names)):
    try:
      _RunOne(name, topology, 'Cleanup')
    except Exception as e:  # pylint: disable=broad-except
      logging.exception('cloud_report: cleanup of phase %s failed', name)
      errors.append(f'{name}: {e}')
  if errors:
    raise PhaseError('cloud_report cleanup failed: ' + '; '.join(errors))
