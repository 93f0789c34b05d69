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
"""Tests of pkb_ext.suite.object_storage.parser on real MinIO worker outputs."""

import contextlib
import io
import json
import pathlib
import random

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from benchmarks.cloud_report import parsers
from pkb_ext import cli
from pkb_ext.suite.object_storage import parser as ttfb
from pkb_ext.suite.object_storage import samples as os_samples

DATA = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'ttfb'


def _Read(name):
  return (DATA / name).read_text()


def _Lines(name):
  return _Read(name).splitlines(keepends=True)


def _Edit(lines, index, **changes):
  """Returns the text with one line's JSON fields changed."""
  lines = list(lines)
  obj = json.loads(lines[index])
  for k, v in changes.items():
    if v is None:
      obj.pop(k, None)
    else:
      obj[k] = v
  lines[index] = json.dumps(obj) + '\n'
  return ''.join(lines)


class CompleteRunTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.text = _Read('s3_boto3_complete.jsonl')
    cls.result = ttfb.Parse(cls.text)

  def testHeader(self):
    h = self.result.header
    self.assertEqual(h.provider, 's3')
    self.assertEqual((h.sdk, h.sdk_version), ('boto3', '1.26.27'))
    self.assertEqual(h.python, '3.11.2')
    self.assertEqual(h.endpoint, 'http://127.0.0.1:39517')

  def testCompleteAndCounted(self):
    self.assertFalse(self.result.partial)
    self.assertEqual(self.result.problems, ())
    self.assertLen(self.result.requests, 920)
    self.assertLen(self.result.rounds, 8)
    self.assertEqual(sum(e.errors for e in self.result.errors), 0)

  def _Group(self, metric, **dims):
    found = [
        g
        for g in self.result.groups
        if g.metric == metric
        and all(getattr(g, k) == v for k, v in dims.items())
    ]
    self.assertLen(found, 1, f'{metric} {dims}')
    return found[0]

  def testLatencyGroupsPerOpAndConnection(self):
    for op in ('get', 'put'):
      for conn in ('new', 'reused'):
        g = self._Group('ttfb', workload='latency', op=op, connection=conn)
        self.assertEqual(g.distribution.n, 200)
        self.assertEqual(
            [label for label, _ in g.distribution.percentiles],
            ['p50', 'p90', 'p99', 'p99.9'],
        )

  def testConnectionIsObservedNotJustWanted(self):
    latency = [r for r in self.result.requests if r.workload == 'latency']
    for r in latency:
      self.assertEqual(r.conn, 'new' if r.connects else 'reused')
    self.assertTrue(all(r.connects == 1 for r in latency if r.want == 'new'))
    self.assertTrue(all(r.connects == 0 for r in latency if r.want == 'reused'))

  def testThroughputForEverySize(self):
    sizes = sorted(
        g.object_size_bytes
        for g in self.result.groups
        if g.metric == 'throughput' and g.op == 'get'
    )
    self.assertEqual(sizes, [16384 << k for k in range(12)])

  def testThroughputIsBytesOverRequestTime(self):
    g = self._Group('throughput', op='get', object_size_bytes=32 << 20)
    rs = [
        r
        for r in self.result.requests
        if r.workload == 'throughput' and r.op == 'get' and r.size == 32 << 20
    ]
    want = [r.bytes / 1e6 / (r.total_ms / 1e3) for r in rs]
    self.assertAlmostEqual(g.distribution.mean, np.mean(want))
    self.assertAlmostEqual(g.distribution.minimum, min(want))

  def testTtfbBelowTransferTimeOnMultiMibObjects(self):
    big = [
        r
        for r in self.result.requests
        if r.op == 'get' and r.size >= 4 << 20 and r.workload == 'throughput'
    ]
    self.assertLen(big, 16)  # 4, 8, 16 and 32 MiB, 4 GETs each
    for r in big:
      self.assertLess(r.ttfb_ms, r.total_ms, r)
    g = self._Group('ttfb', op='get', object_size_bytes=32 << 20)
    total = self._Group('request_time', op='get', object_size_bytes=32 << 20)
    # The body of 32 MiB takes far longer than its first byte.
    self.assertLess(g.distribution.maximum, total.distribution.minimum)

  def testPercentilesMatchNumpyOnRawTimings(self):
    checked = 0
    for g in self.result.groups:
      if g.metric not in ('ttfb', 'request_time'):
        continue
      raw = [
          r.ttfb_ms if g.metric == 'ttfb' else r.total_ms
          for r in self.result.requests
          if r.ok
          and r.workload == g.workload
          and r.op == g.op
          and (g.connection is None or r.conn == g.connection)
          and (g.object_size_bytes is None or r.size == g.object_size_bytes)
      ]
      self.assertLen(raw, g.distribution.n)
      for label, value in g.distribution.percentiles:
        p = float(label[1:])
        self.assertAlmostEqual(value, np.percentile(raw, p), places=9)
      self.assertAlmostEqual(g.distribution.mean, np.mean(raw), places=9)
      self.assertEqual(g.distribution.minimum, np.min(raw))
      self.assertEqual(g.distribution.maximum, np.max(raw))
      checked += 1
    self.assertEqual(checked, 4 * 2 + 24 * 2)

  def testAggregateThroughputPerLevel(self):
    g = self._Group('aggregate_throughput', op='get', concurrency=5)
    rounds = [
        r for r in self.result.rounds if r.op == 'get' and r.concurrency == 5
    ]
    want = [r.bytes / 1e6 / (r.wall_ms / 1e3) for r in rounds]
    self.assertEqual(g.distribution.n, 2)
    self.assertAlmostEqual(g.distribution.mean, np.mean(want))
    self.assertEqual(rounds[0].bytes, 5 * (4 << 20))


class PercentileTest(parameterized.TestCase):

  @parameterized.parameters(1, 2, 3, 10, 999, 1000, 1001)
  def testMatchesNumpyLinear(self, n):
    rng = random.Random(n)
    values = [rng.lognormvariate(2, 1) for _ in range(n)]
    for p in (0, 1, 10, 50, 90, 99, 99.9, 100):
      self.assertAlmostEqual(
          ttfb.Percentile(values, p), np.percentile(values, p), places=9
      )

  def testInterpolatesBetweenRanks(self):
    self.assertEqual(ttfb.Percentile([10, 20], 50), 15)
    self.assertAlmostEqual(ttfb.Percentile(list(range(1, 1001)), 99.9), 999.001)

  def testRejectsEmptyAndOutOfRange(self):
    with self.assertRaises(ValueError):
      ttfb.Percentile([], 50)
    with self.assertRaises(ValueError):
      ttfb.Percentile([1], 101)


class PartialOutputTest(absltest.TestCase):

  def testSigkilledRunKeepsFinishedRequests(self):
    result = ttfb.Parse(_Read('s3_boto3_sigkill.jsonl'))
    self.assertTrue(result.partial)
    self.assertLen(result.requests, 81)
    self.assertIn('no end record', result.problems[0])
    self.assertTrue(any(g.metric == 'ttfb' for g in result.groups))

  def testSigtermAbortRecordIsKept(self):
    result = ttfb.Parse(_Read('s3_boto3_sigterm.jsonl'))
    self.assertTrue(result.partial)
    self.assertIn('SystemExit: signal 15', '; '.join(result.problems))

  def testTruncatedLastLineIsDroppedAndReported(self):
    text = _Read('s3_boto3_sigkill.jsonl')
    cut = text[: len(text) - 40]  # the kill landed mid-write
    result = ttfb.Parse(cut)
    self.assertTrue(result.partial)
    self.assertLen(result.requests, 80)
    self.assertIn('line 82: truncated last line dropped', result.problems[0])

  def testFailedRequestsAreCountedNotTimed(self):
    lines = _Lines('s3_boto3_complete.jsonl')
    failed = json.loads(lines[1])
    assert failed['workload'] == 'latency'
    text = _Edit(
        lines,
        1,
        ok=False,
        error='ClientError: SlowDown',
        ttfb_ms=None,
        bytes=None,
        src=None,
    )
    text = text.replace(
        '"errors": 0, "kind": "end"', '"errors": 1, "kind": "end"'
    )
    result = ttfb.Parse(text)
    errors = {(e.workload, e.op): e.errors for e in result.errors}
    self.assertEqual(errors[('latency', failed['op'])], 1)
    self.assertEqual(
        sum(
            g.distribution.n
            for g in result.groups
            if g.metric == 'ttfb' and g.workload == 'latency'
        ),
        799,
    )


class ScenarioOutputTest(parameterized.TestCase):
  """PKB's TimeToFirstByte scenario writes the worker's records."""

  @parameterized.parameters(
      ('s3_scenario_minio.jsonl', 's3', 'boto3'),
      ('gcs_scenario_fake_gcs.jsonl', 'gcs', 'google-cloud-storage'),
  )
  def testParsesIntoTheWorkersSamples(self, name, provider, sdk):
    result = ttfb.Parse(_Read(name))
    self.assertEqual(
        (result.header.provider, result.header.sdk), (provider, sdk)
    )
    self.assertFalse(result.partial)
    self.assertEqual(len(result.requests), 46)
    latency = [r for r in result.requests if r.workload == 'latency']
    self.assertEqual(len(latency), 20)
    for r in latency:  # a new connection where wanted, none where reused
      self.assertEqual((r.conn, r.connects), (r.want, int(r.want == 'new')))
    new = os_samples.FromResult(result)
    old = os_samples.FromResult(ttfb.Parse(_Read('s3_boto3_complete.jsonl')))
    self.assertEqual({s.metric for s in new}, {s.metric for s in old})
    self.assertEqual(
        {(s.metric, s.unit) for s in new}, {(s.metric, s.unit) for s in old}
    )
    self.assertEqual(
        set().union(*(s.metadata for s in new)),
        set().union(*(s.metadata for s in old)),
    )


class BadOutputTest(parameterized.TestCase):

  def _Fails(self, text, message):
    with self.assertRaisesRegex(parsers.ParseError, message):
      ttfb.Parse(text)

  def testEmpty(self):
    self._Fails('', 'empty output')
    self._Fails('\n \n', 'empty output')

  def testNotJsonAtAll(self):
    self._Fails(
        'Traceback (most recent call last):\n  File ...\n', 'line 1: not JSON'
    )

  def testNoHeader(self):
    lines = _Lines('s3_boto3_complete.jsonl')
    self._Fails(''.join(lines[1:]), 'expected the worker header first')

  def testForeignFormat(self):
    lines = _Lines('s3_boto3_complete.jsonl')
    self._Fails(_Edit(lines, 0, version=2), 'not cloud-report-ttfb version 1')

  def testGarbageInTheMiddle(self):
    lines = _Lines('s3_boto3_complete.jsonl')
    lines[5] = lines[5][:50] + '\n'
    self._Fails(''.join(lines), 'line 6: not JSON')

  def testTruncatedLineThatIsNotLast(self):
    lines = _Lines('s3_boto3_complete.jsonl')
    self._Fails(
        ''.join(lines[:3]) + '{"kind": "requ\n' + ''.join(lines[3:]),
        'line 4: not JSON',
    )

  def testNonObjectLine(self):
    lines = _Lines('s3_boto3_complete.jsonl')
    lines[2] = '[1, 2]\n'
    self._Fails(''.join(lines), 'line 3: expected a JSON object')

  def testUnknownKind(self):
    lines = _Lines('s3_boto3_complete.jsonl')
    self._Fails(_Edit(lines, 3, kind='sample'), "unknown record kind 'sample'")

  @parameterized.named_parameters(
      ('missing', dict(total_ms=None), "lacks 'total_ms'"),
      ('negative', dict(total_ms=-1.0), "'total_ms' is -1.0, below 0"),
      ('string', dict(ttfb_ms='3.1'), "'ttfb_ms' should be float"),
      ('bool_as_int', dict(connects=True), "'connects' should be int"),
      ('bad_op', dict(op='head'), "'op' is 'head'"),
      ('nan', dict(ttfb_ms=float('nan')), "'ttfb_ms' is not finite"),
      ('ttfb_over_total', dict(ttfb_ms=1e6), 'exceeds total_ms'),
      ('short_read', dict(bytes=0), '0 bytes moved for a 1-byte object'),
  )
  def testBadRequestField(self, change, message):
    lines = _Lines('s3_boto3_complete.jsonl')
    self._Fails(_Edit(lines, 4, **change), 'line 5: .*' + message)

  def testRoundWithMoreErrorsThanRequests(self):
    lines = _Lines('s3_boto3_complete.jsonl')
    i = next(i for i, l in enumerate(lines) if '"kind": "round"' in l)
    self._Fails(_Edit(lines, i, errors=9), '9 errors in')

  def testEndCountsMismatch(self):
    lines = _Lines('s3_boto3_complete.jsonl')
    self._Fails(
        ''.join(lines[:100] + lines[-1:]),
        'end record counts 920 requests, the output has 99',
    )

  def testLinesAfterEnd(self):
    lines = _Lines('s3_boto3_complete.jsonl')
    self._Fails(''.join(lines + lines[1:2]), "'request' record after the end")

  def testHeaderOnly(self):
    lines = _Lines('s3_boto3_complete.jsonl')
    self._Fails(lines[0], r'no successful request in 0 request record\(s\)')

  def testOnlyFailures(self):
    lines = _Lines('s3_boto3_sigkill.jsonl')[:3]
    text = _Edit(lines, 1, ok=False, error='EndpointConnectionError: refused')
    text = ''.join(_Edit(text.splitlines(True), 2, ok=False, error='x'))
    self._Fails(text, 'no successful request in 2')


class CliTest(absltest.TestCase):

  def testParsePrintsSamples(self):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
      rc = cli.main(['parse', 'ttfb', str(DATA / 's3_boto3_complete.jsonl')])
    self.assertEqual(rc, 0)
    rows = [json.loads(l) for l in out.getvalue().splitlines()]
    metrics = {r['metric'] for r in rows}
    self.assertIn('object_storage_ttfb', metrics)
    self.assertTrue(
        all(r['metadata']['phase'] == 'object_storage' for r in rows)
    )

  def testParseFailsClearly(self):
    path = self.create_tempfile(content='{"kind": "header"}\n').full_path
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
      rc = cli.main(['parse', 'ttfb', path])
    self.assertEqual(rc, 1)
    self.assertIn('not cloud-report-ttfb version 1', err.getvalue())


if __name__ == '__main__':
  absltest.main()
