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
"""The io phase's safety guard: the pure decision on probe outputs.

Real probe outputs (tests/data/fio/probe_*.txt) cover the root disk, a
mounted and an unmounted loop device and a regular file; layouts this
machine does not have (partitions, LVM root, swap) are written in the
probe's format by hand. tests/local/test_io_phase.py runs the probe itself.
"""

import pathlib

from absl.testing import absltest
from absl.testing import parameterized

from pkb_ext.suite.disk import guard as io_guard

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'fio'


def _Facts(name):
  text = (DATA / name).read_text()
  path = text.split('\n', 1)[0].split('\t')[1]
  return io_guard.ParseProbe(path, text)


def _Probe(*lines):
  return '\n'.join(['\t'.join(l) for l in lines] + ['end-of-probe', ''])


ROOT_ON_SDA1 = [
    ('protected', '/', '8:1', '/dev/sda1'),
    ('protected', '/', '8:1', '/dev/sda1'),
    ('protected', '/', '8:0', '/dev/sda'),
    ('protected', '/boot/efi', '8:15', '/dev/sda15'),
    ('protected', '/boot/efi', '8:15', '/dev/sda15'),
    ('protected', '/boot/efi', '8:0', '/dev/sda'),
    ('mount', '8:1', '/'),
    ('mount', '8:15', '/boot/efi'),
]


class RealProbeTest(absltest.TestCase):

  def testUnmountedLoopDeviceIsAllowed(self):
    facts = _Facts('probe_loop_unmounted.txt')
    self.assertEqual(facts.kind, 'block')
    self.assertEqual(facts.tree[0].type, 'loop')
    self.assertEqual(facts.tree[0].mountpoint, '')
    self.assertEqual(io_guard.Decide(facts), [])

  def testMountedLoopDeviceIsRefused(self):
    facts = _Facts('probe_loop_mounted.txt')
    (reason,) = io_guard.Decide(facts)
    self.assertRegex(reason, r'^it is mounted on /tmp/pkb-ext-fio-probe\.')

  def testRootDiskIsRefused(self):
    facts = _Facts('probe_root_disk.txt')
    reasons = io_guard.Decide(facts)
    self.assertEqual(reasons[0], 'it is the boot/root device (it holds /)')
    # Every mount of 254:0 in the capture: / and its bind mounts.
    mounts = sorted(
        l.split('\t')[2]
        for l in (DATA / 'probe_root_disk.txt').read_text().splitlines()
        if l.startswith('mount\t254:0\t')
    )
    self.assertIn('/', mounts)
    self.assertEqual(reasons[1:], ['it is mounted on ' + ', '.join(mounts)])

  def testRegularFileIsRefused(self):
    facts = _Facts('probe_regular_file.txt')
    self.assertEqual(facts.kind, 'file')
    (reason,) = io_guard.Decide(facts)
    self.assertEqual(
        reason,
        'it is a regular file, not a block device (--cloud_report_fio_device'
        ' takes a block device)',
    )


class LayoutTest(parameterized.TestCase):

  def testDiskHoldingTheRootPartition(self):
    text = _Probe(
        ('resolved', '/dev/sda'), ('kind', 'block'),
        ('tree', '/dev/sda', '8:0', 'disk', ''),
        ('tree', '/dev/sda1', '8:1', 'part', '/'),
        ('tree', '/dev/sda15', '8:15', 'part', '/boot/efi'),
        *ROOT_ON_SDA1,
    )  # fmt: skip
    reasons = io_guard.Decide(io_guard.ParseProbe('/dev/sda', text))
    self.assertEqual(
        reasons,
        [
            'it is the boot/root device (it holds /, /boot/efi)',
            'it holds part /dev/sda1, mounted on /',
            'it holds part /dev/sda15, mounted on /boot/efi',
        ],
    )

  def testDataDiskBesideIt(self):
    text = _Probe(
        ('resolved', '/dev/sdb'), ('kind', 'block'),
        ('tree', '/dev/sdb', '8:16', 'disk', ''),
        *ROOT_ON_SDA1,
    )  # fmt: skip
    self.assertEqual(io_guard.Decide(io_guard.ParseProbe('/dev/sdb', text)), [])

  def testMountedPartitionOfADataDisk(self):
    text = _Probe(
        ('resolved', '/dev/nvme1n1'), ('kind', 'block'),
        ('tree', '/dev/nvme1n1', '259:1', 'disk', ''),
        ('tree', '/dev/nvme1n1p1', '259:2', 'part', '/mnt/data1'),
        *ROOT_ON_SDA1,
        ('mount', '259:2', '/mnt/data1'),
    )  # fmt: skip
    self.assertEqual(
        io_guard.Decide(io_guard.ParseProbe('/dev/nvme1n1', text)),
        ['it holds part /dev/nvme1n1p1, mounted on /mnt/data1'],
    )

  def testMountSeenOnlyInMountinfoStillCounts(self):
    # lsblk's MOUNTPOINT shows one mount; findmnt lists them all.
    text = _Probe(
        ('resolved', '/dev/sdb'), ('kind', 'block'),
        ('tree', '/dev/sdb', '8:16', 'disk', ''),
        ('mount', '8:16', '/var/lib/docker'),
    )  # fmt: skip
    self.assertEqual(
        io_guard.Decide(io_guard.ParseProbe('/dev/sdb', text)),
        ['it is mounted on /var/lib/docker'],
    )

  def testSwapPartition(self):
    text = _Probe(
        ('resolved', '/dev/sdc'), ('kind', 'block'),
        ('tree', '/dev/sdc', '8:32', 'disk', ''),
        ('tree', '/dev/sdc1', '8:33', 'part', '[SWAP]'),
    )  # fmt: skip
    self.assertEqual(
        io_guard.Decide(io_guard.ParseProbe('/dev/sdc', text)),
        ['it holds part /dev/sdc1, mounted on [SWAP]'],
    )

  def testLvmRootProtectsItsDiskByMajorMinor(self):
    # / is on an LV; lsblk -s walks dm-0 -> sda2 -> sda. The target is given
    # by a /dev/disk/by-id link and resolves to /dev/sda.
    text = _Probe(
        ('resolved', '/dev/sda'), ('kind', 'block'),
        ('tree', '/dev/sda', '8:0', 'disk', ''),
        ('tree', '/dev/sda2', '8:2', 'part', ''),
        ('tree', '/dev/mapper/vg-root', '253:0', 'lvm', '/'),
        ('protected', '/', '253:0', '/dev/mapper/vg-root'),
        ('protected', '/', '253:0', '/dev/mapper/vg-root'),
        ('protected', '/', '8:2', '/dev/sda2'),
        ('protected', '/', '8:0', '/dev/sda'),
        ('mount', '253:0', '/'),
    )  # fmt: skip
    facts = io_guard.ParseProbe('/dev/disk/by-id/ata-X', text)
    self.assertEqual(
        io_guard.Decide(facts),
        [
            'it is the boot/root device (it holds /)',
            'it holds lvm /dev/mapper/vg-root, mounted on /',
        ],
    )

  def testMountPointWithASpace(self):
    text = _Probe(
        ('resolved', '/dev/loop9'), ('kind', 'block'),
        ('tree', '/dev/loop9', '7:9', 'loop', ''),
        ('mount', '7:9', '/tmp/a\\x20b'),
    )  # fmt: skip
    self.assertEqual(
        io_guard.Decide(io_guard.ParseProbe('/dev/loop9', text)),
        ['it is mounted on /tmp/a b'],
    )

  @parameterized.named_parameters(
      ('missing', 'missing', 'does not exist'),
      ('directory', 'other', 'not a block device or a regular file'),
  )
  def testNotADevice(self, kind, message):
    text = _Probe(('resolved', '/x'), ('kind', kind))
    (reason,) = io_guard.Decide(io_guard.ParseProbe('/x', text))
    self.assertIn(message, reason)

  def testBlockDeviceLsblkCannotSee(self):
    text = _Probe(('resolved', '/dev/odd'), ('kind', 'block'))
    self.assertEqual(
        io_guard.Decide(io_guard.ParseProbe('/dev/odd', text)),
        ['lsblk does not list it, so its mounts are unknown'],
    )

  def testIncompleteProbeOutputIsRefused(self):
    text = (DATA / 'probe_loop_unmounted.txt').read_text()
    cut = text.replace('end-of-probe\n', '')
    with self.assertRaisesRegex(
        io_guard.UnsafeTargetError,
        'refusing to run fio on /dev/x: the device probe did not complete',
    ):
      io_guard.ParseProbe('/dev/x', cut)
    with self.assertRaisesRegex(io_guard.UnsafeTargetError, 'did not complete'):
      io_guard.ParseProbe('/dev/x', '')


class CheckTest(absltest.TestCase):

  def testCheckNamesTheDeviceAndEveryReason(self):
    probe = (DATA / 'probe_root_disk.txt').read_text()

    class Vm:

      def RemoteCommand(self, command, ignore_failure=False):
        assert ignore_failure and 'findmnt' in command
        return probe, ''

    with self.assertRaisesRegex(
        io_guard.UnsafeTargetError,
        r'^refusing to run fio on /dev/root-link \(/dev/vda\): it is the'
        r' boot/root device \(it holds /\); it is mounted on /(, \S+)*$',
    ):
      io_guard.Check(Vm(), '/dev/root-link')

  def testCheckRefusesARegularFile(self):
    probe = (DATA / 'probe_regular_file.txt').read_text()

    class Vm:

      def RemoteCommand(self, command, ignore_failure=False):
        del command, ignore_failure
        return probe, ''

    facts = io_guard.ParseProbe('/x', probe)
    with self.assertRaisesRegex(
        io_guard.UnsafeTargetError,
        r'^refusing to run fio on \S+: it is a regular file, not a block'
        r' device \(--cloud_report_fio_device takes a block device\)$',
    ):
      io_guard.Check(Vm(), facts.resolved)


if __name__ == '__main__':
  absltest.main()
