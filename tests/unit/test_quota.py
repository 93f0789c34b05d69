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
"""vCPUs, quota names and the peak (cloud_report.quota); regional prices."""

import os

from absl.testing import absltest
from absl.testing import parameterized
import yaml

from pkb_ext import paths
from pkb_ext import pricing
from pkb_ext.suite import quota

ROOT = paths.RepoRoot()
_STANDARD = 'Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances'


def _MatrixMachines(cloud):
  """Every machine type of a shipped matrix (configs/machines)."""
  path = os.path.join(ROOT, 'configs', 'machines', f'{cloud.lower()}.yaml')
  with open(path, encoding='utf-8') as f:
    config = yaml.safe_load(f)
  out = set()
  for entry in config.values():
    out.add(entry.get('flags', {}).get('machine_type'))
    for matrix in (entry.get('flag_matrix_defs') or {}).values():
      out.update(matrix.get('machine_type') or [])
  return sorted(m for m in out if m)


class VcpusTest(parameterized.TestCase):

  @parameterized.parameters('AWS', 'GCP', 'Azure')
  def testEveryMatrixMachineHasVcpusAndQuotas(self, cloud):
    machines = _MatrixMachines(cloud)
    self.assertNotEmpty(machines)
    for m in machines:
      with self.subTest(machine=m):
        self.assertIsNone(quota.Impossible(cloud, m))
        want = 24 if m == 'i3en.6xlarge' else 16  # the report's shapes
        self.assertEqual(quota.Vcpus(cloud, m), want)
        self.assertNotEmpty(quota.Quotas(cloud, 'r', m))

  @parameterized.parameters(
      ('AWS', 'm7i.4xlarge', 16),
      ('AWS', 'c5.xlarge', 4),
      ('AWS', 'c5.2xlarge', 8),
      ('AWS', 'c5.large', None),
      ('AWS', 'm5.metal', None),
      ('GCP', 'n2-standard-8', 8),
      ('GCP', 'n2-custom-6-12288', 6),
      ('GCP', 'e2-micro', None),
      ('Azure', 'Standard_D4s_v3', 4),
      ('Azure', 'Standard_E16-4ds_v4', 16),
      ('Kubernetes', 'anything', None),
  )
  def testNamingRule(self, cloud, machine, vcpus):
    self.assertEqual(quota.Vcpus(cloud, machine), vcpus)

  @parameterized.parameters(
      ('AWS', 'zz9.nope'),
      ('AWS', 'c5a4xlarge'),
      ('GCP', 'n2.standard.16'),
      ('Azure', 'D16s_v3'),
  )
  def testNamesNoCloudCouldHave(self, cloud, machine):
    self.assertIn('is no machine type name', quota.Impossible(cloud, machine))

  @parameterized.parameters(
      ('AWS', 'c5a.4xlarge', [_STANDARD]),
      ('AWS', 'x1e.4xlarge', ['Running On-Demand X instances']),
      ('AWS', 'g4dn.xlarge', ['Running On-Demand G and VT instances']),
      ('AWS', 'inf1.xlarge', ['Running On-Demand Inf instances']),
      ('GCP', 'n2d-highcpu-16', ['N2D_CPUS', 'CPUS']),
      ('GCP', 't2a-standard-8', ['T2A_CPUS', 'CPUS']),
      ('GCP', 'n1-standard-8', ['CPUS']),
      ('Azure', 'Standard_D16as_v4', [
          'Standard DASv4 Family vCPUs', 'Total Regional vCPUs']),
      ('Azure', 'Standard_M16ms', [
          'Standard MS Family vCPUs', 'Total Regional vCPUs']),
  )  # fmt: skip
  def testQuotaNames(self, cloud, machine, names):
    self.assertEqual([q.name for q in quota.Quotas(cloud, 'r', machine)], names)


class PeakTest(absltest.TestCase):

  def _Need(self, *vms):
    return quota.NeedOf(vms)

  def testPeakIsTheLargestConfigurationsTogether(self):
    needs = [
        self._Need(('AWS', 'us-east-1', 'c5a.4xlarge', 4, None)),  # 64
        self._Need(('AWS', 'us-east-1', 'm5.2xlarge', 4, None)),  # 32
        self._Need(('AWS', 'us-east-1', 'x1e.4xlarge', 4, None)),  # X: 64
        self._Need(('AWS', 'eu-central-1', 'c5.4xlarge', 4, None)),  # 64
    ]
    by_name = lambda peak: {(q.region, q.key): v for q, v in peak.items()}
    self.assertEqual(
        by_name(quota.Peak(needs, 1)),
        {
            ('us-east-1', 'standard'): 64,
            ('us-east-1', 'x'): 64,
            ('eu-central-1', 'standard'): 64,
        },
    )
    self.assertEqual(
        by_name(quota.Peak(needs, 4))[('us-east-1', 'standard')], 96
    )

  def testUnknownVcpusAreNamedNotCounted(self):
    need = self._Need(
        ('AWS', 'r', 'c5.large', 2, None), ('AWS', 'r', 'c5.large', 1, 2)
    )
    self.assertEqual(need.unknown, ('c5.large',))
    self.assertEqual(list(need.vcpus.values()), [2])

  def testOverQuotaNamesTheQuotaAndThePeak(self):
    peak = quota.Peak(
        [self._Need(('GCP', 'europe-west4', 'n2-standard-16', 4, None))], 4
    )
    (line,) = quota.OverQuota(
        peak, quota.ParseLimits('europe-west4:n2=32'), 'the matrix'
    )
    self.assertIn('the matrix needs 64 vCPUs of europe-west4 N2_CPUS', line)
    self.assertIn('above the 32 of --cloud_report_vcpu_quota', line)
    self.assertLen(quota.OverQuota(peak, quota.ParseLimits('48'), 'x'), 2)
    self.assertEmpty(quota.OverQuota(peak, quota.ParseLimits('64'), 'x'))

  def testParseLimits(self):
    self.assertEqual(
        quota.ParseLimits(' 64, eu-central-1:Standard=128 ,x=8'),
        {('*', '*'): 64, ('eu-central-1', 'standard'): 128, ('*', 'x'): 8},
    )
    self.assertEqual(quota.ParseLimits(''), {})
    for bad in ('lots', 'x=', '=5', 'x=-1', 'a:b=1.5'):
      with self.subTest(bad=bad):
        with self.assertRaisesRegex(quota.QuotaFlagError, 'is not N, KEY=N'):
          quota.ParseLimits(bad)


class RegionalPricesTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    self.catalog = pricing.Load(os.path.join(ROOT, 'configs', 'pricing'))

  @parameterized.parameters(
      ('AWS', 'eu-central-1', 'c5a.4xlarge', 'gp2', 0.696, 0.119),
      ('AWS', 'ap-northeast-1', 'c5a.4xlarge', 'gp2', 0.768, 0.12),
      ('GCP', 'europe-west4', 'n2-standard-16', 'pd-ssd', 0.855328, 0.187),
      ('GCP', 'asia-northeast1', 'n2-standard-16', 'pd-ssd', 0.996704, 0.221),
  )
  def testARegionsOwnPrices(self, cloud, region, machine, disk, vm, gb):
    home = self.catalog.MonthlyCost(cloud, machine, disk, 2500)
    cost = self.catalog.MonthlyCost(cloud, machine, disk, 2500, region=region)
    self.assertAlmostEqual(cost.vm_usd, vm * 720)
    self.assertAlmostEqual(cost.disk_usd, gb * 2500)
    self.assertGreater(cost.total_usd, home.total_usd)
    self.assertNotEqual(cost.as_of, home.as_of)
    table = self.catalog.Regional(cloud, region)
    self.assertEqual(table.region, region)
    self.assertTrue(table.sources['vm'].startswith('https://'))

  def testARegionKeepsTheHomeLimits(self):
    home = self.catalog.Regional('AWS', None).machines['c5a.4xlarge']
    there = self.catalog.Regional('AWS', 'eu-central-1').machines['c5a.4xlarge']
    self.assertEqual(home.limits, there.limits)

  @parameterized.parameters(
      ('AWS', 'eu-central-1', 'c5d.4xlarge', 'gp2', 'c5d.4xlarge in eu-central-1'),
      ('AWS', 'sa-east-1', 'c5a.4xlarge', 'gp2', 'c5a.4xlarge in sa-east-1'),
      ('AWS', 'eu-central-1', 'c5a.4xlarge', 'gp3', 'gp3 in eu-central-1'),
      ('Azure', 'westeurope', 'Standard_D16as_v4', 'Premium_LRS',
       'Premium_LRS in westeurope'),
  )  # fmt: skip
  def testNoPriceThere(self, cloud, region, machine, disk, message):
    with self.assertRaisesRegex(
        pricing.PricingError, f'no price for {message}'
    ):
      self.catalog.MonthlyCost(cloud, machine, disk, 100, region=region)

  @parameterized.parameters(
      ('regions: [1]\n', 'regions must be a mapping'),
      ("regions: {r: {as_of: '2024-01-01', sources: {}, machines: {}, x: 1}}\n",
       r"regions.r: unknown keys \['x'\]"),
      ('regions: {r: {sources: {}, machines: {}}}\n', "missing key 'as_of'"),
      ("regions: {r: {as_of: '1', sources: {}, machines: {nope.big: 1}}}\n",
       'machine nope.big is not in the home table'),
      ("regions: {r: {as_of: '1', sources: {}, machines: {m5.4xlarge: -1}}}\n",
       'must be >= 0'),
  )  # fmt: skip
  def testBadRegionsAreOneLine(self, extra, message):
    with open(
        os.path.join(ROOT, 'configs', 'pricing', 'aws.yaml'), encoding='utf-8'
    ) as f:
      text = f.read()
    text = text[: text.index('\nregions:')] + '\n' + extra
    with self.assertRaisesRegex(pricing.PricingError, message) as e:
      pricing.ParseTable(text, 'aws.yaml', self.catalog.method)
    self.assertNotIn('\n', str(e.exception))

  def testVcpusKeyIsChecked(self):
    method = self.catalog.method
    base = (
        "cloud: X\nregion: r\ncurrency: USD\nas_of: '1'\nsources: {}\n"
        'disks: {}\nmachines: {m: {usd_per_hour: 1, vcpus: %s}}\n'
    )
    table = pricing.ParseTable(base % '8', 'x.yaml', method)
    self.assertEqual(table.machines['m'].vcpus, 8)
    with self.assertRaisesRegex(pricing.PricingError, 'whole number >= 1'):
      pricing.ParseTable(base % '0', 'x.yaml', method)


if __name__ == '__main__':
  absltest.main()
