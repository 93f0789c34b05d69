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
"""Tests for the phase registry and the topology built from a spec."""

import dataclasses
import os
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
from perfkitbenchmarker import sample

from pkb_ext.suite import phases
from pkb_ext.suite import resume
from pkb_ext.suite import topology
from pkb_ext.suite import phase_modules
from pkb_ext.suite import runner


class RegionTest(parameterized.TestCase):

  @parameterized.parameters(
      ('us-east-1a', 'us-east-1'),
      ('us-gov-west-1b', 'us-gov-west-1'),
      ('us-east1-b', 'us-east1'),
      ('europe-west4-a', 'europe-west4'),
      ('eastus-1', 'eastus'),
      ('eastus', 'eastus'),
      ('local-1', 'local'),
      ('', ''),
      (None, ''),
  )
  def testRegionFromZone(self, zone, region):
    self.assertEqual(topology.RegionFromZone(zone), region)


class FromSpecTest(absltest.TestCase):

  def testClientOnlySpec(self):
    client = mock.Mock(name='client')
    spec = mock.Mock(vm_groups={'client': [client]})
    topo = topology.FromSpec(spec, with_metadata=False)
    self.assertIs(topo.RequireClient('object_storage'), client)
    self.assertEqual(topo.db_vms, ())
    with self.assertRaisesRegex(ValueError, 'no "db" vm_group'):
      topo.first_db  # pylint: disable=pointless-statement

  def testNoGroupsIsAClearError(self):
    with self.assertRaisesRegex(ValueError, 'needs a vm_group "db"'):
      topology.FromSpec(mock.Mock(vm_groups={'x': [1]}), with_metadata=False)


class RunMetadataTest(parameterized.TestCase):

  def _Vm(self, cloud, machine_type, disk_type):
    vm = mock.Mock(CLOUD=cloud, zone='us-east1-b', machine_type=machine_type)
    vm.NumCpusForBenchmark.return_value = 16
    vm.CheckLsCpu.return_value.data = {'Model name': 'AMD EPYC 7B12'}
    vm.scratch_disks = [
        mock.Mock(
            disk_type=disk_type,
            disk_size=2500,
            provisioned_iops=None,
            provisioned_throughput=None,
        )
    ]
    return vm

  @parameterized.named_parameters(
      ('cloud', 'GCP', 'n2-standard-16', 'pd-ssd', 'n2-standard-16', 'pd-ssd'),
      ('static', 'Static', None, None, 'static-16vcpu', 'static'),
      ('other_without_type', 'Kubernetes', None, None, 'unknown', 'unknown'),
  )
  def testMachineAndDiskLabels(self, cloud, machine, disk, want_m, want_d):
    meta = topology.RunMetadataFromVm(self._Vm(cloud, machine, disk))
    self.assertEqual(meta.machine_type, want_m)
    self.assertEqual(meta.disk_type, want_d)
    self.assertEqual(meta.vcpus, 16)
    self.assertEqual(meta.region, 'us-east1')
    self.assertEqual(meta.cpu_platform, 'AMD EPYC 7B12')


class ValidateTest(absltest.TestCase):

  def testOrderIsTheReports(self):
    self.assertEqual(
        phases.ORDER, ('cpu', 'io', 'net', 'object_storage', 'tpcc')
    )

  def testUnknownAndRepeated(self):
    with self.assertRaisesRegex(ValueError, 'unknown phase.*gpu'):
      phases.Validate(['cpu', 'gpu'])
    with self.assertRaisesRegex(ValueError, 'twice'):
      phases.Validate(['tpcc', 'tpcc'])

  def testPhasesValidateInReportOrder(self):
    every = phase_modules.LoadAll()
    self.assertEqual(phases.Validate(list(reversed(every))), every)

  def testEveryPhaseHasAModule(self):
    for name in phases.ORDER:
      module = phases.Load(name)
      for step in ('Install', 'Run', 'Cleanup', 'Params.FromFlags'):
        target = module
        for part in step.split('.'):
          target = getattr(target, part)
        self.assertTrue(callable(target), (name, step))
      params = phases.ReadParams(name)  # from the flags' defaults
      self.assertTrue(dataclasses.is_dataclass(params), name)


class _FakePhase:

  def __init__(self, name, fail=False):
    self.name, self.fail, self.calls = name, fail, []

  def Install(self, topo):
    self.calls.append('Install')

  def Run(self, topo):
    self.calls.append('Run')
    if self.fail:
      raise RuntimeError(f'{self.name} tool exited 1')
    return [sample.Sample(f'{self.name}_metric', 1, 'u', {})]

  def Cleanup(self, topo):
    self.calls.append('Cleanup')
    if self.fail:
      raise RuntimeError('cleanup broke')


class RunAllTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.fakes = {
        'cpu': _FakePhase('cpu'),
        'io': _FakePhase('io', fail=True),
        'net': _FakePhase('net'),
    }
    self.enter_context(
        mock.patch.object(phases, 'Load', side_effect=self.fakes.get)
    )
    meta = mock.Mock()
    meta.ForSample.side_effect = lambda p, i: {'phase': p, 'iteration': i}
    self.topo = phases.Topology(
        db_vms=('db1',), client_vm=None, run_metadata=meta
    )

  def testFailureKeepsOtherPhasesAndNamesTheCause(self):
    handed = {}
    with self.assertRaisesRegex(phases.PhaseError, 'io: RuntimeError: io tool'):
      runner.RunAll(
          self.topo,
          ['cpu', 'io', 'net'],
          on_samples=lambda p, s: handed.setdefault(p, s),
      )
    self.assertEqual(sorted(handed), ['cpu', 'net'])
    self.assertEqual(handed['net'][0].metadata['phase'], 'net')

  def testStopOnFirstFailure(self):
    with self.assertRaisesRegex(phases.PhaseError, r'; not run: net$'):
      runner.RunAll(self.topo, ['cpu', 'io', 'net'], keep_going=False)
    self.assertEqual(self.fakes['net'].calls, [])

  def testWithoutPrepareTheRunInstallsRightBeforeEachRun(self):
    order = []
    for fake in self.fakes.values():
      fake.fail = False
      fake.calls = order
    runner.RunAll(self.topo, ['cpu', 'io', 'net'], prepare=True)
    self.assertEqual(order, ['Install', 'Run'] * 3)

  def _RunPrepared(self, store):
    """The suite's RunAll after a Prepare recorded in store."""
    runner.RunAll(
        self.topo,
        ['cpu', 'io', 'net'],
        on_samples=lambda p, s: None,
        prepare=True,
        store=store,
    )

  def testSetupWaitsForTheRunStageRightBeforeItsRun(self):
    order = []
    for fake in self.fakes.values():
      fake.fail = False
      fake.calls = order
    self.fakes['net'].Setup = lambda topo: order.append('Setup')
    store = self._Store()
    runner.PrepareAll(self.topo, ['cpu', 'io', 'net'], store=store)
    self.assertEqual(order, ['Install'] * 3)
    order.clear()
    self._RunPrepared(store)
    self.assertEqual(order, ['Run', 'Run', 'Setup', 'Run'])

  def testAResumedRunInstallsOnlyWhatPrepareDidNotFinish(self):
    for fake in self.fakes.values():
      fake.fail = False
    self.fakes['io'].Install = mock.Mock(side_effect=OSError('apt locked'))
    store = self._Store()
    with self.assertLogs(level='ERROR'):
      failures = runner.PrepareAll(self.topo, ['cpu', 'io', 'net'], store=store)
    self.assertEqual(failures, ['io: OSError: apt locked'])
    self.assertEqual(store.Installed(), {'cpu', 'net'})
    del self.fakes['io'].Install  # installs now
    for fake in self.fakes.values():
      fake.calls = []
    self._RunPrepared(store)
    self.assertEqual(
        [fake.calls for fake in self.fakes.values()],
        [['Run'], ['Install', 'Run'], ['Run']],
    )
    self.assertEqual(store.Installed(), {'cpu', 'io', 'net'})
    store.ForgetInstalled()  # Cleanup: the next Run installs again
    self.assertEqual(store.Installed(), set())

  def testAFailedInstallWithoutKeepGoingFailsPrepare(self):
    self.fakes['cpu'].Install = mock.Mock(side_effect=OSError('no compiler'))
    with self.assertRaisesRegex(
        phases.PhaseError, 'install failed: cpu: OSError: no compiler'
    ):
      runner.PrepareAll(self.topo, ['cpu', 'io', 'net'], keep_going=False)
    self.assertEqual(self.fakes['io'].calls, [])

  def testFailedInstallSkipsThatRunOnly(self):
    self.fakes['io'].Install = mock.Mock(side_effect=OSError('disk busy'))
    handed = {}
    with self.assertRaisesRegex(phases.PhaseError, 'io: OSError: disk busy'):
      runner.RunAll(
          self.topo,
          ['cpu', 'io', 'net'],
          on_samples=lambda p, s: handed.setdefault(p, s),
          prepare=True,
      )
    self.assertNotIn('Run', self.fakes['io'].calls)
    self.assertEqual(sorted(handed), ['cpu', 'net'])

  def testCleanupRunsEveryPhaseInReverse(self):
    with self.assertRaisesRegex(phases.PhaseError, 'io: cleanup broke'):
      runner.CleanupAll(self.topo, ['cpu', 'io', 'net'])
    for fake in self.fakes.values():
      self.assertEqual(fake.calls, ['Cleanup'])

  def testAPhaseFailureKeepsItsOwnSamples(self):
    def Fails(topo):
      del topo
      raise phases.PhaseFailure(
          'tpcc: no result at 2500', [sample.Sample('tpcc_x', 0, 'u', {})]
      )

    self.fakes['io'].Run = Fails
    handed = {}
    with self.assertRaisesRegex(phases.PhaseError, 'io: PhaseFailure: tpcc'):
      runner.RunAll(
          self.topo,
          ['cpu', 'io', 'net'],
          on_samples=lambda p, s: handed.setdefault(p, s),
      )
    self.assertEqual(sorted(handed), ['cpu', 'io', 'net'])
    self.assertEqual(handed['io'][0].metric, 'tpcc_x')
    self.assertEqual(handed['io'][0].metadata['phase'], 'io')

  def _Store(self):
    return resume.PhaseStore(
        os.path.join(self.create_tempdir().full_path, 'phases.json')
    )

  def _Handed(self):
    handed = {}
    return handed, lambda p, s: handed.setdefault(p, []).extend(s)

  def testAResumedRunSkipsFinishedPhasesAndPublishesNoneTwice(self):
    store = self._Store()
    handed, on_samples = self._Handed()
    with self.assertRaises(phases.PhaseError):  # io fails: not saved
      runner.RunAll(
          self.topo, ['cpu', 'io', 'net'], on_samples=on_samples, store=store
      )
    self.assertEqual(
        {n: state for n, (_, state) in store.Finished().items()},
        {'cpu': resume.PUBLISHED, 'net': resume.PUBLISHED},
    )
    for fake in self.fakes.values():
      fake.fail, fake.calls = False, []
    handed.clear()
    out = runner.RunAll(
        self.topo, ['cpu', 'io', 'net'], on_samples=on_samples, store=store
    )
    self.assertEqual(
        [fake.calls for fake in self.fakes.values()], [[], ['Run'], []]
    )
    self.assertEqual([s.metric for s in out], ['io_metric'])
    self.assertEqual(list(handed), ['io'])
    self.assertEqual(sorted(store.Finished()), ['cpu', 'io', 'net'])

  def testASkippedPhaseIsOneSampleWithItsReasonHandedOnOnce(self):
    self.fakes['io'].fail = False
    store = self._Store()
    handed, on_samples = self._Handed()
    with self.assertLogs(level='WARNING') as logs:
      out = runner.RunAll(
          self.topo,
          ['cpu', 'net'],
          on_samples=on_samples,
          store=store,
          skipped={'io': 'no data disk here'},
      )
    self.assertEqual(
        logs.output,
        [
            'WARNING:root:cloud_report: phase io skipped on this'
            ' configuration: no data disk here'
        ],
    )
    self.assertEqual(self.fakes['io'].calls, [])
    self.assertEqual(
        [s.metric for s in out],
        ['cpu_metric', 'cloud_report_phase_skipped', 'net_metric'],
    )
    (skip,) = handed['io']
    self.assertEqual(skip.value, 1)
    self.assertEqual(skip.metadata['phase'], 'io')
    self.assertEqual(skip.metadata['skip_reason'], 'no data disk here')
    handed.clear()
    runner.RunAll(
        self.topo,
        ['cpu', 'net'],
        on_samples=on_samples,
        store=store,
        skipped={'io': 'no data disk here'},
    )
    self.assertEqual(handed, {})  # resumed: nothing handed on twice

  def testASavedPhaseNotYetPublishedIsPublishedOnResume(self):
    store = self._Store()
    store.SaveFinished('cpu', [sample.Sample('cpu_metric', 1, 'u', {})])
    self.fakes['io'].fail = False
    handed, on_samples = self._Handed()
    runner.RunAll(self.topo, ['cpu', 'io'], on_samples=on_samples, store=store)
    self.assertEqual(self.fakes['cpu'].calls, [])
    self.assertEqual(sorted(handed), ['cpu', 'io'])
    self.assertEqual([s.metric for s in handed['cpu']], ['cpu_metric'])
    self.assertEqual(store.Finished()['cpu'][1], resume.PUBLISHED)

  def testAPublishThatBeganIsNeverRepeated(self):
    """A run that died in (or right after) a publish: no sample twice."""
    store = self._Store()
    self.fakes['io'].fail = False

    class Killed(BaseException):
      pass

    def DiesAfterPublishingCpu(name, samples):
      del samples
      if name == 'cpu':
        raise Killed()  # as if the process died as the publish returned

    with self.assertRaises(Killed):
      runner.RunAll(
          self.topo,
          ['cpu', 'io'],
          on_samples=DiesAfterPublishingCpu,
          store=store,
      )
    self.assertEqual(store.Finished()['cpu'][1], resume.PUBLISHING)
    handed, on_samples = self._Handed()
    with self.assertLogs(level='WARNING') as logs:
      runner.RunAll(
          self.topo, ['cpu', 'io'], on_samples=on_samples, store=store
      )
    self.assertEqual(list(handed), ['io'])
    self.assertEqual(self.fakes['cpu'].calls, ['Run'])  # the first run only
    self.assertIn('stopped while publishing its 1 samples', logs.output[0])

  def testAFailedPublishFailsThePhaseAndTheRestRun(self):
    store = self._Store()
    self.fakes['io'].fail = False
    handed, on_samples = self._Handed()

    def Publish(name, samples):
      if name == 'cpu':
        raise OSError('disk full')
      on_samples(name, samples)

    with self.assertRaisesRegex(
        phases.PhaseError, 'cpu: publishing its samples failed: OSError'
    ):
      runner.RunAll(self.topo, ['cpu', 'io'], on_samples=Publish, store=store)
    self.assertEqual(list(handed), ['io'])

  def testAStoreNeedsSomewhereToHandSamples(self):
    with self.assertRaisesRegex(ValueError, 'needs on_samples'):
      runner.RunAll(self.topo, ['cpu'], store=self._Store())

  def testSavedSamplesRoundTrip(self):
    store = self._Store()
    saved = [sample.Sample('m', 1.5, 'ms', {'a': [1, 2], 'b': 'x'}, 123.25)]
    store.SaveFinished('cpu', saved)
    ((samples, state),) = store.Finished().values()
    self.assertEqual(samples, saved)
    self.assertEqual(state, resume.SAVED)
    store.Clear()
    self.assertEqual(store.Finished(), {})
    store.Clear()  # nothing to clear is fine

  def testEachRunOfAnIterationStartsWithNoPhaseFinished(self):
    store = self._Store()
    self.assertEqual(store.RunNumber(), 0)
    store.SaveFinished('cpu', [])
    store.MarkInstalled('cpu')
    self.assertEqual(store.NextRun(), 1)
    self.assertEqual((store.RunNumber(), store.Finished()), (1, {}))
    self.assertEqual(store.Installed(), {'cpu'})

  def testAnUnreadableStateIsAClearError(self):
    store = self._Store()
    with open(store.path, 'w') as f:
      f.write('{"version": 2, "phases": {"cpu": {"samples": [{}]}}}')
    with self.assertRaisesRegex(resume.PhaseStateError, 'bad record of cpu'):
      store.Finished()
    with open(store.path, 'w') as f:
      f.write('not json')
    with self.assertRaisesRegex(
        resume.PhaseStateError, 'cannot read phase state'
    ):
      store.Finished()

  def testRequireClient(self):
    with self.assertRaisesRegex(ValueError, 'net needs a "client"'):
      self.topo.RequireClient('net')


if __name__ == '__main__':
  absltest.main()
