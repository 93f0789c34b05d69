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
"""`pkb-ext report` on the 3x2 fixture: HTML, Markdown and real charts."""

import contextlib
import io
import json
import os
import re
import shutil
import tempfile

from absl.testing import absltest
from matplotlib import image as mpimg
import numpy as np

from pkb_ext import cli as pkb_ext_cli
from pkb_ext import paths
from pkb_ext.analysis import cli
from pkb_ext.analysis import report
from pkb_ext_dev import analysis_fixture as fx

FIXTURE = os.path.join(
    paths.RepoRoot(), 'tests', 'data', 'analysis', 'samples_3x2.ndjson'
)


def _Run(argv):
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    code = cli.Main(argv)
  return code, out.getvalue(), err.getvalue()


class ReportTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.out = tempfile.mkdtemp()
    cls.code, cls.stdout, cls.stderr = _Run(
        ['--samples', FIXTURE, '--out', cls.out]
    )
    with open(os.path.join(cls.out, 'report.html'), encoding='utf-8') as f:
      cls.html = f.read()
    with open(os.path.join(cls.out, 'report.md'), encoding='utf-8') as f:
      cls.md = f.read()

  @classmethod
  def tearDownClass(cls):
    shutil.rmtree(cls.out)
    super().tearDownClass()

  def testExitsZero(self):
    self.assertEqual(self.code, 0, self.stderr)
    self.assertIn('report.html', self.stdout)

  def testChartsAreRealNonEmptyImages(self):
    pngs = sorted(f for f in os.listdir(self.out) if f.endswith('.png'))
    expected = {f'chart_{b}.png' for b in fx.EXPECTED_RANKING}
    expected.add('chart_tpcc_steps.png')
    self.assertEqual(set(pngs), expected)
    for name in pngs:
      with self.subTest(chart=name):
        path = os.path.join(self.out, name)
        self.assertGreater(os.path.getsize(path), 5000)
        pixels = mpimg.imread(path)[..., :3]
        self.assertGreater(pixels.shape[0] * pixels.shape[1], 100000)
        # Bars or lines in cloud colors, not a blank canvas: the AWS orange
        # (#ff9900) is in every chart (every benchmark has an AWS result).
        orange = np.all(np.abs(pixels - [1.0, 0.6, 0.0]) < 0.05, axis=-1)
        self.assertGreater(int(orange.sum()), 50)

  def testHtmlAndMarkdownReferenceEveryChart(self):
    pngs = {f for f in os.listdir(self.out) if f.endswith('.png')}
    self.assertEqual(set(re.findall(r'<img src="([^"]+)"', self.html)), pngs)
    self.assertEqual(set(re.findall(r'!\[[^]]*\]\(([^)]+)\)', self.md)), pngs)

  def testRankingTableInBothFormats(self):
    row = next(
        line for line in self.md.splitlines() if line.startswith('| $/tpm |')
    )
    cells = [c.strip() for c in row.strip('|').split('|')]
    self.assertEqual(cells[1], 'AWS c5a.4xlarge / gp2 (0.813)')
    self.assertTrue(cells[2].startswith('GCP c2-standard-16'))
    self.assertTrue(cells[3].startswith('Azure Standard_F16s_v2'))
    self.assertIn('<td>AWS c5a.4xlarge / gp2 (0.813)</td>', self.html)

  def testFlagsAndTpccListed(self):
    self.assertIn('over_limit', self.md)
    self.assertIn('bimodal', self.md)
    self.assertRegex(
        self.md, r'\| GCP c2-standard-16 / pd-ssd \| 3,000 \| ' r'37,048 \|'
    )


class NumTest(absltest.TestCase):

  def testCountsHaveNoDecimals(self):
    self.assertEqual(report._Num(3.0), '3')
    self.assertEqual(report._Num(14242.0), '14,242')

  def testSmallFractionsKeepThreeDigits(self):
    self.assertEqual(report._Num(0.8134), '0.813')
    self.assertEqual(report._Num(10846.7), '10,847')
    self.assertEqual(report._Num(2.5, 2), '2.50')

  def testMissingAndNonFinite(self):
    self.assertEqual(report._Num(None), '-')
    self.assertEqual(report._Num(float('nan')), '-')


class CliTest(absltest.TestCase):

  def testNeedsASource(self):
    code, _, err = _Run(['--out', '/tmp/x'])
    self.assertEqual(code, 2)
    self.assertIn('one of the arguments --samples --table is required', err)

  def testNeedsOut(self):
    code, _, err = _Run(['--samples', FIXTURE])
    self.assertEqual(code, 2)
    self.assertIn('--out', err)

  def testCreateViewsNeedsTable(self):
    code, _, err = _Run(
        ['--samples', FIXTURE, '--out', '/tmp/x', '--create-views', 'p.d']
    )
    self.assertEqual(code, 2)
    self.assertIn('--table', err)

  def testBadNdjsonNamesTheLine(self):
    d = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, d)
    path = os.path.join(d, 'bad.ndjson')
    with open(path, 'w', encoding='utf-8') as f:
      f.write(json.dumps({'metric': 'm', 'value': 1}) + '\n{"metric": "m"\n')
    code, _, err = _Run(['--samples', path, '--out', d])
    self.assertEqual(code, 1)
    self.assertIn('bad.ndjson:2', err)

  def testValueMustBeANumber(self):
    d = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, d)
    path = os.path.join(d, 'bad.ndjson')
    with open(path, 'w', encoding='utf-8') as f:
      f.write(json.dumps({'metric': 'm', 'value': 'fast'}) + '\n')
    code, _, err = _Run(['--samples', path, '--out', d])
    self.assertEqual(code, 1)
    self.assertIn('not a number', err)

  def testPrintSqlIsDuckDbForSamples(self):
    code, out, _ = _Run(['--samples', FIXTURE, '--print-sql', 'ranking'])
    self.assertEqual(code, 0)
    self.assertIn('EXCLUDE (passed_text)', out)  # DuckDB's spelling
    self.assertNotIn('${', out)

  def testPkbExtDelegates(self):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
      code = pkb_ext_cli.main(
          ['report', '--samples', FIXTURE, '--print-sql', 'flags']
      )
    self.assertEqual(code, 0)
    self.assertIn('over_limit', out.getvalue())

  def testAConfigurationThatSkippedAPhaseIsNamedUnderItsTables(self):
    d = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, d)
    path = os.path.join(d, 'samples.ndjson')
    shutil.copy(FIXTURE, path)
    with open(FIXTURE, encoding='utf-8') as f:
      row = json.loads(f.readline())
    row['sample_uri'] += '-skipped'  # rows are unique by sample_uri
    row['metric'], row['unit'], row['value'] = (
        'cloud_report_phase_skipped',
        'count',
        1,
    )
    row['metadata'] |= {
        'machine_type': 'm6g.4xlarge',
        'phase': 'tpcc',
        'skip_reason': 'no build',
    }
    with open(path, 'a', encoding='utf-8') as f:
      f.write(json.dumps(row) + '\n')
    out = os.path.join(d, 'report')
    code, _, err = _Run(['--samples', path, '--out', out])
    self.assertEqual(code, 0, err)
    with open(os.path.join(out, 'report.md'), encoding='utf-8') as f:
      md = f.read()
    note = 'Left out: AWS m6g.4xlarge (gp2) skipped tpcc: no build.'
    tpcc = md.split('## TPC-C', 1)[1].split('\n## ', 1)[0]
    self.assertIn(note, tpcc)
    self.assertEqual(md.count(note), 2)  # and under the rankings
    code, _, err = _Run(['--samples', FIXTURE, '--out', out])
    self.assertEqual(code, 0, err)
    with open(os.path.join(out, 'report.md'), encoding='utf-8') as f:
      self.assertNotIn('Left out', f.read())  # nothing skipped, no note

  def testSpoolShapedRowsLoad(self):
    """Rows as the publisher spools them (timestamp text, publish_batch)."""
    from pkb_ext.publish import schema  # pylint: disable=g-import-not-at-top

    d = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, d)
    path = os.path.join(d, 'spool.ndjson')
    with open(path, 'w', encoding='utf-8') as f:
      for s in fx.Samples():
        f.write(
            json.dumps(schema.RowFromSample(s) | {'publish_batch': 'b'}) + '\n'
        )
    out = os.path.join(d, 'report')  # --out is replaced whole
    code, _, err = _Run(['--samples', path, '--out', out])
    self.assertEqual(code, 0, err)
    with open(os.path.join(out, 'report.md'), encoding='utf-8') as f:
      self.assertIn('AWS c5a.4xlarge / gp2 (0.813)', f.read())


if __name__ == '__main__':
  absltest.main()
