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
"""The TPC-C stepping state's key: the pkb.py run and the configuration."""

from unittest import mock

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from perfkitbenchmarker import vm_util

from pkb_ext.suite import phases
from pkb_ext.suite import resume
from pkb_ext.suite import topology
from pkb_ext.suite.tpcc import stages as tpcc

FLAGS = flags.FLAGS


def _Spec(config_flags, sequence_number=1, machine_type='c5a.4xlarge'):
  group = mock.Mock(cloud='AWS', vm_count=3)
  group.vm_spec.machine_type = machine_type
  group.vm_spec.zone = 'us-east-1a'
  group.disk_spec.disk_type = 'gp2'
  group.disk_spec.disk_size = 2500
  group.disk_spec.provisioned_iops = None
  spec = mock.Mock(sequence_number=sequence_number)
  spec.name = 'cloud_report_2021'
  spec.config.flags = dict(config_flags)
  spec.config.vm_groups = {'db': group}
  return spec


class RunKeyTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    if not FLAGS.is_parsed():
      FLAGS.mark_as_parsed()
    self.enter_context(flagsaver.flagsaver(run_uri='abc'))

  def _Key(self, spec, run_uri='abc'):
    return resume.RunKey(spec, run_uri)

  def testConfigurationsOfOneRunGetTheirOwnKey(self):
    keys = {
        self._Key(_Spec({'machine_type': m}, i))
        for i, m in enumerate(('c5a.4xlarge', 'm5.4xlarge', 'r5.4xlarge'), 1)
    }
    self.assertLen(keys, 3)
    self.assertEqual({run for run, _ in keys}, {'abc'})
    for _, key in keys:
      self.assertRegex(key, r'^[0-9a-f]{12}$')

  def testVmGroupsAlonePartConfigurations(self):
    a = self._Key(_Spec({}, machine_type='c5a.4xlarge'))
    b = self._Key(_Spec({}, machine_type='m5.4xlarge'))
    self.assertNotEqual(a, b)

  def testParallelRunUriSuffixIsDropped(self):
    """PKB runs configuration 12 of --run_processes=3 as run_uri abc12."""
    serial = self._Key(_Spec({'machine_type': 'x'}, 12))
    parallel = self._Key(
        _Spec({'machine_type': 'x', 'run_uri': 'abc12'}, 12), run_uri='abc12'
    )
    self.assertEqual(serial, parallel)
    self.assertEqual(parallel[0], 'abc')
    # Resumed in series from a parallel run's pickled spec: the command
    # line's run_uri wins, and names the same state.
    resumed = self._Key(_Spec({'machine_type': 'x', 'run_uri': 'abc12'}, 12))
    self.assertEqual(resumed, serial)

  def testOutsidePkbsRun(self):
    run_uri, key = resume.RunKey(None, 'abc')
    self.assertEqual(run_uri, 'abc')
    self.assertEqual(key, resume.ConfigKey('', {}, []))
    self.assertEqual(resume.RunKey(None, None)[0], 'no-run-uri')

  def testStatePathNamesRunAndConfiguration(self):
    identity = phases.RunIdentity('abc', '0123456789ab', '/run')
    with flagsaver.flagsaver(cloud_report_tpcc_state_dir='/state'):
      self.assertEqual(
          tpcc.StatePath(identity),
          '/state/cloud_report_tpcc_abc_0123456789ab.json',
      )
    # Without a state dir: the run's directory.
    with flagsaver.flagsaver(cloud_report_tpcc_state_dir=None):
      self.assertEqual(
          tpcc.StatePath(identity),
          '/run/cloud_report_tpcc_abc_0123456789ab.json',
      )

  def testFromSpecReadsTheIdentityOnce(self):
    """The phases get the run's identity from the spec, flags and temp dir."""
    spec = _Spec({'machine_type': 'x', 'run_uri': 'abc12'}, 12)
    spec.vm_groups = {'db': ['vm1']}
    with flagsaver.flagsaver(run_uri='abc12'):
      identity = topology.FromSpec(spec, with_metadata=False).identity
      run_dir = vm_util.GetTempDir()
    self.assertEqual(
        identity, phases.RunIdentity('abc', self._Key(spec)[1], run_dir)
    )

  def testAPhaseThatNeedsTheIdentityNamesItself(self):
    bare = phases.Topology(db_vms=('vm',), client_vm='vm', run_metadata=None)
    with self.assertRaisesRegex(ValueError, 'phase tpcc needs the run'):
      bare.RequireIdentity('tpcc')


if __name__ == '__main__':
  absltest.main()
