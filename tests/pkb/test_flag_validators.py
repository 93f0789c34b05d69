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
"""Flag values that make no sense fail when the flags are parsed.

The validators are absl's (register_validator), so stock pkb.py stops at
start-up, before provisioning anything; one case goes through pkb.py itself.
"""

import os
import subprocess
import sys

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized

from pkb_ext import registry
from benchmarks.cloud_report.tpcc import params as tpcc_params
from benchmarks.cloud_report.tpcc import pass_rules

FLAGS = flags.FLAGS


def _Rejects(name: str, text: str) -> str | None:
  """Parses `--name=text`; returns the validation error, or None."""
  with flagsaver.flagsaver():
    try:
      FLAGS[name].parse(text)
      FLAGS.validate_all_flags()
    except (flags.IllegalFlagValueError, flags.ValidationError) as e:
      return str(e)
  return None


class ValidatorTest(parameterized.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    registry.Register()
    if not FLAGS.is_parsed():
      FLAGS.mark_as_parsed()

  @parameterized.parameters(
      ('cloud_report_phases', '', 'empty'),
      ('cloud_report_tpcc_duration', '0s', 'longer than 0'),
      ('cloud_report_tpcc_duration', '0m', 'longer than 0'),
      ('cloud_report_tpcc_load_timeout', '0h', 'longer than 0'),
      ('cloud_report_tpcc_gotpc_interval', '0s', 'longer than 0'),
      ('cloud_report_tpcc_pass_rule', 'custom:p90_ms<-1', 'never hold'),
      ('cloud_report_tpcc_pass_rule', 'custom:p90_ms<0', 'never hold'),
      (
          'cloud_report_tpcc_pass_rule',
          'custom:p90_ms>500,p90_ms<100',
          'leave no value',
      ),
      (
          'cloud_report_tpcc_pass_rule',
          'custom:errors>0,errors<1',
          'leave no whole number',
      ),
      ('cloud_report_tpcc_pass_rule', 'custom:tpmc>1e999', 'not finite'),
      ('cloud_report_bq_timeout', 'nan', 'finite'),
      ('cloud_report_bq_timeout', 'inf', 'finite'),
      ('cloud_report_tpcc_gotpc_threads_per_warehouse', 'nan', 'finite'),
      ('cloud_report_fio_latency_percentile', 'nan', 'finite'),
      ('cloud_report_overlap', 'maybe', 'Non-boolean argument'),
  )
  def testRejected(self, name, text, why):
    error = _Rejects(name, text)
    self.assertIsNotNone(error, f'--{name}={text} was accepted')
    self.assertIn(why, error)

  @parameterized.parameters(
      ('cloud_report_phases', 'cpu'),
      ('cloud_report_phases', 'none'),
      ('cloud_report_tpcc_duration', '90s'),
      ('cloud_report_tpcc_ramp', '0s'),
      ('cloud_report_tpcc_pass_rule', 'report'),
      ('cloud_report_tpcc_pass_rule', 'crl_script'),
      ('cloud_report_tpcc_pass_rule', 'custom:p90_ms<250,tpmc>100'),
      ('cloud_report_tpcc_pass_rule', 'custom:errors<1'),
      ('cloud_report_tpcc_pass_rule', 'custom:p90_ms>100,p90_ms<500'),
      ('cloud_report_tpcc_pass_rule', 'custom:efficiency_pct>85,p95_ms<1e4'),
      ('cloud_report_bq_timeout', '30'),
      ('cloud_report_overlap', 'false'),
  )
  def testAccepted(self, name, text):
    self.assertIsNone(_Rejects(name, text))

  def testEveryFloatFlagRejectsNanAndInfinity(self):
    floats = [
        n
        for n in FLAGS
        if n.startswith('cloud_report_') and isinstance(FLAGS[n].value, float)
    ]
    self.assertNotEmpty(floats)
    for name in floats:
      for text in ('nan', 'inf', '-inf'):
        self.assertIsNotNone(_Rejects(name, text), f'--{name}={text}')

  def testNamedRulesArePossible(self):
    for rule in pass_rules.RULES.values():
      self.assertEqual(tpcc_params.RuleProblems(rule), [])


class PkbStartUpTest(absltest.TestCase):

  def testEmptyPhasesStopPkbAtStartUp(self):
    pkb = os.path.join(os.path.dirname(sys.executable), 'pkb.py')
    proc = subprocess.run(
        [
            sys.executable,
            pkb,
            '--benchmarks=cloud_report_2021',
            '--cloud_report_phases=',
            '--cloud_report_tpcc_pass_rule=custom:p90_ms<-1',
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    self.assertNotEqual(proc.returncode, 0)
    self.assertIn('--cloud_report_phases is empty', proc.stderr)
    self.assertNotIn('Provisioning', proc.stderr)


if __name__ == '__main__':
  absltest.main()
