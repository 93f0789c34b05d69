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
"""report and compare read cpu samples of both versions of the cpu phase.

The phase's own CoreMark parser wrote per-run metadata keys that PKB's
parse does not give (score_text, compiler_flags, ...); the phase on PKB's
coremark modules writes PKB's sample metadata instead (summary, size,
thread_count, ...). Metric, unit, mode, iteration and the other keys the
SQL views use are the same, so the same values give the same report.
"""

import copy
import json
import os
import re
import shutil
import tempfile

from absl.testing import absltest

from pkb_ext.analysis import cli as report_cli
from pkb_ext.analysis import compare_cli
from pkb_ext_dev import analysis_fixture as fx

# Per-run metadata only the earlier version wrote (its own parser's).
OLD_KEYS = {
    'coremark_iterations': 220000,
    'iterations_per_thread': 110000,
    'total_ticks': 16442,
    'total_time_sec': 16.442,
    'run_type': '2K performance',
    'compiler_version': 'GCC12.2.0',
    'compiler_flags': '-O2 -DMULTITHREAD=2 -DUSE_PTHREAD  -lrt -lpthread',
    'valid_for_reporting': True,
    'invalid_reason': '',
    'score_text': '13380.367352',
    'coremark_commit': 'cfa9ab377835911f23d9b0831c7be302ed1f58de',
}
# What the phase writes now: PKB's sample metadata and the run's keys.
NEW_KEYS = {
    'summary': 'CoreMark 1.0 : 13380.367352 / GCC12.2.0 -O2 / Heap',
    'size': 666,
    'total_ticks': 16442,
    'total_time_sec': 16.442,
    'iterations': 220000,
    'iterations_per_cpu': 0,
    'parallelism_method': 'PTHREAD',
    'thread_count': 2,
    'valid_for_reporting': True,
    'invalid_reason': '',
}


def _Write(path, extra):
  with open(path, 'w', encoding='utf-8') as f:
    for row in fx.Samples():
      row = copy.deepcopy(row)
      if row['metric'].startswith('coremark_'):
        row['metadata'].update(extra)
      f.write(json.dumps(row) + '\n')
  return path


def _Rows(report_md):
  """The report's ranking table rows of the two CoreMark benchmarks."""
  with open(report_md, encoding='utf-8') as f:
    text = f.read()
  return [l for l in text.splitlines() if re.match(r'\| 1?6? ?core CPU', l)]


class BothVersionsTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.dir = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
    self.old = _Write(os.path.join(self.dir, 'old.ndjson'), OLD_KEYS)
    self.new = _Write(os.path.join(self.dir, 'new.ndjson'), NEW_KEYS)

  def testReportRanksBothAlike(self):
    rows = {}
    for name, path in (('old', self.old), ('new', self.new)):
      out = os.path.join(self.dir, name)
      self.assertEqual(report_cli.Main(['--samples', path, '--out', out]), 0)
      rows[name] = _Rows(os.path.join(out, 'report.md'))
    self.assertLen(rows['old'], 2)
    self.assertEqual(rows['old'], rows['new'])

  def testCompareReadsOneOfEach(self):
    out = os.path.join(self.dir, 'compare')
    self.assertEqual(compare_cli.Main([self.old, self.new, '--out', out]), 0)
    with open(os.path.join(out, 'compare.md'), encoding='utf-8') as f:
      text = f.read()
    self.assertIn('core CPU', text)


if __name__ == '__main__':
  absltest.main()
