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
"""pkb-ext plan on real PKB flag parsing, matrices and price tables."""

import os
import re
import subprocess
import sys

from absl import flags
from absl.testing import flagsaver

from pkb_cloud_report.benchmarks.cloud_report import stepping
from pkb_ext import paths
from pkb_ext import plan
from pkb_ext import pricing
from pkb_ext_dev import pkb_tests

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')

FLAGS = flags.FLAGS
ROOT = paths.RepoRoot()
AWS_GP2 = [
    '--benchmark_config_file=configs/machines/aws.yaml',
    '--flag_matrix=gp2',
]
_CONFIG = re.compile(r'^configuration (\d+)/(\d+): cloud_report_2021 (.*)$')
_TOTAL = re.compile(
    r'^  total   (\d+)h(\d\d)m wall .*, (\d+) VMs, ([\d.]+) VM-hours,'
    r' \$([\d,.]+) \(prices as of 2020-11-15\)$'
)
_GRAND = re.compile(
    r'^TOTAL   (\d+) configuration\(s\), (\d+) VMs, ([\d.]+) VM-hours,'
    r' \$([\d,.]+), .* wall in series$'
)


def _Dollars(text):
  return float(text.replace(',', ''))


class PlanCommandTest(pkb_common_test_case.PkbCommonTestCase):

  def testAwsGp2MatrixPrintsTwelveConfigurationsAndTheTotal(self):
    proc = subprocess.run(
        [sys.executable, '-m', 'pkb_ext.cli', 'plan'] + AWS_GP2,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = proc.stdout.splitlines()
    headers = [m for m in map(_CONFIG.match, lines) if m]
    self.assertEqual(
        [(int(m.group(1)), int(m.group(2))) for m in headers],
        [(i, 12) for i in range(1, 13)],
        proc.stdout + proc.stderr[-2000:],
    )
    totals = [m for m in map(_TOTAL.match, lines) if m]
    self.assertLen(totals, 12)
    (grand,) = [m for m in map(_GRAND.match, lines) if m]
    self.assertEqual(int(grand.group(1)), 12)
    self.assertEqual(int(grand.group(2)), 48)
    self.assertAlmostEqual(
        float(grand.group(3)),
        sum(float(m.group(4)) for m in totals),
        delta=0.05 * 12,  # each printed to 0.1
    )
    self.assertAlmostEqual(
        _Dollars(grand.group(4)),
        sum(_Dollars(m.group(5)) for m in totals),
        delta=0.05,
    )
    # No --aws_ec2_instance_profile: the plan says preflight would refuse.
    self.assertIn('12 configuration(s) would be REFUSED by preflight.', lines)
    self.assertEqual(proc.returncode, 1)

  def testBadFlagsExitOne(self):
    proc = subprocess.run(
        [sys.executable, '-m', 'pkb_ext.cli', 'plan', '--no_such_flag=1'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    self.assertEqual(proc.returncode, 1)
    self.assertIn('pkb-ext plan:', proc.stderr)
    self.assertIn('no_such_flag', proc.stderr)


class PlanFiguresTest(pkb_common_test_case.PkbCommonTestCase):

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver())
    self.catalog = pricing.Load()

  def testOneConfigurationFromThePriceFileAndTheFlags(self):
    (c,) = plan.Configurations([
        '--cloud=AWS',
        '--machine_type=c5a.4xlarge',
        '--aws_ec2_instance_profile=p',
    ])
    self.assertEqual(c.problems, ())
    by_name = {p.name: p.seconds for p in c.phases}
    self.assertEqual(
        list(by_name), ['cpu', 'io', 'net', 'object_storage', 'tpcc']
    )
    self.assertEqual(by_name['cpu'], plan.COREMARK_BUILD_S + 20 * 15)
    self.assertEqual(by_name['io'], 2500e3 / 250 + 7 * 122)
    self.assertEqual(by_name['net'], 2 * 10 * 60)
    self.assertEqual(by_name['tpcc'], 5 * 31 * 60)  # 2,500..3,500 by 250
    # 4 x c5a.4xlarge + 3 x 2,500 GB gp2, from configs/pricing/aws.yaml.
    hourly = 4 * 0.616 + 3 * 2500 * 0.10 / 720
    self.assertAlmostEqual(c.usd_per_hour, hourly)
    self.assertAlmostEqual(c.usd, hourly * c.seconds / 3600)
    self.assertEqual(c.vms, 4)
    self.assertAlmostEqual(c.vm_hours, 4 * c.seconds / 3600)

  def testIo2PricesTheProvisionedIops(self):
    configs = plan.Configurations([
        '--benchmark_config_file='
        + os.path.join(ROOT, 'configs', 'machines', 'aws.yaml'),
        '--flag_matrix=io2',
    ])
    c5 = next(c for c in configs if c.flags['machine_type'] == 'c5.4xlarge')
    hourly = 4 * 0.68 + 3 * (2500 * 0.125 + 5400 * 0.065) / 720
    self.assertAlmostEqual(c5.usd_per_hour, hourly)

  def testPhaseFlagsChangeTheEstimates(self):
    (c,) = plan.Configurations([
        '--cloud=GCP',
        '--cloud_report_phases=net,tpcc',
        '--cloud_report_netperf_duration_s=30',
        '--cloud_report_netperf_confidence=off',
        '--cloud_report_tpcc_duration=10m',
        '--cloud_report_tpcc_ramp=0s',
        '--cloud_report_tpcc_strategy=bisect',
    ])
    by_name = {p.name: p for p in c.phases}
    self.assertEqual(list(by_name), ['net', 'tpcc'])
    self.assertEqual(by_name['net'].seconds, 2 * 1 * 30)
    fewest, most = plan.SearchSteps(stepping.Plan('bisect', 2500, 250, 3500))
    self.assertLess(most, 5 + 2)
    self.assertEqual(by_name['tpcc'].seconds, most * 600)
    self.assertIn(f'{fewest} to {most} steps', by_name['tpcc'].how)

  def testStaticVmsHaveNoPrice(self):
    static = self.create_tempfile(
        content=(
            '[{"ip_address": "192.0.2.1", "user_name": "u",'
            ' "keyfile_path": "/dev/null", "zone": "local-1"}]'
        )
    ).full_path
    (c,) = plan.Configurations([
        '--benchmarks=cloud_report_coremark',
        f'--static_vm_file={static}',
    ])
    self.assertIsNone(c.usd)
    self.assertIn('no machine type to price', c.price_problem)
    text = plan.Format([c])
    self.assertIn('no price', text)


class SearchStepsTest(pkb_common_test_case.PkbCommonTestCase):

  def testLinearRunsOneToEveryLevel(self):
    self.assertEqual(
        plan.SearchSteps(stepping.Plan('linear', 2500, 250, 3500)), (1, 5)
    )

  def testMakespan(self):
    self.assertEqual(plan.Makespan([3, 3, 3, 3], None), 12)
    self.assertEqual(plan.Makespan([3, 3, 3, 3], 3), 6)


if __name__ == '__main__':
  pkb_common_test_case.absltest.main()
