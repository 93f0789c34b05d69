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
"""`pkb-ext compare` on synthetic runs: known shifts, noise, bad input.

Two runs are drawn from the same noisy distributions (CV 1 %, independent
seeds per side) for 3 configurations x the report's 12 benchmarks; one
benchmark of one configuration is shifted by a known 10 %. The comparison
must flag exactly that one, in the benchmark's direction, both ways round.
"""

import contextlib
import io
import json
import os
import random
import re
import shutil
import tempfile

from absl.testing import absltest
from absl.testing import parameterized
from scipy import stats

from pkb_ext import cli as pkb_ext_cli
from pkb_ext import paths
from pkb_ext.analysis import backends
from pkb_ext.analysis import baseline
from pkb_ext.analysis import compare
from pkb_ext.analysis import compare_cli
from pkb_ext.analysis import runner

CONFIGS = {
    'c5a': ('AWS', 'c5a.4xlarge', 'gp2', 16),
    'm6g': ('AWS', 'm6g.4xlarge', 'gp2', 16),
    'c2': ('GCP', 'c2-standard-16', 'pd-ssd', 16),
}
# Means per benchmark (units of benchmarks.sql); TPC-C: tpmC.
MEANS = {
    'cpu_1core': 28000,
    'cpu_16core': 300000,
    'net_throughput': 9000,
    'net_latency': 70,
    'read_iops': 7500,
    'write_iops': 7400,
    'read_throughput': 250,
    'write_throughput': 200,
    'read_latency': 2600,
    'write_latency': 1900,
    'max_tpm': 30000,
}
_FIO = {
    'read_iops': ('rd-iops', 'read', 'fio_iops'),
    'write_iops': ('wr-iops', 'write', 'fio_iops'),
    'read_throughput': ('rd-bw', 'read', 'fio_bandwidth'),
    'write_throughput': ('wr-bw', 'write', 'fio_bandwidth'),
    'read_latency': ('rd-latency', 'read', 'fio_clat_mean'),
    'write_latency': ('wr-latency', 'write', 'fio_clat_mean'),
}
REPS = 6


def Run(
    seed: int,
    shift: dict[tuple[str, str], float] | None = None,
    reps: int = REPS,
    configs=tuple(CONFIGS),
    report_version: str = '2021',
    vcpus: int | None = None,
) -> list[dict]:
  """Samples of one synthetic run: every benchmark, `reps` repetitions.

  Args:
    seed: of the noise (CV 1 %).
    shift: {(config, benchmark): factor} applied to the mean.
    reps: repetitions per benchmark (TPC-C: runs).
    configs: keys of CONFIGS.
    report_version: metadata.report_version.
    vcpus: overrides the configurations' vCPUs.
  """
  rng = random.Random(seed)
  shift = shift or {}
  rows = []

  def Row(key, metric, value, run, iteration, extra):
    cloud, machine, disk, cpus = CONFIGS[key]
    metadata = {
        'cloud': cloud,
        'machine_type': machine,
        'disk_type': disk,
        'disk_size_gb': 2500,
        'vcpus': vcpus or cpus,
        'report_version': report_version,
        'iteration': iteration,
    } | extra
    uri = f'{key}-{seed}-{run}'
    rows.append({
        'metric': metric,
        'value': value,
        'unit': '-',
        'run_uri': uri,
        'sample_uri': f'{uri}-{len(rows)}',
        'metadata': metadata,
    })

  def Value(key, benchmark):
    mean = MEANS[benchmark] * shift.get((key, benchmark), 1.0)
    return rng.gauss(mean, mean * 0.01)

  for key in configs:
    for i in range(1, reps + 1):
      for mode, bench in (('single', 'cpu_1core'), ('all', 'cpu_16core')):
        Row(
            key,
            'coremark_score',
            Value(key, bench),
            1,
            i,
            {'phase': 'cpu', 'mode': mode},
        )
      net = {'phase': 'net', 'streams': 1}
      Row(
          key,
          'netperf_throughput',
          Value(key, 'net_throughput'),
          1,
          i,
          net | {'netperf_test': 'TCP_STREAM'},
      )
      # Whole microseconds: ties for the rank test.
      Row(
          key,
          'netperf_latency_p99',
          float(round(Value(key, 'net_latency'))),
          1,
          i,
          net | {'netperf_test': 'TCP_RR'},
      )
      for bench, (job, direction, metric) in _FIO.items():
        Row(
            key,
            metric,
            Value(key, bench),
            i,
            1,
            {'phase': 'io', 'fio_job': job, 'direction': direction},
        )
      tpcc = {'phase': 'tpcc', 'active_warehouses': 2500}
      Row(
          key,
          'tpcc_tpmc',
          Value(key, 'max_tpm'),
          i,
          1,
          tpcc | {'passed': True},
      )
      Row(
          key,
          'tpcc_latency',
          900.0,
          i,
          1,
          tpcc | {'passed': True, 'stat': 'p90'},
      )
  return rows


def Write(directory: str, name: str, rows: list[dict]) -> str:
  path = os.path.join(directory, name)
  with open(path, 'w', encoding='utf-8') as f:
    for r in rows:
      f.write(json.dumps(r) + '\n')
  return path


def Comparison(
    rows_a, rows_b, settings: compare.Settings | None = None
) -> compare.Comparison:
  backend = backends.DuckDbBackend()
  sides = []
  for name, rows in (('a', rows_a), ('b', rows_b)):
    table = backend.AddTable(f'samples_{name}')
    backend.LoadRows([backends.NormalizeSample(r, name) for r in rows], table)
    sides.append(
        compare.SamplesSide(
            runner.Analysis(backend, samples_ref=table), f'side {name}'
        )
    )
  return compare.Comparison(
      backend, sides[0], sides[1], settings or compare.Settings()
  )


def Flagged(result: compare.Result) -> dict[tuple[str, str], str]:
  """{(machine type, benchmark): verdict} of every better/worse row."""
  return {
      (r['machine_type'], r['benchmark']): r['verdict']
      for r in result.rows
      if r['verdict'] in ('better', 'worse')
  }


def _Cli(argv):
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    code = compare_cli.Main(argv)
  return code, out.getvalue(), err.getvalue()


class KnownShiftTest(parameterized.TestCase):

  @parameterized.parameters(
      # (benchmark, factor, expected verdict)
      ('cpu_1core', 1.10, 'better'),
      ('cpu_1core', 0.90, 'worse'),
      ('read_latency', 1.10, 'worse'),  # lower is better
      ('read_latency', 0.90, 'better'),
  )
  def testFlagsExactlyTheShiftedBenchmark(self, benchmark, factor, verdict):
    for test in compare.TESTS:
      for seed in (1,):
        with self.subTest(test=test, seed=seed):
          a = Run(seed)
          b = Run(seed + 100, shift={('m6g', benchmark): factor})
          result = Comparison(a, b, compare.Settings(test=test)).Run()
          self.assertLen(result.rows, 3 * 12)
          self.assertEqual(
              Flagged(result), {('m6g.4xlarge', benchmark): verdict}
          )
          row = next(
              r
              for r in result.rows
              if r['machine_type'] == 'm6g.4xlarge'
              and r['benchmark'] == benchmark
          )
          self.assertEqual(row['test'], test)
          self.assertLess(row['p_value'], 0.05)
          self.assertAlmostEqual(row['change_pct'], (factor - 1) * 100, delta=2)
          # The same runs the other way round: the opposite verdict.
          back = Comparison(b, a, compare.Settings(test=test)).Run()
          opposite = {'better': 'worse', 'worse': 'better'}[verdict]
          self.assertEqual(
              Flagged(back), {('m6g.4xlarge', benchmark): opposite}
          )

  def testNoiseAloneFlagsNothing(self):
    for seed in (3, 11):
      with self.subTest(seed=seed):
        result = Comparison(Run(seed), Run(seed + 1)).Run()
        self.assertEqual(Flagged(result), {})
        verdicts = {r['verdict'] for r in result.rows}
        self.assertEqual(verdicts, {'no significant change'})

  def testWithoutAMinimumChangeNoiseCanBeSignificant(self):
    """The 2 % floor is what keeps noise out: p < 0.05 alone is not."""
    settings = compare.Settings(min_change_pct=0, alpha=0.5)
    result = Comparison(Run(3), Run(4), settings).Run()
    self.assertNotEmpty(Flagged(result))


class StatisticsTest(absltest.TestCase):
  """The SQL tests against scipy on the same repetitions."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    comparison = Comparison(
        Run(5, reps=4), Run(6, reps=7, shift={('c2', 'net_latency'): 1.03})
    )
    cls.runs = comparison.Query('compare_runs')
    cls.welch = comparison.Query('compare_welch')
    cls.mwu = comparison.Query('compare_mann_whitney')

  def _Values(self, key, benchmark, side):
    return [
        r['value']
        for r in self.runs
        if r['match_key'] == key
        and r['benchmark'] == benchmark
        and r['side'] == side
    ]

  def testWelchMatchesScipy(self):
    self.assertLen(self.welch, 3 * 12)
    for row in self.welch:
      a = self._Values(row['match_key'], row['benchmark'], 'A')
      b = self._Values(row['match_key'], row['benchmark'], 'B')
      want = stats.ttest_ind(b, a, equal_var=False)
      with self.subTest(key=row['match_key'], benchmark=row['benchmark']):
        self.assertAlmostEqual(row['t_stat'], want.statistic, places=6)
        self.assertAlmostEqual(row['df'], want.df, places=6)
        self.assertAlmostEqual(row['p_value'], want.pvalue, delta=5e-4)

  def testMannWhitneyMatchesScipyWithTies(self):
    tied = 0
    for row in self.mwu:
      a = self._Values(row['match_key'], row['benchmark'], 'A')
      b = self._Values(row['match_key'], row['benchmark'], 'B')
      tied += len(set(a + b)) < len(a + b)
      want = stats.mannwhitneyu(
          a, b, alternative='two-sided', method='asymptotic'
      )
      with self.subTest(key=row['match_key'], benchmark=row['benchmark']):
        self.assertEqual(row['u_a'], want.statistic)
        self.assertAlmostEqual(row['p_value'], want.pvalue, delta=1e-6)
    self.assertGreater(tied, 0)  # the latency values tie


class FallbackTest(absltest.TestCase):

  def testFewRepetitionsCompareConfidenceIntervals(self):
    a = Run(1, reps=2)
    b = Run(2, reps=2, shift={('c5a', 'cpu_16core'): 1.5})
    result = Comparison(a, b).Run()
    tests = {r['test'] for r in result.rows}
    self.assertEqual(tests, {'ci_overlap'})
    self.assertTrue(all(r['p_value'] is None for r in result.rows))
    self.assertEqual(Flagged(result), {('c5a.4xlarge', 'cpu_16core'): 'better'})

  def testSingleRunsHaveNoVerdict(self):
    result = Comparison(Run(1, reps=1), Run(2, reps=1)).Run()
    self.assertEqual({r['test'] for r in result.rows}, {'none'})
    self.assertEqual({r['verdict'] for r in result.rows}, {'unknown'})
    # The first note says why, and how to get repetitions.
    self.assertIn('no repetitions', result.notes[0])
    self.assertIn('--run_stage_iterations=3', result.notes[0])
    with_reps = Comparison(Run(1, reps=2), Run(2, reps=2)).Run()
    self.assertFalse(any('no repetitions' in n for n in with_reps.notes))


class FlagsTest(absltest.TestCase):

  def testBimodalAndOverLimitCarryOver(self):
    a = Run(1, reps=12)
    levels = iter([5000.0, 10000.0] * 6)
    for r in a:
      if r['metric'] == 'netperf_throughput' and r['run_uri'].startswith('c5a'):
        r['value'] = next(levels)
      if r['metadata'].get('fio_job') == 'rd-iops':
        r['value'] *= 10  # 75,000 IOPS: over the AWS machines' EBS limits
    result = Comparison(a, Run(2, reps=12)).Run()
    net = next(
        r
        for r in result.rows
        if r['benchmark'] == 'net_throughput'
        and r['machine_type'] == 'c5a.4xlarge'
    )
    self.assertTrue(net['bimodal_a'])
    self.assertFalse(net['bimodal_b'])
    iops = [
        r
        for r in result.rows
        if r['benchmark'] == 'read_iops' and r['cloud'] == 'AWS'
    ]
    self.assertLen(iops, 2)
    self.assertTrue(all(r['over_limit_a'] for r in iops))
    self.assertFalse(any(r['over_limit_b'] for r in iops))


class BadInputTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.dir = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, self.dir)

  def testUnmatchedDimensions(self):
    a = Write(self.dir, 'a.ndjson', Run(1, configs=('c5a',)))
    b = Write(self.dir, 'b.ndjson', Run(2, configs=('c2',)))
    code, out, err = _Cli([a, b])
    self.assertEqual(code, 1)
    self.assertEqual(out, '')
    self.assertIn('no configuration of A matches one of B by cloud', err)
    self.assertIn('AWS / c5a.4xlarge / gp2', err)
    self.assertIn('GCP / c2-standard-16 / pd-ssd', err)

  def testMissingSide(self):
    a = Write(self.dir, 'a.ndjson', Run(1))
    code, _, err = _Cli([a, os.path.join(self.dir, 'nope.ndjson')])
    self.assertEqual(code, 1)
    self.assertIn('nope.ndjson: no such file or directory', err)
    code, _, err = _Cli([a])
    self.assertEqual(code, 2)
    self.assertIn('give two sides A B', err)

  def testSideWithoutSamples(self):
    a = Write(self.dir, 'a.ndjson', Run(1))
    empty = Write(self.dir, 'empty.ndjson', [])
    code, out, err = _Cli([a, empty])
    self.assertEqual(code, 1)
    self.assertEqual(out, '')
    self.assertIn('side B', err)
    self.assertIn('holds no cloud report samples', err)

  def testSideWithoutReportBenchmarks(self):
    a = Write(self.dir, 'a.ndjson', Run(1))
    other = [
        r | {'metric': 'object_storage_ttfb'}
        for r in Run(2)
        if r['metric'] == 'coremark_score'
    ]
    for r in other:
      r['metadata'] = r['metadata'] | {'phase': 'object_storage'}
    b = Write(self.dir, 'b.ndjson', other)
    code, out, err = _Cli([a, b])
    self.assertEqual(code, 1)
    self.assertEqual(out, '')
    self.assertIn('side B (36 samples from', err)
    self.assertIn("no value of any of the report's benchmarks", err)

  def testDifferentReportVersions(self):
    a = Write(self.dir, 'a.ndjson', Run(1))
    b = Write(self.dir, 'b.ndjson', Run(2, report_version='2022'))
    code, out, err = _Cli([a, b])
    self.assertEqual(code, 1)
    self.assertEqual(out, '')
    self.assertIn('side A is report_version 2021, side B is 2022', err)

  def testAmbiguousKey(self):
    rows = Run(1)
    a = Write(self.dir, 'a.ndjson', rows)
    code, _, err = _Cli([a, a, '--by', 'cloud'])
    self.assertEqual(code, 1)
    self.assertIn('several configurations of one side on one key', err)
    self.assertIn('add a dimension to --by', err)

  def testBadFlags(self):
    a = Write(self.dir, 'a.ndjson', Run(1))
    for argv, message in (
        ([a, a, '--by', 'region'], 'region is not a dimension'),
        ([a, a, '--alpha', '2'], '--alpha must be in (0, 1)'),
        ([a, a, '--min-repetitions', '1'], '--min-repetitions must be in 2..'),
        ([a, '--baseline', '2021', '--by', 'cloud'], '--by does not apply'),
    ):
      with self.subTest(argv=argv):
        code, _, err = _Cli(argv)
        self.assertEqual(code, 2)
        self.assertIn(message, err)

  def testMixedKinds(self):
    a = Write(self.dir, 'a.ndjson', Run(1))
    code, _, err = _Cli([a, 'bq:proj.dataset.samples'])
    self.assertEqual(code, 2)
    self.assertIn('both be NDJSON', err)

  def testUnknownBaseline(self):
    b = Write(self.dir, 'b.ndjson', Run(1))
    code, _, err = _Cli(['--baseline', '1999', b])
    self.assertEqual(code, 1)
    self.assertIn("no baseline '1999'", err)
    self.assertIn('2021', err)


class CliTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.dir = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, self.dir)

  def testTextHtmlMarkdownAndCharts(self):
    a = Write(self.dir, 'a.ndjson', Run(1))
    spool = os.path.join(self.dir, 'spool')
    os.mkdir(spool)
    Write(spool, 'b.ndjson', Run(2, shift={('c2', 'write_iops'): 0.9}))
    out_dir = os.path.join(self.dir, 'out')
    code, out, err = _Cli([a, spool, '--out', out_dir])
    self.assertEqual(code, 0, err)
    line = next(
        l
        for l in out.splitlines()
        if l.strip().startswith('GCP / c2') and 'worse' in l
    )
    self.assertRegex(line, r'-10\.\d %')
    self.assertIn('Storage I/O Write IOPS (ops/s, higher is better)', out)
    self.assertIn('verdicts: no significant change 35, worse 1', out)
    with open(os.path.join(out_dir, 'compare.html'), encoding='utf-8') as f:
      html = f.read()
    with open(os.path.join(out_dir, 'compare.md'), encoding='utf-8') as f:
      md = f.read()
    charts = {f for f in os.listdir(out_dir) if f.endswith('.png')}
    self.assertLen(charts, 12)
    self.assertEqual(set(re.findall(r'<img src="([^"]+)"', html)), charts)
    self.assertEqual(set(re.findall(r'!\[[^]]*\]\(([^)]+)\)', md)), charts)
    for name in charts:
      self.assertGreater(os.path.getsize(os.path.join(out_dir, name)), 5000)
    self.assertIn('<td class="worse">worse</td>', html)
    self.assertIn("Welch's t-test", md)

  def testAllCoresLabelFollowsTheVcpus(self):
    a = Write(self.dir, 'a.ndjson', Run(1, vcpus=2))
    b = Write(self.dir, 'b.ndjson', Run(2, vcpus=2))
    code, out, err = _Cli([a, b])
    self.assertEqual(code, 0, err)
    self.assertIn('all cores (2 vCPUs) (iterations/sec', out)
    self.assertNotIn('16 core CPU', out)

  def testPkbExtDelegatesAndPrintsSql(self):
    a = Write(self.dir, 'a.ndjson', Run(1))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
      code = pkb_ext_cli.main(
          ['compare', a, a, '--print-sql', 'compare_benchmarks']
      )
    self.assertEqual(code, 0)
    self.assertIn('a_machine_aggregates AS (', out.getvalue())
    self.assertIn('b_benchmark_values AS (', out.getvalue())
    self.assertNotIn('${', out.getvalue())


class BaselineTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.dir = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, self.dir)

  def testEveryFigureLoads(self):
    benchmarks = set(MEANS) | {'usd_per_tpm'}
    b = baseline.Load('2021', benchmarks)
    self.assertEqual(b.report_version, '2021')
    self.assertEqual(b.published, '2021-01-15')
    values = {(f.benchmark, f.machine_type, f.disk_type): f for f in b.figures}
    self.assertEqual(values['usd_per_tpm', 'c5a.4xlarge', 'gp2'].value, 0.813)
    self.assertEqual(values['max_tpm', 'c2-standard-16', 'pd-ssd'].value, 37048)
    self.assertEqual(values['cpu_16core', 'm6g.4xlarge', None].value, 308852)
    self.assertEqual(
        values['read_iops', 'x1e.4xlarge', 'io2'].flags, ('over_limit',)
    )

  def testQuotesAreInTheReportText(self):
    text_path = os.path.join(
        os.path.dirname(paths.RepoRoot()),
        'shared',
        'seeds',
        '000_0d2fc997ffaa1847.txt',
    )
    if not os.path.exists(text_path):
      self.skipTest(f'{text_path} is not beside the repository')
    with open(text_path, encoding='utf-8') as f:
      text = ' '.join(f.read().replace('\\$', '$').split())
    b = baseline.Load('2021', set(MEANS) | {'usd_per_tpm'})
    for f in b.figures:
      for part in f.quote.split('...'):
        with self.subTest(figure=f):
          self.assertIn(' '.join(part.split()), text)

  def testMalformedFigureIsNamed(self):
    path = os.path.join(self.dir, 'reportbad.yaml')
    with open(path, 'w', encoding='utf-8') as f:
      f.write(
          "report: r\nreport_version: '2021'\npublished: x\nsource: s\n"
          'figures:\n  - {benchmark: cpu_9core, cloud: AWS, machine_type: m,'
          ' value: 1, quote: q}\n'
      )
    with self.assertRaisesRegex(
        baseline.BaselineError, r'figure 1: unknown benchmark .cpu_9core.'
    ):
      baseline.Load('bad', set(MEANS), self.dir)

  def testBaselineBesideARun(self):
    b = Write(self.dir, 'b.ndjson', Run(1, configs=('c5a', 'm6g', 'c2')))
    code, out, err = _Cli(['--baseline=2021', b])
    self.assertEqual(code, 0, err)
    self.assertIn('the baseline has no repetitions', out)
    self.assertIn('none (stated)', out)
    rows = [l for l in out.splitlines() if l.startswith('  m6g.4xlarge / gp2')]
    # m6g.4xlarge: the stated 16-core CoreMark, and the gp2 IOPS.
    self.assertLen(rows, 3)
    self.assertTrue(any('308,852' in r and 'ci_overlap' in r for r in rows))
    cpu = next(r for r in rows if '308,852' in r)
    # 300,000 +- 1 % against 308,852: B's CI95 is far below it.
    self.assertIn('worse', cpu)
    tpm = next(
        l
        for l in out.splitlines()
        if l.startswith('  c5a.4xlarge / gp2') and '0.813' in l
    )
    self.assertIn('ci_overlap', tpm)

  def testBaselineAgainstUnknownMachines(self):
    rows = Run(1, configs=('c5a',))
    for r in rows:
      r['metadata']['machine_type'] = 'static-2vcpu'
    b = Write(self.dir, 'b.ndjson', rows)
    code, _, err = _Cli(['--baseline=2021', b])
    self.assertEqual(code, 1)
    self.assertIn('no machine of B is in the baseline', err)
    self.assertIn('static-2vcpu', err)


if __name__ == '__main__':
  absltest.main()
