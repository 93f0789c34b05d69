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
"""The io phase for real: fio on loop devices this test makes.

LocalVmTest runs the phase's own code through
pkb_ext_dev.local_vm.LocalVm against a 1 GiB direct-I/O loop device in
a private temp dir (pkb_ext_dev.loop_device; detached by exact name),
with 2 s jobs, and the safety guard against a mounted loop device, the root
disk and a regular file (refused: the phase runs on block devices only). The guard tests never run fio on the root disk:
they call the guard alone.

LocalCloudTest brings up its own local cloud (prefix pkbio, its own subnet
and state dir, no MinIO), runs stock pkb.py cloud_report_2021
--cloud_report_phases=io on it with the smoke preset, and takes it down.
Both are skipped, saying why, where the machine cannot do them.
"""

import dataclasses
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import types

from absl import flags
from absl.testing import absltest

from pkb_ext.suite.disk import commands as storage_commands
from pkb_ext.suite.disk import guard as io_guard
from pkb_ext.local import images
from pkb_ext import paths
from pkb_ext.suite.disk import parser as fio_parser
from pkb_ext.suite.disk import stages as io
from pkb_ext_dev import fidelity as fidelity_lib
from pkb_ext_dev import local_vm
from pkb_ext_dev import loop_device

_REASON = loop_device.Unavailable()
JOBS = ('wr-bw', 'wr-iops', 'wr-latency', 'rd-bw', 'rd-iops', 'rd-latency',
        'target')  # fmt: skip


def _Params(**overrides):
  return dataclasses.replace(
      io.Params(), runtime_s=2, ramp_time_s=1, install='os', **overrides
  )


def _Disk(device, mount_point=None):
  """The parts of a PKB scratch disk the phase reads."""
  return types.SimpleNamespace(
      device_path=device, mount_point=mount_point, mount_options='discard'
  )


@absltest.skipIf(_REASON, _REASON)
class LocalVmTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    if not flags.FLAGS.is_parsed():
      flags.FLAGS.mark_as_parsed()  # data.ResourcePath reads PKB flags
    self.loop = self.enter_context(loop_device.LoopDevice())
    self.work = os.path.join(self.loop.dir, 'work')
    os.makedirs(self.work)

  def _Vm(self, disks=()):
    return local_vm.LocalVm(work_dir=self.work, scratch_disks=list(disks))

  def testPhaseRunsEveryJobAndRemakesTheFileSystem(self):
    # As PKB leaves a scratch disk: a file system, mounted.
    mount_point = self.loop.MkfsAndMount('scratch')
    marker = os.path.join(mount_point, 'old-data')
    with open(marker, 'w') as f:
      f.write('the phase must destroy this')
    disk = _Disk(self.loop.device, mount_point)
    vm = self._Vm([disk])

    samples = io.RunOnVm(vm, _Params())

    self.assertEqual(
        list(dict.fromkeys(s.metadata['fio_job'] for s in samples)),
        list(JOBS),
    )
    self.assertLen(samples, 7 * 13 + 1)
    for s in samples:
      self.assertTrue(math.isfinite(s.value), s)
      self.assertEqual(s.metadata['fio_target'], self.loop.device)
      self.assertEqual(s.metadata['fio_disk_bytes'], 1 << 30)
    iops = {
        s.metadata['fio_job']: s.value
        for s in samples
        if s.metric == 'fio_iops'
    }
    self.assertTrue(all(v > 0 for v in iops.values()), iops)
    # The fill ran over the whole device (size=100%, not time based) and
    # reported nothing; fio's io_bytes leave out what the ramp wrote.
    with open(
        os.path.join(self.work, storage_commands.OutputFile(io.FILL_JOB))
    ) as f:
      text = f.read()
    (fill,) = fio_parser.Parse(text).jobs
    self.assertEqual([d.name for d in fill.directions], ['write'])
    self.assertBetween(
        json.loads(text)['jobs'][0]['write']['io_bytes'], 1, 1 << 30
    )
    self.assertEqual(
        (fill.Option('size'), fill.Option('time_based')), ('100%', '0')
    )
    # The disk is mounted again on its mount point, with a new file system.
    self.assertEqual(self.loop.MountedOn(), [mount_point])
    self.assertFalse(os.path.exists(marker))
    fstype = subprocess.run(
        ['findmnt', '-no', 'FSTYPE', mount_point],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    self.assertEqual(fstype, 'ext4')
    commands = '\n'.join(vm.commands)
    self.assertIn(f'sudo umount {mount_point}', commands)
    self.assertLess(commands.index('umount'), commands.index('--section='))

  def testGuardRefusesAMountedLoopDevice(self):
    mount_point = self.loop.MkfsAndMount()
    vm = self._Vm()
    with self.assertRaisesRegex(
        io_guard.UnsafeTargetError,
        f'^refusing to run fio on {self.loop.device}: it is mounted on'
        f' {mount_point}$',
    ):
      io_guard.Check(vm, self.loop.device)
    # Through the phase: the device is not the VM's scratch disk, so the
    # phase does not unmount it, and the guard stops it before any write.
    with self.assertRaises(io_guard.UnsafeTargetError):
      io.RunOnVm(vm, _Params(device=self.loop.device))
    self.assertFalse([c for c in vm.commands if 'fio ' in c or 'mke2fs' in c])
    self.assertEqual(self.loop.MountedOn(), [mount_point])

  def testGuardRefusesTheRootDisk(self):
    root = subprocess.run(
        ['findmnt', '-nvo', 'SOURCE', '/'],
        capture_output=True, text=True, check=False,
    ).stdout.strip()  # fmt: skip
    if not root.startswith('/dev/') or not os.path.exists(root):
      self.skipTest(f'/ is on {root!r}, not a block device')
    # The guard alone: fio is never pointed at the root disk.
    with self.assertRaisesRegex(
        io_guard.UnsafeTargetError,
        f'^refusing to run fio on {root}.*: it is the boot/root device',
    ):
      io_guard.Check(self._Vm(), root)

  def testRegularFileIsRefused(self):
    # The loop device's own backing file: what a block device is made of,
    # refused as a target all the same.
    vm = self._Vm()
    with self.assertRaisesRegex(
        io_guard.UnsafeTargetError,
        f'^refusing to run fio on {self.loop.image}: it is a regular file',
    ):
      io.RunOnVm(vm, _Params(device=self.loop.image))
    self.assertFalse([c for c in vm.commands if 'fio ' in c or 'mke2fs' in c])

  def testPhaseRunsOnAnUnmountedLoopDevice(self):
    # What a test once ran on a regular file: a loop device over the file.
    params = _Params(device=self.loop.device, jobs=('rd-iops',), fill=False)
    samples = io.RunOnVm(self._Vm(), params)
    self.assertEqual({s.metadata['fio_job'] for s in samples}, {'rd-iops'})
    self.assertEqual(samples[0].metadata['fio_disk_bytes'], 1 << 30)

  def testFidelityMeasurementRuns(self):
    # The >= 0.97 target is measured by `pkb-ext bench`, not asserted here.
    fidelity = fidelity_lib.MeasureStorage(
        self._Vm(), self.loop.device, runtime_s=2, repeats=2
    )
    self.assertLen(fidelity.phase, 2)
    self.assertLen(fidelity.raw, 2)
    self.assertTrue(all(v > 0 for v in fidelity.raw))
    self.assertTrue(math.isfinite(fidelity.ratio))
    self.assertGreater(fidelity.ratio, 0)


_CLOUD_PREFIX = 'pkbio'
_CLOUD_SUBNET = '10.247.91.0/24'
_CLOUD_DIR = os.path.join(paths.CacheDir(), 'local-io-test')


def _CloudUnavailable():
  from pkb_ext_dev import local_cloud  # pylint: disable=g-import-not-at-top

  reason = local_cloud.Unavailable()
  if reason:
    return reason
  addrs = subprocess.run(
      ['ip', '-o', '-4', 'addr', 'show'],
      capture_output=True, text=True, check=False,
  ).stdout  # fmt: skip
  net = _CLOUD_SUBNET.rsplit('.', 1)[0] + '.'
  others = [
      line.split()[1]
      for line in addrs.splitlines()
      if f' {net}' in line and line.split()[1] != _CLOUD_PREFIX + '0'
  ]
  if others:
    return f'{_CLOUD_SUBNET} is in use on this machine ({others[0]})'
  return None


class LocalCloudTest(absltest.TestCase):
  """cloud_report_2021 --cloud_report_phases=io on a private local cloud."""

  def _Local(self, *args, timeout=900):
    env = dict(os.environ)
    env.update(
        PKB_EXT_LOCAL_STATE=_CLOUD_DIR,
        PKB_EXT_LOCAL_PREFIX=_CLOUD_PREFIX,
        PKB_EXT_LOCAL_SUBNET=_CLOUD_SUBNET,
        PKB_EXT_LOCAL_DISK_GIB='0.5',
        # This machine's fio, installs off: the phase, not PKB's installs.
        PKB_EXT_LOCAL_IMAGE=images.HOST_IMAGE,
    )
    return subprocess.run(
        [sys.executable, '-m', 'pkb_ext.cli', 'local', *args],
        env=env, capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip

  def testIoPhaseOnTheLocalCloud(self):
    why = _CloudUnavailable()
    if why:
      self.skipTest(why)
    self.addCleanup(self._Local, 'down')
    up = self._Local('up', '--no-minio')
    self.assertEqual(up.returncode, 0, up.stderr[-3000:])
    flags_out = self._Local('flags', '--preset', 'smoke')
    self.assertEqual(flags_out.returncode, 0, flags_out.stderr)
    with open(os.path.join(_CLOUD_DIR, 'state.json')) as f:
      state = json.load(f)
    db1_loop = state['hosts']['db1']['loop']

    # A short path: PKB's ssh ControlPath socket lives under --temp_dir, and
    # absltest's temp dirs make it longer than a socket path may be.
    tmp = tempfile.mkdtemp(prefix='pkbio-')
    self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
    samples_path = os.path.join(tmp, 'samples.json')
    pkb = os.path.join(os.path.dirname(sys.executable), 'pkb.py')
    proc = subprocess.run(
        [sys.executable, pkb, '--benchmarks=cloud_report_2021',
         '--cloud_report_phases=io', *flags_out.stdout.split(),
         '--cloud_report_fio_runtime_s=2', f'--temp_dir={tmp}/pkb',
         f'--json_path={samples_path}', '--run_uri=iolocal1',
         '--accept_licenses', '--ignore_package_requirements'],
        capture_output=True, text=True, timeout=1800, check=False,
    )  # fmt: skip
    self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
    with open(samples_path) as f:
      samples = [json.loads(line) for line in f]
    mine = [s for s in samples if '|phase:io|' in s['labels']]
    jobs = [
        s['labels'].split('|fio_job:')[1].split('|')[0] for s in mine
    ]  # fmt: skip
    self.assertEqual(list(dict.fromkeys(jobs)), list(JOBS))
    self.assertLen(mine, 7 * 13 + 1)
    self.assertTrue(all(f'|fio_target:{db1_loop}|' in s['labels']
                        for s in mine))  # fmt: skip
    iops = [s['value'] for s in mine if s['metric'] == 'fio_iops']
    self.assertTrue(all(v > 0 for v in iops), iops)

    down = self._Local('down')
    self.assertEqual(down.returncode, 0, down.stderr)
    loops = subprocess.run(['losetup', '-a'], capture_output=True, text=True,
                           check=False).stdout  # fmt: skip
    self.assertNotIn(_CLOUD_DIR, loops)
    netns = subprocess.run(['ip', 'netns', 'list'], capture_output=True,
                           text=True, check=False).stdout  # fmt: skip
    self.assertNotIn(_CLOUD_PREFIX + '-', netns)


if __name__ == '__main__':
  absltest.main()
