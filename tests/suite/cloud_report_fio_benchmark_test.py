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
"""Tests for cloud_report_fio_benchmark on a mocked VM.

The VM answers with real fio 3.33 JSON outputs and real outputs of the
device probe run before fio touches the disk (a 1 GiB loop device).
"""

import os
import pathlib
import unittest
from unittest import mock

from absl.testing import flagsaver
from pkb_ext.suite.disk import guard as storage_guard
from perfkitbenchmarker import disk
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_benchmarks
from perfkitbenchmarker import linux_virtual_machine
from perfkitbenchmarker import static_virtual_machine
from pkb_ext.suite import cloud_report_fio_benchmark
from pkb_ext.suite.disk import parser
from pkb_ext.suite.disk import stages as storage
from tests import pkb_common_test_case

_DATA_DIR = os.path.join(os.path.dirname(__file__), os.pardir, 'data', 'fio')


def _Read(name):
  with open(os.path.join(_DATA_DIR, name), encoding='utf-8') as f:
    return f.read()


DEVICE = '/dev/loop4'  # the device of the captured probes
DISK_BYTES = 1 << 30
RD_IOPS = _Read('job_rd-iops.json')
TARGET = _Read('job_target.json')
FIO_ERROR = (
    'Got non-zero return code (1) executing python3'
    ' /tmp/pkb/wait_for_command.py --status=/tmp/x.status\n'
    'STDOUT: STDERR: fio: pid=4711, err=5/file:io_u.c:1889, func=io_u error,'
    ' error=Input/output error\n'
)


def _Answers(probe='probe_loop_unmounted.txt'):
  return {
      'end-of-probe': [(_Read(probe), '')],
      'blockdev --getsize64': [(f'{DISK_BYTES}\n', '')],
      'cat cloud_report_fio_rd-iops.json': [(RD_IOPS, '')],
      'cat cloud_report_fio_target.json': [(TARGET, '')],
  }


class CloudReportFioBenchmarkTest(pkb_common_test_case.PkbCommonTestCase):
  """Prepare, Run and Cleanup of the io phase on one mocked db VM."""

  def setUp(self):
    super().setUp()
    self.enter_context(
        flagsaver.flagsaver(
            cloud_report_fio_jobs=['rd-iops', 'target'],
            cloud_report_fio_fill=False,
            cloud_report_fio_runtime_s=3,
        )
    )

  def _Spec(self, answers):
    """Returns a spec whose db VM has a 2,500 GB data disk at DEVICE."""
    vm = mock.create_autospec(linux_virtual_machine.BaseLinuxVirtualMachine)
    vm.name = 'db-0'
    vm.CLOUD = 'AWS'
    vm.zone = 'us-east-1a'
    vm.machine_type = 'c5a.4xlarge'
    vm.NumCpusForBenchmark.return_value = 16
    vm.CheckLsCpu.return_value.data = {'Model name': 'AMD EPYC 7R32'}
    disk_spec = disk.BaseDiskSpec(
        'test', device_path=DEVICE, mount_point='/scratch', disk_size=2500,
        disk_type='gp2',
    )  # fmt: skip
    vm.scratch_disks = [static_virtual_machine.StaticDisk(disk_spec)]
    self.cmd = self.MockRemoteCommand(answers, vm).RemoteCommand.mock_command
    vm.RobustRemoteCommand.side_effect = self.cmd.MockRemoteCommand
    self.job_files = []
    vm.PushFile.side_effect = lambda path, remote: self.job_files.append(
        (pathlib.Path(path).read_text(), remote)
    )
    self.vm = vm
    spec = mock.Mock()
    spec.vm_groups = {'db': [vm]}
    return spec

  def _Positions(self, *fragments):
    log = self.cmd.all_commands
    return [log.index(f) for f in fragments]

  def testRegisteredWithOneDbVmAndItsDataDisk(self):
    self.assertIn(cloud_report_fio_benchmark, linux_benchmarks.BENCHMARKS)
    db = cloud_report_fio_benchmark.GetConfig({})['vm_groups']['db']
    self.assertEqual(db['vm_count'], 1)
    self.assertEqual(db['disk_spec']['AWS']['disk_size'], 2500)

  def testPrepareInstallsPkbsFio(self):
    cloud_report_fio_benchmark.Prepare(self._Spec(_Answers()))
    self.vm.Install.assert_called_once_with('fio')
    self.vm.InstallPackages.assert_not_called()

  def testRunProbesRunsTheJobsOnTheRawDeviceAndRestoresIt(self):
    """Unmount, probe, jobs, then mkfs and mount again."""
    samples = cloud_report_fio_benchmark.Run(self._Spec(_Answers()))
    order = self._Positions(
        'sudo umount /scratch', 'end-of-probe', 'blockdev --getsize64',
        '--section=rd-iops', '--section=target', 'sudo mke2fs',
        'sudo mount -o discard /dev/loop4 /scratch',
    )  # fmt: skip
    self.assertEqual(order, sorted(order))
    self.assertNotIn('--section=fill-disk-ignore', self.cmd.all_commands)
    self.assertIn(f'--filename={DEVICE}', self.cmd.all_commands)
    self.assertLen(self.job_files, 1)
    job_file, remote = self.job_files[0]
    self.assertEqual(remote, storage.REMOTE_JOB_FILE)
    self.assertIn('\nruntime=3s\n', job_file)
    self.assertIn('\nioengine=libaio\n', job_file)

    self.assertEqual(
        list(dict.fromkeys(s.metadata['fio_job'] for s in samples)),
        ['rd-iops', 'target'],
    )
    (iops,) = [
        s for s in samples
        if s.metric == 'fio_iops' and s.metadata['fio_job'] == 'rd-iops'
    ]  # fmt: skip
    self.assertEqual(
        iops.value, parser.Parse(RD_IOPS).jobs[0].directions[0].iops
    )
    md = iops.metadata
    self.assertEqual((md['phase'], md['cloud'], md['region']),
                     ('io', 'AWS', 'us-east-1'))  # fmt: skip
    self.assertEqual((md['disk_type'], md['disk_size_gb']), ('gp2', 2500))
    self.assertEqual((md['bs'], md['iodepth'], md['numjobs']), ('4k', 512, 4))
    self.assertEqual((md['fio_target'], md['fio_disk_bytes']),
                     (DEVICE, DISK_BYTES))  # fmt: skip

  def testAMountedTargetIsRefusedBeforeFioRuns(self):
    spec = self._Spec(_Answers(probe='probe_loop_mounted.txt'))
    with self.assertRaisesRegex(
        storage_guard.UnsafeTargetError, 'it is mounted on /tmp/'
    ):
      cloud_report_fio_benchmark.Run(spec)
    self.assertNotIn('--section', self.cmd.all_commands)
    self.assertNotIn('mke2fs', self.cmd.all_commands)
    self.vm.PushFile.assert_not_called()

  def testFioFailureNamesTheJobAndStillRestoresTheDisk(self):
    """A failing fio job ends the run; the disk is formatted again."""
    spec = self._Spec(_Answers())
    playback = self.vm.RobustRemoteCommand.side_effect

    def Robust(command, *args, **kwargs):
      if '--section=rd-iops' in command:
        raise errors.VirtualMachine.RemoteCommandError(FIO_ERROR)
      return playback(command, *args, **kwargs)

    self.vm.RobustRemoteCommand.side_effect = Robust
    with self.assertRaises(errors.Benchmarks.RunError) as e:
      cloud_report_fio_benchmark.Run(spec)
    self.assertEqual(
        str(e.exception),
        f'fio job rd-iops on db-0:{DEVICE} failed (exit status 1): fio:'
        ' pid=4711, err=5/file:io_u.c:1889, func=io_u error,'
        ' error=Input/output error',
    )
    ran = [c.args[0] for c in self.vm.RobustRemoteCommand.call_args_list]
    self.assertTrue(any('--section=rd-iops' in c for c in ran))
    self.assertNotIn('--section=target', self.cmd.all_commands)
    order = self._Positions('sudo mke2fs', 'sudo mount -o discard')
    self.assertEqual(order, sorted(order))

  def testCleanupRemovesTheJobFileAndOutputs(self):
    cloud_report_fio_benchmark.Cleanup(self._Spec(_Answers()))
    (command,) = self.cmd.all_commands.splitlines()
    self.assertStartsWith(command, f'sudo rm -f {storage.REMOTE_JOB_FILE} ')
    self.assertIn('cloud_report_fio_rd-iops.json', command)
    self.assertIn('cloud_report_fio_fill-disk-ignore.json', command)


if __name__ == '__main__':
  unittest.main()
