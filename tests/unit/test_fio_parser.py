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
"""Tests for the fio parser on real fio 3.33 outputs (tests/data/fio).

Values are checked against the JSON read independently, and against PKB's
own fio parser (linux_packages.fio.ParseResults) as an oracle, on our
captures and on PKB's fio 2.1.4 sample.
"""

import contextlib
import io
import json
import pathlib

from absl.testing import absltest
from absl.testing import parameterized
import perfkitbenchmarker
from absl import flags
from perfkitbenchmarker.linux_benchmarks.fio import result_parser
from perfkitbenchmarker.linux_packages import fio as pkb_fio

from benchmarks.cloud_report.parsers import ParseError
from pkb_ext import cli
from pkb_ext.suite.disk import parser as fio

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'fio'
PKB_SAMPLE = (
    pathlib.Path(perfkitbenchmarker.__file__).resolve().parent.parent
    / 'tests/data/fio/fio-parser-sample-result.json'
)
JOBS = (
    'fill-disk-ignore', 'wr-bw', 'wr-iops', 'wr-latency', 'rd-bw', 'rd-iops',
    'rd-latency', 'target',
)  # fmt: skip
GOOD = tuple(f'job_{j}.json' for j in JOBS) + (
    'all_jobs.json',
    'note_before_json.json',
)


def _Read(name: str) -> str:
  return (DATA / name).read_text()


def _Json(name: str) -> dict:
  text = _Read(name)
  return json.loads(text[text.index('\n{') + 1 :] if text[0] != '{' else text)


def _PkbOracle(doc: dict) -> dict:
  """{(job, direction, stat): value} from PKB's own parser."""
  out = {}
  if not flags.FLAGS.is_parsed():
    flags.FLAGS.mark_as_parsed()  # PKB's parser reads two fio flags
  for s in result_parser.ParseResults('', doc):
    job, direction, *rest = s.metric.split(':')
    out[(job, direction, ':'.join(rest))] = s.value
  return out


class ParseRealOutputTest(parameterized.TestCase):

  @parameterized.parameters(*GOOD)
  def testMatchesTheJson(self, name):
    doc = _Json(name)
    result = fio.Parse(_Read(name))
    self.assertEqual(result.fio_version, 'fio-3.33')
    self.assertEqual([j.name for j in result.jobs],
                     [j['jobname'] for j in doc['jobs']])  # fmt: skip
    for job, raw in zip(result.jobs, doc['jobs']):
      self.assertNotEmpty(job.directions)
      for d in job.directions:
        stats = raw[d.name]
        self.assertGreater(stats['io_bytes'], 0)
        self.assertAlmostEqual(d.iops, stats['iops'])
        # PKB's KB/s is fio's bw: whole KiB/s, under 1 KiB/s below bw_bytes.
        self.assertEqual(d.bw_kib, stats['bw'])
        self.assertBetween(stats['bw_bytes'] - d.bw_mb * 1e6, 0, 1024)
        self.assertAlmostEqual(d.clat_mean_us, stats['clat_ns']['mean'] / 1e3)
        self.assertAlmostEqual(d.clat_max_us, stats['clat_ns']['max'] / 1e3)
        if stats['clat_ns']['N']:
          self.assertAlmostEqual(
              d.Percentile(99.9),
              stats['clat_ns']['percentile']['99.900000'] / 1e3,
          )
        else:  # all I/O fell in the ramp: fio printed no percentiles
          self.assertEqual(d.clat_percentiles_us, ())
      idle = {'read', 'write', 'trim'} - {d.name for d in job.directions}
      for name_ in idle:
        self.assertEqual(raw[name_]['io_bytes'], 0)

  @parameterized.parameters(*GOOD)
  def testAgreesWithPkbsParser(self, name):
    oracle = _PkbOracle(_Json(name))
    for job in fio.Parse(_Read(name)).jobs:
      for d in job.directions:
        key = (job.name, d.name)
        self.assertAlmostEqual(d.iops, oracle[key + ('iops',)])
        self.assertAlmostEqual(d.bw_kib, oracle[key + ('bandwidth',)], delta=1)
        for stat, pct in (('p50', 50), ('p99', 99), ('p99.99', 99.99)):
          if d.Percentile(pct) is None:
            self.assertNotIn(key + (f'latency:{stat}',), oracle)
            continue
          self.assertAlmostEqual(
              d.Percentile(pct), oracle[key + (f'latency:{stat}',)]
          )
        self.assertAlmostEqual(d.clat_min_us, oracle[key + ('latency:min',)])
        self.assertAlmostEqual(
            d.clat_stddev_us, oracle[key + ('latency:stddev',)]
        )

  def testJobOptionsOverGlobalOptions(self):
    result = fio.Parse(_Read('all_jobs.json'))
    rd_iops = result.Job('rd-iops')
    self.assertEqual(rd_iops.Option('rw'), 'randread')
    self.assertEqual(rd_iops.Option('numjobs'), '4')
    self.assertEqual(rd_iops.Option('iodepth'), '512')
    self.assertEqual(rd_iops.Option('ioengine'), 'libaio')  # global
    self.assertEqual(result.Job('wr-bw').Option('offset_increment'), '128M')
    self.assertIsNone(rd_iops.Option('latency_target'))
    with self.assertRaisesRegex(KeyError, 'no fio job'):
      result.Job('nope')

  def testLatencyTargetFields(self):
    target = fio.Parse(_Read('job_target.json')).Job('target')
    lt = target.latency_target
    raw = _Json('job_target.json')['jobs'][0]
    # fio 3 prints the target in ns and the window in us.
    self.assertEqual(lt.target_us, 1_000_000)  # 1000 ms
    self.assertEqual(lt.window_us, 10_000_000)  # 10,000 ms
    self.assertEqual(lt.percentile, 95.0)
    self.assertEqual(lt.depth, raw['latency_depth'])
    self.assertIsNone(
        fio.Parse(_Read('job_rd-iops.json')).jobs[0].latency_target
    )

  def testNoteLinesBeforeTheJson(self):
    result = fio.Parse(_Read('note_before_json.json'))
    self.assertLen(result.warnings, 1)
    self.assertStartsWith(result.warnings[0], 'note: both iodepth >= 1')
    self.assertEqual(result.jobs[0].name, 'psync-note')

  def testTrailingFioLinesAreKept(self):
    text = _Read('job_rd-iops.json') + '\nfio: file hash not empty on exit\n'
    result = fio.Parse(text)
    self.assertEqual(result.warnings, ('fio: file hash not empty on exit',))

  def testPkbsFio2Sample(self):
    doc = json.loads(PKB_SAMPLE.read_text())
    result = fio.Parse(PKB_SAMPLE.read_text())
    self.assertEqual(result.fio_version, 'fio-2.1.4')
    oracle = _PkbOracle(doc)
    for job in result.jobs:
      for d in job.directions:
        # fio 2 printed microseconds under "clat": no conversion.
        raw = doc['jobs'][[j.name for j in result.jobs].index(job.name)]
        self.assertEqual(d.clat_mean_us, raw[d.name]['clat']['mean'])
        self.assertAlmostEqual(
            d.Percentile(99), oracle[(job.name, d.name, 'latency:p99')]
        )


class PkbPercentilesTest(parameterized.TestCase):
  """Outputs of the job file with PKB's percentile_list, and without it."""

  def setUp(self):
    super().setUp()
    if not flags.FLAGS.is_parsed():
      flags.FLAGS.mark_as_parsed()  # PKB's parser reads two fio flags

  @parameterized.parameters('wr-iops', 'rd-latency')
  def testPkbsWholeParserReadsThem(self, job):
    name = f'pkb_percentiles_{job}.json'
    doc = _Json(name)
    theirs = {s.metric: s.value for s in pkb_fio.ParseResults('', doc)}
    (ours,) = fio.Parse(_Read(name)).jobs
    (d,) = ours.directions
    self.assertLen(d.clat_percentiles_us, len(fio.PKB_PERCENTILES))
    for pct, value in d.clat_percentiles_us:
      self.assertEqual(value, theirs[f'{job}:{d.name}:latency:p{pct:g}'])
    self.assertEqual(d.Percentile(25), theirs[f'{job}:{d.name}:latency:p25'])
    self.assertEqual(ours.Option('percentile_list'), fio.PERCENTILE_LIST)

  def testAJobsOwnOptionWinsOverTheGlobalOne(self):
    """PKB's ParseJobFile would give the fill [global]'s time_based=1."""
    (fill,) = fio.Parse(_Read('job_fill-disk-ignore.json')).jobs
    self.assertEqual(_Json('job_fill-disk-ignore.json')['global options']
                     ['time_based'], '1')  # fmt: skip
    self.assertEqual(fill.Option('time_based'), '0')
    self.assertEqual(fill.Option('ioengine'), 'libaio')  # a global one

  def testOutputWithoutThemTakesWhatFioPrinted(self):
    """Until patch 0002, PKB's parser raises KeyError on fio's default list."""
    doc = _Json('job_rd-latency.json')
    with self.assertRaises(KeyError):
      pkb_fio.ParseResults('', doc)
    (job,) = fio.Parse(_Read('job_rd-latency.json')).jobs
    (d,) = job.directions
    printed = doc['jobs'][0]['read']['clat_ns']['percentile']
    self.assertEqual(
        d.clat_percentiles_us,
        tuple(sorted((float(k), v / 1e3) for k, v in printed.items())),
    )
    self.assertIsNone(d.Percentile(25))


def _Mutated(name, mutate):
  doc = _Json(name)
  mutate(doc)
  return json.dumps(doc)


def _Del(path):
  def Mutate(doc):
    obj = doc
    for key in path[:-1]:
      obj = obj[key]
    del obj[path[-1]]

  return Mutate


def _Set(path, value):
  def Mutate(doc):
    obj = doc
    for key in path[:-1]:
      obj = obj[key]
    obj[path[-1]] = value

  return Mutate


RD_IOPS = _Read('job_rd-iops.json')


class BadInputTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('empty', '', 'empty fio output'),
      ('blank', '\n  \n', 'empty fio output'),
      ('garbage', 'Segmentation fault (core dumped)\n', 'no fio JSON'),
      ('fio_error_output', _Read('bad_option.txt'),
       "no fio JSON.*unrecognized option '--bogus-option=1'"),
      ('truncated', RD_IOPS[: len(RD_IOPS) // 2], 'truncated or invalid'),
      ('truncated_at_last_brace', RD_IOPS.rstrip()[:-1],
       'truncated or invalid'),
      ('job_error', _Read('job_error.json'),
       "job 'empty-file' failed with error 22 \\(Invalid argument\\)"),
      ('missing_jobs', _Mutated('job_rd-iops.json', _Del(['jobs'])),
       'missing "jobs"'),
      ('no_jobs', _Mutated('job_rd-iops.json', _Set(['jobs'], [])),
       'has no jobs'),
      ('missing_version',
       _Mutated('job_rd-iops.json', _Del(['fio version'])),
       'missing "fio version"'),
      ('missing_read',
       _Mutated('job_rd-iops.json', _Del(['jobs', 0, 'read'])),
       """job 'rd-iops': missing "read\""""),
      ('missing_clat',
       _Mutated('job_rd-iops.json', _Del(['jobs', 0, 'read', 'clat_ns'])),
       'rd-iops.* read: missing "clat_ns"'),
      ('string_iops',
       _Mutated('job_rd-iops.json', _Set(['jobs', 0, 'read', 'iops'], 'x')),
       '"iops" is \'x\', expected int or float'),
      ('negative_bw',
       _Mutated('job_rd-iops.json',
                _Set(['jobs', 0, 'read', 'bw'], -1)),
       '"bw" is -1.0, expected >= 0'),
      ('no_io',
       _Mutated('job_rd-iops.json', lambda d: d['jobs'][0]['read'].update(
           io_bytes=0, total_ios=0)),
       "job 'rd-iops' did no I/O"),
      ('array', '[1, 2]\n', 'no fio JSON'),
      ('trailing_garbage', RD_IOPS + '\n}}} oops\n',
       'unexpected text after the fio JSON'),
  )  # fmt: skip
  def testRejected(self, text, message):
    with self.assertRaisesRegex(ParseError, message):
      fio.Parse(text)


class CliTest(absltest.TestCase):

  def testParseFioPrintsSamples(self):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
      rc = cli.main(['parse', 'fio', str(DATA / 'note_before_json.json')])
    self.assertEqual(rc, 0)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    self.assertLen(rows, 13)  # one read direction
    self.assertTrue(all(r['metadata']['phase'] == 'io' for r in rows))
    self.assertEqual({r['metadata']['fio_job'] for r in rows}, {'psync-note'})

  def testParseFioRejectsFailedRun(self):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
      rc = cli.main(['parse', 'fio', str(DATA / 'job_error.json')])
    self.assertEqual(rc, 1)
    self.assertIn('failed with error 22', err.getvalue())


if __name__ == '__main__':
  absltest.main()
