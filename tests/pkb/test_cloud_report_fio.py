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
"""cloud_report_fio through PKB, with mocked VMs (PKB's test style).

The VM answers the phase's commands with real fio 3.33 outputs and real
guard probe outputs from tests/data/fio (pkb_ext_dev.fio_playback).
Two levels: the benchmark module's Prepare/Run/Cleanup on a mocked PKB VM
with a real PKB StaticDisk, and stock PKB's real Main
(pkb_ext_dev.stock_pkb, in a subprocess) on a fake static VM.
"""

import pathlib
from unittest import mock

from absl.testing import flagsaver
from perfkitbenchmarker import disk
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_benchmarks
from perfkitbenchmarker import linux_virtual_machine
from perfkitbenchmarker import static_virtual_machine

from pkb_ext.suite.disk import commands as storage_commands
from pkb_ext.suite.disk import guard as io_guard
from benchmarks.cloud_report.parsers import ParseError
from pkb_ext.suite import cloud_report_fio_benchmark as benchmark
from pkb_ext.suite.disk import parser
from pkb_ext.suite.disk import stages as io
from pkb_ext_dev import fio_playback as playback
from pkb_ext_dev import pkb_tests
from pkb_ext_dev import stock_pkb

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')

DEVICE = '/dev/loop4'  # the device in the captured probe outputs
JOBS = ('wr-bw', 'wr-iops', 'wr-latency', 'rd-bw', 'rd-iops', 'rd-latency',
        'target')  # fmt: skip


def _Vm(test, answers, cloud='AWS', mount_point='/scratch'):
  vm = mock.create_autospec(linux_virtual_machine.BaseLinuxVirtualMachine)
  vm.name = 'db-0'
  vm.CLOUD = cloud
  vm.zone = 'us-east-1a'
  vm.machine_type = 'c5a.4xlarge'
  vm.NumCpusForBenchmark.return_value = 16
  vm.CheckLsCpu.return_value.data = {'Model name': 'AMD EPYC 7R32'}
  spec = disk.BaseDiskSpec(
      'test', device_path=DEVICE, mount_point=mount_point, disk_size=2500,
      disk_type='gp2',
  )  # fmt: skip
  vm.scratch_disks = [static_virtual_machine.StaticDisk(spec)]
  responses = {frag: [(out, '')] for frag, out in answers}
  cmd = test.MockRemoteCommand(responses, vm).RemoteCommand.mock_command
  vm.RobustRemoteCommand.side_effect = cmd.MockRemoteCommand
  vm.job_files = []
  vm.PushFile.side_effect = lambda path, remote: vm.job_files.append(
      (pathlib.Path(path).read_text(), remote)
  )
  return vm, cmd


def _Spec(vm):
  spec = mock.Mock()
  spec.vm_groups = {'db': [vm]}
  return spec


def _Order(commands, *fragments):
  """Positions of the fragments in the command log (first occurrence)."""
  return [commands.index(f) for f in fragments]


class BenchmarkModuleTest(pkb_common_test_case.PkbCommonTestCase):

  def testRegisteredWithPkb(self):
    self.assertIn(benchmark, linux_benchmarks.BENCHMARKS)
    config = benchmark.GetConfig({})
    db = config['vm_groups']['db']
    self.assertEqual(db['vm_count'], 1)
    self.assertEqual(db['disk_spec']['AWS']['disk_size'], 2500)

  def testPrepareInstallsPkbFioOnClouds(self):
    vm, _ = _Vm(self, playback.Answers())
    benchmark.Prepare(_Spec(vm))
    vm.Install.assert_called_once_with('fio')
    vm.InstallPackages.assert_not_called()

  @flagsaver.flagsaver(cloud_report_fio_install='os')
  def testPrepareUsesTheOsFioWhenAsked(self):
    vm, _ = _Vm(self, playback.Answers(), cloud='Static')
    vm.RemoteCommandWithReturnCode.return_value = ('fio-3.33\n', '', 0)
    benchmark.Prepare(_Spec(vm))
    vm.Install.assert_not_called()
    vm.InstallPackages.assert_not_called()
    vm.RemoteCommandWithReturnCode.return_value = ('', 'not found', 127)
    benchmark.Prepare(_Spec(vm))
    vm.InstallPackages.assert_called_once_with('fio')

  @flagsaver.flagsaver(cloud_report_fio_runtime_s=3)
  def testRunCommandsInTheReportsOrderAndSamples(self):
    vm, cmd = _Vm(self, playback.Answers())
    spec = _Spec(vm)
    benchmark.Prepare(spec)
    samples = benchmark.Run(spec)
    benchmark.Cleanup(spec)
    log = cmd.all_commands

    sections = [f'--section={j}' for j in (io.FILL_JOB,) + JOBS]
    order = _Order(
        log, 'sudo umount /scratch', 'end-of-probe', 'blockdev --getsize64',
        *sections, 'sudo mke2fs', 'sudo mount -o discard /dev/loop4 /scratch',
        'sudo rm -f cloud_report_2021.fio',
    )  # fmt: skip
    self.assertEqual(order, sorted(order))
    for job in (io.FILL_JOB,) + JOBS:
      self.assertEqual(log.count(f'--section={job} '), 1)
      self.assertIn(f'cat cloud_report_fio_{job}.json', log)
    self.assertRegex(
        log,
        r"sudo sh -c '[^']*/tmp/cloud_report_running\.fio-wr-bw\.pid[^']*'"
        r' sh timeout -k 30 \d+ /opt/pkb/fio/fio --output-format=json',
    )
    ((job_file, remote),) = vm.job_files
    self.assertEqual(remote, 'cloud_report_2021.fio')
    self.assertIn('\nruntime=3s\n', job_file)
    self.assertIn('\noffset_increment=128M\n', job_file)  # 1 GiB / 8

    self.assertEqual(
        list(dict.fromkeys(s.metadata['fio_job'] for s in samples)),
        list(JOBS),
    )
    self.assertLen(samples, 7 * 13 + 1)
    rd_iops = parser.Parse(playback.Read('job_rd-iops.json')).jobs[0]
    (iops,) = [
        s for s in samples
        if s.metric == 'fio_iops' and s.metadata['fio_job'] == 'rd-iops'
    ]  # fmt: skip
    self.assertEqual(iops.value, rd_iops.directions[0].iops)
    md = iops.metadata
    self.assertEqual((md['phase'], md['cloud'], md['region']),
                     ('io', 'AWS', 'us-east-1'))  # fmt: skip
    self.assertEqual((md['disk_type'], md['disk_size_gb']), ('gp2', 2500))
    self.assertEqual((md['bs'], md['iodepth'], md['numjobs']), ('4k', 512, 4))
    self.assertEqual(md['fio_version'], 'fio-3.33')
    self.assertEqual(md['fio_target'], DEVICE)
    self.assertEqual(md['fio_disk_bytes'], playback.DISK_BYTES)
    self.assertIs(md['fio_local_ssd'], False)

  @flagsaver.flagsaver(
      cloud_report_fio_jobs=['rd-iops'],
      cloud_report_fio_fill=False,
      cloud_report_fio_restore_fs=False,
      cloud_report_fio_local_ssd=True,
  )
  def testFlagsSelectJobsFillAndRestore(self):
    vm, cmd = _Vm(self, playback.Answers())
    samples = benchmark.Run(_Spec(vm))
    log = cmd.all_commands
    self.assertEqual(log.count('--section='), 1)
    self.assertNotIn('--section=fill-disk-ignore', log)
    self.assertNotIn('mke2fs', log)
    self.assertEqual({s.metadata['fio_job'] for s in samples}, {'rd-iops'})
    self.assertIs(samples[0].metadata['fio_local_ssd'], True)
    ((job_file, _),) = vm.job_files
    self.assertIn('\niodepth=8192\n', job_file)  # 512 x 16
    self.assertIn('\nlatency_target=10ms\n', job_file)

  def testGuardRefusalRunsNothing(self):
    for probe, why in (
        (playback.PROBE_ROOT, 'boot/root device'),
        (playback.PROBE_MOUNTED, 'it is mounted on /tmp/'),
    ):
      vm, cmd = _Vm(self, playback.Answers(probe=probe))
      with self.assertRaisesRegex(io_guard.UnsafeTargetError, why):
        benchmark.Run(_Spec(vm))
      self.assertNotIn('--section', cmd.all_commands)
      self.assertNotIn('mke2fs', cmd.all_commands)
      self.assertNotIn('mkfs', cmd.all_commands)
      vm.PushFile.assert_not_called()

  def testFailedJobStillRestoresTheFileSystem(self):
    answers = playback.Answers(
        overrides={'rd-bw': playback.Read('job_error.json')}
    )
    vm, cmd = _Vm(self, answers)
    with self.assertRaisesRegex(ParseError, 'failed with error 22'):
      benchmark.Run(_Spec(vm))
    log = cmd.all_commands
    self.assertNotIn('--section=rd-iops', log)
    order = _Order(log, '--section=rd-bw', 'sudo mke2fs', 'sudo mount -o')
    self.assertEqual(order, sorted(order))

  def testFioExitingNonZeroNamesTheJobAndItsStderr(self):
    vm, cmd = _Vm(self, playback.Answers())
    robust = vm.RobustRemoteCommand.side_effect

    def Robust(command, *args, **kwargs):
      if '--section=rd-bw' in command:
        # PKB's own RemoteCommandError text for a RobustRemoteCommand
        # (linux_virtual_machine.py, RemoteHostCommandWithReturnCode).
        raise errors.VirtualMachine.RemoteCommandError(
            'Got non-zero return code (1) executing python3'
            ' /tmp/pkb/wait_for_command.py --status=/tmp/x.status\n'
            'Full command: ssh -A -p 22 perfkit@192.0.2.1 ...\n'
            'STDOUT: STDERR: fio: pid=4711, err=5/file:io_u.c:1889,'
            ' func=io_u error, error=Input/output error\n'
        )
      return robust(command, *args, **kwargs)

    vm.RobustRemoteCommand.side_effect = Robust
    with self.assertRaises(errors.Benchmarks.RunError) as e:
      benchmark.Run(_Spec(vm))
    self.assertEqual(
        str(e.exception),
        f'fio job rd-bw on db-0:{DEVICE} failed (exit status 1): fio:'
        ' pid=4711, err=5/file:io_u.c:1889, func=io_u error,'
        ' error=Input/output error',
    )
    self.assertNotIn('--section=rd-iops', cmd.all_commands)
    self.assertIn('sudo mke2fs', cmd.all_commands)  # file system restored

  @flagsaver.flagsaver(cloud_report_fio_fill_timeout_s=45)
  def testAHungFillIsEndedOnTheVmWithinItsBound(self):
    vm, cmd = _Vm(self, playback.Answers())
    robust = vm.RobustRemoteCommand.side_effect
    bounds = []

    def Robust(command, *args, **kwargs):
      if '--section=fill-disk-ignore' in command:
        bounds.append((command, kwargs.get('timeout')))
        raise errors.VirtualMachine.RemoteCommandError(
            'Got non-zero return code (124) executing python3'
            ' /tmp/pkb/wait_for_command.py --status=/tmp/x.status\n'
            'STDOUT: STDERR: \n'
        )
      return robust(command, *args, **kwargs)

    vm.RobustRemoteCommand.side_effect = Robust
    with self.assertRaisesRegex(
        errors.Benchmarks.RunError,
        r'fio job fill-disk-ignore .* failed \(exit status 124\): no stderr;'
        r' it did not end within 45 s and was ended on the VM'
        r' \(--cloud_report_fio_fill_timeout_s\)',
    ):
      benchmark.Run(_Spec(vm))
    ((command, ssh_timeout),) = bounds
    self.assertIn(' sh timeout -k 30 45 ', command)
    self.assertEqual(ssh_timeout, 45 + 30 + 120)  # the VM's bound ends first
    self.assertIn('sudo mke2fs', cmd.all_commands)  # file system restored

  def testFioFailureWithoutStderrKeepsTheMessage(self):
    self.assertEqual(
        storage_commands.FioFailure(
            'target', 'db-0:/dev/sdb', 'ssh: connection lost'
        ),
        'fio job target on db-0:/dev/sdb failed: ssh: connection lost',
    )
    self.assertEqual(
        storage_commands.FioFailure(
            'wr-bw', 'v:/d', 'Got non-zero return code (2) x STDERR:'
        ),
        'fio job wr-bw on v:/d failed (exit status 2): no stderr',
    )
    self.assertLess(len(storage_commands.FioFailure('j', 'v:/d', 'STDERR: ' + 'e' * 5000)),
                    700)  # fmt: skip

  @flagsaver.flagsaver(cloud_report_fio_device='/dev/sdz')
  def testDeviceFlagIsNotTheScratchDisk(self):
    vm, cmd = _Vm(self, playback.Answers())
    benchmark.Run(_Spec(vm))
    log = cmd.all_commands
    self.assertIn('--filename=/dev/sdz ', log)
    self.assertNotIn('umount', log)  # not the disk PKB mounted
    self.assertIn('sudo mke2fs -F', log)
    self.assertNotIn('sudo mount', log)

  @flagsaver.flagsaver(cloud_report_fio_mount_point='/mnt/data1')
  def testMountPointFlagMountsAnUnmountedDisk(self):
    # A static VM's local disk has no mount point: PKB never mounted it.
    vm, cmd = _Vm(self, playback.Answers(), mount_point=None)
    benchmark.Run(_Spec(vm))
    log = cmd.all_commands
    order = _Order(log, '--section=target', 'sudo mke2fs',
                   'sudo mount -o discard /dev/loop4 /mnt/data1')  # fmt: skip
    self.assertEqual(order, sorted(order))
    # Later phases (tpcc's DataDiskDir) now find the disk mounted.
    self.assertEqual(vm.scratch_disks[0].mount_point, '/mnt/data1')

  def testNoMountPointOnlyFormats(self):
    vm, cmd = _Vm(self, playback.Answers(), mount_point=None)
    benchmark.Run(_Spec(vm))
    self.assertNotIn('umount', cmd.all_commands)
    self.assertIn('sudo mke2fs', cmd.all_commands)
    self.assertNotIn('sudo mount', cmd.all_commands)
    self.assertIsNone(vm.scratch_disks[0].mount_point)

  @flagsaver.flagsaver(disk_fs_type='ext4', disk_block_size=None)
  def testMkfsIsPkbsFormatDisk(self):
    for fs_type in ('ext4', 'xfs'):
      with flagsaver.flagsaver(disk_fs_type=fs_type):
        vm = mock.Mock(os_metadata={})
        linux_virtual_machine.BaseLinuxMixin.FormatDisk(vm, DEVICE)
        (pkb_command,), _ = vm.RemoteHostCommand.call_args
        self.assertTrue(
            pkb_command.endswith(
                storage_commands.MkfsCommand(DEVICE, fs_type, None)
            ),
            pkb_command,
        )
        self.assertEqual(io.Params.FromFlags().fs_type, fs_type)


class StockPkbMainTest(pkb_common_test_case.PkbCommonTestCase):
  """pkb.py --benchmarks=cloud_report_fio on a fake static VM."""

  def testSamplesThroughPkb(self):
    result = stock_pkb.RunMain(
        self.create_tempdir().full_path,
        'cloud_report_fio',
        stock_pkb.StaticVms(1, local_disks=[DEVICE]),
        answers=playback.Answers(),
        flags={
            'cloud_report_fio_runtime_s': 3,
            'cloud_report_fio_ramp_time_s': 1,
            'cloud_report_fio_install': 'os',
        },
        run_uri='fiofake1',
    )
    self.assertEqual(result.proc.returncode, 0, result.proc.stderr[-3000:])
    commands, samples = result.command_texts, result.samples

    fio_runs = [c for c in commands if '--section=' in c]
    self.assertLen(fio_runs, 8)  # through RobustRemoteCommand's wrapper
    self.assertTrue(all('execute_command' in c for c in fio_runs))
    self.assertIn('fill-disk-ignore', fio_runs[0])
    self.assertTrue(all(' fio --output-format=json' in c for c in fio_runs))
    self.assertIn(f'--filename={DEVICE}', fio_runs[1])
    mkfs = [c for c in commands if 'mke2fs' in c]
    self.assertLen(mkfs, 1)
    self.assertTrue(mkfs[0].endswith(DEVICE))
    self.assertGreater(commands.index(mkfs[0]), commands.index(fio_runs[-1]))

    mine = [s for s in samples if stock_pkb.Labels(s).get('phase') == 'io']
    self.assertLen(mine, 7 * 13 + 1)
    self.assertEqual(
        list(dict.fromkeys(stock_pkb.Labels(s)['fio_job'] for s in mine)),
        list(JOBS),
    )
    target = [s for s in mine if s['metric'] == 'fio_latency_target_depth']
    self.assertLen(target, 1)
    labels = stock_pkb.Labels(target[0])
    self.assertEqual(labels['report_version'], '2021')
    self.assertEqual(labels['fio_binary'], 'fio')  # static VM: the OS's fio
    self.assertEqual(labels['iteration'], '1')


if __name__ == '__main__':
  pkb_common_test_case.absltest.main()
