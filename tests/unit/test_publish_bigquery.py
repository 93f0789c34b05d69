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
"""Tests for the BigQuery loader's idempotence, on a fake client.

The fake keeps jobs by id the way BigQuery does (a second insert of an id is
409 Conflict). The emulator tier runs the same code against local-bigquery.
"""

import concurrent.futures
import os
import shutil
import tempfile

from absl.testing import absltest
from google.api_core import exceptions
from google.cloud import bigquery as bq

from pkb_ext.publish import bigquery
from pkb_ext.publish import ids
from pkb_ext.publish import schema
from pkb_ext.publish import spool
from pkb_ext_dev import synthetic

_TABLE = ids.ParseTableId('my-project.pkb.samples')


class FakeJob:

  def __init__(self, job_id, rows, error=None, hang=False):
    self.job_id = job_id
    self.output_rows = None if error else rows
    self.error_result = error
    self.hang = hang
    self.state = 'RUNNING' if hang else 'DONE'

  def result(self, retry=None, timeout=None):
    del retry, timeout
    if self.hang:
      raise concurrent.futures.TimeoutError()
    if self.error_result:
      raise exceptions.BadRequest(self.error_result['message'])
    return self


class FakeClient:
  """Jobs by id, tables by id; records what was sent."""

  def __init__(self, table=None):
    self.jobs = {}
    self.loads = []  # (job_id, payload)
    self.outcomes = []  # error results (or None) for the next submissions
    self.table = table
    self.updates = []
    self.created = []

  def get_job(self, job_id, location=None, retry=None, timeout=None):
    del location, retry, timeout
    if job_id not in self.jobs:
      raise exceptions.NotFound(f'Job {job_id}')
    return self.jobs[job_id]

  def load_table_from_file(self, file_obj, destination, job_id, **kw):
    payload = file_obj.read()
    assert destination == str(_TABLE)
    assert kw['job_config'].write_disposition == 'WRITE_APPEND'
    if job_id in self.jobs:
      raise exceptions.Conflict(f'Already Exists: Job {job_id}')
    self.loads.append((job_id, payload))
    error = self.outcomes.pop(0) if self.outcomes else None
    self.jobs[job_id] = FakeJob(job_id, payload.count(b'\n'), error)
    return self.jobs[job_id]

  def get_dataset(self, dataset_id, **kw):
    del kw
    if self.table is None:
      raise exceptions.NotFound(dataset_id)

  def create_dataset(self, dataset, **kw):
    self.created.append(('dataset', dataset.dataset_id, dataset.location))

  def get_table(self, table_id, **kw):
    if self.table is None:
      raise exceptions.NotFound(table_id)
    return self.table

  def create_table(self, table, **kw):
    self.created.append(('table', table.table_id))
    self.table = table
    return table

  def update_table(self, table, fields, **kw):
    self.updates.append(tuple(fields))
    self.table = table
    return table


def _Batches(n=25, batch_size=10):
  """Returns the batches of a spool of n synthetic samples."""
  directory = tempfile.mkdtemp()
  try:
    path = spool.SpoolPath(directory, 'run')
    rows = [schema.RowFromSample(s) for s in synthetic.MakeSamples(n)]
    spool.Append(path, rows, batch_size)
    return list(spool.Read([path], batch_size).batches)
  finally:
    shutil.rmtree(directory)


class PublisherTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.client = FakeClient()
    self.target = bigquery.Target(_TABLE, timeout_s=5)

  def _Publisher(self, **kw):
    return bigquery.Publisher(self.target, client=self.client, **kw)

  def testCreatesDatasetAndTableFromSchema(self):
    self._Publisher().EnsureTable()
    self.assertIn(('dataset', 'pkb', 'US'), self.client.created)
    table = self.client.table
    spec = schema.Load()
    self.assertEqual([f.name for f in table.schema], list(spec.names))
    self.assertEqual(table.time_partitioning.field, 'timestamp')
    self.assertEqual(table.time_partitioning.type_, 'DAY')
    self.assertEqual(table.clustering_fields, ['test', 'metric', 'cloud'])

  def testMigratesOldTableByAddingColumns(self):
    old = bq.Table(
        str(_TABLE),
        schema=[
            bq.SchemaField('metric', 'STRING'),
            bq.SchemaField('value', 'FLOAT'),
            bq.SchemaField('kept_column', 'STRING'),
        ],
    )
    self.client.table = old
    table = self._Publisher().EnsureTable()
    names = [f.name for f in table.schema]
    self.assertEqual(names[:3], ['metric', 'value', 'kept_column'])
    self.assertEqual(set(names), set(schema.Load().names) | {'kept_column'})
    self.assertIn(('schema',), self.client.updates)
    self.assertIn(('clustering_fields',), self.client.updates)
    self.assertEqual(self.client.created, [])

  def testRetypedColumnIsRefused(self):
    self.client.table = bq.Table(
        str(_TABLE), schema=[bq.SchemaField('value', 'STRING')]
    )
    with self.assertRaisesRegex(
        bigquery.PublishError, 'cannot migrate my-project.pkb.samples: column'
    ):
      self._Publisher().EnsureTable()

  def testPublishTwiceLoadsOnce(self):
    batches = _Batches()
    first = self._Publisher().Publish(batches)
    self.assertEqual(first.Rows('loaded'), 25)
    self.assertLen(self.client.loads, 3)
    self.assertTrue(all(j.endswith('_a0') for j, _ in self.client.loads))
    second = self._Publisher().Publish(batches)
    self.assertEqual(second.Rows('loaded'), 0)
    self.assertEqual(second.Rows('skipped'), 25)
    self.assertLen(self.client.loads, 3)  # nothing sent again
    sent = b''.join(p for _, p in self.client.loads)
    self.assertEqual(sent, b''.join(b.payload for b in batches))

  def testFailedJobOfEarlierRunIsRetriedUnderNextAttempt(self):
    batches = _Batches(5)
    self.client.outcomes = [{'reason': 'invalid', 'message': 'bad row'}]
    with self.assertRaisesRegex(
        bigquery.PublishError,
        r'cannot publish to my-project.pkb.samples: load job \S+_a0 failed:'
        r' bad row',
    ):
      self._Publisher().Publish(batches)
    result = self._Publisher().Publish(batches)  # e.g. after fixing the table
    self.assertEqual(result.outcomes[0].action, 'loaded')
    self.assertTrue(result.outcomes[0].job_id.endswith('_a1'))
    self.assertEqual([j[-2:] for j, _ in self.client.loads], ['a0', 'a1'])

  def testRetryableFailureIsRetriedOnce(self):
    self.client.outcomes = [
        {'reason': 'backendError', 'message': 'try again'},
        {'reason': 'backendError', 'message': 'try again'},
    ]
    with self.assertRaisesRegex(bigquery.PublishError, r'_a1 failed'):
      self._Publisher().Publish(_Batches(5))
    self.assertLen(self.client.loads, 2)
    self.client.outcomes = [{'reason': 'backendError', 'message': 'x'}]
    result = self._Publisher().Publish(_Batches(5))
    self.assertTrue(result.outcomes[0].job_id.endswith('_a3'))

  def testConflictMeansAnotherPublisherSubmittedIt(self):
    batch = _Batches(5)[0]
    job_id = ids.LoadJobId(_TABLE, batch.run_uri, batch.key, batch.payload, 0)
    publisher = self._Publisher()
    real_get = self.client.get_job
    calls = []

    def GetJobRacing(job_id_arg, **kw):
      calls.append(job_id_arg)
      if len(calls) == 1:  # not there yet when we look...
        self.client.jobs[job_id] = FakeJob(job_id, 5)  # ...then it is
        raise exceptions.NotFound(job_id_arg)
      return real_get(job_id_arg, **kw)

    self.client.get_job = GetJobRacing
    result = publisher.Publish([batch])
    self.assertEqual(result.outcomes[0].action, 'skipped')
    self.assertEqual(self.client.loads, [])

  def testRunningJobIsWaitedForNeverDuplicated(self):
    batch = _Batches(5)[0]
    job_id = ids.LoadJobId(_TABLE, batch.run_uri, batch.key, batch.payload, 0)
    self.client.jobs[job_id] = FakeJob(job_id, 5, hang=True)
    with self.assertRaisesRegex(
        bigquery.PublishError, 'still RUNNING after 5 s; re-run later'
    ):
      self._Publisher().Publish([batch])
    self.assertEqual(self.client.loads, [])

  def testWrongRowCountIsAnError(self):
    batch = _Batches(5)[0]
    job_id = ids.LoadJobId(_TABLE, batch.run_uri, batch.key, batch.payload, 0)
    self.client.jobs[job_id] = FakeJob(job_id, 4)
    with self.assertRaisesRegex(bigquery.PublishError, 'loaded 4 rows'):
      self._Publisher().Publish([batch])

  def testTransportErrorNamesTableAndCause(self):
    def Refused(*args, **kw):
      raise ConnectionError('Connection refused')

    self.client.get_job = Refused
    with self.assertRaisesRegex(
        bigquery.PublishError,
        r'cannot load batch \S+ into my-project.pkb.samples: ConnectionError:'
        r' Connection refused',
    ):
      self._Publisher().Publish(_Batches(5))

  def testProgress(self):
    seen = []
    self._Publisher(
        progress=lambda i, n, o: seen.append((i, n, o.rows))
    ).Publish(_Batches())
    self.assertEqual(seen, [(0, 3, 10), (1, 3, 10), (2, 3, 5)])


class CredentialsTest(absltest.TestCase):

  def testAnonymousForPlainHttpEmulator(self):
    target = bigquery.Target(_TABLE, endpoint='http://127.0.0.1:9')
    client = bigquery.MakeClient(target)
    self.assertEqual(type(client._credentials).__name__, 'AnonymousCredentials')

  def testBadKeyFileNeverPrinted(self):
    secret = 'PRIVATE-KEY-MATERIAL-0123'
    fd, path = tempfile.mkstemp(suffix='.json')
    os.close(fd)
    self.addCleanup(os.remove, path)
    with open(path, 'w') as f:
      f.write('{"type": "service_account", "private_key": "%s"}' % secret)
    target = bigquery.Target(_TABLE, credentials=path)
    with self.assertRaises(bigquery.PublishError) as raised:
      bigquery.MakeClient(target)
    self.assertIn('my-project.pkb.samples', str(raised.exception))
    self.assertNotIn(secret, str(raised.exception))
    self.assertNotIn(path, str(raised.exception))
    self.assertNotIn(path, repr(target))


if __name__ == '__main__':
  absltest.main()
