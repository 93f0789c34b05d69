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
"""The shared remote-output helpers, run for real where they are shell."""

import os
import signal
import subprocess
import tempfile
import time
from unittest import mock

from absl.testing import absltest

from perfkitbenchmarker import errors

from benchmarks.cloud_report import remote
from pkb_ext.suite import leftovers


class BoundedTest(absltest.TestCase):

  def testItEndsTheCommandsProcessGroup(self):
    command = remote.Bounded("sh -c 'sleep 31.7 & sleep 31.7; echo late'", 1)
    proc = subprocess.run(
        ['bash', '-c', command], capture_output=True, text=True, timeout=60
    )
    self.assertIn(proc.returncode, remote.TIMED_OUT)
    self.assertEqual(proc.stdout, '')
    left = subprocess.run(
        ['pgrep', '-f', '^sleep 31.7$'], capture_output=True, text=True
    )
    self.assertEqual(left.stdout, '')  # the background sleep ended too

  def testABoundBelowASecondIsRefused(self):
    with self.assertRaises(ValueError):
      remote.Bounded('true', 0)


def _Alive(pid: int) -> bool:
  """Whether pid runs (a zombie counts as ended)."""
  try:
    with open(f'/proc/{pid}/stat') as f:
      return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
  except FileNotFoundError:
    return False


class TrackedTest(absltest.TestCase):
  """A tracked command as a killed PKB leaves it: detached, still running."""

  def setUp(self):
    super().setUp()
    self.dir = self.create_tempdir().full_path
    self.started = []
    self.groups = []  # the tracked commands' own process groups

  def tearDown(self):
    for group in self.groups:  # only what this test started
      try:
        os.killpg(group, signal.SIGKILL)
      except ProcessLookupError:
        pass
    for proc in self.started:
      if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
      proc.wait()
    super().tearDown()

  def _Detached(self, command: str) -> subprocess.Popen:
    """Starts command in its own session, as nohup on a VM leaves it."""
    proc = subprocess.Popen(
        ['sh', '-c', command], start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    self.started.append(proc)
    return proc

  def _PidFile(self, tag: str, timeout_s: float = 10) -> int:
    path = remote.PidPath(tag, self.dir)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
      if os.path.exists(path):
        text = open(path).read().split()
        if len(text) > 1:  # the PID, then its start time
          self.groups.append(int(text[0]))
          return int(text[0])
      time.sleep(0.05)
    self.fail(f'no PID file {path}')

  def _EndLeftovers(self, prefix: str, grace_s: int = 3):
    # sh: Debian's and Ubuntu's is dash, the strictest shell PKB's commands
    # meet.
    return subprocess.run(
        ['sh', '-c',
         leftovers.EndLeftoversCommand(prefix, grace_s, directory=self.dir)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip

  def testACompletedCommandKeepsItsStatusAndLeavesNoPidFile(self):
    command = remote.Bounded("sh -c 'exit 3'", 10, 'tpcc-a', self.dir)
    proc = subprocess.run(['bash', '-c', command], timeout=30)
    self.assertEqual(proc.returncode, 3)
    self.assertEqual(os.listdir(self.dir), [])

  def testTheBoundStillEndsATrackedCommand(self):
    command = remote.Bounded('sleep 29.3', 1, 'tpcc-b', self.dir)
    proc = subprocess.run(['bash', '-c', command], timeout=60)
    self.assertIn(proc.returncode, remote.TIMED_OUT)
    self.assertEqual(os.listdir(self.dir), [])

  def testALeftoverIsEndedWithItsGroupEvenIfItIgnoresTerm(self):
    # A step's workload with a child, the child deaf to TERM.
    work = 'sh -c \'trap "" TERM; sleep 97.1 & trap "" TERM; sleep 97.1\''
    leftover = self._Detached(
        remote.Bounded(work, 600, 'tpcc-step-02-200wh', self.dir)
    )
    pid = self._PidFile('tpcc-step-02-200wh')
    other = self._Detached(remote.Bounded('sleep 97.2', 600, 'fio-x', self.dir))
    other_pid = self._PidFile('fio-x')
    started = time.monotonic()
    proc = self._EndLeftovers('tpcc-', grace_s=2)
    took = time.monotonic() - started
    self.assertEqual(proc.returncode, 0, proc.stderr)
    self.assertEqual(
        leftovers.Leftovers(proc.stdout), [('tpcc-step-02-200wh', pid)]
    )
    self.assertGreaterEqual(took, 2)  # TERM was ignored: KILL after grace
    leftover.wait(timeout=30)
    left = subprocess.run(
        ['pgrep', '-f', '^sleep 97.1$'], capture_output=True, text=True
    )
    self.assertEqual(left.stdout, '')  # the whole group, children included
    self.assertFalse(_Alive(pid))
    # Another phase's command is not touched.
    self.assertTrue(_Alive(other_pid))
    self.assertIsNone(other.poll())
    self.assertEqual(
        sorted(os.listdir(self.dir)), [os.path.basename(
            remote.PidPath('fio-x', self.dir))]
    )  # fmt: skip

  def testATermHonouringLeftoverEndsAtOnce(self):
    leftover = self._Detached(
        remote.Bounded('sleep 97.3', 600, 'tpcc-import', self.dir)
    )
    pid = self._PidFile('tpcc-import')
    started = time.monotonic()
    proc = self._EndLeftovers('tpcc-', grace_s=20)
    self.assertLess(time.monotonic() - started, 10)
    self.assertEqual(leftovers.Leftovers(proc.stdout), [('tpcc-import', pid)])
    self.assertEqual(leftover.wait(timeout=30), 143)  # sh saw timeout's TERM
    self.assertEqual(os.listdir(self.dir), [])

  def testStaleAndForeignPidFilesAreRemovedNotKilled(self):
    # A PID file whose process is gone, one with garbage, one empty, one
    # without a start time, and one naming a live process that started at
    # another time (a recycled PID): none is killed.
    bystander = self._Detached('exec sleep 97.4')
    for tag, text in (
        ('tpcc-gone', '999999999 12'),
        ('tpcc-garbage', 'x1 12'),
        ('tpcc-empty', ''),
        ('tpcc-no-start', str(bystander.pid)),
        ('tpcc-recycled', f'{bystander.pid} 12'),
    ):
      with open(remote.PidPath(tag, self.dir), 'w') as f:
        f.write(text + '\n')
    proc = self._EndLeftovers('tpcc-')
    self.assertEqual(proc.returncode, 0, proc.stderr)
    self.assertEqual(leftovers.Leftovers(proc.stdout), [])
    self.assertIsNone(bystander.poll())
    self.assertEqual(os.listdir(self.dir), [])

  def testATrackedCommandIsEndedWithItsSession(self):
    # Not bounded (the object-storage worker, a CoreMark run): setsid makes
    # it the leader of its own group, children included.
    work = "sh -c 'sleep 97.5 & sleep 97.5'"
    leftover = self._Detached(leftovers.Tracked(work, 'ttfb-worker', self.dir))
    pid = self._PidFile('ttfb-worker')
    self.assertEqual(os.getpgid(pid), pid)
    proc = self._EndLeftovers('ttfb-')
    self.assertEqual(leftovers.Leftovers(proc.stdout), [('ttfb-worker', pid)])
    self.assertEqual(leftover.wait(timeout=30), 143)
    left = subprocess.run(
        ['pgrep', '-f', '^sleep 97.5$'], capture_output=True, text=True
    )
    self.assertEqual(left.stdout, '')
    self.assertEqual(os.listdir(self.dir), [])

  def testATrackedCommandKeepsItsStatusOutputAndStreams(self):
    command = leftovers.Tracked(
        "sh -c 'echo out; echo err >&2; exit 4'", 'coremark-all', self.dir
    )
    proc = subprocess.run(
        ['bash', '-c', command + ' 2> ' + os.path.join(self.dir, 'e')],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    self.assertEqual((proc.returncode, proc.stdout), (4, 'out\n'))
    self.assertEqual(open(os.path.join(self.dir, 'e')).read(), 'err\n')
    os.remove(os.path.join(self.dir, 'e'))
    self.assertEqual(os.listdir(self.dir), [])

  def testALeftoverThatCannotBeSignalledIsReportedAndKept(self):
    # kill and sudo fail, as for a root's fio without passwordless sudo.
    leftover = self._Detached(
        remote.Bounded('sleep 97.6', 600, 'fio-x', self.dir)
    )
    pid = self._PidFile('fio-x')
    command = 'kill() { return 1; }; sudo() { return 1; }; ' + (
        leftovers.EndLeftoversCommand('fio-', 1, directory=self.dir)
    )
    proc = subprocess.run(
        ['sh', '-c', command], capture_output=True, text=True, timeout=60
    )
    self.assertEqual(proc.returncode, 0, proc.stderr)
    self.assertEqual(leftovers.Leftovers(proc.stdout), [])
    self.assertEqual(
        leftovers.Leftovers(proc.stdout, 'alive'), [('fio-x', pid)]
    )
    self.assertIsNone(leftover.poll())
    self.assertTrue(os.path.exists(remote.PidPath('fio-x', self.dir)))
    # The phase refuses to measure beside it, naming it and the VM.
    vm = mock.Mock()
    vm.name = 'db1'
    vm.RemoteCommand.return_value = (proc.stdout, '')
    with self.assertRaisesRegex(
        errors.Benchmarks.RunError,
        rf'^io phase: fio-x \(pid {pid}\) on db1, left running by an earlier'
        r' attempt of this run, could not be ended',
    ):
      leftovers.EndLeftovers([vm], 'fio-', 'io phase')

  def testEndLeftoversLogsWhatItEnded(self):
    vm = mock.Mock()
    vm.name = 'client'
    vm.RemoteCommand.return_value = (
        'cloud_report_leftover ended tpcc-import pid 42\n',
        '',
    )
    with self.assertLogs(level='WARNING') as logs:
      ended = leftovers.EndLeftovers([vm], 'tpcc-', 'tpcc')
    self.assertEqual(ended, [('client', 'tpcc-import', 42)])
    self.assertIn(
        'tpcc: ended tpcc-import (pid 42) on client, left running by an'
        ' earlier attempt of this run',
        logs.output[0],
    )

  def testAChildDeafToTermIsKilledAfterItsLeaderEnded(self):
    # The leader ends on TERM at once; a child that ignores TERM stays in
    # the group: it gets the KILL all the same.
    work = 'sh -c \'(trap "" TERM; sleep 97.7) & sleep 97.8\''
    leftover = self._Detached(leftovers.Tracked(work, 'coremark-x', self.dir))
    pid = self._PidFile('coremark-x')
    proc = self._EndLeftovers('coremark-', grace_s=20)
    self.assertEqual(leftovers.Leftovers(proc.stdout), [('coremark-x', pid)])
    leftover.wait(timeout=30)
    left = subprocess.run(
        ['pgrep', '-f', '^sleep 97.[78]$'], capture_output=True, text=True
    )
    self.assertEqual(left.stdout, '')

  def testNothingToEnd(self):
    proc = self._EndLeftovers('tpcc-')
    self.assertEqual((proc.returncode, proc.stdout), (0, ''))

  def testBadTagsAreRefused(self):
    for tag in ('', 'a b', '../x', 'a;b', '-x'):
      with self.subTest(tag=tag), self.assertRaises(ValueError):
        remote.Bounded('true', 1, tag)
      with self.subTest(tag=tag), self.assertRaises(ValueError):
        leftovers.Tracked('true', tag)
    with self.assertRaises(ValueError):
      leftovers.EndLeftoversCommand('*')


class LeftoversTest(absltest.TestCase):
  """The commands a resumed run ended, from its remote output."""

  def testParse(self):
    out = (
        'noise\ncloud_report_leftover ended tpcc-step-02-200wh pid 4242\n'
        'cloud_report_leftover ended fio-wr-bw pid 7\n'
        'cloud_report_leftover ended  pid 1\n'
        'cloud_report_leftover alive fio-x pid 9\n'
    )
    self.assertEqual(
        leftovers.Leftovers(out),
        [('tpcc-step-02-200wh', 4242), ('fio-wr-bw', 7)],
    )
    self.assertEqual(leftovers.Leftovers(out, 'alive'), [('fio-x', 9)])


if __name__ == '__main__':
  absltest.main()
