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
"""Which of the report's VMs and data disks a selection of phases uses.

The suite provisions only those (its GetConfig): a second (and third) db VM
only where overlap places cpu or net on it, the data disks only for io and
tpcc, the client only for the phases that use it. Pure: phase_table's rows
and phases.MakeSchedule.
"""

import dataclasses
from typing import Sequence

from pkb_ext.suite import phase_table
from pkb_ext.suite import phases


@dataclasses.dataclass(frozen=True)
class Provision:
  """The report's VMs and disks that a selection of phases uses."""

  db_vms: int  # VMs of the db group; 0: no db group
  data_disks: bool  # whether each db VM gets the report's data disk
  client: bool  # whether there is a client group (of one VM)

  @property
  def vms(self) -> int:
    return self.db_vms + int(self.client)


# The report's topology, provisioned when no phase is selected (the run is
# then provisioning, the run metadata and teardown of that topology).
REPORT_TOPOLOGY = Provision(
    db_vms=phases.REPORT_DB_VMS, data_disks=True, client=True
)


def ProvisionFor(names: Sequence[str], overlap: bool) -> Provision:
  """The VMs and data disks the phases use (pure).

  Args:
    names: the selected phases (phase_table sample names); none: the
      report's whole topology (REPORT_TOPOLOGY).
    overlap: whether overlap is asked for (--cloud_report_overlap).

  Returns:
    db_vms: the most any phase uses: phases.REPORT_DB_VMS for a phase on
    every db
    VM (tpcc), the db VM MakeSchedule places a phase on beside the fill
    (with overlap and io: net on the second, cpu on the second, or on the
    third beside net), else 1 for a phase on a db VM, else 0. data_disks: a
    phase uses them (io, tpcc). client: a phase runs on it (net,
    object_storage, tpcc). MakeSchedule on the returned topology gives the
    schedule it gives on the report's.
  """
  names = tuple(names)
  if not names:
    return REPORT_TOPOLOGY
  schedule = phases.MakeSchedule(
      names, REPORT_TOPOLOGY.db_vms, REPORT_TOPOLOGY.client, overlap
  )
  rows = [phase_table.Get(n) for n in names]
  side_dbs = dict(schedule.side_dbs)

  def DbVms(row: phase_table.Phase) -> int:
    if phase_table.EVERY_DB in row.vms:
      return phases.REPORT_DB_VMS
    if phase_table.DB not in row.vms:
      return 0
    return side_dbs.get(row.sample, 0) + 1

  client_roles = {phase_table.CLIENT, phase_table.CLIENT_IF_ANY}
  return Provision(
      db_vms=max(DbVms(row) for row in rows),
      data_disks=any(row.data_disk for row in rows),
      client=any(client_roles & set(row.vms) for row in rows),
  )
