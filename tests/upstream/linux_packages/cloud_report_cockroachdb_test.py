# Copyright 2026 PerfKitBenchmarker Authors. All rights reserved.
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
"""Tests for the CockroachDB release each architecture installs."""

import unittest

from absl.testing import flagsaver
from perfkitbenchmarker import errors
from linux_packages import cloud_report_cockroachdb as cockroachdb
from tests import pkb_common_test_case


class ReleaseTest(pkb_common_test_case.PkbCommonTestCase):
  """The release and checksum source of amd64 and arm64 machines."""

  def testEachArchitectureRunsAReleaseBuiltForIt(self):
    self.assertEqual(cockroachdb.VersionFor('amd64'), 'v20.2.7')
    self.assertEqual(cockroachdb.VersionFor('arm64'), 'v22.2.19')
    self.assertTrue(cockroachdb.HasBuild('v22.2.0', 'arm64'))
    self.assertFalse(cockroachdb.HasBuild('v20.2.7', 'arm64'))

  @flagsaver.flagsaver(cloud_report_cockroachdb_version='v23.1.14')
  def testAReleaseWithAnArm64BuildRunsOnBoth(self):
    self.assertEqual(cockroachdb.VersionFor('arm64'), 'v23.1.14')
    with flagsaver.flagsaver(cloud_report_cockroachdb_arm64_version='v22.2.1'):
      self.assertEqual(cockroachdb.VersionFor('arm64'), 'v22.2.1')
      self.assertEqual(cockroachdb.VersionFor('amd64'), 'v23.1.14')

  def testTheSha256IsGivenOrTheVendors(self):
    """No sha256 is pinned: each architecture needs a given or vendor one."""
    for arch, version in (('amd64', 'v20.2.7'), ('arm64', 'v22.2.19')):
      with self.assertRaisesRegex(
          errors.Setup.InvalidConfigurationError,
          rf'^no sha256 pinned for cockroach-{version}\.linux-{arch}\.tgz\.'
          rf'[^\n]*--cloud_report_cockroachdb_sha256={arch}=<sha256>'
          r'[^\n]*--cloud_report_cockroachdb_vendor_checksum\.$',
      ):
        cockroachdb.CheckRelease(arch)
    with flagsaver.flagsaver(
        cloud_report_cockroachdb_sha256=['amd64=' + 'a' * 64]
    ):
      self.assertEqual(cockroachdb.CheckRelease('amd64'), cockroachdb.SHA_FLAG)
      self.assertEqual(
          cockroachdb.ExpectedSha256(
              'v20.2.7',
              'amd64',
              cockroachdb.ParseSha256Overrides(['amd64=' + 'a' * 64]),
          ),
          'a' * 64,
      )
    self.assertEqual(
        cockroachdb.CheckRelease('arm64', overrides={'arm64': 'a' * 64}),
        cockroachdb.SHA_FLAG,
    )
    self.assertEqual(
        cockroachdb.CheckRelease('arm64', vendor_checksum=True),
        cockroachdb.SHA_VENDOR,
    )
    with self.assertRaisesRegex(
        errors.Setup.InvalidConfigurationError,
        r'no linux-arm64 build of v21\.2\.0 .*'
        r'--cloud_report_cockroachdb_arm64_version=v22\.2\.0',
    ):
      cockroachdb.CheckRelease('arm64', 'v21.2.0', vendor_checksum=True)


if __name__ == '__main__':
  unittest.main()
