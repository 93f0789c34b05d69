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
"""Overlap: the scheduling of phases beside the io fill, with fake phases."""

import dataclasses
import os
import threading
import time
from unittest import mock

from absl.testing import absltest
from perfkitbenchmarker import sample

from pkb_ext.suite import phase_table
from pkb_ext.suite import phases
from pkb_ext.suite import resume
from pkb_ext.suite import runner
from pkb_ext.suite import side_lanes

EVERY = list(phases.ORDER)
_WAIT_S = 10  # a bound on every wait: a scheduling bug fails, never hangs


class ScheduleTest(absltest.TestCase):

  def testTheSuiteOverlapsCpuNetAndObjectStorageWithIo(self):
    s = phases.MakeSchedule(EVERY, 3, True, overlap=True)
    self.assertEqual(s.before, ())
    self.assertEqual(s.fill, ('io',))
    self.assertEqual(s.side, ('cpu', 'net', 'object_storage'))
    self.assertEqual(s.after, ('tpcc',))
    # cpu has the third db VM: it shares no VM with net and object_storage,
    # which share the client.
    self.assertEqual(s.lanes, (('cpu',), ('net', 'object_storage')))
    self.assertEqual(dict(s.side_dbs), {'cpu': 2, 'net': 1})
    self.assertIn('cpu beside net,object_storage run while io', s.notes[-1])

  def testTwoDbVmsRunCpuAndNetInOneLane(self):
    s = phases.MakeSchedule(EVERY, 2, True, overlap=True)
    self.assertEqual(s.side, ('cpu', 'net', 'object_storage'))
    self.assertEqual(s.lanes, (('cpu', 'net', 'object_storage'),))
    self.assertEqual(dict(s.side_dbs), {'cpu': 1, 'net': 1})

  def testWithoutNetCpuStaysOnTheSecondDbVmInALaneOfItsOwn(self):
    s = phases.MakeSchedule(['cpu', 'io', 'object_storage'], 3, True, True)
    self.assertEqual(s.lanes, (('cpu',), ('object_storage',)))
    self.assertEqual(dict(s.side_dbs), {'cpu': 1})

  def testAPhaseThatSharesTheVmsOfTwoLanesJoinsThem(self):
    # No phase of the table bridges two lanes today; these rows do: a on
    # db2, b on the client, then c on both. c joins a's and b's lanes into
    # one, in the order given; d, on db3 alone, stays a lane of its own.
    rows = {
        'a': phase_table.Phase('a', 'a', 'a', 'a', (phase_table.DB,)),
        'b': phase_table.Phase('b', 'b', 'b', 'b', (phase_table.CLIENT,)),
        'c': phase_table.Phase(
            'c', 'c', 'c', 'c', (phase_table.DB, phase_table.CLIENT)
        ),
        'd': phase_table.Phase('d', 'd', 'd', 'd', (phase_table.DB,)),
    }
    with mock.patch.object(phase_table, 'Get', rows.__getitem__):
      lanes = side_lanes.Lanes(['a', 'd', 'b', 'c'], {'a': 1, 'c': 1, 'd': 2})
    self.assertEqual(lanes, (('a', 'b', 'c'), ('d',)))

  def testObjectStorageRunsBesideTheLoadWhereTheClientIsIdle(self):
    s = phases.MakeSchedule(EVERY, 3, True, True, idle_client_load=True)
    self.assertEqual(s.beside_load, ('object_storage',))
    self.assertEqual(s.side, ('cpu', 'net'))
    self.assertEqual(s.lanes, (('cpu',), ('net',)))
    self.assertEqual(dict(s.side_dbs), {'cpu': 2, 'net': 1})
    self.assertEqual(s.after, ('tpcc',))
    self.assertIn('object_storage', s.overlapped)
    self.assertNotIn('tpcc', s.overlapped)
    self.assertIn('object_storage run while tpcc loads its data', s.notes[-1])
    # Without io, too; without tpcc or a client, or in series, never.
    s = phases.MakeSchedule(
        ['cpu', 'object_storage', 'tpcc'], 3, True, True, True
    )
    self.assertEqual(
        (s.beside_load, s.before), (('object_storage',), ('cpu', 'tpcc'))
    )
    for names, client, overlap in (
        (['io', 'object_storage'], True, True),
        (EVERY, False, True),
        (EVERY, True, False),
    ):
      s = phases.MakeSchedule(names, 3, client, overlap, True)
      self.assertEqual(s.beside_load, (), (names, client, overlap))

  def testOffRunsEveryPhaseInSeries(self):
    s = phases.MakeSchedule(EVERY, 3, True, overlap=False)
    self.assertEqual(s.before, tuple(EVERY))
    self.assertEqual(s.fill + s.side + s.after, ())

  def testWithoutIoItSaysSoAndRunsInSeries(self):
    s = phases.MakeSchedule(['cpu', 'net', 'tpcc'], 3, True, overlap=True)
    self.assertEqual(s.before, ('cpu', 'net', 'tpcc'))
    self.assertEqual(s.side, ())
    self.assertRegex(' '.join(s.notes), 'io phase is not selected')

  def testOneDbVmKeepsCpuAndNetInSeries(self):
    s = phases.MakeSchedule(EVERY, 1, True, overlap=True)
    self.assertEqual(s.side, ('object_storage',))
    self.assertEqual(s.before, ('cpu',))
    self.assertEqual(s.after, ('net', 'tpcc'))
    notes = ' '.join(s.notes)
    self.assertIn(
        'overlap does not apply to cpu: it needs a second db VM', notes
    )
    self.assertIn('net: it needs the client and a second db VM', notes)

  def testOneDbVmAndNoClientOverlapsNothing(self):
    s = phases.MakeSchedule(['cpu', 'io'], 1, False, overlap=True)
    self.assertEqual(s.before, ('cpu', 'io'))
    self.assertEqual(s.side, ())
    self.assertRegex(' '.join(s.notes), 'cpu: it needs a second db VM')

  def testIoAloneNeedsNoNote(self):
    s = phases.MakeSchedule(['io', 'tpcc'], 3, True, overlap=True)
    self.assertEqual(s.before, ('io', 'tpcc'))
    self.assertEqual(s.notes, ())


class _Phase:
  """A fake phase recording where, when and in which thread it ran."""

  def __init__(self, name, log):
    self.name, self.log = name, log
    self.run = None  # a callable (topology) -> samples, replacing the default
    self.fail = False

  def Install(self, topo):
    self.log.append((self.name, 'Install', topo.DbFor(self.name), None))

  def Run(self, topo):
    started = time.monotonic()
    if self.run:
      out = self.run(topo)
    elif self.fail:
      raise RuntimeError(f'{self.name} tool exited 1')
    else:
      out = [sample.Sample(f'{self.name}_metric', 1, 'u', {'own': 1})]
    self.log.append((
        self.name, 'Run', topo.DbFor(self.name),
        (threading.current_thread().name, started, time.monotonic()),
    ))  # fmt: skip
    return out

  def Cleanup(self, topo):
    vm = topo.DbFor(self.name) if topo else None
    self.log.append((self.name, 'Cleanup', vm, None))


class OverlapRunTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.log = []
    self.fakes = {n: _Phase(n, self.log) for n in EVERY}
    self.enter_context(
        mock.patch.object(phases, 'Load', side_effect=self.fakes.get)
    )
    meta = mock.Mock()
    meta.ForSample.side_effect = lambda p, i: {'phase': p, 'iteration': i}
    self.topo = phases.Topology(
        db_vms=('vm-db1', 'vm-db2', 'vm-db3'),
        client_vm='vm-client',
        run_metadata=meta,
    )

  def _Runs(self):
    return {name: rest for name, step, *rest in self.log if step == 'Run'}

  def _Meet(self, *names, timeout=_WAIT_S):
    """Makes names' Runs wait for each other: only overlap lets them meet."""
    barrier = threading.Barrier(len(names), timeout=timeout)

    def Run(topo):
      del topo
      barrier.wait()
      return [sample.Sample('met', 1, 'u', {})]

    for name in names:
      self.fakes[name].run = Run

  def testIoRunsBesideTheSidePhasesThenTpcc(self):
    self._Meet('io', 'object_storage')
    out = runner.RunAll(self.topo, EVERY, prepare=True, overlap=True)
    runs = self._Runs()
    threads = {n: r[1][0] for n, r in runs.items()}
    self.assertLen({threads[n] for n in ('io', 'cpu', 'net')}, 3)
    self.assertEqual(threads['net'], threads['object_storage'])
    self.assertEqual(threads['tpcc'], threading.current_thread().name)
    side = [n for n, step, *_ in self.log if step == 'Run' and n != 'io']
    self.assertEqual(side[-1], 'tpcc')
    self.assertLess(side.index('net'), side.index('object_storage'))
    tpcc_start = runs['tpcc'][1][1]
    self.assertGreaterEqual(
        tpcc_start, max(r[1][2] for r in runs.values() if r is not runs['tpcc'])
    )
    # Without a Prepare, each phase installs right before its Run.
    for name in EVERY:
      steps = [s for n, s, *_ in self.log if n == name]
      self.assertEqual(steps, ['Install', 'Run'], name)
    # Samples come back in the report's order.
    self.assertEqual(
        [s.metadata['phase'] for s in out],
        ['cpu', 'io', 'net', 'object_storage', 'tpcc'],
    )

  def testCpuRunsBesideNetAndTheFill(self):
    self._Meet('io', 'cpu', 'net')
    runner.RunAll(self.topo, EVERY, overlap=True)
    self.assertEqual(self.log[-1][:2], ('tpcc', 'Run'))

  def testWithTwoDbVmsCpuCannotMeetNet(self):
    self._Meet('cpu', 'net', timeout=0.5)
    topo = dataclasses.replace(self.topo, db_vms=self.topo.db_vms[:2])
    with self.assertRaisesRegex(phases.PhaseError, 'cpu: BrokenBarrierError'):
      runner.RunAll(topo, EVERY, overlap=True)
    _, placed = phases.Arrange(topo, EVERY, overlap=True)
    self.assertEqual((placed.DbFor('cpu'), placed.DbFor('net')),
                     ('vm-db2', 'vm-db2'))  # fmt: skip

  def testWithoutOverlapThePhasesCannotMeet(self):
    self._Meet('io', 'cpu', timeout=0.5)
    with self.assertRaisesRegex(phases.PhaseError, 'cpu: BrokenBarrierError'):
      runner.RunAll(self.topo, EVERY, overlap=False)
    threads = {r[1][0] for r in self._Runs().values()}
    self.assertEqual(threads, {threading.current_thread().name})

  def testSidePhasesUseTheSecondAndThirdDbVms(self):
    runner.RunAll(self.topo, EVERY, prepare=True, overlap=True)
    where = {n: r[0] for n, r in self._Runs().items()}
    self.assertEqual(where['cpu'], 'vm-db3')
    self.assertEqual(where['net'], 'vm-db2')
    self.assertEqual(where['io'], 'vm-db1')
    self.log.clear()
    runner.RunAll(self.topo, EVERY, prepare=True, overlap=False)
    where = {n: r[0] for n, r in self._Runs().items()}
    self.assertEqual((where['cpu'], where['net']), ('vm-db1', 'vm-db1'))

  def testPrepareInstallsOnTheVmsTheRunUses(self):
    store = self._Store()
    runner.PrepareAll(self.topo, EVERY, overlap=True, store=store)
    where = {n: vm for n, step, vm, _ in self.log if step == 'Install'}
    self.assertEqual((where['cpu'], where['net'], where['io']),
                     ('vm-db3', 'vm-db2', 'vm-db1'))  # fmt: skip
    self.assertEqual(store.Installed(), set(EVERY))
    self.log.clear()
    runner.RunAll(
        self.topo, EVERY, on_samples=lambda p, s: None, prepare=True,
        store=store, overlap=True,
    )  # fmt: skip
    self.assertEqual({step for _, step, *_ in self.log}, {'Run'})

  def testCleanupUsesTheVmsTheRunUsed(self):
    runner.CleanupAll(self.topo, EVERY, overlap=True)
    where = {n: vm for n, step, vm, _ in self.log if step == 'Cleanup'}
    self.assertEqual((where['cpu'], where['net'], where['io']),
                     ('vm-db3', 'vm-db2', 'vm-db1'))  # fmt: skip

  def testCleanupWithoutOverlapNeedsNoTopology(self):
    runner.CleanupAll(None, EVERY)  # as a standalone benchmark's may be
    self.assertEqual(
        [n for n, step, *_ in self.log if step == 'Cleanup'],
        list(reversed(EVERY)),
    )

  def testSamplesSayWhereAndWhetherOverlappedWithOneKeySet(self):
    on = runner.RunAll(self.topo, EVERY, overlap=True)
    off = runner.RunAll(self.topo, EVERY, overlap=False)

    def Shape(samples):
      return sorted((s.metric, tuple(sorted(s.metadata))) for s in samples)

    self.assertEqual(Shape(on), Shape(off))
    placed = {
        s.metadata['phase']: (s.metadata['phase_vms'], s.metadata['overlapped'])
        for s in on
    }
    self.assertEqual(placed, {
        'cpu': ('db3', True),
        'io': ('db1', True),
        'net': ('client,db2', True),
        'object_storage': ('client', True),
        'tpcc': ('db1,db2,db3,client', False),
    })  # fmt: skip
    placed = {
        s.metadata['phase']: (s.metadata['phase_vms'], s.metadata['overlapped'])
        for s in off
    }
    self.assertEqual(placed['cpu'], ('db1', False))
    self.assertEqual(placed['net'], ('client,db1', False))

  def _FailingRun(self, error):
    """Runs every phase with overlap; returns {phase: samples handed}."""
    handed = {}
    with self.assertRaisesRegex(phases.PhaseError, error):
      runner.RunAll(
          self.topo,
          EVERY,
          on_samples=lambda p, s: handed.setdefault(p, s),
          overlap=True,
      )
    return handed

  def testAFailedFillKeepsTheOtherThreadsSamples(self):
    self.fakes['io'].fail = True
    handed = self._FailingRun('io: RuntimeError: io tool')
    self.assertEqual(sorted(handed), ['cpu', 'net', 'object_storage', 'tpcc'])

  def testASideFailureKeepsItsOwnSamplesAndTheFills(self):
    def Fails(topo):
      del topo
      raise phases.PhaseFailure('netperf half done', [
          sample.Sample('net_partial', 1, 'u', {})])  # fmt: skip

    self.fakes['net'].run = Fails
    handed = self._FailingRun('net: PhaseFailure')
    self.assertEqual(sorted(handed), sorted(EVERY))
    self.assertEqual(handed['net'][0].metric, 'net_partial')
    self.assertTrue(handed['net'][0].metadata['overlapped'])

  def testStopOnFirstFailureStopsTheOtherThreadsAndTpcc(self):
    io_failed = threading.Event()
    started = {n: threading.Event() for n in ('cpu', 'net')}

    def IoFails(topo):
      del topo
      for event in started.values():
        self.assertTrue(event.wait(_WAIT_S))
      raise phases.PhaseFailure(
          'fill broke', [sample.Sample('io_x', 0, 'u', {})]
      )

    def Waits(name):
      def Run(topo):
        del topo
        started[name].set()
        self.assertTrue(io_failed.wait(_WAIT_S))
        return [sample.Sample(f'{name}_metric', 1, 'u', {})]

      return Run

    self.fakes['io'].run = IoFails
    for name in started:
      self.fakes[name].run = Waits(name)

    def OnSamples(name, samples):
      del samples
      if name == 'io':
        io_failed.set()

    with self.assertLogs(level='WARNING') as logs:
      with self.assertRaisesRegex(
          phases.PhaseError,
          r'io: PhaseFailure: fill broke; not run: object_storage, tpcc$',
      ):
        runner.RunAll(
            self.topo, EVERY, on_samples=OnSamples, keep_going=False,
            overlap=True,
        )  # fmt: skip
    # io raised before its log; object_storage, next in net's thread, and
    # tpcc never started, and the log says so, each once.
    self.assertEqual(sorted(self._Runs()), ['cpu', 'net'])
    not_run = [m for m in logs.output if 'not run' in m]
    self.assertLen(not_run, 2, logs.output)
    self.assertTrue(any('object_storage not run' in m for m in not_run))
    self.assertTrue(any('tpcc not run' in m for m in not_run))
    self.assertIn('--cloud_report_keep_going is off', not_run[0])

  def _Store(self):
    return resume.PhaseStore(
        os.path.join(self.create_tempdir().full_path, 'phases.json')
    )

  def _IdleLoad(self, setup=None):
    """tpcc's engine leaves the client idle while its Setup runs setup."""
    tpcc = self.fakes['tpcc']
    tpcc.LoadLeavesClientIdle = lambda: True
    tpcc.Setup = lambda topo: (setup or (lambda: None))()

  def testObjectStorageRunsWhileTpccLoadsThenTpccRuns(self):
    barrier = threading.Barrier(2, timeout=_WAIT_S)
    self._IdleLoad(setup=barrier.wait)
    self.fakes['object_storage'].run = lambda topo: [
        sample.Sample('met', barrier.wait() + 1, 'u', {})
    ]
    out = runner.RunAll(self.topo, EVERY, prepare=True, overlap=True)
    runs = self._Runs()
    # object_storage met tpcc's Setup: they ran at the same time, in two
    # threads; tpcc's Run began after object_storage's ended.
    self.assertNotEqual(
        runs['object_storage'][1][0], threading.current_thread().name
    )
    self.assertGreaterEqual(runs['tpcc'][1][1], runs['object_storage'][1][2])
    overlapped = {s.metadata['phase']: s.metadata['overlapped'] for s in out}
    self.assertTrue(overlapped['object_storage'])
    self.assertFalse(overlapped['tpcc'])

  def testALoadThatFailsFailsTpccAndKeepsObjectStorage(self):
    def Broken():
      raise RuntimeError('the load broke')

    self._IdleLoad(setup=Broken)
    handed = {}
    with self.assertRaisesRegex(
        phases.PhaseError, r'tpcc: RuntimeError: the load broke$'
    ):
      runner.RunAll(
          self.topo, EVERY, prepare=True, overlap=True,
          on_samples=lambda p, s: handed.setdefault(p, s),
      )  # fmt: skip
    self.assertNotIn('tpcc', self._Runs())
    self.assertIn('object_storage', handed)

  def testAFailureBesideTheLoadStopsTpccBeforeItsRun(self):
    self._IdleLoad()
    self.fakes['object_storage'].fail = True
    with self.assertRaisesRegex(
        phases.PhaseError, r'object_storage: .*; not run: tpcc$'
    ):
      runner.RunAll(
          self.topo, EVERY, prepare=True, overlap=True, keep_going=False
      )
    self.assertNotIn('tpcc', self._Runs())

  def testWithoutASetupToRunBesideObjectStorageRunsBeforeTpcc(self):
    self._IdleLoad()
    runner.RunAll(self.topo, EVERY, overlap=True)  # no prepare: no Setup
    runs = self._Runs()
    self.assertEqual(
        runs['object_storage'][1][0], threading.current_thread().name
    )
    self.assertGreaterEqual(runs['tpcc'][1][1], runs['object_storage'][1][2])

  def testArrangeAsksTpccWhetherItsLoadLeavesTheClientIdle(self):
    schedule, topo = phases.Arrange(self.topo, EVERY, overlap=True)
    self.assertEqual(schedule.beside_load, ())  # the fake has no answer
    self._IdleLoad()
    schedule, topo = phases.Arrange(self.topo, EVERY, overlap=True)
    self.assertEqual(schedule.beside_load, ('object_storage',))
    self.assertTrue(topo.Placement('object_storage')['overlapped'])
    self.assertFalse(topo.Placement('tpcc')['overlapped'])
    self.fakes['tpcc'].LoadLeavesClientIdle = lambda: False
    schedule, _ = phases.Arrange(self.topo, EVERY, overlap=True)
    self.assertEqual(schedule.beside_load, ())

  def testAResumedTpccStillGetsObjectStorageRun(self):
    store = self._Store()
    self._IdleLoad()
    store.SaveFinished('tpcc', [sample.Sample('tpcc_x', 1, 'u', {})])
    handed = {}
    runner.RunAll(
        self.topo, EVERY, prepare=True, overlap=True, store=store,
        on_samples=lambda p, s: handed.setdefault(p, s),
    )  # fmt: skip
    self.assertIn('object_storage', self._Runs())
    self.assertNotIn('tpcc', self._Runs())
    self.assertEqual(sorted(handed), sorted(EVERY))

  def testPublishesFromEveryThreadComeOneAtATime(self):
    store = self._Store()
    inside, most = [0], [0]
    lock = threading.Lock()

    def Publish(name, samples):
      del name, samples
      with lock:
        inside[0] += 1
        most[0] = max(most[0], inside[0])
      time.sleep(0.05)  # a slow publisher: the other threads wait
      with lock:
        inside[0] -= 1

    self._Meet('io', 'cpu', 'net')
    runner.RunAll(
        self.topo, EVERY, on_samples=Publish, store=store, overlap=True
    )
    self.assertEqual(most[0], 1)
    states = {n: state for n, (_, state) in store.Finished().items()}
    self.assertEqual(states, {n: resume.PUBLISHED for n in EVERY})

  def testAResumedOverlapRunRunsOnlyWhatHadNotFinished(self):
    store = self._Store()
    self.fakes['net'].fail = True
    with self.assertRaises(phases.PhaseError):
      runner.RunAll(
          self.topo, EVERY, on_samples=lambda p, s: None, store=store,
          overlap=True,
      )  # fmt: skip
    self.assertEqual(
        sorted(store.Finished()), ['cpu', 'io', 'object_storage', 'tpcc']
    )
    self.fakes['net'].fail = False
    self.log.clear()
    handed = {}
    out = runner.RunAll(
        self.topo, EVERY, store=store, overlap=True,
        on_samples=lambda p, s: handed.setdefault(p, s),
    )  # fmt: skip
    self.assertEqual(sorted(self._Runs()), ['net'])
    self.assertEqual(sorted(handed), ['net'])  # the others were published
    self.assertEqual([s.metadata['phase'] for s in out], ['net'])
    self.assertEqual(sorted(store.Finished()), sorted(EVERY))

  def testThePhasesOfBothThreadsGetTheRunsIdentity(self):
    identity = phases.RunIdentity('abc', '0123456789ab', '/run/dir')
    topo = dataclasses.replace(self.topo, identity=identity)
    seen = {}

    def Record(name):
      def Run(topo):
        seen[name] = (topo.identity, threading.current_thread().name)
        return []

      return Run

    for name in ('io', 'cpu'):
      self.fakes[name].run = Record(name)
    runner.RunAll(topo, ['cpu', 'io'], overlap=True)
    self.assertEqual({n: i for n, (i, _) in seen.items()},
                     {'io': identity, 'cpu': identity})  # fmt: skip
    # Two threads: the identity came with the topology, not thread state.
    self.assertLen({thread for _, thread in seen.values()}, 2)


class PhaseStoreThreadsTest(absltest.TestCase):

  def testSavesFromManyThreadsAreAllKept(self):
    store = resume.PhaseStore(
        os.path.join(self.create_tempdir().full_path, 'phases.json')
    )
    read = resume.PhaseStore._Read

    def SlowRead(self_):
      state = read(self_)
      time.sleep(0.05)  # widen the read-modify-write window
      return state

    self.enter_context(mock.patch.object(resume.PhaseStore, '_Read', SlowRead))
    names = [f'p{i}' for i in range(6)]
    threads = [
        threading.Thread(
            target=store.SaveFinished,
            args=(n, [sample.Sample(n, 1, 'u', {})]),
        )
        for n in names
    ]
    for t in threads:
      t.start()
    for t in threads:
      t.join(_WAIT_S)
    self.assertEqual(sorted(store.Finished()), names)


if __name__ == '__main__':
  absltest.main()
