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
"""One sample format: publish, report and compare take every sample file.

The files are made by their own writers from the 3x2 analysis fixture: the
publisher's spool (spool.AppendSamples), PKB's JSON results (its
NewlineDelimitedJSONPublisher, as --json_path writes them) and the samples
file of `pkb-ext local results` (results.Main, as `make local` runs it) made
from each of them.
"""

import contextlib
import io
import json
import os
import pathlib
import re
import shutil
import tempfile
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
from perfkitbenchmarker import publisher as pkb_publisher
from perfkitbenchmarker import sample

from pkb_ext.suite.object_storage import parser as ttfb
from pkb_ext.suite.object_storage import samples as os_samples

from pkb_ext import cli
from pkb_ext import timestamps
from pkb_ext.analysis import backends
from pkb_ext.local import results
from pkb_ext.publish import spool
from pkb_ext_dev import analysis_fixture as fx

_TABLE = 'my-project.dataset.samples'
_DATA = pathlib.Path(__file__).parent.parent / 'data'
_FORM = re.compile(r'^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\+00:00$')
_FILES = ('spool', 'pkb_json', 'results_of_spool', 'results_of_pkb_json')


def _Main(argv):
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    status = cli.main(argv)
  return status, out.getvalue(), err.getvalue()


def _Lines(path):
  with open(path, encoding='utf-8') as f:
    return [json.loads(line) for line in f if line.strip()]


class SampleFilesTest(parameterized.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.dir = tempfile.mkdtemp()
    cls.samples = fx.Samples()
    cls.paths = {
        name: os.path.join(cls.dir, f'{name}.ndjson') for name in _FILES
    }
    spool.AppendSamples(cls.paths['spool'], cls.samples, 100)
    pkb_publisher.NewlineDelimitedJSONPublisher(
        cls.paths['pkb_json']
    ).PublishSamples(cls.samples)
    with contextlib.redirect_stdout(io.StringIO()):
      for source in ('spool', 'pkb_json'):
        results.Main([cls.paths[source]], cls.paths[f'results_of_{source}'])

  @classmethod
  def tearDownClass(cls):
    shutil.rmtree(cls.dir)
    super().tearDownClass()

  def testTheFixtureIsAllPhaseSamples(self):
    # Else the results files would hold fewer samples than the others.
    self.assertTrue(all('phase' in s['metadata'] for s in self.samples))

  @parameterized.parameters('spool', 'results_of_spool', 'results_of_pkb_json')
  def testWhatPkbExtWritesHoldsOneTimestampForm(self, name):
    lines = _Lines(self.paths[name])
    self.assertLen(lines, len(self.samples))
    for line in lines:
      self.assertRegex(line['timestamp'], _FORM)
    by_uri = {s['sample_uri']: s['timestamp'] for s in self.samples}
    self.assertEqual(
        {line['sample_uri']: line['timestamp'] for line in lines},
        {uri: timestamps.Format(t) for uri, t in by_uri.items()},
    )

  @parameterized.parameters(*_FILES)
  def testPublishDryRunTakesEveryFile(self, name):
    status, out, err = _Main(
        ['publish', '--dry-run', '--table', _TABLE, self.paths[name]]
    )
    self.assertEqual((status, err), (0, ''))
    self.assertIn(f'would publish {len(self.samples)} rows', out)

  def testPublishDryRunTakesTheSamplesFileMakeLocalWrites(self):
    # scripts/local.sh: a main run and an object storage run per provider,
    # each spooled (--spool-dir) and in PKB's JSON (--json_path); then
    # `pkb-ext local results SPOOLS JSONS --out out/samples.ndjson --expect`.
    result = ttfb.Parse(
        (_DATA / 'ttfb' / 's3_boto3_complete.jsonl').read_text()
    )
    objects = [
        sample.Sample(
            s.metric,
            s.value,
            s.unit,
            s.metadata | {'phase': 'object_storage', 'cloud': 'AWS'},
            timestamp=1609462801.5,
        )
        for s in os_samples.FromResult(result)
    ]
    collector = pkb_publisher.SampleCollector(
        metadata_providers=[],
        publishers_from_flags=False,
        add_default_publishers=False,
    )
    collector.AddSamples(
        objects, 'cloud_report_object_storage', mock.Mock(uuid='os-s3-0')
    )
    spool_dir = os.path.join(self.dir, 'make_local', 'spool')
    inputs = [self.paths['spool'], self.paths['pkb_json']]
    inputs.append(spool.SpoolPath(spool_dir, 'os-s3'))
    spool.AppendSamples(inputs[-1], collector.samples, 10000)
    inputs.append(os.path.join(self.dir, 'make_local', 'pkb_samples_s3.json'))
    pkb_publisher.NewlineDelimitedJSONPublisher(inputs[-1]).PublishSamples(
        collector.samples
    )
    out = os.path.join(self.dir, 'make_local', 'samples.ndjson')
    status, stdout, err = _Main(
        ['local', 'results', *inputs, '--out', out]
        + ['--expect=cpu,io,net,tpcc,object_storage']
    )
    self.assertEqual(status, 0, err)
    rows = len(self.samples) + len(objects)
    self.assertIn(f'{rows} phase samples in {out}', stdout)
    status, stdout, err = _Main(
        ['publish', '--dry-run', '--table', 'p.d.t', out]
    )
    self.assertEqual((status, err), (0, ''))
    self.assertIn(f'would publish {rows} rows', stdout)

  def testTheResultsFileOfASpoolPublishesTheSpoolsRows(self):
    def Rows(path):
      contents = spool.Read([path], 1000)
      return {r['sample_uri']: r for b in contents.batches for r in b.rows}

    self.assertEqual(
        Rows(self.paths['results_of_spool']), Rows(self.paths['spool'])
    )

  def testASpoolAndItsResultsFileTogetherAreOneSetOfRows(self):
    contents = spool.Read(
        [self.paths['spool'], self.paths['results_of_spool']], 1000
    )
    self.assertEqual(contents.rows, len(self.samples))
    self.assertEqual(contents.duplicate_lines, len(self.samples))

  def testDuckDbLoadsTheSameTimesFromEveryFile(self):
    def Times(path):
      return {
          s['sample_uri']: (s['metric'], s['value'], s['timestamp'])
          for s in backends.ReadNdjson([path])
      }

    expected = Times(self.paths['spool'])
    self.assertLen(expected, len(self.samples))
    for name in _FILES[1:]:
      with self.subTest(file=name):
        self.assertEqual(Times(self.paths[name]), expected)

  def testReportAndCompareReadTheResultsFile(self):
    out = os.path.join(self.dir, 'report')
    status, stdout, err = _Main(
        ['report', '--samples', self.paths['results_of_spool'], '--out', out]
    )
    self.assertEqual(status, 0, err)
    self.assertIn(f'from {len(self.samples)} samples', stdout)
    out = os.path.join(self.dir, 'compare')
    status, stdout, err = _Main([
        'compare',
        self.paths['results_of_spool'],
        self.paths['pkb_json'],
        '--out',
        out,
    ])
    self.assertEqual(status, 0, err)
    self.assertTrue(os.path.isfile(os.path.join(out, 'compare.md')))

  def testAnOlderResultsFileIsRefusedNamingTheFilesThatWork(self):
    path = os.path.join(self.dir, 'older_results.ndjson')
    with open(path, 'w', encoding='utf-8') as f:
      for line in _Lines(self.paths['results_of_spool']):
        del line['sample_uri']
        f.write(json.dumps(line) + '\n')
    status, out, err = _Main(['publish', '--dry-run', '--table', _TABLE, path])
    self.assertEqual((status, out), (1, ''))
    self.assertLen(err.splitlines(), 1)
    self.assertIn(f'{path}:1: no sample_uri', err)
    self.assertIn('older `pkb-ext local results`', err)
    self.assertIn('perfkitbenchmarker_results.json', err)

  @parameterized.parameters('publish', 'report', 'compare')
  def testAFileOfNoSamplesNamesTheFilesThatWork(self, command):
    path = os.path.join(self.dir, 'table.csv')
    with open(path, 'w', encoding='utf-8') as f:
      f.write('metric,value\nm,1\n')
    argv = {
        'publish': ['publish', '--dry-run', '--table', _TABLE, path],
        'report': ['report', '--samples', path, '--out', self.dir + '/r'],
        'compare': ['compare', path, self.paths['spool']],
    }[command]
    status, out, err = _Main(argv)
    self.assertEqual((status, out), (1, ''))
    self.assertLen(err.splitlines(), 1)
    self.assertIn(f'{path}:1: not JSON', err)
    self.assertIn('not a samples file', err)
    self.assertIn('`pkb-ext local results`', err)


class TimestampsTest(parameterized.TestCase):

  @parameterized.parameters(
      (1609462801.0,),
      (1609462801,),
      ('2021-01-01 01:00:01.000000+00:00',),
      ('2021-01-01 01:00:01+00:00',),
      ('2021-01-01T01:00:01Z',),
      ('2021-01-01 01:00:01 UTC',),
      ('2021-01-01 01:00:01',),
      ('2021-01-01 02:00:01+01:00',),
  )
  def testEveryFormReadsAsTheOneForm(self, value):
    self.assertEqual(
        timestamps.Format(value), '2021-01-01 01:00:01.000000+00:00'
    )

  @parameterized.parameters(
      ('soon',), ('',), (True,), (None,), ([],), (1e20,), (float('nan'),)
  )
  def testWhatIsNoTimeIsRefused(self, value):
    with self.assertRaises(ValueError):
      timestamps.Format(value)


if __name__ == '__main__':
  absltest.main()
