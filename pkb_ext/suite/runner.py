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
"""Runs the report's phases: installs, then each phase's set-up and Run.

PrepareAll is the suite's Prepare: every selected phase's Install. RunAll
is its Run: each phase's Setup right before its Run (and its Install there
when Prepare did not finish it), in the report's order or, with overlap, the
side phases in threads beside the fill's, and object_storage beside tpcc's
load where the engine leaves the client idle (phases.Arrange); each
phase's samples are stamped with the common metadata, saved for a resume
and handed on as soon as the phase ends; a phase the configuration cannot
run is skipped first, with one log line and one sample saying why.
CleanupAll cleans up every phase.
"""

import logging
import threading
import time
from typing import Any, Callable, Mapping, Sequence

from perfkitbenchmarker import background_tasks

from pkb_ext.suite import phases
from pkb_ext.suite import resume
from pkb_ext.suite import samples as samples_lib
from pkb_ext.suite import side_lanes


def _RunOne(name, topology, step):
  module = phases.Load(name)
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


def PrepareAll(
    topology: phases.Topology,
    names: Sequence[str],
    overlap: bool = False,
    store: Any = None,
    keep_going: bool = True,
) -> list[str]:
  """Runs each phase's Install, in order, on the VMs RunAll will use.

  The suite's Prepare: every install happens here, before any phase runs
  (the set-up that must wait is each phase's Setup, in RunAll).

  Args:
    topology: the VMs.
    names: the phases to run, already validated.
    overlap: as RunAll's, so each phase installs on the VMs it will run on.
    store: a resume.PhaseStore: each install that finishes is recorded, so
      RunAll does not install it again.
    keep_going: after an install fails, go on with the others: the failed
      phase installs again right before its Run, and fails there if it
      fails again, while the other phases run. Off: raise at once.

  Returns:
    The failures, one 'phase: Error: message' each (keep_going only).

  Raises:
    PhaseError: an install failed and keep_going is off.
  """
  _, topology = phases.Arrange(topology, names, overlap)
  failures = []
  for name in names:
    try:
      _RunOne(name, topology, 'Install')
    except Exception as e:  # pylint: disable=broad-except
      failure = f'{name}: {type(e).__name__}: {e}'
      if not keep_going:
        raise phases.PhaseError(
            f'cloud_report install failed: {failure}'
        ) from e
      logging.exception(
          'cloud_report: install of phase %s failed; it installs again'
          ' before it runs',
          name,
      )
      failures.append(failure)
      continue
    if store:
      store.MarkInstalled(name)
  return failures


class _Runner:
  """Runs phases in series; its threads share its lock and state."""

  def __init__(
      self, topology, on_samples, keep_going, prepare, store, beside_load=()
  ):
    self.topology = topology
    self.on_samples = on_samples
    self.keep_going = keep_going
    self.prepare = prepare
    self.store = store
    self.finished = store.Finished() if store else {}
    self.installed = store.Installed() if store else set()
    self.collected, self.failures, self.not_run = {}, [], []
    self.beside_load: tuple[str, ...] = beside_load  # phases.Schedule's
    self.stop = threading.Event()
    self.lock = threading.Lock()

  def _Hand(self, name: str, phase_samples: list[Any], saved: bool) -> None:
    """Collects a phase's samples and hands them to on_samples.

    One call at a time (every thread). A saved phase's state in the store
    says PUBLISHING while on_samples runs and PUBLISHED once it returned.
    """
    with self.lock:
      self.collected.setdefault(name, []).extend(phase_samples)
      if saved:
        self.store.Mark(name, resume.PUBLISHING)
      if self.on_samples:
        self.on_samples(name, phase_samples)
      if saved:
        self.store.Mark(name, resume.PUBLISHED)

  def _Stamp(self, name: str, phase_samples) -> list[Any]:
    return samples_lib.Stamp(
        list(phase_samples),
        self.topology.run_metadata,
        name,
        self.topology.Placement(name),
    )

  def _Prepare(self, name: str) -> None:
    """Installs a phase the store does not know installed; sets it up."""
    if name not in self.installed:
      _RunOne(name, self.topology, 'Install')
      if self.store:
        self.store.MarkInstalled(name)
    if getattr(phases.Load(name), 'Setup', None):
      _RunOne(name, self.topology, 'Setup')

  def Series(self, names: Sequence[str]) -> None:
    """Runs names in order; stops early only when keep_going is off."""
    for at, name in enumerate(names):
      if self.stop.is_set():
        self._NotRun([n for n in names[at:] if n not in self.finished])
        return
      if name == side_lanes.LOAD_PHASE and self.beside_load:
        self._BesideLoad(name)
      elif name in self.finished:
        self._Resumed(name)
      else:
        self._One(name)

  def _NotRun(self, names: Sequence[str]) -> None:
    """Logs and records the phases a stop leaves unrun."""
    if not names:
      return
    logging.warning(
        'cloud_report: %s not run: a phase failed and'
        ' --cloud_report_keep_going is off',
        ', '.join(names),
    )
    with self.lock:
      self.not_run.extend(names)

  def _BesideLoad(self, load: str) -> None:
    """Runs beside_load in a thread of its own while load's Setup runs,
    then load's Run once both ended. With no Setup to run beside (load
    finished in an earlier attempt, or no prepare), they run first."""
    if load in self.finished or not self.prepare:
      self.Series(self.beside_load)
      if self.stop.is_set():
        self._NotRun([load] if load not in self.finished else [])
      elif load in self.finished:
        self._Resumed(load)
      else:
        self._One(load)
      return
    problems = []

    def PrepareLoad():
      try:
        self._Prepare(load)
      except Exception as e:  # pylint: disable=broad-except
        problems.append(e)

    background_tasks.RunParallelThreads(
        [(self.Series, (self.beside_load,), {}), (PrepareLoad, (), {})],
        max_concurrency=2,
    )
    if self.stop.is_set() and not problems:
      self._NotRun([load])
      return
    self._One(
        load, prepared=True, setup_error=problems[0] if problems else None
    )

  def _One(
      self,
      name: str,
      prepared: bool = False,
      setup_error: Exception | None = None,
  ) -> None:
    """Runs one phase (its Install and Setup first, unless prepared, or
    setup_error: what they raised), saves and hands on its samples."""
    try:
      if setup_error is not None:
        raise setup_error
      if self.prepare and not prepared:
        self._Prepare(name)
      phase_samples = self._Stamp(name, _RunOne(name, self.topology, 'Run'))
    except Exception as e:  # pylint: disable=broad-except
      logging.exception('cloud_report: phase %s failed', name)
      with self.lock:
        self.failures.append(f'{name}: {type(e).__name__}: {e}')
      if not self.keep_going:
        self.stop.set()
      kept = self._Stamp(name, getattr(e, 'samples', None) or [])
      if kept:  # a PhaseFailure's own samples
        self._HandOrFail(name, kept, saved=False)
      return
    if self.store:
      self.store.SaveFinished(name, phase_samples)
    self._HandOrFail(name, phase_samples, saved=bool(self.store))

  def Skip(self, skipped: Mapping[str, str]) -> None:
    """Logs and hands on one cloud_report_phase_skipped sample per phase.

    Saved like a finished phase's samples, so a resumed run hands them on
    once.
    """
    for name in phases.ORDER:
      if name not in skipped:
        continue
      if name in self.finished:
        self._Resumed(name)
        continue
      logging.warning(
          'cloud_report: phase %s skipped on this configuration: %s',
          name,
          skipped[name],
      )
      phase_samples = self._Stamp(
          name, [samples_lib.Skipped(name, skipped[name])]
      )
      if self.store:
        self.store.SaveFinished(name, phase_samples)
      self._HandOrFail(name, phase_samples, saved=bool(self.store))

  def _HandOrFail(self, name: str, phase_samples, saved: bool) -> None:
    """_Hand; a failure to hand them over fails the phase."""
    try:
      self._Hand(name, phase_samples, saved)
    except Exception as e:  # pylint: disable=broad-except
      logging.exception(
          'cloud_report: publishing the samples of %s failed', name
      )
      with self.lock:
        self.failures.append(
            f'{name}: publishing its samples failed: {type(e).__name__}: {e}'
        )

  def _Resumed(self, name: str) -> None:
    """Hands a phase an earlier attempt saved, unless its publish began."""
    saved, status = self.finished[name]
    if status == resume.SAVED:
      logging.info(
          'cloud_report: phase %s finished in an earlier attempt of this run'
          ' (%s); its %d samples are published now',
          name,
          self.store.path,
          len(saved),
      )
      self._HandOrFail(name, saved, saved=True)
      return
    if status == resume.PUBLISHED:
      logging.info(
          'cloud_report: phase %s finished in an earlier attempt of this run'
          ' and was published then (%s)',
          name,
          self.store.path,
      )
      return
    logging.warning(
        'cloud_report: phase %s finished in an earlier attempt of this run,'
        ' which stopped while publishing its %d samples; they are not'
        ' published again (no sample twice). If a publisher lacks them, they'
        ' are in %s',
        name,
        len(saved),
        self.store.path,
    )


def RunAll(
    topology: phases.Topology,
    names: Sequence[str],
    on_samples: Callable[[str, list[Any]], None] | None = None,
    keep_going: bool = True,
    prepare: bool = False,
    store: Any = None,
    overlap: bool = False,
    skipped: Mapping[str, str] | None = None,
) -> list[Any]:
  """Runs phases in order and stamps the common metadata on their samples.

  Args:
    topology: the VMs.
    names: phases to run, already validated.
    on_samples: called with (phase, samples) as soon as a phase ends, so a
      later failure cannot lose them (the suite publishes them there); under
      overlap from any thread, one call at a time. Also called with the
      samples a failed phase kept (PhaseFailure).
    keep_going: run the remaining phases after one fails. When off, a
      failure under overlap also stops the other threads before their next
      phase.
    prepare: right before each phase's Run, run its Install (unless the
      store records it installed: PrepareAll did it) and its Setup. The
      combined suite needs the Setup here: phases share the db nodes' data
      disks in the report's order (io measures the raw device, then tpcc
      formats it), so no phase may set the disks up before the phases ahead
      of it have run.
    store: a resume.PhaseStore (needs on_samples): each phase's samples are
      saved in it as the phase ends, before on_samples gets them, with how
      far on_samples got. A phase it holds is not run again; its samples go
      to on_samples only if no earlier attempt began to hand them over.
    overlap: run the side phases beside the fill where Arrange allows, each
      lane of them in a thread of its own; the threads are PKB background
      tasks, which carry the benchmark spec's thread context (PKB's own code
      reads it); the phases get the run's identity in the topology. Phases
      that run beside tpcc's load (Schedule.beside_load) run in a thread
      while its Setup runs; its Run starts when both ended.
    skipped: phases not in names that the configuration cannot run, with
      why: before any phase runs, each is logged (one line) and gets one
      cloud_report_phase_skipped sample whose skip_reason says why.

  Returns:
    The samples handed to on_samples by this call (or, without on_samples,
    the samples to hand on), phase by phase in the report's order.

  Raises:
    PhaseError: after the remaining phases ran, if any phase failed.
    ValueError: a store without on_samples.
  """
  if store is not None and on_samples is None:
    raise ValueError('RunAll: a store needs on_samples to hand samples to')
  schedule, topology = phases.Arrange(topology, names, overlap)
  for note in schedule.notes:
    logging.info('cloud_report: %s', note)
  runner = _Runner(
      topology,
      on_samples,
      keep_going,
      prepare,
      store,
      beside_load=schedule.beside_load,
  )
  runner.Skip(skipped or {})
  runner.Series(schedule.before)
  if schedule.side and not runner.stop.is_set():
    threads = [(runner.Series, (schedule.fill,), {})] + [
        (runner.Series, (lane,), {}) for lane in schedule.lanes
    ]
    background_tasks.RunParallelThreads(threads, max_concurrency=len(threads))
  runner.Series(schedule.after)
  if runner.failures:
    not_run = [n for n in phases.ORDER if n in runner.not_run]
    raise phases.PhaseError(
        'cloud_report phase(s) failed (the samples of the others were'
        ' handed on): '
        + '; '.join(runner.failures)
        + (f'; not run: {", ".join(not_run)}' if not_run else '')
    )
  return [
      s
      for n in phases.ORDER
      if n in names or n in (skipped or {})
      for s in runner.collected.get(n, [])
  ]


def CleanupAll(
    topology: phases.Topology, names: Sequence[str], overlap: bool = False
) -> None:
  """Cleans up every phase, in reverse order, even if one cleanup fails.

  Args:
    topology: the VMs.
    names: the phases that ran.
    overlap: as RunAll's, so each phase cleans up the VMs it ran on.
  """
  _, topology = phases.Arrange(topology, names, overlap)
  errors = []
  for name in reversed(list(names)):
    try:
      _RunOne(name, topology, 'Cleanup')
    except Exception as e:  # pylint: disable=broad-except
      logging.exception('cloud_report: cleanup of phase %s failed', name)
      errors.append(f'{name}: {e}')
  if errors:
    raise phases.PhaseError('cloud_report cleanup failed: ' + '; '.join(errors))
