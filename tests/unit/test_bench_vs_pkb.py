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
"""Tests for the vs_pkb bench part's pure pieces (the local tier runs it)."""

import gzip
import os
import shutil
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker.linux_benchmarks import coremark_benchmark
from perfkitbenchmarker.linux_packages import netperf as pkb_netperf

from pkb_ext import coremark as offline
from pkb_ext.suite.disk import stages as storage
from pkb_ext_dev import bench_overhead
from pkb_ext_dev import bench_vs_pkb as vp
from pkb_ext_dev import local_vm


def _Row(metric, value, **labels):
  """A line of PKB's JSON publisher output."""
  return {
      'metric': metric,
      'value': value,
      'unit': '',
      'labels': ','.join(f'|{k}:{v}|' for k, v in labels.items()),
  }


class FlagsTest(parameterized.TestCase):

  def testPkbNetperfNeverRunsItsCleanup(self):
    flags = vp.PkbFlags('netperf', vp.Settings(seconds=7), None)
    (stages,) = [f for f in flags if f.startswith('--run_stage=')]
    self.assertNotIn('cleanup', stages)
    self.assertIn('run', stages.split('=')[1].split(','))
    self.assertIn('--netperf_test_length=7', flags)
    self.assertIn('--netperf_warmup_test_length=0', flags)
    # The stock netperf on the hosts prints no histogram PKB can parse.
    self.assertIn('--netperf_enable_histograms=false', flags)

  def testSameSettingsOnBothSides(self):
    s = vp.Settings(seconds=9, fio_ramp_s=2)
    ours = vp.OurFlags('netperf', s, 1000)
    self.assertIn('--cloud_report_netperf_duration_s=9', ours)
    self.assertIn('--cloud_report_netperf_confidence=off', ours)
    ours = vp.OurFlags('fio', s, 1000)
    self.assertIn('--cloud_report_fio_runtime_s=9', ours)
    self.assertIn('--cloud_report_fio_ramp_time_s=2', ours)
    self.assertIn('--cloud_report_fio_jobs=rd-iops', ours)
    self.assertIn('--cloud_report_fio_install=pkb', ours)  # PKB's fio path
    ours = vp.OurFlags('coremark', s, 12345)
    self.assertIn('--cloud_report_coremark_iterations=12345', ours)
    self.assertIn('--coremark_parallelism_method=PTHREAD', ours)
    self.assertIn('--cloud_report_coremark_install=data', ours)
    pkb = vp.PkbFlags('coremark', s, None)
    self.assertIn('--coremark_parallelism_method=PTHREAD', pkb)
    self.assertIn('--coremark_thread_counts=0', pkb)  # all vCPUs, as ours

  def testPkbFioNeedsTheJobFile(self):
    with self.assertRaisesRegex(ValueError, 'job file'):
      vp.PkbFlags('fio', vp.Settings(), None)
    flags = vp.PkbFlags('fio', vp.Settings(), '/w/rd-iops.fio')
    self.assertIn('--fio_jobfile=/w/rd-iops.fio', flags)
    self.assertIn('--fio_target_mode=against_device_without_fill', flags)
    # The report's job file has no percentile_list for PKB's parser.
    self.assertIn('--fio_include_latency_percentiles=false', flags)

  @parameterized.parameters(vp.PkbFlags, vp.OurFlags)
  def testUnknownTool(self, function):
    with self.assertRaisesRegex(ValueError, 'iperf'):
      function('iperf', vp.Settings(), None)


class JobFileTest(absltest.TestCase):

  def testKeepsGlobalAndRdIopsOfTheRenderedReportJobFile(self):
    params = storage.Params(runtime_s=6, ramp_time_s=1)
    text = storage.RenderJobFile(storage.JobFileContext(params, 512 << 20))
    got = vp.RdIopsJobFile(text)
    sections = [l for l in got.splitlines() if l.startswith('[')]
    self.assertEqual(sections, ['[global]', '[rd-iops]'])
    self.assertIn('runtime=6s', got)
    self.assertIn('ramp_time=1s', got)
    self.assertIn('rw=randread', got)
    self.assertIn(f'iodepth={params.iodepth_iops}', got)
    self.assertIn(f'numjobs={params.rd_iops_numjobs}', got)
    self.assertNotIn('randwrite', got)  # no other job's lines

  def testMissingSection(self):
    with self.assertRaisesRegex(ValueError, r'\[rd-iops\]'):
      vp.RdIopsJobFile('[global]\nthread=1\n[wr-iops]\nrw=randwrite\n')


class FigureTest(parameterized.TestCase):

  def testPkbAndOurSamples(self):
    samples = [
        _Row('start_time', 1.7e9),
        _Row('Coremark Score', 61234.5, thread_count=2),
        _Row('coremark_score', 60000.0, mode='single'),
        _Row('coremark_score', 61000.0, mode='all'),
        _Row('coremark_score_mean', 61000.0, mode='all'),
        _Row('fio_iops', 900.0, fio_job='rd-iops', direction='write'),
        _Row('fio_iops', 30000.0, fio_job='rd-iops', direction='read'),
        _Row('rd-iops:read:iops', 31000.0, fio_job='rd-iops'),
        _Row('TCP_RR_Transaction_Rate', 20000.0),
        _Row('netperf_transaction_rate', 19000.0, netperf_test='TCP_RR'),
    ]
    self.assertEqual(vp.Figure(samples, vp.PKB, 'coremark'), 61234.5)
    self.assertEqual(vp.Figure(samples, vp.OURS, 'coremark'), 61000.0)
    self.assertEqual(vp.Figure(samples, vp.OURS, 'fio'), 30000.0)
    self.assertEqual(vp.Figure(samples, vp.PKB, 'fio'), 31000.0)
    self.assertEqual(vp.Figure(samples, vp.PKB, 'netperf'), 20000.0)
    self.assertEqual(vp.Figure(samples, vp.OURS, 'netperf'), 19000.0)

  @parameterized.parameters(
      ([], '0'),
      ([_Row('Coremark Score', 1.0), _Row('Coremark Score', 2.0)], '2'),
      ([_Row('Coremark Score', 0.0)], '= 0.0'),
      ([_Row('Coremark Score', float('nan'))], '= nan'),
  )
  def testNotExactlyOnePositiveValue(self, samples, message):
    with self.assertRaisesRegex(ValueError, message):
      vp.Figure(samples, vp.PKB, 'coremark')


def _Run(tool, start, end, cmd='x'):
  return bench_overhead.ToolRun('db1', tool, bench_overhead.MEASURED, start,
                                end, cmd)  # fmt: skip


class HarnessTest(absltest.TestCase):

  def testWallMinusTheUnionOfTheToolsRuns(self):
    runs = [
        _Run('coremark', 100.0, 110.0, './coremark.exe 0x0 0x0 0x66'),
        _Run('coremark', 109.0, 121.0, './coremark.exe 0x3415 0x3415'),
        _Run('fio', 130.0, 140.0),  # another tool: not this run's tool time
    ]
    got = vp.HarnessSeconds(30.0, runs, 'coremark')
    self.assertEqual(got['tool_s'], 21.0)
    self.assertEqual(got['harness_s'], 9.0)
    self.assertEqual(got['tool_runs'], 2)
    self.assertEqual(got['tool_commands'], ['./coremark.exe'])

  def testNoToolRunIsAnError(self):
    with self.assertRaisesRegex(ValueError, r"no netperf process.*\['fio'\]"):
      vp.HarnessSeconds(10.0, [_Run('fio', 1.0, 2.0)], 'netperf')

  def testHarnessFigureSumsTheToolsPerPair(self):
    got = vp.HarnessSummary({
        'coremark': {vp.OURS: [10.0, 12.0], vp.PKB: [20.0, 10.0]},
        'fio': {vp.OURS: [5.0, 6.0], vp.PKB: [10.0, 14.0]},
    })
    self.assertEqual(got['ours_harness_s'], [15.0, 18.0])
    self.assertEqual(got['pkb_harness_s'], [30.0, 24.0])
    self.assertEqual(got['pair_ratios'], [0.5, 0.75])
    self.assertAlmostEqual(got['ratio'], 0.625)
    self.assertEqual(got['per_tool_median_s']['fio'], {'ours': 5.5,
                                                       'pkb': 12.0})  # fmt: skip

  def testSummaryJudgesTheIntervalAgainstTheRange(self):
    raw = (100.0,) * 6
    # The trimmed mean, 1.015, lies in 0.97..1.03, but its interval lies
    # across the top: neither a pass nor a miss.
    ours = (99.0, 104.0, 101.0, 100.0, 103.0, 102.0)
    got = vp.Summarize('fio', ours, raw)
    self.assertAlmostEqual(got['ratio'], 1.015)
    self.assertEqual(got['verdict'], 'INCONCLUSIVE')
    self.assertEqual(got['target'], [0.97, 1.03])
    self.assertEqual(got['ours'], list(ours))
    lo, hi = got['pair_ratio_ci95']
    self.assertLess(lo, 1.03)
    self.assertGreater(hi, 1.03)
    tight = vp.Summarize('fio', (100.0, 100.4, 99.8, 100.1, 99.9, 100.2), raw)
    self.assertEqual(tight['verdict'], 'PASS')
    far = vp.Summarize('fio', (110.0, 111.0, 109.0, 110.5, 109.5, 110.2), raw)
    self.assertEqual(far['verdict'], 'MISS')
    # One pair, or five, have no interval.
    for n in (1, 5):
      self.assertEqual(
          vp.Summarize('fio', far['ours'][:n], raw[:n])['verdict'],
          'INCONCLUSIVE',
      )

  def testHarnessFigureLeavesFlaggedPairsOut(self):
    per_tool = {
        'coremark': {vp.OURS: [10.0, 10.1, 30.0, 9.9, 10.05, 9.95, 10.02],
                     vp.PKB: [10.0] * 7},
    }  # fmt: skip
    got = vp.HarnessSummary(per_tool, {'coremark': [3]})
    self.assertEqual(got['flagged_pairs'], [3])
    self.assertEqual(got['pairs_used'], 6)
    # 0.99 and 1.01 trimmed; 0.995, 1.0, 1.002 and 1.005 kept.
    self.assertAlmostEqual(got['ratio'], 1.0005)
    self.assertEqual(got['pair_ratios'],
                     [1.0, 1.01, 3.0, 0.99, 1.005, 0.995, 1.002])  # fmt: skip
    lo, hi = got['pair_ratio_ci95']  # across the <= 1.0 target
    self.assertLess(lo, 1.0)
    self.assertGreater(hi, 1.0)
    self.assertEqual(got['verdict'], 'INCONCLUSIVE')
    all_pairs = vp.HarnessSummary(per_tool)
    self.assertEqual(all_pairs['pairs_used'], 7)
    self.assertAlmostEqual(all_pairs['ratio'], 1.0024)  # 3.0 trimmed


class NetserverTest(absltest.TestCase):

  def testOnlyPkbsNetserversOnPkbsPorts(self):
    path = pkb_netperf.NETSERVER_PATH
    ps = '\n'.join([
        '    1 sshd: /usr/sbin/sshd -D',
        f'  417 {path} -p 20000',
        f'  418 {path} -p 20002',  # not a port PKB's Prepare used
        '  419 /usr/bin/netserver -p 20000 -D',  # a netserver of someone else
        f'  420 {path} -p 20000 -D',  # ours (phase: -D), not PKB's
        f'  421 /bin/sh -c {path} -p 20000 &',
    ])
    self.assertEqual(vp.PkbNetservers(ps, path, [20000]), [417])


class StageCoreMarkTest(absltest.TestCase):
  """PKB's side's tree, staged by the offline install's StageTree for real.

  On this machine (pkb_ext_dev.local_vm.LocalVm), into a private tree.
  """

  def setUp(self):
    super().setUp()
    missing = [t for t in ('sha256sum', 'gzip', 'tar') if not shutil.which(t)]
    if missing:
      self.skipTest(f'needs {", ".join(missing)} on this machine')
    if not data.ResourceExists(offline.TARBALL):
      self.skipTest(f'{offline.TARBALL} not in the data search path')
    self.dir = self.create_tempdir().full_path
    self.tree = os.path.join(self.dir, 'coremark-1.01')
    self.enter_context(
        mock.patch.object(coremark_benchmark, 'COREMARK_DIR', self.tree)
    )
    self.vm = local_vm.LocalVm(work_dir=self.dir)

  def testAFreshVerifiedTree(self):
    os.makedirs(self.tree)
    with open(os.path.join(self.tree, 'left.c'), 'w') as f:
      f.write('from an earlier run')
    record = vp.StageCoreMark(self.vm)
    self.assertEqual(record['path'], self.tree)
    self.assertEqual(record['tarball_sha256'], offline.TARBALL_SHA256)
    self.assertEqual(record['expected_sha256'], offline.TARBALL_SHA256)
    self.assertEqual(record['commit'], offline.COMMIT)
    self.assertEqual(record['tree_sha256'], offline.TREE_SHA256)
    self.assertTrue(os.path.isfile(os.path.join(self.tree, 'core_main.c')))
    self.assertFalse(os.path.exists(os.path.join(self.tree, 'left.c')))
    self.assertEqual(sorted(os.listdir(self.dir)), ['coremark-1.01'])

  def testAnotherTarballOfTheSameTreeIsRefused(self):
    # The same tar, compressed again: another sha256, the same file tree.
    with open(data.ResourcePath(offline.TARBALL), 'rb') as f:
      tar = gzip.decompress(f.read())
    other = os.path.join(self.dir, 'other.tar.gz')
    with open(other, 'wb') as f:
      f.write(gzip.compress(tar, compresslevel=1))
    with mock.patch.object(data, 'ResourcePath', return_value=other):
      with self.assertRaisesRegex(
          errors.Setup.BadPreprovisionedDataError, 'sha256 is [0-9a-f]{64},'
      ):
        vp.StageCoreMark(self.vm)
    self.assertFalse(os.path.exists(self.tree))  # nothing extracted


if __name__ == '__main__':
  absltest.main()
