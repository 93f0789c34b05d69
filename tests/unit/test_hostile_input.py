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
"""Hostile and newer real input: parsers raise only ParseError, and
`pkb-ext parse` never prints a traceback.

Each case starts from a real capture in tests/data and changes the one
thing under test.
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile

from absl.testing import absltest
from absl.testing import parameterized

from benchmarks.cloud_report import parsers
from pkb_ext.suite import phase_table
from benchmarks.cloud_report.tpcc import parser as cockroach_parser
from pkb_ext.suite.cpu import parser as coremark
from pkb_ext.suite.disk import parser as fio
from pkb_ext.suite.net import parser as netperf
from pkb_ext.suite.net import samples as net_samples
from pkb_ext.suite.net import stages as net
from pkb_ext.suite.object_storage import parser as ttfb
from pkb_ext.suite.tpcc import parser as tpcc

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data'
_ROOT = pathlib.Path(__file__).resolve().parents[2]
BIG = '9' * 400
PKB_EXT = [sys.executable, '-m', 'pkb_ext.cli']
# PKB's own import-time deprecation warnings are not ours to count.
_ENV = dict(os.environ, PYTHONWARNINGS='ignore')


def _Read(relative: str) -> str:
  return (DATA / relative).read_text()


def _Deep(depth: int = 5000) -> str:
  return '[' * depth + ']' * depth


class CoreMarkTest(absltest.TestCase):

  def testReadmeMdWordingOfCurrentCoreMarkIsValidated(self):
    # eembc/coremark main: "See README.md ..." instead of v1.01's readme.txt.
    text = _Read('coremark/single_core.txt').replace(
        'See readme.txt', 'See README.md'
    )
    self.assertIn('See README.md for run and reporting rules.', text)
    result = coremark.Parse(text)
    self.assertTrue(result.valid_for_reporting)
    self.assertAlmostEqual(result.score, 10946.508064)

  def testHugeParallelCountIsRejectedWithoutBuildingIt(self):
    text = _Read('coremark/all_core_pthread_2.txt').replace(
        'Parallel PThreads : 2', 'Parallel PThreads : 2000000000'
    )
    self.assertIn('2000000000', text)
    with self.assertRaisesRegex(parsers.ParseError, '2000000000 contexts'):
      coremark.Parse(text)

  def test400DigitNumbersAreParseErrors(self):
    for line in ('Iterations       : ', 'Total ticks      : '):
      text = _Read('coremark/single_core.txt')
      start = text.index(line) + len(line)
      end = text.index('\n', start)
      with self.assertRaisesRegex(parsers.ParseError, 'out of range'):
        coremark.Parse(text[:start] + BIG + text[end:])


class FioTest(absltest.TestCase):

  def _Doc(self):
    return json.loads(_Read('fio/job_rd-iops.json'))

  def testPercentilesAsAListIsAParseError(self):
    doc = self._Doc()
    doc['jobs'][0]['read']['clat_ns']['percentile'] = [1, 2]
    with self.assertRaisesRegex(parsers.ParseError, 'percentile.*list'):
      fio.Parse(json.dumps(doc))

  def testDeepNestingIsAParseError(self):
    with self.assertRaisesRegex(parsers.ParseError, 'nested too deeply'):
      fio.Parse('{"jobs": ' + _Deep() + '}')

  def test400DigitIntegerIsAParseError(self):
    doc = self._Doc()
    doc['jobs'][0]['read']['io_bytes'] = int(BIG)
    with self.assertRaisesRegex(parsers.ParseError, 'io_bytes'):
      fio.Parse(json.dumps(doc))

  def testIntegerBeyondPythonsDigitLimitIsAParseError(self):
    text = _Read('fio/job_rd-iops.json').replace(
        '"error" : 0', '"error" : ' + '9' * 5000, 1
    )
    with self.assertRaises(parsers.ParseError):
      fio.Parse(text)

  def testJobListedTwiceIsAParseError(self):
    doc = self._Doc()
    doc['jobs'].append(doc['jobs'][0])
    with self.assertRaisesRegex(parsers.ParseError, 'listed twice'):
      fio.Parse(json.dumps(doc))

  def testNonFinitePercentileKeyIsAParseError(self):
    doc = self._Doc()
    doc['jobs'][0]['read']['clat_ns']['percentile'] = {'nan': 5}
    with self.assertRaisesRegex(parsers.ParseError, 'not in 0..100'):
      fio.Parse(json.dumps(doc))


class TpccTest(parameterized.TestCase):

  _GOTPC = 'tpcc/gotpc_v1.0.9_pg15_4wh_4threads_30s.txt'
  _NEW_ORDER_P90 = '90th(ms): 22.0, 95th(ms): 29.4, 99th(ms): 50.3, 99.9th'

  @parameterized.parameters('NaN', 'nan', 'inf', '+Inf', '-22.0', '1e3', BIG)
  def testGoTpcLatencyMustBeAPlainNonNegativeNumber(self, value):
    text = _Read(self._GOTPC)
    line = '[Summary] NEW_ORDER - '
    start = text.index(line)
    summary = text[start : text.index('\n', start)]
    bad = summary.replace('90th(ms): 22.0', f'90th(ms): {value}')
    self.assertNotEqual(bad, summary)
    with self.assertRaises(parsers.ParseError):
      tpcc.Parse(text.replace(summary, bad))

  @parameterized.parameters('NaN', '-1.0', 'inf')
  def testGoTpcTpmcMustBeANumber(self, value):
    text = _Read(self._GOTPC).replace('tpmC: 12051.0', f'tpmC: {value}')
    with self.assertRaises(parsers.ParseError):
      tpcc.Parse(text)

  def testGoTpcCountOf400DigitsIsAParseError(self):
    text = _Read(self._GOTPC).replace('Count: 6022', f'Count: {BIG}')
    with self.assertRaises(parsers.ParseError):
      tpcc.Parse(text)

  def testCockroach400DigitsIsAParseError(self):
    text = _Read('tpcc/cockroach_v21.1_pgbouncer_10wh_10m.txt')
    rows = [l for l in text.splitlines() if l.strip().endswith('newOrder')]
    self.assertTrue(rows)
    first = rows[-1].split()[2]  # ops(total)
    bad = text.replace(rows[-1], rows[-1].replace(f' {first} ', f' {BIG} '))
    with self.assertRaises(parsers.ParseError):
      tpcc.Parse(bad)

  _CRDB_PASS = 'tpcc/cockroach_v22.1.2_9node_8vcpu_3500wh_tail.txt'

  def _CockroachFinal(self, text: str) -> str:
    header = cockroach_parser._CRDB_FINAL  # pylint: disable=protected-access
    return text.splitlines()[text.splitlines().index(header) + 1]

  def testCockroachTpmcInNoTimeIsAParseError(self):
    text = _Read(self._CRDB_PASS)
    final = self._CockroachFinal(text)
    elapsed = final.split()[0]
    bad = final.replace(elapsed, ' ' * (len(elapsed) - 4) + '0.0s', 1)
    self.assertNotEqual(bad, final)
    with self.assertRaisesRegex(parsers.ParseError, 'contradicts itself'):
      tpcc.Parse(text.replace(final, bad))

  def testCockroachNoResultsSummaryStillParses(self):
    # A step that completed no transaction: every figure 0, full elapsed.
    text = _Read(self._CRDB_PASS)
    final = self._CockroachFinal(text)
    fields = final.split()
    zero = final
    for old in fields[1:]:
      new = '0.0%' if old.endswith('%') else '0.0'
      zero = zero.replace(f' {old}', f' {new:>{len(old)}}', 1)
    result = tpcc.Parse(text.replace(final, zero))
    self.assertEqual(result.tpmc, 0.0)
    self.assertEqual(result.elapsed_s, float(fields[0].rstrip('s')))

  def testGoTpcTpmcInNoTimeIsAParseError(self):
    text = _Read(self._GOTPC)
    line = '[Summary] NEW_ORDER - Takes(s): 30.0,'
    self.assertIn(line, text)
    bad = text.replace(line, '[Summary] NEW_ORDER - Takes(s): 0.0,')
    with self.assertRaisesRegex(parsers.ParseError, 'contradicts itself'):
      tpcc.Parse(bad)

  def testCliNeverPrintsNaN(self):
    text = _Read(self._GOTPC).replace('tpmC: 12051.0', 'tpmC: NaN')
    proc = _Cli(['parse', 'tpcc', '-'], text)
    self.assertEqual(proc.returncode, 1)
    self.assertEqual(proc.stdout, '')
    self.assertNotIn('Traceback', proc.stderr)


class NetperfTest(parameterized.TestCase):

  @parameterized.parameters(
      ('13,19.52,14,14,', '13,-19.52,14,14,'),
      ('13,19.52,14,14,', '13,19.52,14,-14,'),
  )
  def testNegativeLatencyIsAParseError(self, good, bad):
    text = _Read('netperf/tcp_rr_csv.txt')
    self.assertIn(good, text)
    with self.assertRaisesRegex(parsers.ParseError, 'negative'):
      netperf.Parse(text.replace(good, bad))

  def testNegativeRateAndThroughputAreParseErrors(self):
    for name, value in (
        ('tcp_rr_csv.txt', ',51131.017,'),  # TRANSACTION_RATE
        ('tcp_rr_csv.txt', ',51131.02,'),  # THROUGHPUT
        ('tcp_stream_csv.txt', ',12118.34,'),
    ):
      text = _Read(f'netperf/{name}')
      self.assertIn(value, text)
      with self.assertRaisesRegex(parsers.ParseError, 'negative'):
        netperf.Parse(text.replace(value, ',-' + value[1:]))

  @parameterized.parameters(
      # min, mean, p50, p90, p99, max: p99 below the minimum, p50 above p99,
      # a mean above the maximum, a minimum above all.
      (('13,19.52,14,14,17,', '13,19.52,14,14,5,'), 'contradicts itself'),
      (('13,19.52,14,14,17,', '13,19.52,500,14,17,'), 'P50_LATENCY 500 is'),
      (('13,19.52,14,14,17,', '13,99999,14,14,17,'), 'above MAX_LATENCY'),
      (('13,19.52,14,14,17,', '99999,19.52,14,14,17,'), 'below MIN_LATENCY'),
  )
  def testSelfContradictingLatenciesAreParseErrors(self, change, message):
    text = _Read('netperf/tcp_rr_csv.txt')
    self.assertIn(change[0], text)
    with self.assertRaisesRegex(parsers.ParseError, message):
      netperf.Parse(text.replace(*change))

  def testEveryCaptureStillParses(self):
    for path in sorted((DATA / 'netperf').glob('tcp_*_csv*.txt')):
      if path.name == 'tcp_rr_csv_confidence.txt':
        continue  # no TRANSPORT_MSS, which PKB's parser reads
      with self.subTest(path=path.name):
        netperf.Parse(path.read_text())

  def testOtherSelectorsNameAnySelectors(self):
    titles, values = (
        line.split(',')
        for line in _Read('netperf/tcp_rr_csv.txt').split('\n')[1:3]
    )
    keep = [i for i, t in enumerate(titles) if t != 'Transaction Rate Tran/s']
    other = '\n'.join([
        _Read('netperf/tcp_rr_csv.txt').split('\n')[0],
        ','.join(titles[i] for i in keep),
        ','.join(values[i] for i in keep),
    ])
    proc = _Cli(['parse', 'netperf', '-'], other)
    self.assertEqual(proc.returncode, 1, proc.stdout)
    self.assertIn('TRANSACTION_RATE missing', proc.stderr)
    self.assertIn('--any-selectors', proc.stderr)
    self.assertLen(proc.stderr.strip().splitlines(), 1)

  def testRetransmissionsOfMinusOneStayAccepted(self):
    # netperf prints -1 where it measured none (UDP, no confidence).
    text = _Read('netperf/tcp_rr_csv.txt')
    self.assertIn(',TCP,Send|Recv,0,0,', text)
    result = netperf.Parse(
        text.replace(',TCP,Send|Recv,0,0,', ',TCP,Send|Recv,-1,-1,')
    )
    self.assertEqual(result.Field('LOCAL_TRANSPORT_RETRANS'), '-1')

  def testRateGivenOnlyAsThroughputInTransPerSecond(self):
    # PKB's selectors: THROUGHPUT in Trans/s, no TRANSACTION_RATE.
    text = (
        'MIGRATED TCP REQUEST/RESPONSE TEST from 0.0.0.0 (0.0.0.0) port 0'
        ' AF_INET to 10.0.0.2 () port 20001 AF_INET : first burst 0\n'
        'Throughput,Throughput Units,50th Percentile Latency Microseconds,'
        'Confidence Iterations Run,Throughput Confidence Width (%),'
        'Local Transport Retransmissions,Remote Transport Retransmissions,'
        'Transport MSS bytes\n'
        '1405.50,Trans/s,683,1,-1.000,0,0,1448\n'
    )
    result = netperf.Parse(text)
    self.assertEqual(result.transaction_rate, 1405.5)
    samples = {s.metric: s for s in net_samples.FromResult(result)}
    self.assertEqual(samples['netperf_transaction_rate'].value, 1405.5)
    self.assertEqual(
        samples['netperf_transaction_rate'].metadata[
            'transaction_rate_selector'
        ],
        'THROUGHPUT',
    )
    self.assertNotIn('netperf_throughput', samples)

  def testCutAtALineBoundaryFailsInTheCliAsInThePhase(self):
    text = _Read('netperf/tcp_rr_csv_phase.txt')
    cut = ''.join(text.splitlines(keepends=True)[:2])
    with self.assertRaisesRegex(parsers.ParseError, 'value row'):
      netperf.Parse(cut, required=net.RequiredSelectors('TCP_RR'))
    for options in ([], ['--any-selectors']):
      proc = _Cli(['parse', 'netperf', *options, '-'], cut)
      self.assertEqual(proc.returncode, 1, proc.stdout)
      self.assertIn('a title row and a value row', proc.stderr)
      self.assertEqual(proc.stdout, '')
    whole = _Cli(['parse', 'netperf', '-'], text)
    self.assertEqual(whole.returncode, 0, whole.stderr)
    self.assertLen(whole.stdout.splitlines(), 8)


class TtfbTest(parameterized.TestCase):

  @parameterized.parameters(
      ('s3_boto3_sigterm.jsonl', 1, '"ttfb_ms": 7.5307'),
      ('s3_boto3_sigterm.jsonl', 1, '"total_ms": 38.9458'),
      ('s3_boto3_complete.jsonl', 898, '"wall_ms": 37.5802'),
  )
  def testIntegerTooLargeForAFloatIsAParseError(self, name, index, field):
    lines = _Read(f'ttfb/{name}').splitlines(keepends=True)
    self.assertIn(field, lines[index])
    key = field.split(':')[0]
    lines[index] = lines[index].replace(field, f'{key}: {BIG}')
    text = ''.join(lines)
    with self.assertRaisesRegex(parsers.ParseError, 'out of range'):
      ttfb.Parse(text)
    proc = _Cli(['parse', 'ttfb', '-'], text)
    self.assertEqual(proc.returncode, 1, proc.stdout[:300])
    self.assertNotIn('Traceback', proc.stderr)
    self.assertLen(proc.stderr.strip().splitlines(), 1, proc.stderr)

  def testDeepNestingAndHugeNumbersAreParseErrors(self):
    lines = _Read('ttfb/s3_boto3_sigterm.jsonl').splitlines(keepends=True)
    for bad in (
        _Deep() + '\n',
        lines[1].replace('"bytes": 1,', f'"bytes": {BIG},'),
        lines[1].replace('"bytes": 1,', '"bytes": ' + '9' * 5000 + ','),
    ):
      with self.assertRaises(parsers.ParseError):
        ttfb.Parse(lines[0] + bad + ''.join(lines[2:]))


def _Cli(argv, stdin=None, timeout=60):
  return subprocess.run(
      PKB_EXT + argv,
      input=stdin,
      capture_output=True,
      text=True,
      timeout=timeout,
      check=False,
      env=_ENV,
  )


# Runs `pkb-ext` once per argv in one fresh interpreter (PKB's import, paid
# once); an exception escaping the command is reported as its traceback.
_MANY_CHILD = """
import json
import sys
import traceback
from pkb_ext_dev import cli_run
results = []
for argv in json.loads(sys.argv[1]):
  try:
    results.append(list(cli_run.Run(argv)))
  except BaseException:
    results.append([None, '', traceback.format_exc()])
print('RESULTS ' + json.dumps(results))
"""


def _CliMany(argvs) -> list[subprocess.CompletedProcess]:
  """`pkb-ext ARGV` for each argv, in one child process."""
  env = dict(_ENV)
  env['PYTHONPATH'] = os.pathsep.join(
      p for p in (str(_ROOT), str(_ROOT / 'tests'), env.get('PYTHONPATH')) if p
  )
  done = subprocess.run(
      [sys.executable, '-c', _MANY_CHILD, json.dumps(argvs)],
      capture_output=True,
      text=True,
      timeout=300,
      check=False,
      env=env,
  )
  lines = [l for l in done.stdout.splitlines() if l.startswith('RESULTS ')]
  if done.returncode or len(lines) != 1:
    raise AssertionError(f'child failed: {done.stdout[-2000:]}{done.stderr}')
  return [
      subprocess.CompletedProcess(argv, status, out, err)
      for argv, (status, out, err) in zip(
          argvs, json.loads(lines[0][len('RESULTS ') :])
      )
  ]


class ParseCliTest(parameterized.TestCase):
  """`pkb-ext parse` in a child process: one-line errors, no traceback."""

  def _AssertCleanFailure(self, proc):
    self.assertEqual(proc.returncode, 1, proc.stdout[:500])
    self.assertNotIn('Traceback', proc.stderr)
    self.assertEqual(proc.stdout, '')
    self.assertLen(proc.stderr.strip().splitlines(), 1, proc.stderr)

  def testHostileFilesFailCleanly(self):
    work = self.create_tempdir().full_path
    cases = {
        'big_int': BIG + '\n',
        'deep': _Deep() + '\n',
        'wrong_types': '{"fio version": 3, "jobs": {"a": []}}\n',
        'binary': '\udcff',
        'nan': '{"kind": "header", "version": NaN}\n',
    }
    argvs = []
    for name, text in cases.items():
      path = os.path.join(work, name)
      with open(path, 'w', errors='surrogateescape') as f:
        f.write(text)
      argvs += [['parse', tool, path] for tool in sorted(phase_table.TOOLS)]
    procs = _CliMany(argvs)
    self.assertLen(procs, len(cases) * len(phase_table.TOOLS))
    for proc in procs:
      with self.subTest(argv=proc.args):
        self._AssertCleanFailure(proc)

  def testDevZeroIsRefused(self):
    proc = _Cli(['parse', 'coremark', '/dev/zero'], timeout=30)
    self._AssertCleanFailure(proc)
    self.assertIn('not a regular file', proc.stderr)

  def testFifoIsRefusedWithoutHanging(self):
    path = os.path.join(self.create_tempdir().full_path, 'fifo')
    os.mkfifo(path)
    proc = _Cli(['parse', 'netperf', path], timeout=30)
    self._AssertCleanFailure(proc)
    self.assertIn('not a regular file', proc.stderr)

  def testOversizedStandardInputIsRefused(self):
    with open('/dev/zero', 'rb') as zero:
      proc = subprocess.run(
          PKB_EXT + ['parse', 'fio', '-'],
          stdin=zero,
          capture_output=True,
          text=True,
          timeout=120,
          check=False,
          env=_ENV,
      )
    self._AssertCleanFailure(proc)
    self.assertIn('larger than 64 MiB', proc.stderr)

  def testStandardInput(self):
    text = _Read('coremark/single_core.txt')
    proc = _Cli(['parse', 'coremark', '-'], text)
    self.assertEqual(proc.returncode, 0, proc.stderr)
    (line,) = proc.stdout.splitlines()
    self.assertEqual(json.loads(line)['value'], 10946.508064)

  def testDirectoryIsRefused(self):
    with tempfile.TemporaryDirectory() as d:
      self._AssertCleanFailure(_Cli(['parse', 'tpcc', d]))


if __name__ == '__main__':
  absltest.main()
