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
"""Stock pkb.py (PKB's own script, unedited) sees pkb_ext."""

import os
import re
import subprocess
import sys

from absl import flags
from absl.testing import absltest

from pkb_ext import registry

_BIN = os.path.dirname(sys.executable)


def _Run(*argv):
  proc = subprocess.run(
      list(argv), capture_output=True, text=True, timeout=300, check=False
  )
  return proc.returncode, proc.stdout, proc.stderr


class StockPkbTest(absltest.TestCase):

  def testPkbPyIsStock(self):
    pkb_py = os.path.join(_BIN, 'pkb.py')
    with open(pkb_py) as f:
      text = f.read()
    self.assertIn('from perfkitbenchmarker import pkb', text)
    self.assertNotIn('pkb_ext', text)

  def testHelpmatchListsOurFlags(self):
    rc, out, err = _Run(
        sys.executable, os.path.join(_BIN, 'pkb.py'), '--helpmatch=cloud_report'
    )
    self.assertEqual(rc, 0, err[-2000:])
    self.assertIn('pkb_ext.suite.cloud_report_2021_benchmark', out)
    self.assertIn('--cloud_report_phases', out)
    # Every cloud_report_ flag that pkb_ext defines, wherever it is defined.
    listed = set(
        re.findall(r'^\s+--(?:\[no\])?(cloud_report_\w+):', out, re.MULTILINE)
    )
    registry.Register()
    defined = {n for n in flags.FLAGS if n.startswith('cloud_report_')}
    self.assertGreater(len(defined), 80)
    self.assertEqual(sorted(defined - listed), [])
    self.assertEqual(sorted(listed - defined), [])

  def testBadPhaseFlagIsAClearError(self):
    rc, _, err = _Run(
        sys.executable,
        os.path.join(_BIN, 'pkb.py'),
        '--benchmarks=cloud_report_2021',
        '--cloud_report_phases=cpu,gpu',
    )
    self.assertNotEqual(rc, 0)
    self.assertIn('unknown phase(s) gpu', err)

  def testDryListingResolvesToOurModule(self):
    rc, out, err = _Run(
        os.path.join(_BIN, 'pkb-ext'), 'list', '--benchmarks=cloud_report_2021'
    )
    self.assertEqual(rc, 0, err[-2000:])
    self.assertEqual(
        out.split(),
        [
            'cloud_report_2021',
            'pkb_ext.suite.cloud_report_2021_benchmark',
        ],
    )

  def testUnknownBenchmarkListingFails(self):
    rc, out, err = _Run(
        os.path.join(_BIN, 'pkb-ext'), 'list', '--benchmarks=no_such_thing'
    )
    self.assertEqual(rc, 2)  # a benchmark name PKB refuses: a usage error
    self.assertEqual(out, '')
    self.assertIn('no_such_thing', err)


if __name__ == '__main__':
  absltest.main()
