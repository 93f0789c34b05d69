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
"""Applying and removing a host's limits on a fake cgroup root.

The fake root holds a cpu and a blkio hierarchy as plain directories; its
rmdir behaves as cgroupfs': a cgroup whose cgroup.procs lists a process
cannot be removed (EBUSY), an empty one goes with its control files. The
same on real cgroups: tests/local/test_local_limits.py.
"""

import errno
import os
import time
from unittest import mock

from absl.testing import absltest

from pkb_ext.local import layout
from pkb_ext.local import limits
from pkb_ext.local import machine_types
from pkb_ext.local import system

MTYPE = machine_types.Get('local-s')
PLAN = layout.Plan(
    state_dir='/srv/pkb-ext-test-limits',
    prefix=MTYPE.prefix,
    subnet=MTYPE.subnet,
    machine_type=MTYPE.name,
)
HOST = PLAN.hosts[0]
PID = 4242
_RMDIR = os.rmdir  # the real one: the tests patch os.rmdir


def _RemoveTree(path):
  for name in os.listdir(path):
    os.remove(os.path.join(path, name))
  _RMDIR(path)


def _CgroupRmdir(path):
  """rmdir as cgroupfs does it: EBUSY while a process is listed."""
  procs = os.path.join(path, 'cgroup.procs')
  if os.path.exists(procs):
    with open(procs) as f:
      if f.read().split():
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), path)
  _RemoveTree(path)


def _Move(procs, pid):
  """Writing a pid to a cgroup.procs: the process leaves its other cgroup."""
  hierarchy = os.path.dirname(procs)
  if os.path.exists(os.path.join(os.path.dirname(hierarchy), 'cgroup.procs')):
    hierarchy = os.path.dirname(hierarchy)  # procs is a child's
  for dirpath, _, names in os.walk(hierarchy):
    if 'cgroup.procs' in names:
      path = os.path.join(dirpath, 'cgroup.procs')
      with open(path) as f:
        kept = [p for p in f.read().split() if p != pid]
      with open(path, 'w') as f:
        f.write(''.join(f'{p}\n' for p in kept))
  with open(procs, 'a') as f:
    f.write(f'{pid}\n')


class FakeRootTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.root = self.create_tempdir().full_path
    self.enter_context(mock.patch.object(limits, 'CGROUP_ROOT', self.root))
    self.enter_context(mock.patch.object(limits, '_REMOVE_POLL_S', 0.01))
    self.rmdir = self.enter_context(
        mock.patch.object(limits.os, 'rmdir', side_effect=_CgroupRmdir)
    )
    self.enter_context(mock.patch.object(limits, '_Tree', return_value=[PID]))
    self.run_ = self.enter_context(mock.patch.object(system, 'Run'))
    real_write = limits._Write
    self.enter_context(
        mock.patch.object(
            limits,
            '_Write',
            side_effect=lambda path, value: (
                _Move(path, value)
                if os.path.basename(path) == 'cgroup.procs'
                else real_write(path, value)
            ),
        )
    )
    self.name = limits.CgroupName(PLAN, HOST)

  def _Hierarchies(self, *controllers):
    for c in controllers:
      os.makedirs(os.path.join(self.root, c))
      open(os.path.join(self.root, c, 'cgroup.procs'), 'w').close()

  def _Cgroup(self, controller, *pids):
    path = os.path.join(self.root, controller, self.name)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, 'cgroup.procs'), 'w') as f:
      f.write(''.join(f'{p}\n' for p in pids))
    return path

  def testApplyWritesEachControllersSettingsAndTheCaps(self):
    self._Hierarchies('cpu', 'blkio')
    dirs = limits.Apply(PLAN, HOST, MTYPE, PID, None)
    self.assertEqual(
        dirs, [os.path.join(self.root, c, self.name) for c in ('cpu', 'blkio')]
    )
    with open(os.path.join(dirs[0], 'cpu.cfs_quota_us')) as f:
      self.assertEqual(f.read(), str(MTYPE.cpu_quota_us))
    self.assertLen(self.run_.call_args_list, 2)  # tbf on both ends

  def testNothingIsCreatedWithoutEveryHierarchy(self):
    self._Hierarchies('cpu')
    with self.assertRaisesRegex(
        system.LocalCloudError,
        r'^no cgroup v1 blkio hierarchy under .*; nothing was applied$',
    ):
      limits.Apply(PLAN, HOST, MTYPE, PID, None)
    self.assertEqual(sorted(os.listdir(self.root)), ['cpu'])
    self.assertEqual(
        os.listdir(os.path.join(self.root, 'cpu')), ['cgroup.procs']
    )
    self.run_.assert_not_called()

  def testAFailedApplyRemovesTheCgroupsItCreated(self):
    """blkio refuses a setting after cpu was set and the host moved in."""
    self._Hierarchies('cpu', 'blkio')
    write = limits._Write.side_effect

    def Write(path, value):
      if '/blkio/' in path and 'throttle' in path:
        raise system.LocalCloudError(f'cannot write {value!r} to {path}')
      write(path, value)

    with mock.patch.object(limits, '_Write', side_effect=Write):
      with mock.patch.object(limits, 'DeviceNumber', return_value='7:7'):
        with self.assertRaisesRegex(system.LocalCloudError, 'blkio.throttle'):
          limits.Apply(PLAN, HOST, MTYPE, PID, '/dev/loop7')
    for c in ('cpu', 'blkio'):
      self.assertFalse(os.path.exists(os.path.join(self.root, c, self.name)))
    # The host's process went back to the cpu hierarchy's root.
    with open(os.path.join(self.root, 'cpu', 'cgroup.procs')) as f:
      self.assertEqual(f.read().split(), [str(PID)])
    self.run_.assert_not_called()

  def testAFailedApplyKeepsACgroupThatExistedForDown(self):
    self._Hierarchies('cpu', 'blkio')
    existing = self._Cgroup('cpu')
    self.run_.side_effect = system.LocalCloudError('tc: no such device')
    with self.assertRaisesRegex(system.LocalCloudError, 'tc: no such device'):
      limits.Apply(PLAN, HOST, MTYPE, PID, None)
    self.assertTrue(os.path.isdir(existing))
    self.assertFalse(
        os.path.exists(os.path.join(self.root, 'blkio', self.name))
    )
    # What down does once the host's processes have ended.
    with open(os.path.join(existing, 'cgroup.procs'), 'w') as f:
      f.write('')
    self.assertEqual(limits.Remove(PLAN, HOST), [f'cgroup {existing}'])

  def testRemoveWaitsForAKilledProcessToLeave(self):
    self._Hierarchies('cpu', 'blkio')
    cpu = self._Cgroup('cpu', PID)
    blkio = self._Cgroup('blkio')
    busy = [OSError(errno.EBUSY, os.strerror(errno.EBUSY), cpu)] * 3

    def Rmdir(path):
      if busy:
        raise busy.pop()
      _RemoveTree(path)

    self.rmdir.side_effect = Rmdir
    self.assertEqual(
        limits.Remove(PLAN, HOST), [f'cgroup {cpu}', f'cgroup {blkio}']
    )
    self.assertEqual(self.rmdir.call_count, 5)

  def testRemoveGivesUpAfterItsBound(self):
    self._Hierarchies('cpu', 'blkio')
    cpu = self._Cgroup('cpu', PID)
    with mock.patch.object(limits, 'REMOVE_WAIT_S', 0.3):
      start = time.monotonic()
      with self.assertRaisesRegex(
          system.LocalCloudError,
          rf'^cannot remove cgroup {cpu}: .*Device or resource busy.* \(a'
          r' process is still in it after 0\.3 s\)$',
      ):
        limits.Remove(PLAN, HOST)
      waited = time.monotonic() - start
    self.assertGreaterEqual(waited, 0.3)
    self.assertLess(waited, 3)
    self.assertTrue(os.path.isdir(cpu))

  def testRemoveDoesNotWaitOnAnotherError(self):
    self._Hierarchies('cpu', 'blkio')
    cpu = self._Cgroup('cpu')
    self.rmdir.side_effect = PermissionError(errno.EACCES, 'Permission denied')
    with self.assertRaisesRegex(
        system.LocalCloudError, rf'^cannot remove cgroup {cpu}: .*denied$'
    ):
      limits.Remove(PLAN, HOST)
    self.assertEqual(self.rmdir.call_count, 1)


if __name__ == '__main__':
  absltest.main()
