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
"""Tests for the .pth autoload: stock PKB sees pkb_ext unless turned off."""

import os
import subprocess
import sys

from absl.testing import absltest
from absl.testing import parameterized

from pkb_ext import autoload

_PROBE = (
    'from perfkitbenchmarker import benchmark_sets, linux_benchmarks\n'
    "print('cloud_report_2021' in linux_benchmarks.VALID_BENCHMARKS,"
    " 'cloud_report' in benchmark_sets.BENCHMARK_SETS)\n"
)


def _Probe(env_value):
  env = dict(os.environ)
  env.pop(autoload.ENV_VAR, None)
  if env_value is not None:
    env[autoload.ENV_VAR] = env_value
  out = subprocess.run(
      [sys.executable, '-c', _PROBE],
      env=env,
      capture_output=True,
      text=True,
      check=True,
  )
  return out.stdout.split()


class AutoloadTest(parameterized.TestCase):

  @parameterized.parameters(
      (None, True),
      ('1', True),
      ('yes', True),
      ('0', False),
      ('OFF', False),
      (' false ', False),
      ('no', False),
  )
  def testEnabled(self, value, expected):
    environ = {} if value is None else {autoload.ENV_VAR: value}
    self.assertEqual(autoload.Enabled(environ), expected)

  def testPlainPkbImportSeesExtension(self):
    self.assertEqual(_Probe(None), ['True', 'True'])

  def testEnvironmentVariableTurnsItOff(self):
    self.assertEqual(_Probe('0'), ['False', 'False'])

  def testPthFileIsInstalled(self):
    site = [p for p in sys.path if p.endswith('site-packages')]
    found = [
        p
        for p in site
        if os.path.exists(os.path.join(p, 'pkb_ext_autoload.pth'))
    ]
    self.assertTrue(found, f'pkb_ext_autoload.pth not in {site}')


if __name__ == '__main__':
  absltest.main()
