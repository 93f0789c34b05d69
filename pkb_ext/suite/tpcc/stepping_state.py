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
"""The TPC-C search's saved history: one JSON file, rewritten per step.

Kept in PKB's run directory so a crashed run, resumed with the same run_uri,
goes on without repeating a step (cloud_report.tpcc.stepping.Search).
"""

import json
from typing import Any, Mapping, Sequence

from pkb_ext.suite import resume
from benchmarks.cloud_report.tpcc import stepping


class StateStore:
  """The search's history as a JSON file, rewritten atomically per step.

  Keyed by a run id (PKB's run_uri) and a fingerprint of what makes steps
  comparable (engine, warehouses loaded, duration, ...): a file with another
  run id is ignored, one with another fingerprint is refused.
  """

  VERSION = 1

  def __init__(self, path: str, run_id: str, fingerprint: Mapping[str, Any]):
    self.path = path
    self.run_id = run_id
    self.fingerprint = json.loads(json.dumps(dict(fingerprint), sort_keys=True))

  def Load(self) -> list[stepping.Step]:
    """Returns the saved steps ([] if none); refuses a different search."""
    try:
      with open(self.path, encoding='utf-8') as f:
        state = json.load(f)
    except FileNotFoundError:
      return []
    except (OSError, ValueError) as e:
      raise stepping.SearchStateError(
          f'cannot read stepping state {self.path}: {e}'
      ) from e
    if state.get('version') != self.VERSION:
      raise stepping.SearchStateError(
          f'{self.path}: state version {state.get("version")}, expected'
          f' {self.VERSION}'
      )
    if state.get('run_id') != self.run_id:
      return []
    if state.get('fingerprint') != self.fingerprint:
      raise stepping.SearchStateError(
          f'{self.path} holds steps of run {self.run_id} measured with'
          f' {state.get("fingerprint")}, not {self.fingerprint}; use a new'
          ' run_uri or remove the file to start over'
      )
    try:
      return [stepping.Step.FromJson(s) for s in state.get('steps', [])]
    except (KeyError, TypeError, ValueError) as e:
      raise stepping.SearchStateError(
          f'{self.path}: bad step record: {e}'
      ) from e

  def Save(self, steps: Sequence[stepping.Step]) -> None:
    """Writes the steps atomically (a temporary file, then a rename)."""
    state = {
        'version': self.VERSION,
        'run_id': self.run_id,
        'fingerprint': self.fingerprint,
        'steps': [s.ToJson() for s in steps],
    }
    resume.WriteJsonAtomically(self.path, state, indent=1, sort_keys=True)
