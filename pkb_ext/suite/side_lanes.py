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
"""The side phases' lanes under overlap: which db VM each uses, which share.

Beside the io phase's fill on the first db VM, the side phases run in lanes,
each lane in a thread of its own (phases.Schedule, runner.RunAll): the
phases of a lane share a VM and run in the report's order; the lanes share
none. A side phase on the client alone (object_storage) runs beside
LOAD_PHASE's load instead, where that load leaves the client idle
(BesideLoad). Pure: phase_table's rows only.
"""

from typing import Mapping, Sequence

from pkb_ext.suite import phase_table

# The db VM (an index into the db VMs) of a side phase that uses one; a
# side phase on a db VM alone (cpu) may take the next (SideDbs).
SIDE_DB = 1
# The phase whose Setup loads data on the db VMs while the client waits for
# its Run.
LOAD_PHASE = 'tpcc'


def BesideLoad(
    names: Sequence[str], has_client: bool, idle_client: bool
) -> tuple[str, ...]:
  """The side phases of names that run beside LOAD_PHASE's load.

  Args:
    names: the phases to run, in the report's order.
    has_client: whether there is a client VM.
    idle_client: whether the load leaves the client idle (the engine's).

  Returns:
    The side phases on the client alone (object_storage), where LOAD_PHASE
    runs and its load leaves the client idle; else none. The phases on a
    db VM cannot: the load uses every db VM.
  """
  if not (idle_client and has_client and LOAD_PHASE in names):
    return ()
  client_only = (phase_table.CLIENT,)
  return tuple(
      n
      for n in names
      if phase_table.Get(n).side and phase_table.Get(n).vms == client_only
  )


def SideDbs(side: Sequence[str], db_vms: int) -> dict[str, int]:
  """The db VM (index into db_vms) of each side phase that uses one.

  A side phase that also uses the client (net) runs on SIDE_DB; one on a
  db VM alone (cpu) too, unless such a phase is beside it: then it takes
  the next db VM, where there is one, so that it shares no VM with the
  others and runs at the same time as they do.
  """
  rows = [phase_table.Get(n) for n in side]
  shared = any(r.side_db and r.needs_client for r in rows)
  dbs, free = {}, SIDE_DB + 1
  for row in rows:
    name = row.sample
    if not row.side_db:
      continue
    if row.needs_client or not shared or free >= db_vms:
      dbs[name] = SIDE_DB
    else:
      dbs[name], free = free, free + 1
  return dbs


def Lanes(
    side: Sequence[str], side_dbs: Mapping[str, int]
) -> tuple[tuple[str, ...], ...]:
  """The side phases grouped by the VMs they share, each group in order.

  Args:
    side: the side phases, in the report's order.
    side_dbs: SideDbs of them.
  """

  def Vms(name: str) -> set[str]:
    row = phase_table.Get(name)
    vms = {f'db{side_dbs[name] + 1}'} if name in side_dbs else set()
    return vms | ({phase_table.CLIENT} if row.needs_client else set())

  lanes: list[tuple[set[str], list[str]]] = []
  for name in side:
    vms, members = Vms(name), [name]
    for lane in [l for l in lanes if l[0] & vms]:
      lanes.remove(lane)
      vms |= lane[0]
      members = lane[1] + members
    lanes.append((vms, members))
  order = {n: i for i, n in enumerate(side)}
  return tuple(
      sorted(
          (tuple(sorted(m, key=order.get)) for _, m in lanes),
          key=lambda lane: order[lane[0]],
      )
  )
