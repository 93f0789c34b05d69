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
"""Tests for `pkb-ext publish` (no network: dry runs and errors)."""

import contextlib
import io
import os
import re
import shutil
import socket
import tempfile
from unittest import mock

from absl.testing import absltest

from pkb_ext import cli as pkb_ext_cli
from pkb_ext.publish import bigquery
from pkb_ext.publish import cli
from pkb_ext.publish import ids
from pkb_ext.publish import schema
from pkb_ext.publish import spool
from pkb_ext_dev import ports
from pkb_ext_dev import synthetic

_TABLE = 'my-project.pkb.samples'


def _Run(argv):
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    try:
      rc = pkb_ext_cli.main(['publish'] + argv)
    except SystemExit as e:
      rc = e.code
  return rc, out.getvalue(), err.getvalue()


class PublishCliTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.dir = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, self.dir)
    self.path = spool.SpoolPath(self.dir, 'run-1')
    rows = [schema.RowFromSample(s) for s in synthetic.MakeSamples(23)]
    spool.Append(self.path, rows, batch_size=10)

  def testDryRunShowsSchemaBatchesAndJobIdsWithoutNetwork(self):
    with (
        mock.patch.object(
            bigquery, 'MakeClient', side_effect=AssertionError('network')
        ),
        mock.patch.object(socket, 'create_connection') as connect,
    ):
      rc, out, err = _Run([self.path, '--table', _TABLE, '--dry-run'])
    self.assertEqual(rc, 0, err)
    connect.assert_not_called()
    self.assertIn(f'table: {_TABLE} (location US)', out)
    self.assertIn('partitioned by DAY on timestamp', out)
    self.assertIn('clustered by test, metric, cloud', out)
    self.assertIn('  metadata JSON NULLABLE', out)
    counts = re.findall(r'batch \d/3: (\d+) rows, job (\S+)', out)
    self.assertEqual([int(c) for c, _ in counts], [10, 10, 3])
    batches = spool.Read([self.path], 10).batches
    table = ids.ParseTableId(_TABLE)
    self.assertEqual(
        [j for _, j in counts],
        [ids.LoadJobId(table, b.run_uri, b.key, b.payload, 0) for b in batches],
    )
    self.assertIn('would publish 23 rows in 3 load jobs', out)
    self.assertIn('nothing was sent', out)

  def testInvalidTable(self):
    rc, _, err = _Run([self.path, '--table', 'nodataset', '--dry-run'])
    self.assertEqual(rc, 2)
    self.assertIn('must be project.dataset.table', err)

  def testDryRunNotesATableNameBigQueryWouldRefuse(self):
    rc, out, err = _Run([self.path, '--table', 'p.d.t', '--dry-run'])
    self.assertEqual((rc, err), (0, ''))
    self.assertIn('table: p.d.t (location US)', out)
    self.assertIn(
        "note: table 'p.d.t': project 'p' is invalid (expected 6-30", out
    )
    self.assertIn('would publish 23 rows in 3 load jobs', out)

  def testAPublishRefusesATableNameBigQueryWouldRefuse(self):
    with mock.patch.object(
        bigquery, 'MakeClient', side_effect=AssertionError('network')
    ):
      rc, out, err = _Run([self.path, '--table', 'p.d.t'])
    self.assertEqual((rc, out), (2, ''))
    self.assertEqual(
        err,
        "pkb-ext publish: argument --table: table 'p.d.t': project 'p' is"
        ' invalid (expected 6-30 lowercase letters, digits or hyphens,'
        ' starting with a letter) (see pkb-ext publish --help)\n',
    )

  def testBadSpoolNamesFileAndLine(self):
    with open(self.path, 'a') as f:
      f.write('{"oops"\n')
    rc, _, err = _Run([self.path, '--table', _TABLE, '--dry-run'])
    self.assertEqual(rc, 1)
    self.assertIn(f'{self.path}:24: not JSON', err)

  def testMissingCredentialsFile(self):
    rc, _, err = _Run(
        [self.path, '--table', _TABLE, '--credentials', '/no/key.json']
    )
    self.assertEqual(rc, 2)
    self.assertIn('must be a key file that exists', err)

  def testFailureKeepsSpoolAndNamesTable(self):
    port = ports.FreePort()
    before = os.path.getsize(self.path)
    rc, _, err = _Run([
        self.path, '--table', _TABLE, '--timeout', '1', '-q',
        '--endpoint', f'http://127.0.0.1:{port}',
    ])  # fmt: skip
    self.assertEqual(rc, 1)
    self.assertIn(f'cannot create or migrate {_TABLE}', err)
    self.assertIn('Connection refused', err)
    self.assertIn('re-run the same command', err)
    self.assertEqual(os.path.getsize(self.path), before)

  def testKeyFileContentNeverPrinted(self):
    secret = 'PRIVATE-KEY-0123456789'
    key = os.path.join(self.dir, 'key.json')
    with open(key, 'w') as f:
      f.write('{"type": "service_account", "private_key": "%s"}' % secret)
    rc, out, err = _Run([self.path, '--table', _TABLE, '--credentials', key])
    self.assertEqual(rc, 1)
    self.assertIn('not a service account key', err)
    self.assertNotIn(secret, out + err)
    self.assertNotIn(key, out + err)


class HostileSpoolTest(absltest.TestCase):
  """Bad spools and options end in one clear message, never a traceback."""

  def setUp(self):
    super().setUp()
    self.dir = self.create_tempdir().full_path
    self.path = spool.SpoolPath(self.dir, 'run-1')
    rows = [schema.RowFromSample(s) for s in synthetic.MakeSamples(5)]
    spool.Append(self.path, rows, batch_size=10)
    with open(self.path) as f:
      self.lines = f.read().splitlines()

  def _Write(self, lines):
    path = os.path.join(self.dir, 'bad.ndjson')
    with open(path, 'w') as f:
      f.write(''.join(l + '\n' for l in lines))
    return path

  def testNanValueNamesTheLine(self):
    for value in ('NaN', 'Infinity', '-Infinity'):
      lines = list(self.lines)
      lines[2] = re.sub(r'"value":[^,}]+', f'"value":{value}', lines[2])
      self.assertIn(value, lines[2])
      path = self._Write(lines)
      rc, out, err = _Run([path, '--table', _TABLE, '--dry-run'])
      self.assertEqual(rc, 1, out)
      self.assertIn(f'{path}:3: value is', err)
      self.assertIn('no NaN or infinity', err)
      self.assertNotIn('Traceback', err)

  def testNanInMetadataNamesTheColumn(self):
    lines = list(self.lines)
    lines[0] = lines[0].replace('"metadata":{', '"metadata":{"x":NaN,', 1)
    path = self._Write(lines)
    rc, _, err = _Run([path, '--table', _TABLE, '--dry-run'])
    self.assertEqual(rc, 1)
    self.assertIn(f'{path}:1: metadata.x is nan', err)

  def testEveryGarbageLineIsReported(self):
    lines = list(self.lines)
    lines[1] = 'garbage one'
    lines[3] = '[1, 2]'
    lines.append('{"torn": ')
    path = self._Write(lines)
    rc, out, err = _Run([path, '--table', _TABLE, '--dry-run'])
    self.assertEqual(rc, 1, out)
    self.assertIn('3 bad line(s)', err)
    self.assertIn(f'{path}:2: not JSON', err)
    self.assertIn(f'{path}:4: expected a JSON object', err)
    self.assertIn(f'{path}:6: not JSON', err)
    self.assertNotIn('would publish', out)

  def testManyBadLinesAreCounted(self):
    path = self._Write(self.lines[:1] + ['x'] * 50)
    rc, _, err = _Run([path, '--table', _TABLE, '--dry-run'])
    self.assertEqual(rc, 1)
    self.assertIn('50 bad line(s)', err)
    self.assertIn(f'... and {50 - spool.MAX_REPORTED_LINES} more', err)

  def testAFileOfNoSamplesNamesTheFilesThatWork(self):
    for first in ('x', '[1, 2]', '{"metric": "m", "value": 1}'):
      path = self._Write([first] + self.lines)
      rc, out, err = _Run([path, '--table', _TABLE, '--dry-run'])
      self.assertEqual((rc, out), (1, ''))
      self.assertEqual(len(err.splitlines()), 1, err)
      self.assertIn(f'{path}:1: ', err)
      self.assertIn('not a samples file publish can take', err)
      self.assertIn('perfkitbenchmarker_results.json', err)

  def testNonFiniteTimeoutRejectedUpFront(self):
    for value in ('nan', 'inf', '-inf', '0', '-1'):
      with mock.patch.object(
          bigquery, 'MakeClient', side_effect=AssertionError('network')
      ):
        rc, _, err = _Run([self.path, '--table', _TABLE, f'--timeout={value}'])
      self.assertEqual(rc, 2, value)
      self.assertIn('argument --timeout: must be a finite number > 0', err)
      self.assertNotIn('re-run the same command', err)


if __name__ == '__main__':
  absltest.main()
