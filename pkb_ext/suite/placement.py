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
"""Where a phase of a cloud_report benchmark runs, from its benchmark spec.

pkb_ext's offline installs (pkb_ext/coremark.py, pkb_ext/netperf.py) act
before Prepare on only the VMs that run their tool. PhaseTopology gives the
spec's topology as the suite arranges it for the phases it runs (phases.Arrange:
under overlap a side phase moves to the second db VM), or None when the phase
does not run there. MarkInstalled counts PKB's package as installed on a VM
once such an install has put the tool where PKB's package puts it.
"""

from pkb_ext.suite import cloud_report_2021_benchmark as suite
from pkb_ext.suite import phases


def PhaseTopology(spec, phase: str) -> phases.Topology | None:
  """The topology a cloud_report benchmark's spec runs `phase` on, or None.

  Args:
    spec: PKB's benchmark spec of a cloud_report benchmark.
    phase: a phase's sample name (phase_table).

  Returns:
    None when the spec has no db VM, or is the suite's and the suite does
    not run the phase; else the topology, arranged as the suite arranges it.
  """
  clients = spec.vm_groups.get(phases.CLIENT_GROUP, ())
  topology = phases.Topology(
      db_vms=tuple(spec.vm_groups.get(phases.DB_GROUP, ())),
      client_vm=clients[0] if clients else None,
      run_metadata=None,
  )
  if not topology.db_vms:
    return None
  if spec.name == suite.BENCHMARK_NAME:
    names = suite.RunnablePhases(spec)
    if phase not in names:
      return None
    _, topology = phases.Arrange(topology, names, suite.OVERLAP.value)
  return topology


def MarkInstalled(vm, package: str) -> None:
  """Counts PKB's `package` as installed on `vm`: vm.Install() then skips it.

  The one place pkb_ext's offline installs write PKB's private record of a
  VM's packages (the set vm.Install() checks and PackageCleanup walks).
  """
  vm._installed_packages.add(package)  # pylint: disable=protected-access
