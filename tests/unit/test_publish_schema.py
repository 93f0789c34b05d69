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
"""Tests for schema.json and the sample -> row conversion."""

import datetime
import enum
import json
import math
import os
import random
import shutil
import tempfile

from absl.testing import absltest
from absl.testing import parameterized
from perfkitbenchmarker import publisher as pkb_publisher
from perfkitbenchmarker import sample as pkb_sample

from pkb_ext.publish import schema
from pkb_ext_dev import synthetic

_PKB_COLUMNS = (
    'metric', 'value', 'unit', 'timestamp', 'test', 'official', 'owner',
    'run_uri', 'sample_uri', 'labels', 'product_name',
)  # fmt: skip


def _PkbSample(**overrides):
  """A sample dict as PKB's SampleCollector.AddSamples makes it."""
  s = pkb_sample.Sample(
      'coremark_score',
      26800.5,
      'iterations/s',
      {'cloud': 'AWS', 'phase': 'cpu', 'iteration': 3, 'vcpus': 16},
      timestamp=1612137600.123456,
  ).asdict()
  s.update(
      test='cloud_report_2021',
      product_name='PerfKitBenchmarker',
      official=False,
      owner='me',
      run_uri='abcd1234-uuid',
      sample_uri='5f1c-uuid',
  )
  s.update(overrides)
  return s


class SpecTest(absltest.TestCase):

  def testCheckedInSchema(self):
    spec = schema.Load()
    for column in _PKB_COLUMNS + ('metadata', 'schema_version', 'cloud'):
      self.assertIn(column, spec.names)
    self.assertLen(set(spec.names), len(spec.names))
    types = {f.name: f.type for f in spec.fields}
    self.assertEqual(types['metadata'], 'JSON')
    self.assertEqual(types['timestamp'], 'TIMESTAMP')
    self.assertEqual((spec.partition_type, spec.partition_field),
                     ('DAY', 'timestamp'))  # fmt: skip
    self.assertEqual(spec.clustering, ('test', 'metric', 'cloud'))
    self.assertGreaterEqual(spec.version, 1)
    for field in spec.fields:
      self.assertLessEqual(field.since, spec.version, field.name)

  def testPartitionFieldMustExist(self):
    directory = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, directory)
    path = os.path.join(directory, 'schema.json')
    with open(path, 'w') as f:
      json.dump(
          {
              'schema_version': 1,
              'time_partitioning': {'type': 'DAY', 'field': 'when'},
              'clustering': [],
              'fields': [{'name': 'x', 'type': 'STRING'}],
          },
          f,
      )
    with self.assertRaisesRegex(schema.SchemaError, "'when' is not a column"):
      schema.Load(path)


class RowFromSampleTest(parameterized.TestCase):

  def testPkbColumnsMetadataAndCloud(self):
    row = schema.RowFromSample(_PkbSample())
    self.assertEqual(list(row), list(schema.Load().names))
    self.assertEqual(row['metric'], 'coremark_score')
    self.assertEqual(row['value'], 26800.5)
    self.assertEqual(row['unit'], 'iterations/s')
    self.assertEqual(row['timestamp'], '2021-02-01 00:00:00.123456+00:00')
    self.assertEqual(row['metadata']['iteration'], 3)
    self.assertEqual(row['cloud'], 'AWS')
    self.assertEqual(row['schema_version'], schema.Load().version)
    self.assertIs(row['official'], False)
    self.assertEqual(
        row['labels'], pkb_publisher.GetLabelsFromDict(_PkbSample()['metadata'])
    )
    json.dumps(row, allow_nan=False)  # strict JSON

  def testNonFiniteValuesAreNotJsonNaN(self):
    row = schema.RowFromSample(
        _PkbSample(
            value=math.nan,
            metadata={'a': math.inf, 'b': [1.5, -math.inf], 'c': {2: None}},
        )
    )
    self.assertIsNone(row['value'])
    self.assertEqual(row['metadata'], {'a': 'inf', 'b': [1.5, '-inf'],
                                       'c': {'2': None}})  # fmt: skip
    json.dumps(row, allow_nan=False)

  def testOtherMetadataTypesBecomeStrings(self):
    row = schema.RowFromSample(
        _PkbSample(metadata={'s': {'b', 'a'}, 'o': object.__name__, 't': (1,)})
    )
    self.assertEqual(row['metadata'], {'s': ['a', 'b'], 'o': 'object',
                                       't': [1]})  # fmt: skip

  def testPkbLabelsOnly(self):
    sample = _PkbSample()
    sample['labels'] = pkb_publisher.GetLabelsFromDict(sample.pop('metadata'))
    row = schema.RowFromSample(sample)
    self.assertEqual(row['cloud'], 'AWS')
    self.assertEqual(row['metadata']['iteration'], '3')  # labels are strings

  def testNoCloud(self):
    self.assertIsNone(schema.RowFromSample(_PkbSample(metadata={}))['cloud'])

  @parameterized.parameters('metric', 'timestamp', 'run_uri', 'sample_uri')
  def testRequired(self, name):
    with self.assertRaisesRegex(schema.SchemaError, f'no {name}'):
      schema.RowFromSample(_PkbSample(**{name: None}))

  def testSyntheticSamplesHaveCommonMetadata(self):
    for s in synthetic.MakeSamples(14):
      row = schema.RowFromSample(s)
      for key in ('cloud', 'region', 'zone', 'machine_type', 'vcpus', 'phase',
                  'iteration', 'report_version'):  # fmt: skip
        self.assertIn(key, row['metadata'])
      schema.CheckRow(row)


def _ReferenceRow(sample):
  """The row as the straightforward conversion makes it: every metadata
  value through _Jsonable, PKB's own GetLabelsFromDict, strftime."""
  metadata = schema._Jsonable(schema._Metadata(sample))
  value = sample.get('value')
  value = float(value) if value is not None else None
  if value is not None and not math.isfinite(value):
    value = None
  official = sample.get('official')
  when = datetime.datetime.fromtimestamp(
      float(sample['timestamp']), tz=datetime.timezone.utc
  )
  return {
      'timestamp': when.strftime('%Y-%m-%d %H:%M:%S.%f+00:00'),
      'test': sample.get('test'),
      'metric': str(sample['metric']),
      'value': value,
      'unit': sample.get('unit'),
      'official': None if official is None else bool(official),
      'owner': sample.get('owner'),
      'run_uri': str(sample['run_uri']),
      'sample_uri': str(sample['sample_uri']),
      'labels': pkb_publisher.GetLabelsFromDict(metadata),
      'product_name': sample.get('product_name'),
      'metadata': metadata,
      'cloud': metadata.get('cloud'),
      'schema_version': schema.Load().version,
  }


class _Color(str, enum.Enum):
  RED = 'red'


class FastPathTest(parameterized.TestCase):
  """RowFromSample's fast path gives the reference row, byte for byte."""

  def _Check(self, sample):
    got, want = schema.RowFromSample(sample), _ReferenceRow(sample)
    self.assertEqual(got, want)
    self.assertEqual(
        json.dumps(got, sort_keys=True), json.dumps(want, sort_keys=True)
    )
    self.assertEqual(list(got), list(schema.Load().names))

  def testSyntheticSamples(self):
    for s in synthetic.MakeSamples(200, seed=3):
      self._Check(s)

  _METADATA = (
      ('floats', {'a': 1.5, 'b': -0.0, 'c': 1e300, 'd': 3}),
      ('non_finite', {'a': math.nan, 'b': 1.0}),
      ('bools_and_none', {'t': True, 'f': False, 'n': None, 'i': 1}),
      ('percent_in_key', {'a%sb': 'x', '%': '%s', 'c:d|': '|,|'}),
      ('unicode', {'zone': 'europe-wést1', 'é': 'ü\n'}),
      ('nested', {'a': {'y': 1, 'x': [1, 2]}, 'b': 2}),
      ('int_keys', {1: 'a', 2: 'b'}),
      ('mixed_keys', {1: 'a', 'b': 'c'}),
      ('enum_value', {'color': _Color.RED}),
      ('empty', {}),
      ('one_key', {'only': 1}),
  )

  @parameterized.named_parameters(*_METADATA)
  def testMetadata(self, metadata):
    self._Check(_PkbSample(metadata=metadata))

  def testSameKeysInAnotherOrderAndOtherTypes(self):
    # Key tuples are cached; one with the same keys but other value types
    # or order must still convert like the reference.
    self._Check(_PkbSample(metadata={'a': 1, 'b': 'x'}))
    self._Check(_PkbSample(metadata={'b': 'y', 'a': 2}))
    self._Check(_PkbSample(metadata={'a': [1], 'b': 'x'}))
    self._Check(_PkbSample(metadata={'a': math.inf, 'b': 'x'}))
    self._Check(_PkbSample(metadata={1: 1, 'b': 'x'}))
    self._Check(_PkbSample(metadata={True: 1, 'b': 'x'}))

  def testRowsFromSamples(self):
    # The one-loop conversion, its caches warm (each sample twice): equal
    # to the reference for synthetic samples, every metadata case above and
    # timestamps on half-microsecond edges in seconds formatted before.
    samples = synthetic.MakeSamples(50, seed=4)
    for metadata in [p[1] for p in self._METADATA]:
      samples.append(_PkbSample(metadata=metadata))
    for ts in (
        1612137600.0,
        1612137600.0000005,
        1612137600.9999996,
        -1.25,
        -0.0000004,
        0.5,
        1612137601.0000015,
        1612137600.9999994,
    ):
      samples.append(_PkbSample(timestamp=ts))
    samples += samples
    rows = schema.RowsFromSamples(samples)
    self.assertEqual(rows, [_ReferenceRow(s) for s in samples])
    self.assertEqual(
        [json.dumps(r, sort_keys=True) for r in rows],
        [json.dumps(_ReferenceRow(s), sort_keys=True) for s in samples],
    )

  def testRowsFromSamplesShareFlatMetadata(self):
    flat, nested = _PkbSample(), _PkbSample(metadata={'a': {'b': 1}})
    rows = schema.RowsFromSamples([flat, nested])
    self.assertIs(rows[0]['metadata'], flat['metadata'])
    self.assertIsNot(rows[1]['metadata'], nested['metadata'])

  def testMetadataIsACopy(self):
    sample = _PkbSample(metadata={'a': 1})
    row = schema.RowFromSample(sample)
    sample['metadata']['a'] = 2
    self.assertEqual(row['metadata'], {'a': 1})

  @parameterized.parameters(
      0.0, 0.5, 1612137600.0000005, 1612137600.9999996, -1.25, -0.0000004,
      253402300799.0, -30610224000.0, -62135596800.0,
  )  # fmt: skip
  def testTimestamps(self, ts):
    self._Check(_PkbSample(timestamp=ts))

  def testTimestampsLikeDatetime(self):
    # Half-microsecond edges (rounded half to even), negative times, years
    # below 1000, and values anywhere in range.
    rng = random.Random(7)
    values = [rng.uniform(-6e10, 2.5e11) for _ in range(3000)]
    values += [x + 0.5e-6 * j for x in (0.0, 1.0, -1.0, 1612137600.0)
               for j in range(-5, 6)]  # fmt: skip
    for ts in values:
      want = datetime.datetime.fromtimestamp(
          ts, tz=datetime.timezone.utc
      ).strftime('%Y-%m-%d %H:%M:%S.%f+00:00')
      self.assertEqual(schema.FormatTimestamp(ts), want, ts)
    for bad in (math.nan, math.inf):
      with self.assertRaises((ValueError, OverflowError)):
        schema.FormatTimestamp(bad)


class CheckRowTest(absltest.TestCase):

  def testUnknownAndMissing(self):
    row = schema.RowFromSample(_PkbSample())
    with self.assertRaisesRegex(schema.SchemaError, 'unknown column.*extra'):
      schema.CheckRow(row | {'extra': 1})
    with self.assertRaisesRegex(schema.SchemaError, 'missing.*sample_uri'):
      schema.CheckRow(row | {'sample_uri': ''})


class PlanMigrationTest(absltest.TestCase):

  def testAddsMissingColumnsAsNullable(self):
    old = [('metric', 'STRING'), ('value', 'FLOAT64'), ('timestamp',
           'TIMESTAMP'), ('extra_kept', 'STRING')]  # fmt: skip
    added = schema.PlanMigration(old)
    names = [f.name for f in added]
    self.assertNotIn('metric', names)
    self.assertIn('metadata', names)
    self.assertIn('schema_version', names)
    self.assertTrue(all(f.mode == 'NULLABLE' for f in added))
    self.assertEqual(names, [n for n in schema.Load().names if n in names])

  def testUpToDate(self):
    current = [(f.name, f.type) for f in schema.Load().fields]
    self.assertEqual(schema.PlanMigration(current), [])

  def testRetypeRefused(self):
    with self.assertRaisesRegex(schema.SchemaError, 'value is STRING'):
      schema.PlanMigration([('value', 'STRING')])


if __name__ == '__main__':
  absltest.main()
