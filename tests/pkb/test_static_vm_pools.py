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
"""Each configuration of a matrix takes its VMs from its own static VM file.

pkb.py reads --static_vm_file once, from the command line; pkb_ext refills
PKB's pool from the configuration's value before it provisions, which is how
configs/machines/local.yaml gives each local machine type its own hosts.
"""

import json
import os
import subprocess
import sys

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from perfkitbenchmarker import events
from perfkitbenchmarker import pkb  # pylint: disable=unused-import
from perfkitbenchmarker import stages
from perfkitbenchmarker import static_virtual_machine as static_vm

from pkb_ext import paths
from pkb_ext import registry
from pkb_ext.plan import pkb_config


def _VmFile(directory: str, name: str, ips: list[str]) -> str:
  path = os.path.join(directory, name)
  with open(path, 'w') as f:
    json.dump(
        [
            {'ip_address': ip, 'user_name': 'u', 'keyfile_path': '/k'}
            for ip in ips
        ],
        f,
    )
  return path


class ConfigurationPoolTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    registry.Register()
    self.dir = self.create_tempdir().full_path
    pool = static_vm.StaticVirtualMachine.vm_pool
    saved = list(pool)
    self.addCleanup(lambda: (pool.clear(), pool.extend(saved)))

  def _Pool(self) -> list[str]:
    return [vm.ip_address for vm in static_vm.StaticVirtualMachine.vm_pool]

  @flagsaver.flagsaver
  def testEachConfigurationsFileIsItsPool(self):
    a = _VmFile(self.dir, 'a.json', ['192.0.2.1', '192.0.2.2'])
    b = _VmFile(self.dir, 'b.json', ['192.0.2.11', '192.0.2.12'])
    flags.FLAGS.static_vm_file = a
    events.before_phase.send(stages.PROVISION, benchmark_spec=None)
    self.assertEqual(self._Pool(), ['192.0.2.1', '192.0.2.2'])
    static_vm.StaticVirtualMachine.GetStaticVirtualMachine()  # one taken
    flags.FLAGS.static_vm_file = b
    events.before_phase.send(stages.PROVISION, benchmark_spec=None)
    self.assertEqual(self._Pool(), ['192.0.2.11', '192.0.2.12'])

  @flagsaver.flagsaver
  def testOtherStagesAndNoFileLeaveThePoolAlone(self):
    a = _VmFile(self.dir, 'a.json', ['192.0.2.1'])
    flags.FLAGS.static_vm_file = a
    events.before_phase.send(stages.PROVISION, benchmark_spec=None)
    taken = static_vm.StaticVirtualMachine.GetStaticVirtualMachine()
    self.assertEqual(taken.ip_address, '192.0.2.1')
    for stage in (stages.PREPARE, stages.RUN, stages.TEARDOWN):
      registry._LoadConfigStaticVms(stage)  # pylint: disable=protected-access
    self.assertEqual(self._Pool(), [])
    flags.FLAGS.static_vm_file = None
    events.before_phase.send(stages.PROVISION, benchmark_spec=None)
    self.assertEqual(self._Pool(), [])


class LocalMatrixTest(absltest.TestCase):

  @flagsaver.flagsaver
  def testEachLocalTypeIsPairedWithItsOwnVmFile(self):
    path = os.path.join(paths.RepoRoot(), 'configs', 'machines', 'local.yaml')
    configs = pkb_config.BenchmarkConfigs(
        [f'--benchmark_config_file={path}', '--flag_matrix=types']
    )
    pairs = [(c[1]['machine_type'], c[1]['static_vm_file']) for c in configs]
    self.assertEqual(
        pairs,
        [
            (t, f'out/matrix/vms/{t}.json')
            for t in ('local-s', 'local-m', 'local-l')
        ],
    )

  def testPlanTakesTheLocalMatrixAsShipped(self):
    path = os.path.join(paths.RepoRoot(), 'configs', 'machines', 'local.yaml')
    proc = subprocess.run(
        [sys.executable, '-m', 'pkb_ext.cli', 'plan',
         f'--benchmark_config_file={path}', '--flag_matrix=types'],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    self.assertEqual((proc.returncode, proc.stderr), (0, ''), proc.stdout)
    for t in ('local-s', 'local-m', 'local-l'):
      self.assertIn(f'machine_type={t}, static_vm_file=', proc.stdout)
    self.assertIn('3 configuration(s)', proc.stdout)


if __name__ == '__main__':
  absltest.main()
