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

import collections
import datetime
import enum
import fcntl
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
from pkb_ext_dev import synthetic


def _Rows(n, run_uri='run-a', seed=0):
  return [
      schema.RowFromSample(s)
      for s in synthetic.MakeSamples(n, run_uri=run_uri, seed=seed)
  ]


class _Tag(str, enum.Enum):
  A = 'a'


# Sample fields that RowFromSample converts (NaN and infinity, non-str keys,
# nested and non-JSON values, a labels string instead of metadata, odd
# timestamps) and whether a row holds an int orjson refuses.
_HOSTILE_BIG = (
    ({'value': float('nan')}, False),
    ({'value': float('inf'), 'official': 1}, False),
    ({'value': -0.0, 'official': None, 'test': None}, False),
    ({'value': 2**70}, False),  # a FLOAT column: converted
    ({'metadata': {'a': float('nan'), 'b': float('-inf'), 'c': -0.0}}, False),
    ({'metadata': {'a': 1.5, 'b': 1e300, 'c': 5e-324, 'd': True}}, False),
    ({'metadata': {'big': 2**70}}, True),
    ({'metadata': {'neg': -(2**64)}}, True),
    ({'metadata': {'max': 2**63 - 1, 'min': -(2**63)}}, False),
    ({'metadata': {1: 'a', 2.5: 'b', None: 'c', True: 'd'}}, False),
    ({'metadata': {('t', 1): 1, 'b': 2}}, False),
    ({'metadata': {'x': [{'cloud': 1}, {'cloud': 2}], 'cloud': 'GCP'}}, False),
    ({'metadata': {'n': {'b': {'z': [1, (2, 3)], 'a': None}, 3: 'x'}}}, False),
    (
        {
            'metadata': {
                's': {3, 1, 2},
                'e': _Tag.A,
                'd': datetime.date(2021, 2, 1),
            }
        },
        False,
    ),
    (
        {'metadata': {'q': '"},{"cloud":', 'u': 'é\n\x00\u2028', '%s': '%'}},
        False,
    ),
    ({'metadata': {'c:d|': '|,|', 'cloud': 7}}, False),
    ({'metadata': {}}, False),
    ({'metadata': None, 'labels': '|cloud:AWS|,|vcpus:16|,|a:b:c|'}, False),
    ({'metadata': 'not a dict', 'labels': None}, False),
    ({'metadata': collections.OrderedDict(b=1, a=2)}, False),
    ({'timestamp': 1612137600}, False),
    ({'timestamp': '1612137600.5'}, False),
    ({'timestamp': -1.0000005}, False),
    ({'timestamp': 1612137600.9999996}, False),
    ({'sample_uri': 12345, 'run_uri': 7, 'metric': 3.5}, False),
)
_HOSTILE = [h for h, _ in _HOSTILE_BIG]
_BIG = [big for _, big in _HOSTILE_BIG]


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

  def testAppendHoldsALockOtherProcessesWaitFor(self):
    spool.Append(self.path, _Rows(1), batch_size=2)  # the file exists
    held = []

    def Fsync(fd):
      # flock conflicts between open file descriptions, as between processes.
      with open(self.path, 'rb') as other:
        try:
          fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
          held.append(True)
        else:
          held.append(False)
      real_fsync(fd)

    real_fsync = os.fsync
    with mock.patch.object(os, 'fsync', side_effect=Fsync):
      spool.AppendSamples(
          self.path, synthetic.MakeSamples(2, run_uri='run-a'), 2
      )
    self.assertEqual(held, [True])

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
      ('no_metric', '{"value": 1}\n', r':1: no metric, timestamp, run_uri'),
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
    with open(self.path, encoding='utf-8', newline='') as f:
      return f.read().split('\n')[:-1]  # not splitlines: U+2028 is in rows

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

  def _CheckAppendSamples(self, samples, batch_size):
    """AppendSamples writes, line for line, the JSON values of the json
    module's encoding of RowFromSample's rows, keyed, keys sorted."""
    if os.path.exists(self.path):
      os.remove(self.path)
    spool.AppendSamples(self.path, samples, batch_size)
    want = [
        spool._Dumps(r)
        for r in spool.KeyRows(
            [schema.RowFromSample(s) for s in samples], batch_size
        )
    ]
    lines = self._Lines()
    self.assertLen(lines, len(want))
    for line, text in zip(lines, want):
      self.assertEqual(spool._Dumps(json.loads(line)), text)
      self.assertEqual(list(json.loads(line)), sorted(json.loads(text)))

  @parameterized.named_parameters(
      ('one_per_batch', 1), ('three_per_batch', 3), ('one_batch', 100)
  )
  def testAppendSamplesHostileSamples(self, batch_size):
    synthetic_samples = synthetic.MakeSamples(12, run_uri='run-a')
    hostile = []
    for i, overrides in enumerate(_HOSTILE):
      sample = dict(synthetic_samples[i % 12]) | overrides
      sample['sample_uri'] = f'hostile-{i}'
      hostile.append(sample)
    encodable = [s for s, big in zip(hostile, _BIG) if not big]
    # Hostile rows first, last, among others and alone; those orjson
    # refuses (an int beyond 64 bits) with the others and on their own.
    for samples in (
        encodable,
        encodable + synthetic_samples,
        synthetic_samples + encodable,
        synthetic_samples[:5] + encodable + synthetic_samples[5:],
        hostile,
        synthetic_samples[:5] + hostile + synthetic_samples[5:],
    ):
      self._CheckAppendSamples(samples, batch_size)
    for sample in hostile:
      self._CheckAppendSamples([sample], batch_size)

  def testAppendSamplesEncodesAllRowsAtOnce(self):
    # The hostile rows orjson accepts go through the one-call path, the rest
    # line by line.
    samples = synthetic.MakeSamples(3, run_uri='run-a')
    rows = spool.KeyRows([schema.RowFromSample(s) for s in samples], 2)
    self.assertLen(spool._Lines(rows), 2)  # the lines in one buffer, '\n'
    big = rows[:2] + [rows[2] | {'value_int': 2**70}]
    self.assertLen(spool._Lines(big), 3)

  @parameterized.named_parameters(
      # A nested list of objects whose first key is the rows' first key: its
      # '},{"cloud":' must not split a row, wherever it is.
      ('nested_boundary', {'x': [{'cloud': 1}, {'cloud': 2}]}),
      ('two_nested', {'x': [{'cloud': 1}, {'cloud': 2}, {'cloud': 3}]}),
      ('boundary_in_a_string', {'x': '},{"cloud":', 'y': '"},{"cloud":'}),
      ('int_beyond_64_bits', {'x': 2**70}),
      ('unicode', {'zone': 'europe-wést1', 'emoji': '\U0001f600'}),
  )
  def testAwkwardRows(self, metadata):
    for n in (1, 2, 3):
      for at in range(n):
        rows = _Rows(n)
        rows[at] = rows[at] | {'metadata': rows[at]['metadata'] | metadata}
        keyed = spool.KeyRows(rows, 4)
        for first_key in (None, 'cloud'):
          lines = b''.join(spool._Lines(keyed, first_key)).decode()
          self.assertEqual(
              [json.loads(line) for line in lines.splitlines()], keyed
          )
          self.assertTrue(lines.endswith('}\n'))

  def testRowsWithOtherFirstKeys(self):
    rows = [{'b': 1, 'sample_uri': 'u1'}, {'a': 2, 'sample_uri': 'u2'}]
    lines = b''.join(spool._Lines(rows)).decode().splitlines()
    self.assertEqual([json.loads(line) for line in lines], rows)

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
        b''.join(spool._Lines(rows)),
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
