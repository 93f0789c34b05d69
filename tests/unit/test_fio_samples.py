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
"""Tests for the io phase's samples, from real fio outputs."""

import collections
import json
import pathlib

from absl.testing import absltest

from pkb_ext.suite.disk import parser as fio
from pkb_ext.suite.disk import samples as io_samples
from pkb_ext.suite import phase_modules

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'fio'
REPORTED = ('wr-bw', 'wr-iops', 'wr-latency', 'rd-bw', 'rd-iops',
            'rd-latency', 'target')  # fmt: skip
PER_DIRECTION = {
    'fio_iops', 'fio_bandwidth', 'fio_bandwidth_kib', 'fio_clat_mean',
    'fio_clat_min', 'fio_clat_max', 'fio_clat_stddev', 'fio_clat_percentile',
}  # fmt: skip


def _Raw(name):
  return json.loads((DATA / name).read_text())


class FromResultTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.result = fio.Parse((DATA / 'all_jobs.json').read_text())
    self.samples = io_samples.FromResult(self.result, {'fio_target': '/dev/x'})

  def testEveryReportedJobAndNoFill(self):
    jobs = [s.metadata['fio_job'] for s in self.samples]
    self.assertEqual(list(dict.fromkeys(jobs)), list(REPORTED))
    self.assertNotIn('fill-disk-ignore', jobs)
    self.assertIn('fill-disk-ignore', [j.name for j in self.result.jobs])

  def testDirections(self):
    directions = collections.defaultdict(set)
    for s in self.samples:
      if 'direction' in s.metadata:
        directions[s.metadata['fio_job']].add(s.metadata['direction'])
    for job in REPORTED:
      want = 'write' if job.startswith('wr-') else 'read'
      self.assertEqual(directions[job], {want}, job)

  def testMetricsUnitsAndPercentiles(self):
    by_job = collections.defaultdict(list)
    for s in self.samples:
      self.assertEqual(s.unit, io_samples.METRICS[s.metric])
      by_job[s.metadata['fio_job']].append(s)
    for job, got in by_job.items():
      metrics = {s.metric for s in got}
      want = PER_DIRECTION | (
          {'fio_latency_target_depth'} if job == 'target' else set()
      )
      self.assertEqual(metrics, want, job)
      pcts = [
          s.metadata['percentile']
          for s in got
          if s.metric == 'fio_clat_percentile'
      ]
      self.assertEqual(pcts, [50.0, 90.0, 95.0, 99.0, 99.9, 99.99])
      self.assertLen(got, 13 + (job == 'target'))

  def testValuesAndMetadataFromTheJson(self):
    raw = {j['jobname']: j for j in _Raw('all_jobs.json')['jobs']}
    for s in self.samples:
      md = s.metadata
      job = raw[md['fio_job']]
      self.assertEqual(md['fio_version'], 'fio-3.33')
      self.assertEqual(md['rw'], job['job options']['rw'])
      self.assertEqual(md['bs'], job['job options']['bs'])
      self.assertEqual(md['iodepth'], int(job['job options']['iodepth']))
      self.assertEqual(md['numjobs'], int(job['job options'].get('numjobs', 1)))
      self.assertEqual(md['fio_target'], '/dev/x')
      if 'direction' not in md:
        continue
      stats = job[md['direction']]
      if s.metric == 'fio_iops':
        self.assertAlmostEqual(s.value, stats['iops'])
      elif s.metric == 'fio_bandwidth':
        self.assertAlmostEqual(s.value, stats['bw'] * 1024 / 1e6)
      elif s.metric == 'fio_bandwidth_kib':
        self.assertEqual(s.value, stats['bw'])
      elif s.metric == 'fio_clat_mean':
        self.assertAlmostEqual(s.value, stats['clat_ns']['mean'] / 1000)
      elif s.metric == 'fio_clat_percentile':
        key = '%.6f' % md['percentile']
        self.assertAlmostEqual(
            s.value, stats['clat_ns']['percentile'][key] / 1000
        )
    numjobs = {
        s.metadata['fio_job']: s.metadata['numjobs'] for s in self.samples
    }
    self.assertEqual(numjobs['wr-bw'], 8)
    self.assertEqual(numjobs['rd-iops'], 4)
    self.assertEqual(numjobs['wr-iops'], 1)

  def testLatencyTargetSample(self):
    (depth,) = [
        s for s in self.samples if s.metric == 'fio_latency_target_depth'
    ]
    raw = {j['jobname']: j for j in _Raw('all_jobs.json')['jobs']}
    self.assertEqual(depth.value, raw['target']['latency_depth'])
    self.assertEqual(depth.metadata['latency_target_us'], 1_000_000)
    self.assertEqual(depth.metadata['latency_percentile'], 95.0)
    self.assertEqual(depth.metadata['latency_window_us'], 10_000_000)
    self.assertEqual(depth.metadata['iodepth'], 8192)

  def testFillAloneGivesNoSamples(self):
    text = (DATA / 'job_fill-disk-ignore.json').read_text()
    self.assertEqual(io_samples.FromResult(fio.Parse(text)), [])
    self.assertFalse(io_samples.IsReported('fill-disk-ignore'))
    self.assertTrue(io_samples.IsReported('rd-iops'))

  def testParseTextStampsThePhase(self):
    out = phase_modules.ParseText(
        'fio', (DATA / 'job_rd-iops.json').read_text()
    )
    self.assertLen(out, 13)
    self.assertTrue(all(s.metadata['phase'] == 'io' for s in out))

  def testCatalogHasNoClash(self):
    catalog = phase_modules.Catalog()
    for metric, unit in io_samples.METRICS.items():
      self.assertEqual(catalog[metric], unit)
    for metric in io_samples.METRICS:
      for dim in ('read', 'write', 'rd-', 'wr-', '4k', '1m'):
        self.assertNotIn(dim, metric)


if __name__ == '__main__':
  absltest.main()
