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
"""What a resumed run keeps: each finished phase's samples, and more.

A pkb.py run that dies in its run stage (a killed process, a lost
connection) is resumed with the same --run_uri and
--run_stage=run,cleanup,teardown. PKB then runs the benchmark's Run again
from the start. PhaseStore keeps, in PKB's run directory, what that Run
needs to go on where the dead one stopped:

- each finished phase's samples, saved atomically as soon as the phase
  ends, with how far their publishing got: `saved`, `publishing` (handed to
  PKB's publishers, not yet known to be done) or `published`. A resumed Run
  skips every saved phase, and publishes only the `saved` ones: a phase
  whose publishing began is never published twice (if the run died in the
  middle of that publish, the log says so and its samples stay in the file);
- which phases' software is installed (Prepare's install step), so a Run
  that follows the Prepare installs nothing again, and a resumed Run whose
  Prepare died halfway installs what is missing;
- the run number: how many Runs of this configuration came before this one
  (--run_stage_iterations), so each one's samples are told apart.

Every configuration of a flag matrix shares one run_uri and run directory,
so the files are keyed by the run_uri and a digest of the configuration
(ConfigKey), as the TPC-C stepping state is.
"""

import hashlib
import json
import logging
import os
import tempfile
import threading
from typing import Any, Mapping, Sequence

from perfkitbenchmarker import sample

from pkb_ext import errors as pkb_ext_errors

PHASES_FILE = 'cloud_report_phases_{run_uri}_{config}.json'
# Serializes every PhaseStore's read-modify-write: under overlap several
# threads save their phases in the same file.
_LOCK = threading.RLock()


def WriteJsonAtomically(path: str, obj: Any, **dump_kwargs) -> None:
  """Writes obj as JSON to path: a synced temporary file, then a rename, so
  a crash leaves the old file or the new one, never half of one."""
  directory = os.path.dirname(os.path.abspath(path))
  os.makedirs(directory, exist_ok=True)
  fd, tmp = tempfile.mkstemp(prefix='.' + os.path.basename(path), dir=directory)
  try:
    with os.fdopen(fd, 'w', encoding='utf-8') as f:
      json.dump(obj, f, **dump_kwargs)
      f.flush()
      os.fsync(f.fileno())
    os.replace(tmp, path)
  except BaseException:
    if os.path.exists(tmp):
      os.unlink(tmp)
    raise


class PhaseStateError(pkb_ext_errors.Error):
  """A saved phase state cannot be read."""


def ConfigKey(
    benchmark: str,
    config_flags: Mapping[str, Any],
    vm_groups: Sequence[Mapping[str, Any]],
) -> str:
  """Names one configuration of a run: 12 hex digits (pure).

  Args:
    benchmark: the benchmark's name.
    config_flags: the configuration's flags (its flag matrix entry and the
      config file's flags); run_uri is left out, as PKB rewrites it for
      parallel runs.
    vm_groups: what each vm_group provisions (see _VmGroups).
  """
  identity = {
      'benchmark': benchmark,
      'flags': {k: v for k, v in config_flags.items() if k != 'run_uri'},
      'vm_groups': list(vm_groups),
  }
  text = json.dumps(identity, sort_keys=True, default=str)
  return hashlib.sha256(text.encode()).hexdigest()[:12]


def _VmGroups(config) -> list[dict[str, Any]]:
  """The vm_groups of a benchmark config, as plain data for its key."""
  out = []
  for name, group in sorted((getattr(config, 'vm_groups', None) or {}).items()):
    vm_spec = getattr(group, 'vm_spec', None)
    disk_spec = getattr(group, 'disk_spec', None)
    out.append({
        'name': name,
        'cloud': getattr(group, 'cloud', None),
        'vm_count': getattr(group, 'vm_count', None),
        'machine_type': getattr(vm_spec, 'machine_type', None),
        'zone': getattr(vm_spec, 'zone', None),
        'disk_type': getattr(disk_spec, 'disk_type', None),
        'disk_size': getattr(disk_spec, 'disk_size', None),
        'provisioned_iops': getattr(disk_spec, 'provisioned_iops', None),
    })
  return out


def RunKey(spec, run_uri: str | None) -> tuple[str, str]:
  """Returns (the pkb.py run's run_uri, a configuration's ConfigKey).

  With --run_processes > 1, PKB gives each configuration the run's run_uri
  followed by its sequence number; that suffix is removed, so a resume with
  another --run_processes finds the same state.

  Args:
    spec: the configuration's PKB BenchmarkSpec; None (or one without a
      config's flags) outside a PKB run.
    run_uri: the run's --run_uri.
  """
  run_uri = run_uri or 'no-run-uri'
  config = getattr(spec, 'config', None)
  if spec is None or not isinstance(getattr(config, 'flags', None), dict):
    return run_uri, ConfigKey('', {}, [])
  suffix = str(getattr(spec, 'sequence_number', ''))
  rewritten = config.flags.get('run_uri')
  if suffix and rewritten == run_uri and run_uri.endswith(suffix):
    run_uri = run_uri[: -len(suffix)]
  return run_uri, ConfigKey(spec.name, config.flags, _VmGroups(config))


# How far a saved phase's samples got on their way to PKB's publishers.
SAVED = 'saved'
PUBLISHING = 'publishing'
PUBLISHED = 'published'
_STATES = (SAVED, PUBLISHING, PUBLISHED)


class PhaseStore:
  """Finished phases' samples of one run and configuration, as JSON.

  Thread-safe: each method reads, changes and writes the file under one
  lock, so phases saved from several threads are all kept.
  """

  VERSION = 2

  def __init__(self, path: str):
    self.path = path

  @classmethod
  def ForRun(cls, identity) -> 'PhaseStore':
    """The store of a run and configuration (a phases.RunIdentity)."""
    return cls(
        os.path.join(
            identity.run_dir,
            PHASES_FILE.format(
                run_uri=identity.run_uri, config=identity.config_key
            ),
        )
    )

  def _Read(self) -> dict[str, Any]:
    """The state in the file; a new run's state if there is no file."""
    try:
      with open(self.path, encoding='utf-8') as f:
        state = json.load(f)
    except FileNotFoundError:
      return {
          'version': self.VERSION,
          'run_number': 0,
          'installed': [],
          'phases': {},
      }
    except (OSError, ValueError) as e:
      raise PhaseStateError(f'cannot read phase state {self.path}: {e}') from e
    if not isinstance(state, dict) or state.get('version') != self.VERSION:
      raise PhaseStateError(f'{self.path}: not a version {self.VERSION} state')
    return state

  def _Write(self, state: Mapping[str, Any]) -> None:
    """Replaces the file atomically."""
    WriteJsonAtomically(self.path, state)

  def _Change(self, change) -> None:
    """Reads the state, lets change(state) edit it, writes it back."""
    with _LOCK:
      state = self._Read()
      change(state)
      self._Write(state)

  def Finished(self) -> dict[str, tuple[list[sample.Sample], str]]:
    """{phase: (its samples, SAVED, PUBLISHING or PUBLISHED)}."""
    out = {}
    with _LOCK:
      state = self._Read()
    for name, record in state['phases'].items():
      try:
        samples = [
            sample.Sample(
                s['metric'],
                s['value'],
                s['unit'],
                s['metadata'],
                s['timestamp'],
            )
            for s in record['samples']
        ]
        status = record['state']
      except (KeyError, TypeError) as e:
        raise PhaseStateError(f'{self.path}: bad record of {name}: {e}') from e
      if status not in _STATES:
        raise PhaseStateError(
            f'{self.path}: {name} has unknown state {status!r}'
        )
      out[name] = (samples, status)
    return out

  def SaveFinished(self, phase: str, samples: Sequence[sample.Sample]) -> None:
    """Saves a phase that finished, with its (stamped) samples: SAVED."""
    record = {
        'state': SAVED,
        'samples': [
            {
                'metric': s.metric,
                'value': s.value,
                'unit': s.unit,
                'metadata': s.metadata,
                'timestamp': s.timestamp,
            }
            for s in samples
        ],
    }
    self._Change(lambda state: state['phases'].__setitem__(phase, record))

  def Mark(self, phase: str, status: str) -> None:
    """Records how far a saved phase's publishing got (PUBLISHING, ...)."""
    if status not in _STATES:
      raise ValueError(f'unknown phase state {status!r}')

    def Change(state):
      if phase not in state['phases']:
        raise PhaseStateError(f'{self.path}: phase {phase} was never saved')
      state['phases'][phase]['state'] = status

    self._Change(Change)

  def Installed(self) -> set[str]:
    """The phases whose install step finished (and no Cleanup since)."""
    with _LOCK:
      return set(self._Read()['installed'])

  def MarkInstalled(self, phase: str) -> None:
    """Records that a phase's install step finished."""

    def Change(state):
      if phase not in state['installed']:
        state['installed'].append(phase)

    self._Change(Change)

  def ForgetInstalled(self) -> None:
    """Cleanup removes what the install steps put on the VMs."""
    with _LOCK:
      if os.path.exists(self.path):
        self._Change(lambda state: state.__setitem__('installed', []))

  def RunNumber(self) -> int:
    """Which Run of this configuration the saved phases belong to, from 0."""
    with _LOCK:
      return int(self._Read()['run_number'])

  def NextRun(self) -> int:
    """Starts the next Run (--run_stage_iterations): no phase finished yet.

    Returns:
      The new run number.
    """
    out = []

    def Change(state):
      state['run_number'] = int(state['run_number']) + 1
      state['phases'] = {}
      out.append(state['run_number'])

    self._Change(Change)
    return out[0]

  def Clear(self) -> None:
    """Starts over (a run that prepares is not a resumed one)."""
    with _LOCK:
      try:
        os.unlink(self.path)
        logging.info('cloud_report: removed the phase state %s', self.path)
      except FileNotFoundError:
        pass
