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
"""The io phase's job file, flags and commands (pure parts).

The expected sections below are transcribed from the report's job file,
github.com/cockroachlabs/cloud-report-2021 scripts/gen/fio.cfg, with the
values its fio.sh substituted for a network disk and for local SSD (-s).
"""

import configparser
import dataclasses
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized
from perfkitbenchmarker.linux_benchmarks.fio import fio_benchmark

from pkb_ext.suite.disk import commands as storage_commands
from pkb_ext.suite.disk import stages as io

DISK_2500_GB = 2500 * 2**30
GLOBAL = {
    'thread': '1', 'ioengine': 'libaio', 'direct': '1', 'fadvise_hint': '0',
    'group_reporting': '1', 'randrepeat': '0', 'verify': '0',
    'time_based': '1', 'runtime': '120s', 'ramp_time': '2s', 'size': '100%',
    # Not the report's: PKB's list, which its fio parser reads (see below).
    'percentile_list': '1:5:10:20:25:30:40:50:60:70:75:80:90:95:99:99.5:99.9'
                       ':99.95:99.99',
}  # fmt: skip


def _Report(depth_mult=1, target='1000ms', window='10000ms', pct='95'):
  bw = {'bs': '1M', 'iodepth': str(64 * depth_mult), 'numjobs': '8',
        'offset_increment': '320000M', 'stonewall': None}  # fmt: skip
  small = {'bs': '4k', 'stonewall': None}
  return {
      'fill-disk-ignore': {'rw': 'randwrite', 'bs': '128K', 'time_based': '0',
                           'iodepth': '256', 'stonewall': None},
      'wr-bw': {'rw': 'write'} | bw,
      'wr-iops': {'rw': 'randwrite', 'iodepth': str(512 * depth_mult)} | small,
      'wr-latency': {'rw': 'randwrite', 'iodepth': str(16 * depth_mult)}
                    | small,
      'rd-bw': {'rw': 'read'} | bw,
      'rd-iops': {'rw': 'randread', 'numjobs': '4',
                  'iodepth': str(512 * depth_mult)} | small,
      'rd-latency': {'rw': 'randread', 'iodepth': str(16 * depth_mult)}
                    | small,
      'target': {'rw': 'randread', 'iodepth': '8192', 'latency_target': target,
                 'latency_window': window, 'latency_percentile': pct}
                | small,
  }  # fmt: skip


def _Sections(text):
  config = configparser.RawConfigParser(allow_no_value=True)
  config.read_string(text)
  return {s: dict(config.items(s)) for s in config.sections()}


def _Render(**overrides):
  params = dataclasses.replace(io.Params(), **overrides)
  return io.RenderJobFile(io.JobFileContext(params, DISK_2500_GB))


class JobFileTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    if not flags.FLAGS.is_parsed():
      flags.FLAGS.mark_as_parsed()  # data.ResourcePath reads PKB flags

  def testNetworkDiskIsTheReportsFile(self):
    text = _Render()
    self.assertNotIn('{', text)
    self.assertIn('cloud-report-2021', text.splitlines()[1])
    sections = _Sections(text)
    self.assertEqual(list(sections), ['global'] + list(_Report()))
    self.assertEqual(sections.pop('global'), GLOBAL)
    self.assertEqual(sections, _Report())

  def testPercentileListIsPkbs(self):
    """The one line not the report's is PKB's fio_benchmark's own."""
    pkb = re.search(
        r'^percentile_list=(\S+)$', fio_benchmark.JOB_FILE_TEMPLATE, re.M
    )
    self.assertEqual(
        _Sections(_Render())['global']['percentile_list'], pkb.group(1)
    )

  def testLocalSsdMultipliesDepthsAndTightensTheTarget(self):
    sections = _Sections(_Render(local_ssd=True))
    del sections['global']
    self.assertEqual(
        sections,
        _Report(depth_mult=16, target='10ms', window='100ms', pct='99'),
    )

  def testFlagsReachTheFile(self):
    sections = _Sections(_Render(
        runtime_s=5, ramp_time_s=0, iodepth_iops=32, bw_numjobs=4,
        latency_target_ms=50, latency_percentile=99.9, size='50%'))  # fmt: skip
    self.assertEqual(sections['global']['runtime'], '5s')
    self.assertEqual(sections['global']['ramp_time'], '0s')
    self.assertEqual(sections['global']['size'], '50%')
    self.assertEqual(sections['rd-iops']['iodepth'], '32')
    self.assertEqual(sections['rd-bw']['numjobs'], '4')
    self.assertEqual(sections['rd-bw']['offset_increment'], '640000M')
    self.assertEqual(sections['target']['latency_target'], '50ms')
    self.assertEqual(sections['target']['latency_window'], '500ms')
    self.assertEqual(sections['target']['latency_percentile'], '99.9')

  def testOffsetIncrementIsAnEighthInMib(self):
    context = io.JobFileContext(io.Params(), 1 << 30)
    self.assertEqual(context['offset_increment'], '128M')
    # fio.sh: int(bytes / 2^23) M, rounding down.
    context = io.JobFileContext(io.Params(), (1 << 30) + (1 << 23) - 1)
    self.assertEqual(context['offset_increment'], '128M')

  def testFioAcceptsTheRenderedFile(self):
    if not shutil.which('fio'):
      self.skipTest('fio is not installed')
    for local_ssd in (False, True):
      with tempfile.NamedTemporaryFile('w', suffix='.fio') as f:
        f.write(_Render(local_ssd=local_ssd))
        f.flush()
        proc = subprocess.run(
            ['fio', '--parse-only', f.name],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
      self.assertEqual(proc.returncode, 0, proc.stderr)

  def testTheJobFilesRuntimeEndsTheFill(self):
    # fio ends a job at its size or at runtime, whichever comes first, even
    # with time_based=0: the report's file gives the fill the global
    # runtime, so the fill never writes more than runtime + ramp allows.
    if not shutil.which('fio'):
      self.skipTest('fio is not installed')
    with tempfile.TemporaryDirectory() as work:
      target = os.path.join(work, 'disk')
      with open(target, 'wb') as f:
        f.truncate(8 << 30)  # sparse: far more than 2 s of 512 B writes
      job = os.path.join(work, 'job.fio')
      params = io.Params(
          runtime_s=2, ramp_time_s=1, fill_block_size='512', fill_iodepth=1
      )
      with open(job, 'w') as f:
        f.write(io.RenderJobFile(io.JobFileContext(params, 8 << 30)))
      started = time.monotonic()
      proc = subprocess.run(
          ['fio', '--output-format=json', f'--filename={target}',
           '--ioengine=psync', '--direct=0', f'--section={io.FILL_JOB}', job],
          capture_output=True, text=True, timeout=120, check=False,
      )  # fmt: skip
      took = time.monotonic() - started
    self.assertEqual(proc.returncode, 0, proc.stderr)
    (fill,) = json.loads(proc.stdout)['jobs']
    self.assertEqual(fill['jobname'], io.FILL_JOB)
    self.assertLess(fill['write']['io_bytes'], 8 << 30)
    self.assertLess(took, 30)
    self.assertLessEqual(fill['write']['runtime'], 2000 + 500)  # ms


class CommandTest(absltest.TestCase):

  def testFioCommand(self):
    command = storage_commands.FioCommand(
        'fio', '/dev/nvme1n1', 'cloud_report_2021.fio', 'wr-bw', 722
    )
    self.assertStartsWith(
        command, "sudo rm -f cloud_report_fio_wr-bw.json && sudo sh -c '"
    )
    # fio, bounded on the VM, tracked under its job's tag while it runs.
    self.assertIn('/tmp/cloud_report_running.fio-wr-bw.pid', command)
    self.assertEndsWith(
        command,
        "' sh timeout -k 30 722 fio"
        ' --output-format=json --output=cloud_report_fio_wr-bw.json'
        ' --filename=/dev/nvme1n1 --section=wr-bw cloud_report_2021.fio'
        ' && cat cloud_report_fio_wr-bw.json',
    )
    self.assertIn(
        "--filename='/tmp/a b'",
        storage_commands.FioCommand('fio', '/tmp/a b', 'x.fio', 'target', 60),
    )

  def testFillTimeoutIsTheBoundOfTheExpectedFill(self):
    gp2 = 2500 * 1024**3  # the report's 2,500 GiB volume, in bytes
    # At 250 MB/s the whole disk would take about 3 hours, but the job
    # file's ramp + runtime (122 s) ends the fill first.
    self.assertEqual(io.FillSeconds(io.Params(), gp2), 122)
    bound = io.FillTimeout(io.Params(), gp2)
    self.assertEqual(bound, 122 + 600)  # the least margin
    longer = io.Params(runtime_s=4 * 3600)  # now the disk ends it first
    expected = gp2 / 1e9 * 1e3 / 250
    self.assertAlmostEqual(io.FillSeconds(longer, gp2), expected)
    self.assertGreater(io.FillTimeout(longer, gp2), expected)
    self.assertLessEqual(io.FillTimeout(longer, gp2), expected + 3600 + 1)
    self.assertEqual(io.FillTimeout(io.Params(fill_timeout_s=90), gp2), 90)
    small = io.FillTimeout(io.Params(), 64 * 1024**2)  # a test's loop disk
    self.assertEqual(small, 600 + 1)  # the least margin

  def testMkfsAndMountMirrorPkb(self):
    self.assertEqual(
        storage_commands.MkfsCommand('/dev/sdb', 'ext4', None),
        'sudo mke2fs -F -E lazy_itable_init=0,discard -O ^has_journal'
        ' -t ext4 -b 4096 /dev/sdb',
    )
    self.assertEqual(
        storage_commands.MkfsCommand('/dev/sdb', 'xfs', None),
        'sudo mkfs.xfs -f -i size=512 /dev/sdb',
    )
    self.assertEqual(
        storage_commands.MountCommand('/dev/sdb', '/scratch', 'discard'),
        'sudo mkdir -p /scratch && sudo mount -o discard /dev/sdb /scratch'
        ' && sudo chown "$(id -un):$(id -gn)" /scratch',
    )

  def testUnmountOnlyOurDevice(self):
    cmd = storage_commands.UnmountCommand('/dev/sdb', '/scratch')
    self.assertIn('mountpoint -q /scratch', cmd)
    self.assertIn(
        '= "$(readlink -f /dev/sdb)" ]; then sudo umount /scratch', cmd
    )

  def testFioPathDependsOnTheFlagOnly(self):
    static = type('Vm', (), {'CLOUD': 'Static'})()
    aws = type('Vm', (), {'CLOUD': 'AWS'})()
    default = io.Params()
    for vm in (static, aws):
      self.assertEqual(io.FioPath(default, vm), io.PKB_FIO)
      self.assertEqual(
          io.FioPath(dataclasses.replace(default, install='os'), vm), 'fio'
      )
    from perfkitbenchmarker.linux_packages import fio as pkb_fio  # pylint: disable=g-import-not-at-top

    self.assertEqual(io.PKB_FIO, pkb_fio.FIO_PATH)


class FlagsTest(parameterized.TestCase):

  def testDefaultsAreTheReports(self):
    with flagsaver.flagsaver():
      flags.FLAGS.mark_as_parsed()
      self.assertEqual(io.Params.FromFlags(), io.Params())

  @flagsaver.flagsaver(
      cloud_report_fio_runtime_s=3,
      cloud_report_fio_local_ssd=True,
      cloud_report_fio_jobs=['rd-iops', 'wr-bw'],
      cloud_report_fio_device='/dev/sdc',
  )
  def testFromFlags(self):
    params = io.Params.FromFlags()
    self.assertEqual(params.runtime_s, 3)
    self.assertTrue(params.local_ssd)
    self.assertEqual(params.jobs, ('rd-iops', 'wr-bw'))
    self.assertEqual(params.device, '/dev/sdc')

  @parameterized.parameters(
      ('cloud_report_fio_jobs', ['rd-iops', 'fill-disk-ignore']),
      ('cloud_report_fio_jobs', []),
      ('cloud_report_fio_runtime_s', 0),
      ('cloud_report_fio_iodepth_iops', 0),
      ('cloud_report_fio_latency_percentile', 101.0),
      ('cloud_report_fio_block_size', '4 k'),
      ('cloud_report_fio_size', '200%%'),
  )
  def testBadFlagNamesItself(self, name, value):
    with self.assertRaisesRegex(Exception, name):
      with flagsaver.flagsaver(**{name: value}):
        pass


if __name__ == '__main__':
  absltest.main()
