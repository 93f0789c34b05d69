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
"""The HTML report and the comparison open in headless Chromium.

Every image loads, nothing is logged as an error, and a full-page
screenshot (into a temporary directory) shows the page. A page with a
broken image and a console error shows that the check catches both.
Chromium is Debian's `chromium` (scripts/apt-packages.txt).
"""

import copy
import json
import os
import shutil
import tempfile

from absl.testing import absltest
from matplotlib import image as mpimg
import numpy as np

from pkb_ext import paths
from pkb_ext_dev import browser
from pkb_ext.analysis import cli as report_cli
from pkb_ext.analysis import compare_cli
from pkb_ext_dev import analysis_fixture as fx

FIXTURE = os.path.join(
    paths.RepoRoot(), 'tests', 'data', 'analysis', 'samples_3x2.ndjson'
)


class RenderTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    if browser.Executable() is None:
      raise AssertionError(
          'no Chromium: scripts/setup.sh installs Debian chromium'
          ' (scripts/apt-packages.txt)'
      )
    cls.dir = tempfile.mkdtemp()
    cls.report_dir = os.path.join(cls.dir, 'report')
    assert report_cli.Main(['--samples', FIXTURE, '--out', cls.report_dir]) == 0
    b_path = os.path.join(cls.dir, 'b.ndjson')
    with open(b_path, 'w', encoding='utf-8') as f:
      for r in fx.Samples():
        r = copy.deepcopy(r)
        if r['metric'] == 'fio_iops':
          r['value'] *= 1.1
        r['sample_uri'] += '-b'
        f.write(json.dumps(r) + '\n')
    cls.compare_dir = os.path.join(cls.dir, 'compare')
    assert compare_cli.Main([FIXTURE, b_path, '--out', cls.compare_dir]) == 0

  @classmethod
  def tearDownClass(cls):
    shutil.rmtree(cls.dir, ignore_errors=True)
    super().tearDownClass()

  def _Check(self, html, title):
    shot = os.path.join(self.dir, os.path.basename(html) + '.png')
    result = browser.CheckPage(html, shot)
    self.assertEqual(result.title, title)
    self.assertEqual(result.errors, [])
    self.assertEqual(result.broken_images, [])
    pngs = {f for f in os.listdir(os.path.dirname(html)) if f.endswith('.png')}
    self.assertEqual({i['src'] for i in result.images}, pngs)
    for i in result.images:
      self.assertGreater(i['width'], 300)
    pixels = mpimg.imread(shot)[..., :3]
    self.assertGreaterEqual(pixels.shape[1], 1000)
    self.assertGreater(pixels.shape[0], 2000)  # the whole page
    # Not blank: dark text and colored chart pixels on white.
    self.assertGreater(int((pixels.max(axis=-1) < 0.2).sum()), 10000)
    colored = np.ptp(pixels, axis=-1) > 0.3
    self.assertGreater(int(colored.sum()), 2000)
    return result

  def testReportOpensCleanly(self):
    result = self._Check(
        os.path.join(self.report_dir, 'report.html'),
        '2021 Cloud Report, rebuilt by pkb_ext',
    )
    self.assertLen(result.images, 13)

  def testComparisonOpensCleanly(self):
    result = self._Check(
        os.path.join(self.compare_dir, 'compare.html'),
        'pkb_ext comparison: A vs B',
    )
    self.assertLen(result.images, 12)

  def testCatchesBrokenImagesAndConsoleErrors(self):
    page = os.path.join(self.dir, 'broken.html')
    with open(page, 'w', encoding='utf-8') as f:
      f.write(
          '<!DOCTYPE html><html><head><title>broken</title></head><body>'
          '<img src="missing.png" alt="missing">'
          '<script>console.error("boom")</script></body></html>'
      )
    result = browser.CheckPage(page)
    self.assertEqual(result.broken_images, ['missing.png'])
    self.assertIn('console.error: boom', result.errors)
    self.assertTrue(
        any('missing.png' in e for e in result.errors), result.errors
    )


if __name__ == '__main__':
  absltest.main()
