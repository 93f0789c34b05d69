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
"""What the report's benchmark modules share: their configs and stages.

Config writes a benchmark's BENCHMARK_CONFIG from the VM groups it needs,
each VM and data disk the report's (VM_SPEC, DISK_SPEC), so every module
provisions the same machines; Trim keeps of a config what a selection of
phases uses (the suite's GetConfig). Benchmark holds PKB's module functions of a
standalone phase benchmark (one phase of phase_table on its own VMs); the
module binds them to its own names:

  BENCHMARK_NAME = 'cloud_report_coremark'
  BENCHMARK_CONFIG = standalone.Config(BENCHMARK_NAME, '...', db_vms=1)
  _BENCHMARK = standalone.Benchmark(BENCHMARK_NAME, BENCHMARK_CONFIG)
  GetConfig, CheckPrerequisites, Prepare, Run, Cleanup = _BENCHMARK.Functions()
"""

import copy

import yaml
from perfkitbenchmarker import configs

from pkb_ext.suite import phase_table
from pkb_ext.suite import phases
from pkb_ext.suite import provision as provision_lib
from pkb_ext.suite import samples as samples_lib
from pkb_ext.suite import topology as topology_lib

# The report's machine per cloud (a config file's vm_spec overrides it).
VM_SPEC = {
    'AWS': {'machine_type': 'c5a.4xlarge', 'zone': 'us-east-1a'},
    'GCP': {'machine_type': 'n2-standard-16', 'zone': 'us-east1-b'},
    'Azure': {'machine_type': 'Standard_D16as_v4', 'zone': 'eastus-1'},
}
# The report's data disk per cloud: 2,500 GB of network storage.
DISK_SPEC = {
    'AWS': {'disk_type': 'gp2', 'disk_size': 2500},
    'GCP': {'disk_type': 'pd-ssd', 'disk_size': 2500},
    'Azure': {'disk_type': 'Premium_LRS', 'disk_size': 2500},
}


def _PerCloud(spec: dict, **extra) -> dict:
  """A fresh copy of a per-cloud spec (YAML then writes no aliases)."""
  return {cloud: {**values, **extra} for cloud, values in spec.items()}


def Config(
    name: str,
    description: str,
    db_vms: int = 0,
    client: bool = False,
    data_disks: bool = False,
    mount_point: str | None = None,
    config_flags: dict | None = None,
) -> str:
  """Returns a benchmark's BENCHMARK_CONFIG (YAML) on the report's VMs.

  Args:
    name: the benchmark's BENCHMARK_NAME.
    description: what it runs.
    db_vms: how many VMs the db group has; 0: no db group.
    client: whether it has a client group of one VM.
    data_disks: whether each db VM gets the report's data disk.
    mount_point: where PKB mounts the data disks; None leaves them
      unmounted, for the benchmark to use raw.
    config_flags: the benchmark's `flags` (PKB flag values the run uses
      where the command line sets none).
  """
  groups = {}
  if db_vms:
    groups[phases.DB_GROUP] = {
        'vm_count': db_vms,
        'vm_spec': _PerCloud(VM_SPEC),
    }
    if data_disks:
      extra = {'mount_point': mount_point} if mount_point else {}
      groups[phases.DB_GROUP]['disk_spec'] = _PerCloud(DISK_SPEC, **extra)
  if client:
    groups[phases.CLIENT_GROUP] = {'vm_count': 1, 'vm_spec': _PerCloud(VM_SPEC)}
  # PKB adds the run's flags to every user config under `flags`; naming the
  # key here keeps PKB from warning that the user config adds a key.
  config = {
      name: {
          'description': description,
          'flags': dict(config_flags) if config_flags else None,
          'vm_groups': groups,
      }
  }
  return yaml.safe_dump(config, sort_keys=False)


def Trim(
    config: dict, user_config: dict, provision: provision_lib.Provision
) -> dict:
  """A merged config with only the groups and disks the phases use (pure).

  What no selected phase uses goes, whatever the user's config says of it:
  the db group without db VMs, the db group's data disk without data disks,
  the client group without a client. The db group's vm_count becomes
  provision's, unless the user's config sets one: that one is kept (a
  matrix may provision more or fewer db VMs on purpose). Every other key
  and group stays.

  Args:
    config: the benchmark's config merged with user_config
      (configs.LoadConfig).
    user_config: the user's config of the benchmark (its config file entry).
    provision: what the selected phases use (provision.ProvisionFor).

  Returns:
    A new config; config is not changed.
  """
  out = copy.deepcopy(config)
  groups = out.get('vm_groups') or {}
  user_groups = (user_config or {}).get('vm_groups') or {}
  if not provision.client:
    groups.pop(phases.CLIENT_GROUP, None)
  if not provision.db_vms:
    groups.pop(phases.DB_GROUP, None)
  db = groups.get(phases.DB_GROUP)
  if db is not None:
    if 'vm_count' not in (user_groups.get(phases.DB_GROUP) or {}):
      db['vm_count'] = provision.db_vms
    if not provision.data_disks:
      db.pop('disk_spec', None)
  return out


class Benchmark:
  """PKB's module functions of a standalone phase benchmark.

  The phase is the one phase_table names the benchmark's standalone
  benchmark; its stages module must be imported (phases.Load).
  """

  def __init__(self, name: str, config: str):
    self.name = name
    self.config = config
    self.phase = phase_table.ByBenchmark(name).sample

  def Functions(self) -> tuple:
    """GetConfig, CheckPrerequisites, Prepare, Run and Cleanup, bound."""
    return (
        self.GetConfig,
        self.CheckPrerequisites,
        self.Prepare,
        self.Run,
        self.Cleanup,
    )

  def GetConfig(self, user_config):
    return configs.LoadConfig(self.config, user_config, self.name)

  def CheckPrerequisites(self, benchmark_config) -> None:
    """Fails before provisioning on what the phase finds (phases.Check)."""
    phases.Check(benchmark_config, [self.phase])

  def Prepare(self, spec) -> None:
    """The phase's Install, then its Setup (when it has one)."""
    module = phases.Load(self.phase)
    topology = topology_lib.FromSpec(spec, with_metadata=False)
    module.Install(topology)
    if getattr(module, 'Setup', None):
      module.Setup(topology)

  def Run(self, spec) -> list:
    """Runs the phase; returns its stamped samples.

    A phase that fails after measuring (phases.PhaseFailure) has its
    samples published (topology.Publish), then the failure is raised: PKB
    marks the benchmark FAILED with it, and runs Cleanup all the same.
    """
    spec.always_call_cleanup = True
    topology = topology_lib.FromSpec(spec)

    def Stamp(phase_samples) -> list:
      return samples_lib.Stamp(
          phase_samples,
          topology.run_metadata,
          self.phase,
          topology.Placement(self.phase),
      )

    try:
      out = phases.Load(self.phase).Run(topology)
    except phases.PhaseFailure as e:
      topology_lib.Publish(spec, Stamp(e.samples))
      raise
    return Stamp(out)

  def Cleanup(self, spec) -> None:
    topology = topology_lib.FromSpec(spec, with_metadata=False)
    phases.Load(self.phase).Cleanup(topology)
