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
"""Tests for the PKB publisher, driven through PKB's SampleCollector."""

import json
import os
import shutil
import tempfile
from unittest import mock

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized
from perfkitbenchmarker import publisher as pkb_publisher
from perfkitbenchmarker import sample as pkb_sample
from perfkitbenchmarker import vm_util

from pkb_ext.publish import bigquery
from pkb_ext.publish import publisher
from pkb_ext.publish import spool
from pkb_ext_dev import ports

FLAGS = flags.FLAGS
_TABLE = 'my-project.pkb.samples'


class CloudReportPublisherTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver())
    self.dir = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, self.dir)
    FLAGS.run_uri = 'abcd1234'
    self.enter_context(
        mock.patch.object(vm_util, 'GetTempDir', return_value=self.dir)
    )
    self.make_client = self.enter_context(
        mock.patch.object(bigquery, 'MakeClient', wraps=bigquery.MakeClient)
    )
    self.after = mock.create_autospec(pkb_publisher.SamplePublisher)
    self.after.PUBLISH_CONSOLE_LOG_DATA = True
    self.at_exit = self.enter_context(
        mock.patch.object(publisher.atexit, 'register')
    )
    self.enter_context(mock.patch.object(publisher, '_spooled', []))

  def _Collect(self, n=3):
    self.after.reset_mock()
    collector = pkb_publisher.SampleCollector(
        metadata_providers=[],
        publishers=[],
        publishers_from_flags=False,
        add_default_publishers=False,
    )
    collector.publishers.append(self.after)
    spec = mock.Mock(uuid='abcd1234-0000')
    samples = [
        pkb_sample.Sample('coremark_score', 100.0 + i, 'iterations/s',
                          {'cloud': 'GCP', 'phase': 'cpu', 'iteration': i,
                           'mode': 'single'})
        for i in range(1, n + 1)
    ]  # fmt: skip
    collector.AddSamples(samples, 'cloud_report_2021', spec)
    collector.PublishSamples()
    self.after.PublishSamples.assert_called_once()  # never blocked by ours
    return os.path.join(self.dir, 'cloud_report_samples-abcd1234.ndjson')

  def _SpoolLines(self, path):
    with open(path) as f:
      return [json.loads(line) for line in f]

  def testRegisteredWithPkb(self):
    self.assertIn(
        publisher.CloudReportPublisher, pkb_publisher.EXTERNAL_PUBLISHERS
    )

  def testSpoolsToTheRunDirectoryByDefault(self):
    path = self._Collect(3)
    self.assertEqual(os.path.dirname(path), vm_util.GetTempDir())
    self.assertLen(self._SpoolLines(path), 3)
    self.make_client.assert_not_called()
    # A resumed run (same run_uri, same run directory) appends to it.
    self._Collect(2)
    self.assertLen(self._SpoolLines(path), 5)

  def testTheSpoolDirFlagOverridesTheRunDirectory(self):
    FLAGS.cloud_report_spool_dir = os.path.join(self.dir, 'elsewhere')
    path = self._Collect(2)
    self.assertFalse(os.path.exists(path))
    moved = os.path.join(self.dir, 'elsewhere', os.path.basename(path))
    self.assertLen(self._SpoolLines(moved), 2)

  def testTheMainProcessLogsTheSummaryOnceWhenItExits(self):
    path = self._Collect(3)
    self._Collect(1)
    self.at_exit.assert_called_once()
    (handler,), _ = self.at_exit.call_args
    with self.assertLogs(level='INFO') as logs:
      handler()
    (block,) = [m for m in logs.output if 'cloud_report results' in m]
    self.assertIn('CoreMark single-core', block)
    self.assertIn('(mean of 4)', block)
    self.assertIn(f'Samples (NDJSON): {path}', block)
    self.assertIn(f'pkb-ext report --samples {path} --out DIR', block)
    self.assertIn(
        f'pkb-ext publish {path} --table PROJECT.DATASET.TABLE', block
    )

  def testAWorkerProcessLeavesTheSummaryToTheMainOne(self):
    with mock.patch.object(
        publisher.multiprocessing, 'parent_process', return_value=object()
    ):
      path = self._Collect(1)
    self.assertTrue(os.path.exists(path))
    self.at_exit.assert_not_called()

  def testNoSummaryOfASpoolThatCannotBeRead(self):
    missing = os.path.join(self.dir, 'gone.ndjson')
    with self.assertLogs(level='WARNING') as logs:
      publisher.LogSummary([missing])
    self.assertIn(f'cannot read {missing}', logs.output[0])

  def testSpoolOnly(self):
    FLAGS.cloud_report_spool_dir = self.dir
    path = self._Collect(3)
    lines = self._SpoolLines(path)
    self.assertEqual([l['value'] for l in lines], [101.0, 102.0, 103.0])
    self.assertEqual({l['run_uri'] for l in lines}, {'abcd1234-0000'})
    self.assertEqual({l['test'] for l in lines}, {'cloud_report_2021'})
    self.make_client.assert_not_called()

  def testFailedPublishKeepsSpoolAndSaysHowToRetry(self):
    FLAGS.cloud_report_bq_table = _TABLE
    FLAGS.cloud_report_bq_endpoint = f'http://127.0.0.1:{ports.FreePort()}'
    FLAGS.cloud_report_bq_timeout = 1.0
    with self.assertLogs(level='ERROR') as logs:
      path = self._Collect(4)
    self.assertLen(self._SpoolLines(path), 4)
    message = '\n'.join(logs.output)
    self.assertIn(f'cannot create or migrate {_TABLE}', message)
    self.assertIn('Connection refused', message)
    self.assertIn(f'kept in the spool {path}', message)
    self.assertIn(
        f'pkb-ext publish {path} --table {_TABLE} --endpoint'
        f' {FLAGS.cloud_report_bq_endpoint}',
        message,
    )
    # A second run appends; nothing spooled before is lost.
    with self.assertLogs(level='ERROR'):
      self._Collect(2)
    self.assertLen(self._SpoolLines(path), 6)

  def testCredentialsNeverLogged(self):
    secret = 'PRIVATE-KEY-0123456789'
    key_file = os.path.join(self.dir, 'key.json')
    with open(key_file, 'w') as f:
      json.dump({'type': 'service_account', 'private_key': secret}, f)
    FLAGS.cloud_report_bq_table = _TABLE
    FLAGS.cloud_report_bq_credentials = key_file
    with self.assertLogs(level='INFO') as logs:
      self._Collect(1)
    message = '\n'.join(logs.output)
    self.assertIn(f'cannot publish to {_TABLE}', message)
    self.assertNotIn(secret, message)
    self.assertNotIn(key_file, message)
    self.assertNotIn(key_file, repr(publisher.Params.FromFlags()))

  def testFlagValidation(self):
    for name, bad in (
        ('cloud_report_bq_table', 'dataset.table'),
        ('cloud_report_bq_table', 'Bad.d.t'),
        ('cloud_report_bq_location', 'us central'),
        ('cloud_report_bq_endpoint', 'localhost:9050'),
        ('cloud_report_bq_credentials', '/no/such/key.json'),
    ):
      with self.assertRaisesRegex(flags.IllegalFlagValueError, name):
        FLAGS[name].value = None
        setattr(FLAGS, name, bad)

  def testParams(self):
    FLAGS.cloud_report_bq_table = _TABLE
    FLAGS.cloud_report_bq_batch_size = 7
    params = publisher.Params.FromFlags()
    self.assertEqual(str(params.table), _TABLE)
    self.assertEqual(params.batch_size, 7)
    self.assertEqual(
        params.RepublishCommand('/tmp/s p.ndjson'),
        f"pkb-ext publish '/tmp/s p.ndjson' --table {_TABLE} --batch-size 7",
    )
    self.assertEqual(
        spool.DEFAULT_BATCH_SIZE, FLAGS['cloud_report_bq_batch_size'].default
    )


if __name__ == '__main__':
  absltest.main()
