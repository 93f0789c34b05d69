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
"""Tests of pkb_ext.suite.object_storage.samples on a real MinIO worker output."""

import collections
import pathlib

from absl.testing import absltest

from pkb_ext.suite.object_storage import parser as ttfb
from pkb_ext.suite.object_storage import samples as object_storage
from pkb_ext.suite import phase_modules

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'ttfb'


def _Samples(name):
  return object_storage.FromResult(ttfb.Parse((DATA / name).read_text()))


class FromResultTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.samples = _Samples('s3_boto3_complete.jsonl')

  def _Find(self, metric, **meta):
    return [
        s
        for s in self.samples
        if s.metric == metric
        and all(s.metadata.get(k) == v for k, v in meta.items())
    ]

  def testUnitsComeFromTheCatalog(self):
    for s in self.samples:
      self.assertEqual(s.unit, object_storage.METRICS[s.metric])
    self.assertEqual(
        set(object_storage.METRICS) - set(phase_modules.Catalog()), set()
    )

  def testMetricNamesCarryNoDimension(self):
    for name in object_storage.METRICS:
      for dim in ('get', 'put', 'p50', 'p99', 'new', 'reused', 'kib', 'mib'):
        self.assertNotIn(dim, name.split('_'))

  def testTtfbPercentilesForGetAndPut(self):
    for op in ('get', 'put'):
      for conn in ('new', 'reused'):
        found = self._Find(
            'object_storage_ttfb', workload='latency', op=op, connection=conn
        )
        stats = {s.metadata['statistic']: s.value for s in found}
        self.assertCountEqual(
            stats, ['min', 'max', 'mean', 'p50', 'p90', 'p99', 'p99.9']
        )
        self.assertLessEqual(stats['min'], stats['p50'])
        self.assertLessEqual(stats['p50'], stats['p90'])
        self.assertLessEqual(stats['p99.9'], stats['max'])
        self.assertTrue(all(s.metadata['n'] == 200 for s in found))

  def testThroughputPerSize(self):
    found = self._Find('object_storage_throughput', op='get', statistic='p50')
    sizes = sorted(s.metadata['object_size_bytes'] for s in found)
    self.assertEqual(sizes, [16384 << k for k in range(12)])
    by_size = {s.metadata['object_size_bytes']: s.value for s in found}
    # Per-request overhead dominates small objects on any store.
    self.assertLess(by_size[16384], by_size[32 << 20])

  def testAggregateThroughputPerConcurrency(self):
    found = self._Find('object_storage_aggregate_throughput', statistic='mean')
    self.assertCountEqual(
        [(s.metadata['op'], s.metadata['concurrency']) for s in found],
        [('get', 1), ('get', 5), ('put', 1), ('put', 5)],
    )

  def testErrorCountsAndCommonMetadata(self):
    errors = self._Find('object_storage_request_errors')
    self.assertLen(errors, 6)  # 3 workloads x 2 ops
    self.assertTrue(all(s.value == 0 for s in errors))
    for s in self.samples:
      self.assertEqual(s.metadata['provider'], 's3')
      self.assertEqual(s.metadata['sdk_version'], '1.26.27')
      self.assertIs(s.metadata['partial'], False)

  def testOneSamplePerStatistic(self):
    keys = collections.Counter(
        (s.metric, tuple(sorted(s.metadata.items()))) for s in self.samples
    )
    self.assertEqual(max(keys.values()), 1)

  def testPartialRunIsMarked(self):
    for s in _Samples('s3_boto3_sigterm.jsonl'):
      self.assertIs(s.metadata['partial'], True)
      self.assertIn('aborted', s.metadata['parse_problems'])


if __name__ == '__main__':
  absltest.main()
