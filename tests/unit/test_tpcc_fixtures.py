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
"""cloud_report.tpcc.fixtures: where fixtures are, the commands, the order.

The commands against the cockroach double, and the engine's Setup:
tests/local/test_tpcc_fixtures_double.py.
"""

import os
import re

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver

from benchmarks.cloud_report.tpcc import fixtures
from benchmarks.cloud_report.tpcc import params as tpcc_params

FLAGS = flags.FLAGS
_DATA = os.path.join(os.path.dirname(__file__), '..', 'data', 'tpcc')


class _Vm:
  CLOUD = 'AWS'
  zone = 'us-east-1a'


def _Read(name):
  with open(os.path.join(_DATA, name)) as f:
    return f.read()


class LocationTest(absltest.TestCase):

  def testTheBucketOfACloudAndRegion(self):
    location = fixtures.LocationOf(_Vm(), 'my-fixtures-{region}')
    self.assertEqual(
        location, fixtures.Location('s3', 'my-fixtures-us-east-1', 'us-east-1')
    )
    self.assertEqual(location.url, 's3://my-fixtures-us-east-1/cloud_report')
    # Without {region}, every region's client uses the one bucket.
    self.assertEqual(fixtures.LocationOf(_Vm(), 'mine').bucket, 'mine')

  def testNoBucketIsUnsupported(self):
    # Names are global: a default would load what a stranger stored.
    with self.assertRaisesRegex(
        fixtures.Unsupported, 'no --cloud_report_tpcc_fixtures_bucket'
    ):
      fixtures.LocationOf(_Vm(), '')

  def testBucketNames(self):
    for good in ('abc', 'my.fixtures-{region}', 'a' * 63):
      self.assertIsNone(fixtures.BucketProblem(good), good)
    for bad in ('ab', 'Upper', 'a_b', '-abc', 'a' * 64, '{zone}-x', 'a b'):
      self.assertIn('is not a bucket name', fixtures.BucketProblem(bad), bad)
    self.assertEqual(fixtures.BucketOf('f-{region}', 'EastUS2'), 'f-eastus2')

  def testACloudWithoutObjectStorageIsUnsupported(self):
    vm = _Vm()
    vm.CLOUD = 'Local'
    with self.assertRaisesRegex(fixtures.Unsupported, 'cloud Local'):
      fixtures.LocationOf(vm, 'mine')


class StorageFlagsTest(absltest.TestCase):

  def testV221TakesTheProviderFlags(self):
    location = fixtures.Location('s3', 'b', 'us-east-1')
    self.assertEqual(
        fixtures.StorageFlags('v22.1.2', location),
        [
            '--provider-override=s3',
            '--bucket-override=b',
            '--prefix-override=cloud_report',
            "--auth-params-override='AUTH=implicit&AWS_REGION=us-east-1'",
        ],
    )
    gcs = fixtures.Location('gs', 'b', 'us-east1')
    self.assertIn(
        '--auth-params-override=AUTH=implicit',
        fixtures.StorageFlags('v23.1.0', gcs),
    )

  def testBeforeV221OnlyGcs(self):
    gcs = fixtures.Location('gs', 'b', 'us-east1')
    self.assertEqual(
        fixtures.StorageFlags('v20.2.7', gcs),
        ['--gcs-bucket-override=b', '--gcs-prefix-override=cloud_report'],
    )
    with self.assertRaisesRegex(fixtures.Unsupported, 'GCS only'):
      fixtures.StorageFlags('v20.2.7', fixtures.Location('s3', 'b', 'r'))

  def testAzureIsUnsupported(self):
    with self.assertRaisesRegex(fixtures.Unsupported, 'storage account'):
      fixtures.StorageFlags('v22.1.2', fixtures.Location('azure', 'b', 'r'))

  def testTheCommands(self):
    load = fixtures.Command('load', 7, '10.0.0.1', ['--x=1'])
    self.assertRegex(
        load,
        r'/cockroach workload fixtures load tpcc --warehouses=7'
        r' --checks=false --x=1'
        r" 'postgresql://root@10\.0\.0\.1:26257\?sslmode=disable'$",
    )
    make = fixtures.Command('make', 7, '10.0.0.1', [])
    self.assertIn('fixtures make tpcc --warehouses=7 ', make)
    self.assertNotIn('--checks', make)


class NotFoundTest(absltest.TestCase):

  def testTheRealMessagesOfAMissingFixture(self):
    self.assertTrue(
        fixtures.NotFound(_Read('cockroach_fixtures_load_not_found.txt'))
    )
    self.assertTrue(
        fixtures.NotFound(
            'Error: finding fixture: expected non zero files for table'
            ' "warehouse" in fixture folder "x/tpcc/version=2.2.0"'
        )
    )

  def testOtherFailuresAreNot(self):
    for text in (
        _Read('cockroach_died_connection_reset.txt'),
        'Error: unknown flag: --provider-override',
        'Error: failed to create google cloud client',
        '',
    ):
      self.assertFalse(fixtures.NotFound(text), text)


class _Cluster:
  """Fakes of LoadOrMake's run, drop and count; records the calls."""

  def __init__(self, results, counts):
    self.results = list(results)  # (tail, status) per run
    self.counts = list(counts)  # count() answers
    self.calls = []

  def Run(self, verb):
    self.calls.append(verb)
    return self.results.pop(0)

  def Drop(self):
    self.calls.append('drop')

  def Count(self):
    return self.counts.pop(0)


_MISSING = ('Error: finding fixture: fixture not found: p/tpcc/x', 1)


class LoadOrMakeTest(absltest.TestCase):

  def _Run(self, results, counts, make=False):
    c = _Cluster(results, counts)
    loaded, why = fixtures.LoadOrMake(c.Run, c.Drop, c.Count, 5, make)
    return loaded, why, c.calls

  def testAFoundFixtureIsLoaded(self):
    self.assertEqual(self._Run([('ok', 0)], [5]), (True, 'found', ['load']))

  def testAMissingFixtureIsDroppedAndGenerated(self):
    loaded, why, calls = self._Run([_MISSING], [])
    self.assertFalse(loaded)
    self.assertEqual(calls, ['load', 'drop'])
    self.assertEqual(
        why,
        'fixtures load: Error: finding fixture: fixture not found: p/tpcc/x',
    )

  def testALoadThatLeftTooFewWarehousesIsDropped(self):
    loaded, why, calls = self._Run([('ok', 0)], [3, 3])
    self.assertFalse(loaded)
    self.assertEqual(calls, ['load', 'drop'])
    self.assertEqual(why, 'fixtures load left 3 of 5 warehouses')

  def testMakeThenLoad(self):
    loaded, why, calls = self._Run(
        [_MISSING, ('made', 0), ('ok', 0)], [5], make=True
    )
    self.assertTrue(loaded)
    self.assertEqual(calls, ['load', 'drop', 'make', 'drop', 'load'])
    self.assertIn('made it', why)

  def testMakeOnlyForAMissingFixture(self):
    loaded, _, calls = self._Run(
        [('Error: unknown flag: --provider-override', 1)], [], make=True
    )
    self.assertFalse(loaded)
    self.assertEqual(calls, ['load', 'drop'])

  def testAFailedMakeGenerates(self):
    loaded, why, calls = self._Run(
        [_MISSING, ('Error: fixture s3://b/p already exists', 1)], [],
        make=True,
    )  # fmt: skip
    self.assertFalse(loaded)
    self.assertEqual(calls, ['load', 'drop', 'make', 'drop'])
    self.assertTrue(why.endswith('fixtures make: Error: fixture s3://b/p'
                                 ' already exists'))  # fmt: skip


class FlagsTest(absltest.TestCase):

  def testDefaultsAreOff(self):
    params = tpcc_params.Params.FromFlags()
    self.assertEqual((params.fixtures, params.fixtures_make), ('off', False))

  def testOnlyAutoOrOff(self):
    with self.assertRaises(flags.IllegalFlagValueError):
      FLAGS['cloud_report_tpcc_fixtures'].parse('on')

  def testMakeNeedsAuto(self):
    with flagsaver.flagsaver():
      with self.assertRaisesRegex(
          flags.IllegalFlagValueError,
          re.escape(
              '--cloud_report_tpcc_fixtures_make needs'
              ' --cloud_report_tpcc_fixtures=auto'
          ),
      ):
        FLAGS.cloud_report_tpcc_fixtures_make = True
    with flagsaver.flagsaver(cloud_report_tpcc_fixtures_bucket='mine'):
      FLAGS.cloud_report_tpcc_fixtures = 'auto'
      FLAGS.cloud_report_tpcc_fixtures_make = True
      self.assertTrue(tpcc_params.Params.FromFlags().fixtures_make)

  def testAutoNeedsABucketOfTheUsersOwn(self):
    with flagsaver.flagsaver():
      with self.assertRaisesRegex(
          flags.IllegalFlagValueError,
          re.escape(
              '--cloud_report_tpcc_fixtures=auto needs'
              ' --cloud_report_tpcc_fixtures_bucket: a bucket of your own'
          ),
      ):
        FLAGS.cloud_report_tpcc_fixtures = 'auto'
    with flagsaver.flagsaver():
      with self.assertRaisesRegex(
          flags.IllegalFlagValueError, "'My_Bucket' is not a bucket name"
      ):
        FLAGS.cloud_report_tpcc_fixtures_bucket = 'My_Bucket'


if __name__ == '__main__':
  absltest.main()
