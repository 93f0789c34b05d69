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
"""Our parsers on the CoreMark, fio and netperf outputs in PKB's tests/data.

They are captures from real clouds kept by PKB (read from the pinned PKB
checkout in the setup cache, never copied here). Some files are not one
whole run: CATALOGUE says how each is wrapped and how its runs are taken out
(JSON lists of runs or of lines, a banner and CSV header re-wrapped at 80
columns), and NOT_OUTPUTS lists the files that are not tool output at all.
Every file of PKB's tests/data about these tools must be in one of the two.

Where PKB has a parser for the same output (coremark_benchmark's
_ParseOutputForSamples, linux_packages.fio.ParseResults,
netperf_benchmark.ParseNetperfOutput), the values must agree.
"""

import json
import logging
import os
import pathlib
import re

from absl import flags
from absl.testing import absltest
import perfkitbenchmarker

from benchmarks.cloud_report import parsers
from pkb_ext.suite.cpu import parser as coremark
from pkb_ext.suite.disk import parser as fio
from pkb_ext.suite.net import parser as netperf
from pkb_ext.suite import phase_modules

PKB_DATA = (
    pathlib.Path(perfkitbenchmarker.__file__).resolve().parent.parent
    / 'tests'
    / 'data'
)
_MISSING = (
    None
    if PKB_DATA.is_dir()
    else f'the pinned PKB checkout has no tests/data ({PKB_DATA}): run setup'
)


def _Whole(text):
  return [text]


def _ListsOfLines(text):
  """A JSON list of runs, each the list of its lines."""
  return ['\n'.join(lines) + '\n' for lines in json.loads(text)]


def _Unwrapped(text):
  """Joins the banner and the CSV header that were wrapped at 80 columns."""
  lines = text.split('\n')
  header = next(i for i, l in enumerate(lines) if l.startswith('Throughput,'))
  values = next(
      i for i in range(header, len(lines)) if re.match(r'^-?\d', lines[i])
  )
  banner = ' '.join(lines[:header])
  titles = ' '.join(lines[header:values])
  return ['\n'.join([banner, titles] + lines[values:])]


def _Rounds(text):
  """[[stdouts], [stderrs], [exit codes], start, end] per round."""
  out = []
  for stdouts, _, codes, _, _ in json.loads(text):
    assert all(c == 0 for c in codes), codes
    out.extend(stdouts)
  return out


# file -> (tool, how its runs are taken out, why it is not one whole run).
CATALOGUE = {
    'coremark_sample_output.txt': ('coremark', _Whole, None),
    'fio/fio-parser-sample-result.json': ('fio', _Whole, None),
    'fio/hist/pkb-7fb0c9d8-0_fio.json': ('fio', _Whole, None),
    'netperf_results.json': (
        'netperf',
        _ListsOfLines,
        (
            'a JSON list of 10 runs (TCP_RR, TCP_CRR, TCP_STREAM, UDP_RR,'
            ' UDP_STREAM), each the list of its lines'
        ),
    ),
    'netperf_results_multistreams.json': (
        'netperf',
        _ListsOfLines,
        (
            'a JSON list of 4 concurrent TCP_STREAM runs, each the list of its'
            ' lines'
        ),
    ),
    'netperf_results.txt': (
        'netperf',
        _Unwrapped,
        (
            'one UDP_RR run with its -v 2 histogram whose banner and CSV header'
            ' lines were re-wrapped at 80 columns'
        ),
    ),
    'bidirectional_network_results.json': (
        'netperf',
        _Rounds,
        (
            'a JSON list of 4 rounds of 8 concurrent TCP_STREAM/TCP_MAERTS'
            ' runs, each round [stdouts, stderrs, exit codes, start, end]'
        ),
    ),
}
# Runs our parsers reject, and why.
REJECTED = {
    ('netperf_results.json', i): (
        'its CSV header has 12 titles but its value row 13 values: the'
        ' fixture was edited by hand (PKB reads the 13th value under no title)'
    )
    for i in (6, 7, 8, 9)
} | {
    ('bidirectional_network_results.json', i): (
        "no Local Transport Retransmissions column, which PKB's netperf"
        ' parser (the one the net phase runs) reads for every TCP test: PKB'
        ' refuses these runs too'
    )
    for i in range(8)
}
# Files about these tools that are not tool output.
NOT_OUTPUTS = {
    'fio/fio.job': 'a fio job file',
    'fio/hist/pkb-7fb0c9d8-0_fio.job': 'a fio job file',
    'fio/hist/bin_vals': "fiologparser_hist's bin values",
    'fio/hist/expected_read.json': "PKB's expected histogram samples",
    'fio/hist/expected_write.json': "PKB's expected histogram samples",
    **{
        f'fio/hist/pkb_fio_avg_1506559526.49_clat_hist.{i}.log': (
            'a fio latency histogram log, not its JSON output'
        )
        for i in (1, 2, 3, 4)
    },
}
_ABOUT_OUR_TOOLS = re.compile(r'coremark|fio|netperf', re.IGNORECASE)
_OUTPUT_MARKERS = ('MIGRATED ', '"fio version"', 'CoreMark')


def Runs():
  """(file, index, tool, text) of every run taken out of CATALOGUE."""
  out = []
  for name, (tool, unwrap, _) in CATALOGUE.items():
    for i, text in enumerate(unwrap((PKB_DATA / name).read_text())):
      out.append((name, i, tool, text))
  return out


def _Parse(tool, text):
  return {'coremark': coremark, 'fio': fio, 'netperf': netperf}[tool].Parse(
      text
  )


@absltest.skipIf(_MISSING, _MISSING)
class PkbRealOutputsTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    if not flags.FLAGS.is_parsed():
      flags.FLAGS.mark_as_parsed()

  def testEveryFileAboutTheseToolsIsCatalogued(self):
    unlisted = []
    for path in sorted(PKB_DATA.rglob('*')):
      if not path.is_file():
        continue
      name = path.relative_to(PKB_DATA).as_posix()
      try:
        head = path.read_text(errors='replace')[:100_000]
      except OSError:
        continue
      about = _ABOUT_OUR_TOOLS.search(name) or any(
          m in head for m in _OUTPUT_MARKERS
      )
      if about and name not in CATALOGUE and name not in NOT_OUTPUTS:
        unlisted.append(name)
    self.assertEqual(unlisted, [])
    for name in list(CATALOGUE) + list(NOT_OUTPUTS):
      self.assertTrue((PKB_DATA / name).is_file(), name)
    for name, (_, _, why) in CATALOGUE.items():
      if why:
        logging.info('not one whole run: %s: %s', name, why)

  def testEveryRunParsesExceptTheListedOnes(self):
    runs = Runs()
    self.assertGreater(len(runs), 45)
    rejected = {}
    for name, i, tool, text in runs:
      try:
        result = _Parse(tool, text)
      except parsers.ParseError as e:
        rejected[(name, i)] = str(e)
        continue
      self.assertNotIn((name, i), REJECTED, f'{name}[{i}] parsed')
      for s in phase_modules.ParseText(tool, text):
        self.assertGreaterEqual(s.value, 0, (name, i, s.metric))
      del result
    self.assertEqual(sorted(rejected), sorted(REJECTED), rejected)
    for key, error in rejected.items():
      expected = (
          'Local Transport Retransmissions'
          if key[0].startswith('bidirectional')
          else '12 titles but 13 values'
      )
      self.assertIn(expected, error, key)

  def testCoreMarkAgreesWithPkb(self):
    from perfkitbenchmarker.linux_benchmarks import coremark_benchmark  # pylint: disable=g-import-not-at-top

    text = (PKB_DATA / 'coremark_sample_output.txt').read_text()
    ours = coremark.Parse(text)
    (theirs,) = coremark_benchmark._ParseOutputForSamples(text, 8)  # pylint: disable=protected-access
    # Ours is PKB's parse: the same value and metadata.
    self.assertEqual(ours.score, theirs.value)
    self.assertEqual(ours.metadata, theirs.metadata)
    self.assertEqual(ours.threads, 8)
    self.assertEqual(ours.parallelism, 'socket')

  def testCurrentCoreMarkWordingAgreesWithPkb(self):
    # PKB checks a substring; so must we, for eembc/coremark's README.md.
    from perfkitbenchmarker.linux_benchmarks import coremark_benchmark  # pylint: disable=g-import-not-at-top

    text = (
        (PKB_DATA / 'coremark_sample_output.txt')
        .read_text()
        .replace('See readme.txt', 'See README.md')
    )
    (theirs,) = coremark_benchmark._ParseOutputForSamples(text, 8)  # pylint: disable=protected-access
    self.assertEqual(coremark.Parse(text).score, theirs.value)

  def testFioAgreesWithPkb(self):
    from perfkitbenchmarker.linux_packages import fio as pkb_fio  # pylint: disable=g-import-not-at-top

    compared = 0
    for name in ('fio/fio-parser-sample-result.json',
                 'fio/hist/pkb-7fb0c9d8-0_fio.json'):  # fmt: skip
      text = (PKB_DATA / name).read_text()
      theirs = {
          s.metric: s.value for s in pkb_fio.ParseResults('', json.loads(text))
      }
      ours = fio.Parse(text)
      for job in ours.jobs:
        prefix = job.name.split('.')[0]
        for d in job.directions:  # those that did I/O
          key = f'{prefix}:{d.name}'
          self.assertAlmostEqual(theirs[f'{key}:iops'], d.iops, msg=key)
          self.assertAlmostEqual(
              theirs[f'{key}:bandwidth'], d.bw_kib, delta=1, msg=key
          )
          for stat in ('min', 'max', 'mean', 'stddev'):
            self.assertAlmostEqual(
                theirs[f'{key}:latency:{stat}'],
                getattr(d, f'clat_{stat}_us'),
                places=6,
                msg=f'{key} {stat}',
            )
          for p in (50, 90, 99, 99.9):
            self.assertAlmostEqual(
                theirs[f'{key}:latency:p{p:g}'], d.Percentile(p), places=6
            )
          compared += 1
    self.assertGreaterEqual(compared, 5)

  def testNetperfAgreesWithPkb(self):
    from perfkitbenchmarker.linux_benchmarks import netperf_benchmark  # pylint: disable=g-import-not-at-top

    compared = rate_only_as_throughput = 0
    for name, i, tool, text in Runs():
      if tool != 'netperf' or (name, i) in REJECTED:
        continue
      ours = netperf.Parse(text)
      # PKB reads retransmissions for names with "TCP", when its selectors
      # asked for them (outputs without them are REJECTED).
      retrans = ours.Field('LOCAL_TRANSPORT_RETRANS') is not None
      try:
        throughput, latencies, _ = netperf_benchmark.ParseNetperfOutput(
            text, {}, ours.test if retrans else ours.test.lower(), False
        )
      except Exception:  # pylint: disable=broad-except
        # PKB's reader stops at netperf's "catcher:" diagnostic line.
        self.assertIn('catcher: timer popped', text, (name, i))
        self.assertTrue(ours.warnings)
        continue
      if throughput.unit == 'transactions_per_second':
        # PKB's selectors give the rate only as THROUGHPUT in Trans/s.
        self.assertIsNone(ours.Field('TRANSACTION_RATE'))
        self.assertEqual(ours.transaction_rate, throughput.value, name)
        samples = {
            s.metric: s.value for s in phase_modules.ParseText(tool, text)
        }
        self.assertEqual(
            samples['netperf_transaction_rate'], throughput.value, name
        )
        rate_only_as_throughput += 1
      else:
        self.assertEqual(throughput.unit, 'Mbits/sec')
        self.assertAlmostEqual(ours.throughput_mbps, throughput.value)
      for s in latencies:
        stat = s.metric.rsplit('_', 1)[-1]
        self.assertEqual(getattr(ours.latency_us, stat), s.value, (name, i))
      compared += 1
    self.assertGreater(compared, 30)
    self.assertGreaterEqual(rate_only_as_throughput, 5)


if __name__ == '__main__':
  absltest.main()
