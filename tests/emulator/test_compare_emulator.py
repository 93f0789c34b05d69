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
"""The comparison views on the BigQuery emulator equal them on DuckDB.

Side A is the 3x2 fixture, side B the same runs with the read IOPS 10 %
higher and the single-core CoreMark 10 % lower, both published the way PKB
runs publish (spool -> load job) into tables of the emulator
(local-bigquery). Every comparison view runs there untranslated and on
DuckDB transpiled, and the rows must agree; so must the 2021 baseline
comparison, the persistent views and `pkb-ext compare` on the tables.
"""

import contextlib
import copy
import io
import os
import shutil
import tempfile

from absl.testing import absltest

from pkb_ext.analysis import backends
from pkb_ext.analysis import baseline
from pkb_ext.analysis import compare
from pkb_ext.analysis import compare_cli
from pkb_ext.analysis import runner
from pkb_ext.publish import bigquery
from pkb_ext.publish import ids
from pkb_ext.publish import schema
from pkb_ext.publish import spool
from pkb_ext_dev import analysis_fixture as fx
from pkb_ext_dev import bq_emulator

VIEWS = (
    'compare_report_versions',
    'compare_sides',
    'compare_matches',
    'compare_runs',
    'compare_welch',
    'compare_mann_whitney',
    'compare_benchmarks',
)


def SideB() -> list[dict]:
  rows = []
  for r in fx.Samples():
    r = copy.deepcopy(r)
    if r['metric'] == 'fio_iops' and r['metadata']['fio_job'] == 'rd-iops':
      r['value'] *= 1.1
    if r['metric'] == 'coremark_score' and r['metadata']['mode'] == 'single':
      r['value'] *= 0.9
    r['run_uri'] += '-b'
    r['sample_uri'] += '-b'
    rows.append(r)
  return rows


_Rows = bq_emulator.ComparableRows


class CompareEmulatorTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.emulator = bq_emulator.StartedOrSkip()
    cls.dir = tempfile.mkdtemp()
    cls.tables = {}
    duck = backends.DuckDbBackend()
    for side, rows in (('a', fx.Samples()), ('b', SideB())):
      table = f'{bq_emulator.PROJECT}.compare.samples_{side}'
      path = spool.SpoolPath(cls.dir, f'side-{side}')
      spool.Append(path, [schema.RowFromSample(s) for s in rows], 500)
      target = bigquery.Target(
          ids.ParseTableId(table), endpoint=cls.emulator.endpoint, timeout_s=30
      )
      bigquery.PublishFiles(target, [path], client=cls.emulator.Client())
      cls.tables[side] = table
      duck.LoadRows(
          [backends.NormalizeSample(r, side) for r in rows],
          f'samples_{side}',
      )
    bq = backends.BigQueryBackend(cls.emulator.Client(), cls.tables['a'])
    cls.bq_sides = [
        compare.SamplesSide(
            runner.Analysis(bq, samples_ref=f'`{cls.tables[s]}`'), s
        )
        for s in ('a', 'b')
    ]
    cls.duck_sides = [
        compare.SamplesSide(
            runner.Analysis(duck, samples_ref=f'samples_{s}'), s
        )
        for s in ('a', 'b')
    ]
    cls.bq = compare.Comparison(bq, *cls.bq_sides, compare.Settings())
    cls.duck = compare.Comparison(duck, *cls.duck_sides, compare.Settings())

  @classmethod
  def tearDownClass(cls):
    cls.emulator.Close()
    shutil.rmtree(cls.dir, ignore_errors=True)
    super().tearDownClass()

  def testSameResultsAsDuckDb(self):
    for view in VIEWS:
      with self.subTest(view=view):
        on_bq = self.bq.Query(view)
        self.assertNotEmpty(on_bq)
        self.assertEqual(_Rows(on_bq), _Rows(self.duck.Query(view)))

  def testVerdictsOnTheEmulator(self):
    rows = self.bq.Run().rows
    flagged = {
        (r['benchmark'], r['verdict'])
        for r in rows
        if r['verdict'] in ('better', 'worse')
    }
    self.assertEqual(flagged, {('read_iops', 'better'), ('cpu_1core', 'worse')})
    self.assertLen([r for r in rows if r['verdict'] == 'better'], 6)
    self.assertLen([r for r in rows if r['verdict'] == 'worse'], 6)

  def testMannWhitneyToo(self):
    settings = compare.Settings(test='mann_whitney_u')
    on_bq = compare.Comparison(self.bq.backend, *self.bq_sides, settings)
    on_duck = compare.Comparison(self.duck.backend, *self.duck_sides, settings)
    self.assertEqual(
        _Rows(on_bq.Query('compare_benchmarks')),
        _Rows(on_duck.Query('compare_benchmarks')),
    )

  def testBaselineAgrees(self):
    benchmarks = {
        r['benchmark'] for r in self.bq_sides[0].analysis.Query('benchmarks')
    }
    figures = baseline.Load('2021', benchmarks)
    settings = compare.Settings(by=('machine_type', 'disk_type'))
    on_bq = compare.Comparison(
        self.bq.backend,
        compare.BaselineSide(figures, self.bq_sides[1]),
        self.bq_sides[1],
        settings,
    )
    on_duck = compare.Comparison(
        self.duck.backend,
        compare.BaselineSide(figures, self.duck_sides[1]),
        self.duck_sides[1],
        settings,
    )
    rows = on_bq.Query('compare_benchmarks')
    self.assertEqual(_Rows(rows), _Rows(on_duck.Query('compare_benchmarks')))
    tpm = next(
        r
        for r in rows
        if r['benchmark'] == 'usd_per_tpm'
        and r['value_a'] is not None
        and r['value_b'] is not None
    )
    self.assertEqual(tpm['value_a'], 0.813)
    self.assertIsNone(tpm['n_a'])

  def testPersistentViewsGiveTheSameTable(self):
    dataset = f'{bq_emulator.PROJECT}.compare'
    self.bq.backend.Execute(self.bq.ViewStatements(dataset, 'cmp_'))
    persisted = self.bq.backend.Query(
        f'SELECT * FROM `{dataset}.cmp_compare_benchmarks`'
    )
    self.assertEqual(
        _Rows(persisted), _Rows(self.bq.Query('compare_benchmarks'))
    )

  def testCompareCliOnTheTables(self):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
      code = compare_cli.Main([
          compare_cli.BQ_PREFIX + self.tables['a'],
          compare_cli.BQ_PREFIX + self.tables['b'],
          '--bigquery-endpoint',
          self.emulator.endpoint,
          '--out',
          os.path.join(self.dir, 'out'),
      ])
    self.assertEqual(code, 0, err.getvalue())
    self.assertIn('verdicts: better 6, no significant change', out.getvalue())
    self.assertTrue(
        os.path.exists(os.path.join(self.dir, 'out', 'compare.html'))
    )


if __name__ == '__main__':
  absltest.main()
