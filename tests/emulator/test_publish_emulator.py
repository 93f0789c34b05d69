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
"""Publishing against the BigQuery emulator (local-bigquery 0.3.2).

The emulator is started on a free loopback port for this module and stopped
by PID at its end (and in the middle of publishes, on purpose). Each test
uses its own dataset.
"""

import datetime
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from google.cloud import bigquery as bq

from pkb_ext.publish import bigquery
from pkb_ext.publish import ids
from pkb_ext.publish import publisher
from pkb_ext.publish import schema
from pkb_ext.publish import spool
from pkb_ext_dev import synthetic
from pkb_ext_dev import bq_emulator
from pkb_ext_dev import stock_pkb

FLAGS = flags.FLAGS
_PROJECT = bq_emulator.PROJECT
# Run in a network namespace with only loopback: the emulator, a publish and
# a GEOGRAPHY query (DuckDB's spatial extension) with no network at all.
_OFFLINE = """
import socket, tempfile
from pkb_ext.publish import bigquery, ids, schema, spool
from pkb_ext_dev import synthetic
from pkb_ext_dev import bq_emulator
try:
  socket.create_connection(('192.0.2.1', 9), timeout=2)
  print('network: reachable')
except OSError:
  print('network: unreachable')
path = spool.SpoolPath(tempfile.mkdtemp(), 'offline')
samples = synthetic.MakeSamples(300, run_uri='offline')
spool.Append(path, [schema.RowFromSample(s) for s in samples], 100)
with bq_emulator.Emulator() as emulator:
  table = ids.ParseTableId(emulator.project + '.offline.samples')
  target = bigquery.Target(table, endpoint=emulator.endpoint, timeout_s=30)
  bigquery.PublishFiles(target, [path], 100)
  query = ('SELECT COUNT(*) AS n, ST_ASTEXT(ST_GEOGPOINT(1, 2)) AS g'
           ' FROM offline.samples')
  (row,) = list(emulator.Client().query_and_wait(query))
  print('rows:', row.n, row.g)
"""


def _Timestamp(text):
  return datetime.datetime.strptime(text, '%Y-%m-%d %H:%M:%S.%f%z')


class PublishEmulatorTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.emulator = bq_emulator.Emulator()
    cls.emulator.Start()

  @classmethod
  def tearDownClass(cls):
    cls.emulator.Close()
    super().tearDownClass()

  def setUp(self):
    super().setUp()
    if not self.emulator.Running():
      self.emulator.Start()
    self.client = self.emulator.Client()
    self.dir = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, self.dir)

  def _Table(self, dataset):
    return f'{_PROJECT}.{dataset}.samples'

  def _Count(self, table):
    query = (
        f'SELECT COUNT(*) AS n, COUNT(DISTINCT sample_uri) AS u FROM `{table}`'
    )
    (row,) = list(self.client.query_and_wait(query))
    self.assertEqual(row.n, row.u, 'duplicate sample_uri')
    return row.n

  def _Spool(self, n, batch_size, run_uri='run-1', seed=0):
    path = spool.SpoolPath(self.dir, run_uri)
    samples = synthetic.MakeSamples(n, run_uri=run_uri, seed=seed)
    spool.Append(path, [schema.RowFromSample(s) for s in samples], batch_size)
    return path

  def _Cli(self, path, table, *extra):
    argv = [sys.executable, '-m', 'pkb_ext.cli', 'publish', path,
            '--table', table, '--endpoint', self.emulator.endpoint,
            '--timeout', '30', *extra]  # fmt: skip
    return subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONUNBUFFERED='1'),
    )

  def _Target(self, table):
    return bigquery.Target(
        ids.ParseTableId(table), endpoint=self.emulator.endpoint, timeout_s=15
    )

  def testPkbPublisherCreatesTablePublishesAndReadsBack(self):
    table = self._Table('readback')
    samples = synthetic.MakeSamples(120, run_uri='readback-1', seed=7)
    with flagsaver.flagsaver(
        cloud_report_bq_table=table,
        cloud_report_bq_endpoint=self.emulator.endpoint,
        cloud_report_spool_dir=self.dir,
        cloud_report_bq_batch_size=50,
        cloud_report_bq_timeout=30.0,
        run_uri='readback',
    ):
      publisher.CloudReportPublisher().PublishSamples(samples)
      publisher.CloudReportPublisher().PublishSamples(samples[:10])  # again
    got = {
        r['sample_uri']: dict(r.items())
        for r in self.client.query_and_wait(f'SELECT * FROM `{table}`')
    }
    self.assertLen(got, 120)
    for s in samples:
      want = schema.RowFromSample(s)
      want['timestamp'] = _Timestamp(want['timestamp'])
      self.assertEqual(got[s['sample_uri']], want)
    meta = self.client.get_table(table)
    self.assertEqual(meta.time_partitioning.type_, 'DAY')
    self.assertEqual(meta.time_partitioning.field, 'timestamp')
    self.assertEqual(meta.clustering_fields, ['test', 'metric', 'cloud'])
    spec = schema.Load()
    self.assertEqual(
        [(f.name, f.field_type, f.mode) for f in meta.schema],
        [(f.name, f.type, f.mode) for f in spec.fields],
    )
    # The spool holds every sample given, including the repeated ten.
    path = spool.SpoolPath(self.dir, 'readback')
    with open(path) as f:
      self.assertLen(f.readlines(), 130)

  def test100kSamplesInOneCommandThenZero(self):
    table = self._Table('bulk')
    path = self._Spool(100_000, spool.DEFAULT_BATCH_SIZE, run_uri='bulk-1')
    first = self._Cli(path, table)
    out, err = first.communicate(timeout=600)
    self.assertEqual(first.returncode, 0, err)
    self.assertIn(
        f'published 100000 rows to {table}: 100000 rows loaded in 10 load'
        ' jobs, 0 rows already loaded',
        out,
    )
    self.assertEqual(self._Count(table), 100_000)
    second = self._Cli(path, table)
    out, err = second.communicate(timeout=600)
    self.assertEqual(second.returncode, 0, err)
    self.assertIn('0 rows loaded in 0 load jobs, 100000 rows already', out)
    self.assertEqual(self._Count(table), 100_000)

  def testEmulatorStoppedMidPublishThenRepublished(self):
    table = self._Table('outage')
    path = self._Spool(40_000, 2_000, run_uri='outage-1')
    proc = self._Cli(path, table)
    for line in proc.stdout:
      if line.startswith('batch 3/20:'):
        self.emulator.Stop(signal.SIGTERM)  # by PID, mid-publish
        break
    out, err = proc.communicate(timeout=300)
    self.assertEqual(proc.returncode, 1, out)
    self.assertIn(f'into {table}: ', err)
    self.assertIn('Connection refused', err)
    self.assertIn('re-run the same command', err)

    self.emulator.Start()
    before = self._Count(table)
    self.assertBetween(before, 6_000, 38_000)
    self.assertEqual(before % 2_000, 0)  # whole batches only
    again = self._Cli(path, table)
    out, err = again.communicate(timeout=300)
    self.assertEqual(again.returncode, 0, err)
    self.assertIn(f'{40_000 - before} rows loaded', out)
    self.assertIn(f'{before} rows already loaded', out)
    self.assertEqual(self._Count(table), 40_000)

  def testEmulatorKilledBetweenBatchesThenRepublished(self):
    table = self._Table('killed')
    path = self._Spool(9_000, 1_000, run_uri='killed-1')
    contents = spool.Read([path], 1_000)

    def KillAfterSecond(index, total, outcome):
      del total, outcome
      if index == 1:
        self.emulator.Stop(signal.SIGKILL)

    killed = bigquery.Publisher(self._Target(table), progress=KillAfterSecond)
    with self.assertRaisesRegex(bigquery.PublishError, table):
      killed.Publish(contents.batches)
    self.emulator.Start()
    self.assertEqual(self._Count(table), 2_000)
    result = bigquery.Publisher(self._Target(table)).Publish(contents.batches)
    self.assertEqual(result.Rows('skipped'), 2_000)
    self.assertEqual(result.Rows('loaded'), 7_000)
    self.assertEqual(self._Count(table), 9_000)

  def testOldTableIsMigratedByAddingColumns(self):
    table = self._Table('migrate')
    old_fields = [
        bq.SchemaField(name, kind)
        for name, kind in (('timestamp', 'TIMESTAMP'), ('test', 'STRING'),
                           ('metric', 'STRING'), ('value', 'FLOAT'),
                           ('unit', 'STRING'), ('run_uri', 'STRING'),
                           ('sample_uri', 'STRING'), ('labels', 'STRING'),
                           ('kept', 'STRING'))
    ]  # fmt: skip
    self.client.create_dataset(f'{_PROJECT}.migrate')
    self.client.create_table(bq.Table(table, schema=old_fields))
    old_rows = [
        {'timestamp': '2020-12-01 00:00:00 UTC', 'metric': f'old_{i}',
         'value': float(i), 'run_uri': 'old', 'sample_uri': f'old-{i}',
         'kept': 'yes'}
        for i in range(3)
    ]  # fmt: skip
    job = self.client.load_table_from_file(
        io.BytesIO(''.join(json.dumps(r) + '\n' for r in old_rows).encode()),
        table,
        job_config=bq.LoadJobConfig(
            schema=old_fields, source_format='NEWLINE_DELIMITED_JSON'
        ),
    )
    job.result()

    path = self._Spool(10, 100, run_uri='migrate-1')
    bigquery.PublishFiles(self._Target(table), [path], 100)

    meta = self.client.get_table(table)
    names = [f.name for f in meta.schema]
    self.assertEqual(names[: len(old_fields)], [f.name for f in old_fields])
    self.assertEqual(set(names), set(schema.Load().names) | {'kept'})
    self.assertEqual(meta.clustering_fields, ['test', 'metric', 'cloud'])
    rows = list(
        self.client.query_and_wait(
            f'SELECT metric, kept, metadata, schema_version FROM `{table}`'
            ' ORDER BY metric'
        )
    )
    self.assertLen(rows, 13)
    old = [r for r in rows if r.metric.startswith('old_')]
    self.assertEqual([(r.kept, r.metadata) for r in old], [('yes', None)] * 3)
    new = [r for r in rows if not r.metric.startswith('old_')]
    self.assertTrue(all(r.metadata['cloud'] for r in new))
    self.assertEqual({r.schema_version for r in new}, {schema.Load().version})

  def testRetypedColumnFailsNamingTableAndKeepsSpool(self):
    table = self._Table('retyped')
    self.client.create_dataset(f'{_PROJECT}.retyped')
    self.client.create_table(
        bq.Table(table, schema=[bq.SchemaField('value', 'STRING')])
    )
    path = self._Spool(5, 100, run_uri='retyped-1')
    size = os.path.getsize(path)
    proc = self._Cli(path, table)
    _, err = proc.communicate(timeout=120)
    self.assertEqual(proc.returncode, 1)
    self.assertRegex(
        err, re.escape(f'cannot migrate {table}: column value is STRING')
    )
    self.assertEqual(os.path.getsize(path), size)

  def testStockPkbPublishesThroughOurFlags(self):
    table = self._Table('stockpkb')
    vm_file = stock_pkb.StaticVmFile(
        self.dir, stock_pkb.StaticVms(4, local_disks=['/dev/vdb'])
    )
    pkb_json = os.path.join(self.dir, 'samples.json')
    argv = [
        *stock_pkb.DriverCommand(), os.path.join(self.dir, 'cmds'),
        '--benchmarks=cloud_report_2021', f'--static_vm_file={vm_file}',
        f'--temp_dir={self.dir}/pkb', f'--json_path={pkb_json}',
        '--collapse_labels=false', '--cloud_report_phases=none',
        '--accept_licenses', '--ignore_package_requirements',
        '--run_uri=bqpkb001', f'--cloud_report_bq_table={table}',
        f'--cloud_report_bq_endpoint={self.emulator.endpoint}',
    ]  # fmt: skip
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
    with open(pkb_json) as f:
      published = [json.loads(line) for line in f]
    self.assertNotEmpty(published)
    got = {
        r.sample_uri: r
        for r in self.client.query_and_wait(
            'SELECT sample_uri, metric, value, run_uri, metadata FROM'
            f' `{table}`'
        )
    }
    self.assertLen(got, len(published))
    for s in published:
      row = got[s['sample_uri']]
      self.assertEqual((row.metric, row.value), (s['metric'], s['value']))
      self.assertEqual(row.run_uri, s['run_uri'])
      self.assertEqual(row.metadata, schema.RowFromSample(s)['metadata'])
    spooled = spool.SpoolPath(f'{self.dir}/pkb/runs/bqpkb001', 'bqpkb001')
    self.assertEqual(spool.Read([spooled], 100).rows, len(published))

  def testEmulatorRunsWithNoNetwork(self):
    if not shutil.which('unshare'):
      self.skipTest('unshare(1) is missing')
    probe = subprocess.run(
        ['unshare', '--net', 'true'], capture_output=True, check=False
    )
    if probe.returncode:
      self.skipTest(f'cannot make a network namespace: {probe.stderr!r}')
    proc = subprocess.run(
        ['unshare', '--net', 'bash', '-c',
         'ip link set lo up && exec "$0" -c "$1"', sys.executable, _OFFLINE],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
    self.assertIn('network: unreachable', proc.stdout)
    self.assertIn('rows: 300 POINT(1 2)', proc.stdout)


if __name__ == '__main__':
  absltest.main()
