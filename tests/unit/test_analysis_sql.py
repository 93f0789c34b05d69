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
"""The analysis SQL on DuckDB (transpiled from the BigQuery files).

The fixture (tests/data/analysis/samples_3x2.ndjson, made by
pkb_ext_dev.analysis_fixture) has 3 clouds x 2 machines; the ranking it
must give is checked cell by cell against the fixture's design.
"""

import json
import os
from unittest import mock

from absl.testing import absltest
import sqlglot

from pkb_ext.analysis import backends
from pkb_ext.analysis import runner
from pkb_ext import paths
from pkb_ext import pricing
from pkb_ext.suite import stats
from pkb_ext_dev import analysis_fixture as fx

FIXTURE = os.path.join(
    paths.RepoRoot(), 'tests', 'data', 'analysis', 'samples_3x2.ndjson'
)
_PLACES = ('first', 'second', 'third')


def _Analysis(rows=None):
  backend = backends.DuckDbBackend()
  if rows is None:
    backend.LoadNdjson([FIXTURE])
  else:
    backend.LoadRows(
        backends.NormalizeSample(r, f'row {i}') for i, r in enumerate(rows)
    )
  return runner.Analysis(backend)


class FixtureFileTest(absltest.TestCase):

  def testFileIsTheGeneratorsOutput(self):
    with open(FIXTURE, encoding='utf-8') as f:
      kept = [json.loads(line) for line in f]
    self.assertEqual(kept, json.loads(json.dumps(fx.Samples())))


class RankingTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.analysis = _Analysis()
    cls.table = {r['benchmark']: r for r in cls.analysis.Query('ranking_table')}
    cls.catalog = pricing.Load()

  def _Expected(self, benchmark, key):
    if benchmark in fx.DESIGN:
      return fx.DESIGN[benchmark][key]
    tpmc = max(t for w, t, _, passed in fx.TPCC_STEPS[key] if passed)
    if benchmark == 'max_tpm':
      return tpmc
    cloud, machine, disk, iops, mbps, _ = fx.CONFIGS[key]
    monthly = self.catalog.MonthlyCost(cloud, machine, disk, 2500, iops, mbps)
    return self.catalog.UsdPerTpm(monthly, tpmc)

  def testTwelveRowsInTheReportsOrder(self):
    rows = sorted(self.table.values(), key=lambda r: r['position'])
    self.assertEqual(
        [r['label'] for r in rows],
        [
            '1 core CPU',
            '16 core CPU',
            'Network Throughput',
            'Network Latency',
            'Storage I/O Read IOPS',
            'Storage I/O Write IOPS',
            'Storage I/O Read Throughput',
            'Storage I/O Write Throughput',
            'Storage I/O Read Latency',
            'Storage I/O Write Latency',
            'Max. tpm',
            '$/tpm',
        ],
    )

  def testEveryCell(self):
    self.assertEqual(set(self.table), set(fx.EXPECTED_RANKING))
    for benchmark, keys in fx.EXPECTED_RANKING.items():
      row = self.table[benchmark]
      for place, key in zip(_PLACES, keys):
        cloud, machine, disk, *_ = fx.CONFIGS[key]
        with self.subTest(benchmark=benchmark, place=place):
          self.assertEqual(row[f'{place}_cloud'], cloud)
          self.assertEqual(row[f'{place}_machine'], machine)
          self.assertEqual(row[f'{place}_disk'], disk)
          self.assertAlmostEqual(
              row[f'{place}_value'], self._Expected(benchmark, key), places=6
          )

  def testReportFigures(self):
    self.assertAlmostEqual(
        self.table['usd_per_tpm']['first_value'], 0.813, places=3
    )
    self.assertEqual(self.table['max_tpm']['first_value'], 37048)

  def testOverLimitResultIsLeftOut(self):
    # x1e.4xlarge's 53,427 read IOPS would win; its limit is 10,000.
    self.assertEqual(self.table['read_iops']['third_machine'], 'c5a.4xlarge')
    with_x1e = fx.DESIGN['read_iops']['aws_x1e']
    self.assertGreater(with_x1e, self.table['read_iops']['first_value'])

  def testOverLimitLeftInWhenLimitRaised(self):
    catalog = pricing.Load()
    x1e = catalog.tables['aws'].machines['x1e.4xlarge']
    raised = pricing.Machine(
        x1e.machine_type, x1e.usd_per_hour, pricing.Limits(disk_iops=100000)
    )
    machines = dict(catalog.tables['aws'].machines) | {'x1e.4xlarge': raised}
    tables = dict(catalog.tables)
    tables['aws'] = pricing.PriceTable(
        **(vars(catalog.tables['aws']) | {'machines': machines})
    )
    backend = backends.DuckDbBackend()
    backend.LoadNdjson([FIXTURE])
    analysis = runner.Analysis(backend, pricing.Catalog(catalog.method, tables))
    row = next(
        r
        for r in analysis.Query('ranking_table')
        if r['benchmark'] == 'read_iops'
    )
    self.assertEqual(
        (row['first_cloud'], row['first_machine']), ('AWS', 'x1e.4xlarge')
    )


class AggregatesTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.analysis = _Analysis()
    cls.rows = {
        (r['config_id'].split('/')[1], r['benchmark']): r
        for r in cls.analysis.Query('machine_aggregates')
    }

  def _Values(self, metric, key, **filters):
    out = []
    for s in fx.Samples():
      md = s['metadata']
      if (
          s['metric'] == metric
          and md['machine_type'] == fx.CONFIGS[key][1]
          and all(md.get(k) == v for k, v in filters.items())
      ):
        out.append(s['value'])
    return out

  def testMatchesPkbExtStats(self):
    cases = [
        ('coremark_score', 'gcp_c2', 'cpu_1core', {'mode': 'single'}),
        ('netperf_throughput', 'aws_x1e', 'net_throughput', {'streams': 1}),
        ('netperf_latency_p99', 'az_f16', 'net_latency', {}),
        ('fio_iops', 'aws_x1e', 'read_iops', {'fio_job': 'rd-iops'}),
    ]
    for metric, key, benchmark, filters in cases:
      values = self._Values(metric, key, **filters)
      expected = stats.Summarize(values)
      row = self.rows[(fx.CONFIGS[key][1], benchmark)]
      with self.subTest(benchmark=benchmark):
        self.assertEqual(row['n'], expected.n)
        self.assertAlmostEqual(row['mean'], expected.mean, places=6)
        self.assertAlmostEqual(row['stddev'], expected.stddev, places=6)
        self.assertAlmostEqual(
            row['ci95_half_width'], expected.ci95_half_width, places=6
        )
        self.assertAlmostEqual(row['cv_pct'], expected.cv_pct, places=9)
        self.assertEqual(row['min_value'], expected.minimum)
        if expected.n >= 4:
          self.assertAlmostEqual(
              row['bimodality_coefficient'],
              stats.BimodalityCoefficient(values),
              places=9,
          )
          self.assertEqual(row['bimodal'], stats.LooksBimodal(values))

  def testCi95BeyondTheTTable(self):
    rows = [
        {
            'metric': 'coremark_score',
            'value': 1000.0 + (i % 7) * 3,
            'metadata': {
                'cloud': 'GCP',
                'machine_type': 'n2-standard-16',
                'disk_type': 'pd-ssd',
                'disk_size_gb': 2500,
                'phase': 'cpu',
                'mode': 'single',
                'iteration': i,
            },
        }
        for i in range(1, 46)
    ]
    (row,) = _Analysis(rows).Query('machine_aggregates')
    expected = stats.Summarize([r['value'] for r in rows])
    self.assertEqual(row['n'], 45)
    self.assertAlmostEqual(
        row['ci95_half_width'], expected.ci95_half_width, places=6
    )

  def testOneRunHasNoCi(self):
    rows = [{
        'metric': 'coremark_score',
        'value': 1000.0,
        'metadata': {
            'cloud': 'GCP',
            'machine_type': 'n2-standard-16',
            'disk_type': 'pd-ssd',
            'phase': 'cpu',
            'mode': 'all',
        },
    }]
    (row,) = _Analysis(rows).Query('machine_aggregates')
    self.assertEqual((row['n'], row['stddev']), (1, 0))
    self.assertIsNone(row['ci95_half_width'])
    self.assertIsNone(row['bimodality_coefficient'])

  def testRepeatedRunStagesAreRepetitions(self):
    # pkb.py --run_stage_iterations=3: one run_uri, each Run's samples with
    # its run_number; the same fio job's value once per Run.
    def Row(value, run_number):
      return {
          'metric': 'fio_iops',
          'value': value,
          'run_uri': 'r1',
          'metadata': {
              'cloud': 'Static',
              'machine_type': 'local-m',
              'disk_type': 'static',
              'phase': 'io',
              'fio_job': 'rd-iops',
              'direction': 'read',
              'run_number': run_number,
          },
      }

    rows = [Row(390.0, 0), Row(400.0, 1), Row(410.0, 2)]
    (row,) = [
        r
        for r in _Analysis(rows).Query('machine_aggregates')
        if r['benchmark'] == 'read_iops'
    ]
    self.assertEqual(row['n'], 3)
    self.assertAlmostEqual(row['mean'], 400.0)
    self.assertIsNotNone(row['ci95_half_width'])
    # Without run_number, the three are one run's value (their mean).
    for r in rows:
      del r['metadata']['run_number']
    (row,) = [
        r
        for r in _Analysis(rows).Query('machine_aggregates')
        if r['benchmark'] == 'read_iops'
    ]
    self.assertEqual(row['n'], 1)

  def testFlags(self):
    flags = {
        (r['machine_type'], r['benchmark'], r['flag'])
        for r in self.analysis.Query('flags')
    }
    self.assertEqual(
        flags,
        {
            ('x1e.4xlarge', 'read_iops', 'over_limit'),
            ('x1e.4xlarge', 'net_throughput', 'bimodal'),
        },
    )

  def testFiltersSelectOnlyTheReportsSamples(self):
    # Summary, multi-stream, other-percentile and fio_clat_percentile rows
    # are in the fixture; none may be counted.
    self.assertEqual(
        self.rows[('c5a.4xlarge', 'cpu_1core')]['n'], fx.RUNS['cpu']
    )
    self.assertEqual(
        self.rows[('c5a.4xlarge', 'net_throughput')]['n'], fx.RUNS['net']
    )
    self.assertEqual(
        self.rows[('c5a.4xlarge', 'read_latency')]['n'], fx.RUNS['io']
    )


class TpccTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.analysis = _Analysis()

  def testResults(self):
    results = {
        r['machine_type']: r for r in self.analysis.Query('tpcc_results')
    }
    # x1e.4xlarge failed at 2,500 warehouses: no result, as in the report.
    self.assertNotIn('x1e.4xlarge', results)
    c2 = results['c2-standard-16']
    self.assertEqual((c2['max_passing_warehouses'], c2['tpmc']), (3000, 37048))
    c5a = results['c5a.4xlarge']
    self.assertAlmostEqual(c5a['usd_month'], 693.52)
    self.assertAlmostEqual(c5a['term_usd'], 24966.72)
    self.assertAlmostEqual(c5a['usd_per_tpm'], 24966.72 / 30709)

  def testStepCurve(self):
    steps = [
        s
        for s in self.analysis.Query('tpcc_steps')
        if s['machine_type'] == 'c2-standard-16'
    ]
    got = sorted(
        (s['warehouses'], s['tpmc'], s['p90_ms'], s['passed']) for s in steps
    )
    self.assertEqual(got, sorted(fx.TPCC_STEPS['gcp_c2']))

  def testConfirmRunAtTheSameLevelTakesTheLater(self):
    rows = []
    for step, (level, tpmc, passed) in enumerate(
        [(2500, 30000, True), (2750, 31000, True), (2750, 31500, True)], 1
    ):
      rows.append({
          'metric': 'tpcc_tpmc',
          'value': tpmc,
          'run_uri': 'r',
          'metadata': {
              'cloud': 'AWS',
              'machine_type': 'c5a.4xlarge',
              'disk_type': 'gp2',
              'disk_size_gb': 2500,
              'phase': 'tpcc',
              'iteration': step,
              'active_warehouses': level,
              'passed': passed,
          },
      })
    (result,) = _Analysis(rows).Query('tpcc_results')
    self.assertEqual(
        (result['max_passing_warehouses'], result['tpmc']), (2750, 31500)
    )


class LoadingTest(absltest.TestCase):

  def testSameSampleTwiceCountsOnceAndPkbOwnSamplesAreIgnored(self):
    d = self.create_tempdir()
    rows = [s for s in fx.Samples() if s['metric'] == 'coremark_score']
    first = d.create_file(
        'spool.ndjson', '\n'.join(json.dumps(r) for r in rows)
    )
    pkb_own = {
        'metric': 'lscpu',
        'value': 0,
        'sample_uri': 'x',
        'metadata': {'cloud': 'GCP'},
    }
    second = d.create_file(
        'pkb.json',
        '\n'.join([json.dumps(r) for r in rows] + [json.dumps(pkb_own)]),
    )
    backend = backends.DuckDbBackend()
    self.assertEqual(
        backend.LoadNdjson([first.full_path, second.full_path]), len(rows) + 1
    )
    analysis = runner.Analysis(backend)
    self.assertLen(analysis.Query('samples_flat'), len(rows))
    self.assertEqual(analysis.unpriced, [])
    analysis.Query('machine_aggregates')
    self.assertEqual(analysis.unpriced, [])

  def testRowsThatFailMidwayLeaveNoSpoolFile(self):
    spool = self.create_tempdir().full_path
    rows = [s for s in fx.Samples() if s['metric'] == 'coremark_score']

    def Rows():
      yield backends.NormalizeSample(rows[0], 'row 0')
      raise ValueError('line 2: not JSON')

    backend = backends.DuckDbBackend()
    with mock.patch.object(backends.tempfile, 'tempdir', spool):
      with self.assertRaisesRegex(ValueError, 'line 2'):
        backend.LoadRows(Rows())
      self.assertEqual(backend.LoadRows([]), 0)
      self.assertEqual(
          backend.LoadRows(backends.NormalizeSample(r, 'r') for r in rows),
          len(rows),
      )
    self.assertEqual(os.listdir(spool), [])

  def testDuckDbTableHasThePublishedColumns(self):
    from pkb_ext.publish import schema  # pylint: disable=g-import-not-at-top

    self.assertCountEqual(
        [c for c, _ in backends.SAMPLE_COLUMNS], schema.Load().names
    )


class SqlSourceTest(absltest.TestCase):

  def testEveryViewParsesAsBigQueryAndTranspiles(self):
    for name, text in runner.Views().items():
      with self.subTest(view=name):
        sql = runner._Substitute(text, '`p.d.samples`', 'p.d.')
        sqlglot.parse_one(sql, read='bigquery')
        backends.DuckDbBackend.Transpile(sql)

  def testDependencyOrder(self):
    order = runner.Order(['ranking_table'])
    self.assertLess(order.index('samples_flat'), order.index('benchmark_runs'))
    self.assertLess(order.index('machine_costs'), order.index('tpcc_runs'))
    self.assertEqual(order[-1], 'ranking_table')

  def testUnknownView(self):
    with self.assertRaisesRegex(runner.AnalysisError, 'no view'):
      runner.Dependencies('nope')

  def testViewStatementsQualifyEveryReference(self):
    analysis = _Analysis()
    statements = analysis.ViewStatements('proj.ds', 'cr_')
    text = '\n'.join(statements)
    self.assertIn('CREATE OR REPLACE VIEW `proj.ds.cr_ranking_table`', text)
    self.assertIn('CREATE OR REPLACE TABLE `proj.ds.cr_machine_costs`', text)
    self.assertNotIn('${', text)
    for statement in statements:
      sqlglot.parse_one(statement, read='bigquery')

  def testOneCloudRanksItsMachinesWithTheirCis(self):
    # The local matrix: one cloud (Static), three machine types whose
    # limits set their order.
    rows = []
    for machine, iops in (('local-s', 200), ('local-l', 800), ('local-m', 400)):
      for run_number, wiggle in enumerate((-2.0, 0.0, 2.0)):
        rows.append({
            'metric': 'fio_iops',
            'value': iops + wiggle,
            'run_uri': 'r1',
            'metadata': {
                'cloud': 'Static',
                'machine_type': machine,
                'disk_type': 'static',
                'phase': 'io',
                'fio_job': 'rd-iops',
                'direction': 'read',
                'run_number': run_number,
            },
        })
    table = {r['benchmark']: r for r in _Analysis(rows).Query('ranking_table')}
    row = table['read_iops']
    self.assertEqual(
        [row[f'{p}_machine'] for p in _PLACES],
        ['local-l', 'local-m', 'local-s'],
    )
    self.assertEqual([row[f'{p}_cloud'] for p in _PLACES], ['Static'] * 3)
    self.assertAlmostEqual(row['first_value'], 800.0)
    expected = stats.Summarize([798.0, 800.0, 802.0]).ci95_half_width
    self.assertAlmostEqual(row['first_ci95'], expected, places=6)
    # Several clouds: each cloud's best machine, as the report ranks.
    multi = {r['benchmark']: r for r in _Analysis().Query('ranking_table')}
    clouds = [multi['read_iops'][f'{p}_cloud'] for p in _PLACES]
    self.assertLen(set(clouds), 3)

  def testRenamedMetricIsOneEdit(self):
    """A metric renamed in the samples and in benchmarks.sql still ranks."""
    rows = [
        dict(r, metric='coremark_iterations_per_sec')
        if r['metric'] == 'coremark_score'
        else r
        for r in fx.Samples()
    ]
    table = {r['benchmark']: r for r in _Analysis(rows).Query('ranking_table')}
    self.assertNotIn('cpu_1core', table)  # the mapping no longer matches
    views = dict(runner.Views())
    views['benchmarks'] = views['benchmarks'].replace(
        "'coremark_score'", "'coremark_iterations_per_sec'"
    )
    with mock.patch.object(runner, 'Views', return_value=views):
      table = {
          r['benchmark']: r for r in _Analysis(rows).Query('ranking_table')
      }
    self.assertEqual(table['cpu_1core']['first_machine'], 'c2-standard-16')
    self.assertEqual(table['cpu_16core']['first_machine'], 'c5a.4xlarge')


if __name__ == '__main__':
  absltest.main()
