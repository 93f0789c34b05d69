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
"""The report as a new user reads it: units, the all-cores label, ticks.

Runs `pkb-ext report` on a 2-vCPU variant of the 3x2 fixture with a TPC-C
curve of 1 to 3 warehouses (what the local cloud produces), and checks the
jinja2-rendered HTML for escaping.
"""

import copy
import json
import os
import re
import shutil
import tempfile

from absl.testing import absltest

from pkb_ext.analysis import cli
from pkb_ext.analysis import report
from pkb_ext_dev import analysis_fixture as fx


class AllCoresLabelTest(absltest.TestCase):

  def testLabels(self):
    self.assertEqual(report.AllCoresLabel([16, 16]), '16 core CPU')
    self.assertEqual(report.AllCoresLabel([2, None]), 'all cores (2 vCPUs)')
    self.assertEqual(report.AllCoresLabel([2, 16]), 'all cores (2-16 vCPUs)')
    self.assertEqual(report.AllCoresLabel([None]), 'all cores')


class SmallHostReportTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.dir = tempfile.mkdtemp()
    path = os.path.join(cls.dir, 'small.ndjson')
    warehouses = {2500: 1, 2750: 2, 3000: 3, 3250: 4}
    with open(path, 'w', encoding='utf-8') as f:
      for r in fx.Samples():
        r = copy.deepcopy(r)
        r['metadata']['vcpus'] = 2
        if 'active_warehouses' in r['metadata']:
          r['metadata']['active_warehouses'] = warehouses[
              r['metadata']['active_warehouses']
          ]
        if r['metadata'].get('machine_type') == 'c5a.4xlarge':
          r['metadata']['machine_type'] = 'c5a.4xlarge<b>'  # escaped in HTML
        f.write(json.dumps(r) + '\n')
    cls.out = os.path.join(cls.dir, 'out')
    assert cli.Main(['--samples', path, '--out', cls.out]) == 0
    with open(os.path.join(cls.out, 'report.md'), encoding='utf-8') as f:
      cls.md = f.read()
    with open(os.path.join(cls.out, 'report.html'), encoding='utf-8') as f:
      cls.html = f.read()

  @classmethod
  def tearDownClass(cls):
    shutil.rmtree(cls.dir)
    super().tearDownClass()

  def testAllCoresNotSixteen(self):
    self.assertNotIn('16 core CPU', self.md)
    self.assertNotIn('16 core CPU', self.html)
    self.assertIn('| all cores (2 vCPUs) |', self.md)
    self.assertIn('<h2 id="cpu_16core">all cores (2 vCPUs)</h2>', self.html)

  def testRankingTableHasUnits(self):
    header = next(l for l in self.md.splitlines() if l.startswith('| Bench'))
    self.assertEqual(header, '| Benchmark | 1st | 2nd | 3rd | Unit |')
    row = next(l for l in self.md.splitlines() if l.startswith('| $/tpm |'))
    self.assertTrue(row.endswith('| USD/tpmC (lower is better) |'), row)
    self.assertIn('| Machine | Mean (ops/s) | CI95 +- (ops/s) |', self.md)
    self.assertRegex(self.md, r'\| over_limit \| 53,427 \| 10,000 \| ops/s \|')

  def testHtmlIsEscaped(self):
    self.assertIn('c5a.4xlarge&lt;b&gt;', self.html)
    self.assertNotIn('c5a.4xlarge<b>', self.html)

  def testWarehouseTicksAreWholeNumbers(self):
    steps = [
        {
            'config_id': 'c',
            'run_uri': 'r',
            'cloud': 'Local',
            'machine_type': 'static-2vcpu',
            'disk_type': 'loop',
            'warehouses': w,
            'tpmc': 10.0 * w,
            'p90_ms': 100.0 * w,
            'passed': True,
        }
        for w in (1, 2, 3)
    ]
    ticks = report.TpccChart(steps, os.path.join(self.dir, 'tpcc.png'))
    self.assertNotEmpty(ticks)
    self.assertTrue(all(t == int(t) for t in ticks), ticks)
    self.assertIn(2.0, ticks)

  def testReportChartsStillReferenced(self):
    pngs = {f for f in os.listdir(self.out) if f.endswith('.png')}
    self.assertEqual(set(re.findall(r'<img src="([^"]+)"', self.html)), pngs)


if __name__ == '__main__':
  absltest.main()
