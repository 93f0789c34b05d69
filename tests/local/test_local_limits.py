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
"""A host's limits on this machine's real cgroups (root, cgroup v1).

limits.Apply and limits.Remove on the cpu and blkio hierarchies, with a
`sleep` standing in for a host's sshd and the tc caps left out (no links):
a process killed just before Remove does not make it fail, a process still
running does (after REMOVE_WAIT_S), and an Apply that fails after the cpu
cgroup was set and the process moved in leaves no cgroup behind. The cgroups
are named by a prefix of their own, so a local cloud that is up keeps its.
"""

import os
import signal
import subprocess
import time
from unittest import mock

from absl.testing import absltest

from pkb_ext.local import layout
from pkb_ext.local import limits
from pkb_ext.local import machine_types
from pkb_ext.local import system

MTYPE = machine_types.Get('local-s')
# A MAJOR:MINOR no block device has: blkio refuses a throttle for it.
NO_DEVICE = '254:65000'


def _Unavailable() -> str | None:
  if os.geteuid() != 0:
    return 'cgroups need root'
  for c in limits.CONTROLLERS:
    if not os.path.exists(
        os.path.join(limits.CgroupDir(c, ''), 'cgroup.procs')
    ):
      return f'no cgroup v1 {c} hierarchy under {limits.CGROUP_ROOT}'
  return None


def _Cgroups(pid: int) -> dict[str, str]:
  """controller -> the cgroup path of pid in that hierarchy."""
  out = {}
  with open(f'/proc/{pid}/cgroup') as f:
    for line in f:
      _, names, path = line.rstrip('\n').split(':', 2)
      for name in names.split(','):
        out[name] = path
  return out


class RealCgroupsTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    why = _Unavailable()
    if why:
      raise absltest.SkipTest(why)

  def setUp(self):
    super().setUp()
    self.plan = layout.Plan(
        state_dir='/srv/pkb-ext-test-limits',  # never created: no cloud
        prefix=f'lt{os.getpid() % 100000}',
        subnet=MTYPE.subnet,
        machine_type=MTYPE.name,
    )
    self.host = self.plan.hosts[0]
    self.name = limits.CgroupName(self.plan, self.host)
    self.dirs = [limits.CgroupDir(c, self.name) for c in limits.CONTROLLERS]
    self.enter_context(mock.patch.object(system, 'Run'))  # no links: no tc
    self.proc = subprocess.Popen(['sleep', '120'])
    self.addCleanup(self._CleanUp)

  def _CleanUp(self):
    if self.proc.poll() is None:
      self.proc.kill()
    self.proc.wait()
    for path in self.dirs:
      if os.path.isdir(path):
        limits._Undo(path)  # pylint: disable=protected-access

  def _Kill(self):
    os.kill(self.proc.pid, signal.SIGKILL)

  def testRemoveRightAfterTheHostsProcessIsKilled(self):
    limits.Apply(self.plan, self.host, MTYPE, self.proc.pid, None)
    self.assertEqual(
        {c: _Cgroups(self.proc.pid)[c] for c in limits.CONTROLLERS},
        {c: f'/{self.name}' for c in limits.CONTROLLERS},
    )
    with open(os.path.join(self.dirs[0], 'cpu.cfs_quota_us')) as f:
      self.assertEqual(f.read().strip(), str(MTYPE.cpu_quota_us))
    rmdir, tries = os.rmdir, []

    def Rmdir(path, *args, **kwargs):
      try:
        rmdir(path, *args, **kwargs)
        tries.append((path, None))
      except OSError as e:
        tries.append((path, e.errno))
        raise

    self._Kill()
    start = time.monotonic()
    with mock.patch.object(limits.os, 'rmdir', side_effect=Rmdir):
      removed = limits.Remove(self.plan, self.host)
    took = time.monotonic() - start
    self.assertEqual(removed, [f'cgroup {d}' for d in self.dirs])
    for path in self.dirs:
      self.assertFalse(os.path.exists(path))
    print(f'Remove after SIGKILL: {len(tries)} rmdir call(s)'
          f' {[e for _, e in tries]}, {took:.3f} s')  # fmt: skip

  def testRemoveGivesUpOnARunningProcess(self):
    limits.Apply(self.plan, self.host, MTYPE, self.proc.pid, None)
    with mock.patch.object(limits, 'REMOVE_WAIT_S', 0.5):
      start = time.monotonic()
      with self.assertRaisesRegex(
          system.LocalCloudError,
          rf'^cannot remove cgroup {self.dirs[0]}: .* \(a process is still'
          r' in it after 0\.5 s\)$',
      ):
        limits.Remove(self.plan, self.host)
      self.assertGreaterEqual(time.monotonic() - start, 0.5)
    self.assertTrue(os.path.isdir(self.dirs[0]))
    self._Kill()
    self.proc.wait()
    self.assertLen(limits.Remove(self.plan, self.host), 2)

  def testAFailedApplyLeavesNoCgroup(self):
    """blkio refuses the disk's throttle after cpu took the process."""
    before = _Cgroups(self.proc.pid)
    with mock.patch.object(limits, 'DeviceNumber', return_value=NO_DEVICE):
      with self.assertRaisesRegex(
          system.LocalCloudError,
          rf"^cannot write '{NO_DEVICE} \d+' to"
          rf' {self.dirs[1]}/blkio\.throttle',
      ):
        limits.Apply(self.plan, self.host, MTYPE, self.proc.pid, '/dev/x')
    for path in self.dirs:
      self.assertFalse(os.path.exists(path), path)
    after = _Cgroups(self.proc.pid)
    self.assertEqual(after['cpu'], '/')
    self.assertNotEqual(before['cpu'], f'/{self.name}')
    self.assertEqual(limits.Remove(self.plan, self.host), [])


if __name__ == '__main__':
  absltest.main()
