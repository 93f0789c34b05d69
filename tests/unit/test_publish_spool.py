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
"""Tests for the NDJSON spool: durable appends and stable batches."""

import gc
import json
import os
import shutil
import tempfile
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized

from pkb_ext.publish import schema
from pkb_ext.publish import spool
from pkb_ext.publish import synthetic


def _Rows(n, run_uri='run-a', seed=0):
  return [
      schema.RowFromSample(s)
      for s in synthetic.MakeSamples(n, run_uri=run_uri, seed=seed)
  ]


class SpoolTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    self.dir = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, self.dir)
    self.path = spool.SpoolPath(self.dir, 'run a/1')

  def _Write(self, text):
    with open(self.path, 'w') as f:
      f.write(text)

  def testPathIsSafe(self):
    self.assertEqual(
        os.path.basename(self.path), 'cloud_report_samples-run_a_1.ndjson'
    )

  def testAppendFsyncsBeforeReturning(self):
    with mock.patch.object(os, 'fsync', wraps=os.fsync) as fsync:
      spool.Append(self.path, _Rows(3), batch_size=2)
    self.assertGreaterEqual(fsync.call_count, 2)  # the file and its new dir
    with open(self.path) as f:
      lines = [json.loads(line) for line in f]
    self.assertLen(lines, 3)
    keys = [line[spool.BATCH_KEY] for line in lines]
    self.assertEqual(keys[0], keys[1])
    self.assertNotEqual(keys[1], keys[2])

  def testRoundTrip(self):
    rows = _Rows(25)
    spool.Append(self.path, rows, batch_size=10)
    contents = spool.Read([self.path], batch_size=10)
    self.assertEqual([len(b.rows) for b in contents.batches], [10, 10, 5])
    self.assertEqual([r for b in contents.batches for r in b.rows], rows)
    self.assertEqual(contents.rows, 25)
    batch = contents.batches[0]
    self.assertEqual(batch.run_uri, 'run-a')
    loaded = [json.loads(line) for line in batch.payload.splitlines()]
    self.assertEqual(loaded, list(batch.rows))
    self.assertNotIn(spool.BATCH_KEY, loaded[0])

  def testBatchesStableAcrossAppendsAndBatchSizes(self):
    spool.Append(self.path, _Rows(7, seed=1), batch_size=5)
    first = spool.Read([self.path], batch_size=5).batches
    spool.Append(self.path, _Rows(4, seed=2), batch_size=5)
    later = spool.Read([self.path], batch_size=3).batches
    # Earlier batches are unchanged, so their load job ids are too.
    self.assertEqual(later[: len(first)], first)
    self.assertEqual([len(b.rows) for b in later], [5, 2, 4])

  def testSameFileTwiceIgnoresDuplicates(self):
    spool.Append(self.path, _Rows(6), batch_size=4)
    once = spool.Read([self.path], batch_size=4)
    twice = spool.Read([self.path, self.path], batch_size=4)
    self.assertEqual(twice.batches, once.batches)
    self.assertEqual(twice.duplicate_lines, 6)

  def testConflictingDuplicate(self):
    rows = _Rows(2)
    spool.Append(self.path, rows, batch_size=4)
    spool.Append(self.path, [rows[0] | {'value': -1.0}], batch_size=4)
    with self.assertRaisesRegex(spool.SpoolError, r':3: sample_uri .* twice'):
      spool.Read([self.path], batch_size=4)

  def testPkbSampleLinesWithoutKeysAreBatchedBySize(self):
    lines = synthetic.MakeSamples(5)
    self._Write(''.join(json.dumps(s) + '\n' for s in lines))
    contents = spool.Read([self.path], batch_size=2)
    self.assertEqual([len(b.rows) for b in contents.batches], [2, 2, 1])
    self.assertTrue(all(b.key.startswith('auto-') for b in contents.batches))
    self.assertEqual(
        contents.batches[0].rows[0], schema.RowFromSample(lines[0])
    )

  def testTornLastLineIsKeptApartAndReported(self):
    spool.Append(self.path, _Rows(2), batch_size=4)
    with open(self.path, 'a') as f:
      f.write('{"metric": "torn')
    with self.assertRaisesRegex(spool.SpoolError, r':3: not JSON \(truncated'):
      spool.Read([self.path], batch_size=4)
    spool.Append(self.path, _Rows(1, seed=5), batch_size=4)
    with open(self.path) as f:
      lines = f.read().splitlines()
    self.assertEqual(lines[2], '{"metric": "torn')
    json.loads(lines[3])  # the new row is intact on its own line

  @parameterized.named_parameters(
      ('not_json', 'nope\n', r':1: not JSON'),
      ('array', '[1, 2]\n', r':1: expected a JSON object, got list'),
      ('no_metric', '{"value": 1}\n', r':1: sample has no metric'),
      (
          'unknown_column',
          '{"schema_version": 1, "metric": "m", "bogus": 1}\n',
          r':1: unknown column\(s\) bogus',
      ),
      (
          'missing_required',
          '{"schema_version": 1, "metric": "m"}\n',
          r':1: missing required column\(s\) timestamp, run_uri, sample_uri',
      ),
      ('bad_utf8', b'\xff\xfe\n', 'cannot read spool'),
  )
  def testBadLines(self, content, message):
    mode = 'wb' if isinstance(content, bytes) else 'w'
    with open(self.path, mode) as f:
      f.write(content)
    with self.assertRaisesRegex(spool.SpoolError, message):
      spool.Read([self.path], batch_size=4)

  def testMissingFile(self):
    with self.assertRaisesRegex(spool.SpoolError, 'cannot read spool .*nope'):
      spool.Read([os.path.join(self.dir, 'nope')], batch_size=4)

  def testBlankLinesSkipped(self):
    spool.Append(self.path, _Rows(2), batch_size=4)
    with open(self.path, 'a') as f:
      f.write('\n  \n')
    self.assertEqual(spool.Read([self.path], batch_size=4).rows, 2)

  def testUnwritable(self):
    blocker = os.path.join(self.dir, 'file')
    self._Write('')
    os.rename(self.path, blocker)
    with self.assertRaisesRegex(spool.SpoolError, 'cannot write spool'):
      spool.Append(os.path.join(blocker, 'x.ndjson'), _Rows(1), batch_size=4)

  def _Lines(self):
    with open(self.path, encoding='utf-8') as f:
      return f.read().splitlines()

  def testAppendSamplesWritesTheJsonModulesValues(self):
    samples = synthetic.MakeSamples(40, run_uri='run-a')
    spool.AppendSamples(self.path, samples, 16)
    keyed = spool.KeyRows([schema.RowFromSample(s) for s in samples], 16)
    lines = self._Lines()
    self.assertLen(lines, 40)
    self.assertEqual([json.loads(line) for line in lines], keyed)
    for line, row in zip(lines, keyed):
      self.assertEqual(list(json.loads(line)), sorted(row))  # keys sorted
    self.assertEqual(
        spool.Read([self.path], 16).batches[0].payload,
        ''.join(
            spool._Dumps(schema.RowFromSample(s)) + '\n' for s in samples[:16]
        ).encode(),
    )

  @parameterized.named_parameters(
      # A nested list of objects whose first key is the rows' first key: its
      # '},{"cloud":' must not split a row.
      ('nested_boundary', {'x': [{'cloud': 1}, {'cloud': 2}]}),
      ('boundary_in_a_string', {'x': '},{"cloud":', 'y': '"},{"cloud":'}),
      ('int_beyond_64_bits', {'x': 2**70}),
      ('unicode', {'zone': 'europe-wést1', 'emoji': '\U0001f600'}),
  )
  def testAwkwardRows(self, metadata):
    rows = _Rows(3)
    rows[1] = rows[1] | {'metadata': rows[1]['metadata'] | metadata}
    keyed = spool.KeyRows(rows, 4)
    lines = spool._Lines(keyed).decode().splitlines()
    self.assertLen(lines, 3)
    self.assertEqual([json.loads(line) for line in lines], keyed)

  def testRowsWithOtherFirstKeys(self):
    rows = [{'b': 1, 'sample_uri': 'u1'}, {'a': 2, 'sample_uri': 'u2'}]
    self.assertEqual(
        [json.loads(l) for l in spool._Lines(rows).decode().splitlines()],
        rows,
    )

  def testAppendRefusesNaNLikeTheJsonModule(self):
    row = _Rows(1)[0] | {'value': float('nan')}
    with self.assertRaises(ValueError):
      spool.Append(self.path, [row], batch_size=4)

  def testEncoder(self):
    self.assertRegex(spool.Encoder(), r'^(orjson \d|json \(stdlib\))')

  @mock.patch.object(spool, 'orjson', None)
  def testWithoutOrjson(self):
    rows = spool.KeyRows(_Rows(5), 4)
    self.assertEqual(spool.Encoder(), 'json (stdlib)')
    self.assertEqual(
        spool._Lines(rows),
        ''.join(spool._Dumps(r) + '\n' for r in rows).encode(),
    )

  def testAppendSamplesConvertsAndRestoresTheCollector(self):
    samples = synthetic.MakeSamples(5, run_uri='run-a')
    self.assertTrue(gc.isenabled())
    self.assertEqual(spool.AppendSamples(self.path, samples, 4), 5)
    self.assertTrue(gc.isenabled())
    self.assertEqual(
        spool.Read([self.path], 4).batches[0].rows,
        tuple(schema.RowFromSample(s) for s in samples[:4]),
    )
    with self.assertRaises(schema.SchemaError):
      spool.AppendSamples(self.path, [{'value': 1}], 4)
    self.assertTrue(gc.isenabled())
    gc.disable()
    try:
      spool.AppendSamples(self.path, samples[:1], 4)
      self.assertFalse(gc.isenabled())  # left as it was
    finally:
      gc.enable()

  def testBatchSizeMustBePositive(self):
    with self.assertRaises(ValueError):
      spool.KeyRows(_Rows(1), 0)
    with self.assertRaises(ValueError):
      spool.Read([], 0)


if __name__ == '__main__':
  absltest.main()
