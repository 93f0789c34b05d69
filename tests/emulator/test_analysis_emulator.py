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
"""The analysis SQL on the BigQuery emulator equals the same SQL on DuckDB.

The 3x2 fixture is published the way PKB runs publish (spool -> load job,
pkb_ext.publish) into a table of the emulator (local-bigquery, started on a
loopback port and stopped by PID); every view is then run on it untranslated
and compared, row by row, with DuckDB running the sqlglot transpilation of
the same files on the fixture NDJSON.
"""

import os
import shutil
import tempfile

from absl.testing import absltest

from pkb_ext import paths
from pkb_ext.analysis import backends
from pkb_ext.analysis import cli
from pkb_ext.analysis import runner
from pkb_ext.publish import bigquery
from pkb_ext.publish import ids
from pkb_ext.publish import schema
from pkb_ext.publish import spool
from pkb_ext_dev import analysis_fixture as fx
from pkb_ext_dev import bq_emulator

FIXTURE = os.path.join(
    paths.RepoRoot(), 'tests', 'data', 'analysis', 'samples_3x2.ndjson'
)
VIEWS = (
    'samples_flat',
    'configs',
    'benchmark_runs',
    'tpcc_steps',
    'tpcc_runs',
    'tpcc_results',
    'benchmark_values',
    'machine_aggregates',
    'ranking',
    'ranking_table',
    'flags',
)


_Rows = bq_emulator.ComparableRows


class AnalysisEmulatorTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.emulator = bq_emulator.StartedOrSkip()
    cls.dir = tempfile.mkdtemp()
    cls.table = f'{bq_emulator.PROJECT}.analysis.samples'
    path = spool.SpoolPath(cls.dir, 'fixture')
    spool.Append(path, [schema.RowFromSample(s) for s in fx.Samples()], 500)
    target = bigquery.Target(
        ids.ParseTableId(cls.table),
        endpoint=cls.emulator.endpoint,
        timeout_s=30,
    )
    cls.contents, _ = bigquery.PublishFiles(
        target, [path], client=cls.emulator.Client()
    )
    cls.bq = runner.Analysis(
        backends.BigQueryBackend(cls.emulator.Client(), cls.table)
    )
    duck = backends.DuckDbBackend()
    duck.LoadNdjson([FIXTURE])
    cls.duck = runner.Analysis(duck)

  @classmethod
  def tearDownClass(cls):
    cls.emulator.Close()
    shutil.rmtree(cls.dir, ignore_errors=True)
    super().tearDownClass()

  def testEveryRowPublished(self):
    self.assertEqual(self.contents.rows, len(fx.Samples()))

  def testSameResultsAsDuckDb(self):
    for view in VIEWS:
      with self.subTest(view=view):
        on_bq = self.bq.Query(view)
        on_duck = self.duck.Query(view)
        self.assertNotEmpty(on_bq)
        self.assertEqual(_Rows(on_bq), _Rows(on_duck))

  def testRankingOnTheEmulator(self):
    table = {r['benchmark']: r for r in self.bq.Query('ranking_table')}
    for benchmark, keys in fx.EXPECTED_RANKING.items():
      got = tuple(
          (table[benchmark][f'{p}_cloud'], table[benchmark][f'{p}_machine'])
          for p in ('first', 'second', 'third')
      )
      self.assertEqual(got, tuple(fx.CONFIGS[k][:2] for k in keys), benchmark)

  def testPersistentViewsGiveTheSameTable(self):
    dataset = f'{bq_emulator.PROJECT}.analysis'
    self.bq.backend.Execute(self.bq.ViewStatements(dataset, 'cr_'))
    persisted = self.bq.backend.Query(
        f'SELECT * FROM `{dataset}.cr_ranking_table`'
    )
    self.assertEqual(_Rows(persisted), _Rows(self.bq.Query('ranking_table')))

  def testReportCliOnTheTable(self):
    out = tempfile.mkdtemp(dir=self.dir)
    code = cli.Main([
        '--table',
        self.table,
        '--out',
        out,
        '--bigquery-endpoint',
        self.emulator.endpoint,
    ])
    self.assertEqual(code, 0)
    with open(os.path.join(out, 'report.md'), encoding='utf-8') as f:
      self.assertIn('AWS c5a.4xlarge / gp2 (0.813)', f.read())
    self.assertGreater(
        os.path.getsize(os.path.join(out, 'chart_tpcc_steps.png')), 5000
    )


if __name__ == '__main__':
  absltest.main()
