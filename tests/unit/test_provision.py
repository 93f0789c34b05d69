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
"""What a selection of phases provisions: provision.ProvisionFor, and Trim."""

import copy
import itertools

from absl.testing import absltest
from absl.testing import parameterized
import yaml

from pkb_ext.suite import phase_table
from pkb_ext.suite import phases
from pkb_ext.suite import provision as provision_lib
from pkb_ext.suite import standalone

EVERY = tuple(phases.ORDER)
SUBSETS = [
    names
    for size in range(1, len(EVERY) + 1)
    for names in itertools.combinations(EVERY, size)
]
REPORT = yaml.safe_load(
    standalone.Config('suite', 'd', db_vms=3, client=True, data_disks=True)
)['suite']


def _Expected(names, overlap) -> provision_lib.Provision:
  """The provisioning, written out phase by phase (the test's own table)."""
  chosen = set(names)
  if 'tpcc' in chosen:
    db = 3
  elif overlap and 'io' in chosen and {'cpu', 'net'} <= chosen:
    db = 3  # net runs on db2, cpu on db3, while io fills db1's disk
  elif overlap and 'io' in chosen and chosen & {'cpu', 'net'}:
    db = 2  # cpu or net runs on db2 while io fills db1's disk
  elif chosen & {'cpu', 'io', 'net'}:
    db = 1
  else:
    db = 0
  return provision_lib.Provision(
      db_vms=db,
      data_disks=bool(chosen & {'io', 'tpcc'}),
      client=bool(chosen & {'net', 'object_storage', 'tpcc'}),
  )


class ProvisionForTest(parameterized.TestCase):

  def testEverySubsetWithAndWithoutOverlap(self):
    self.assertLen(SUBSETS, 2 ** len(EVERY) - 1)
    for names, overlap in itertools.product(SUBSETS, (True, False)):
      with self.subTest(names=names, overlap=overlap):
        self.assertEqual(
            provision_lib.ProvisionFor(names, overlap),
            _Expected(names, overlap),
        )

  def testEveryPhaseHasTheVmsItRunsOn(self):
    for names, overlap in itertools.product(SUBSETS, (True, False)):
      p = provision_lib.ProvisionFor(names, overlap)
      for name in names:
        row = phase_table.Get(name)
        with self.subTest(names=names, overlap=overlap, phase=name):
          if phase_table.DB in row.vms:
            self.assertGreaterEqual(p.db_vms, 1)
          if phase_table.EVERY_DB in row.vms:
            self.assertEqual(p.db_vms, phases.REPORT_DB_VMS)
          if row.needs_client:
            self.assertTrue(p.client)
          if row.data_disk:
            self.assertTrue(p.data_disks)

  def testTheTrimmedTopologyKeepsTheReportsSchedule(self):
    # Overlap decides on the VMs it finds: fewer VMs must not change it.
    for names, overlap in itertools.product(SUBSETS, (True, False)):
      p = provision_lib.ProvisionFor(names, overlap)
      with self.subTest(names=names, overlap=overlap):
        self.assertEqual(
            phases.MakeSchedule(names, p.db_vms, p.client, overlap),
            phases.MakeSchedule(names, 3, True, overlap),
        )

  @parameterized.parameters(True, False)
  def testCpuAndNetUseOneDbVmWithoutADiskAndTheClient(self, overlap):
    p = provision_lib.ProvisionFor(['cpu', 'net'], overlap)
    self.assertEqual(p, provision_lib.Provision(1, False, True))
    self.assertEqual(p.vms, 2)

  @parameterized.parameters(True, False)
  def testTheWholeSuiteAndNoPhaseProvisionTheReportsTopology(self, overlap):
    self.assertEqual(
        provision_lib.ProvisionFor(EVERY, overlap),
        provision_lib.REPORT_TOPOLOGY,
    )
    self.assertEqual(
        provision_lib.ProvisionFor([], overlap), provision_lib.REPORT_TOPOLOGY
    )
    self.assertEqual(provision_lib.REPORT_TOPOLOGY.vms, 4)

  def testOverlapAddsTheSecondDbVmOnlyBesideIo(self):
    self.assertEqual(provision_lib.ProvisionFor(['cpu', 'io'], True).db_vms, 2)
    self.assertEqual(provision_lib.ProvisionFor(['cpu', 'io'], False).db_vms, 1)
    self.assertEqual(provision_lib.ProvisionFor(['cpu'], True).db_vms, 1)
    # object_storage runs beside io from the client: no second db VM.
    self.assertEqual(
        provision_lib.ProvisionFor(['io', 'object_storage'], True),
        provision_lib.Provision(1, True, True),
    )


class TrimTest(absltest.TestCase):

  def testCpuAndNetDropTheDataDiskAndTwoDbVms(self):
    config = standalone.Trim(
        REPORT, {}, provision_lib.Provision(1, False, True)
    )
    db = config['vm_groups']['db']
    self.assertEqual(db['vm_count'], 1)
    self.assertNotIn('disk_spec', db)
    self.assertEqual(
        config['vm_groups']['client'], REPORT['vm_groups']['client']
    )
    self.assertEqual(db['vm_spec'], REPORT['vm_groups']['db']['vm_spec'])

  def testAGroupNoPhaseUsesIsDropped(self):
    only_client = standalone.Trim(
        REPORT, {}, provision_lib.Provision(0, False, True)
    )
    self.assertEqual(list(only_client['vm_groups']), ['client'])
    only_db = standalone.Trim(
        REPORT, {}, provision_lib.Provision(1, True, False)
    )
    self.assertEqual(list(only_db['vm_groups']), ['db'])
    self.assertIn('disk_spec', only_db['vm_groups']['db'])

  def testTheReportsTopologyIsKeptWhole(self):
    self.assertEqual(
        standalone.Trim(REPORT, {}, provision_lib.REPORT_TOPOLOGY), REPORT
    )

  def testAUserVmCountIsKeptAndAnUnusedDiskIsNot(self):
    user = {'vm_groups': {'db': {'vm_count': 3, 'disk_spec': {'AWS': {}}}}}
    config = standalone.Trim(
        REPORT, user, provision_lib.Provision(1, False, True)
    )
    db = config['vm_groups']['db']
    self.assertEqual(db['vm_count'], 3)
    self.assertNotIn('disk_spec', db)

  def testAUserGroupNoPhaseUsesIsDroppedAndOthersAreKept(self):
    merged = copy.deepcopy(REPORT)
    merged['vm_groups']['extra'] = {'vm_count': 1}
    user = {'vm_groups': {'client': {'vm_count': 2}, 'extra': {}}}
    config = standalone.Trim(
        merged, user, provision_lib.Provision(1, False, False)
    )
    self.assertEqual(sorted(config['vm_groups']), ['db', 'extra'])

  def testTheConfigGivenIsNotChanged(self):
    before = copy.deepcopy(REPORT)
    standalone.Trim(REPORT, {}, provision_lib.Provision(0, False, True))
    self.assertEqual(REPORT, before)


if __name__ == '__main__':
  absltest.main()
