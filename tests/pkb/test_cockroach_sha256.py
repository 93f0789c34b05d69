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
"""The suite's CockroachDB sha256: one value, passed as its config's flag.

Configurations are built as pkb.py builds them
(pkb_ext.plan.pkb_config.BenchmarkConfigs); the flags are read as the
benchmark reads them, inside the config's RedirectFlags.
"""

from absl import flags
from absl.testing import flagsaver

from linux_packages import cloud_report_cockroachdb as cockroachdb
from pkb_ext.plan import pkb_config
from pkb_ext.suite import cloud_report_2021_benchmark as suite
from pkb_ext.suite import cockroach_sha256
from pkb_ext_dev import pkb_tests

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')
FLAGS = flags.FLAGS
OTHER = 'b' * 64


def _Sha256(*argv):
  """(sha256 source, expected sha256) of amd64 in the one configuration."""
  ((_, _, config),) = pkb_config.BenchmarkConfigs(['--cloud=AWS', *argv])
  with config.RedirectFlags(FLAGS):
    source = cockroachdb.CheckRelease('amd64')
    overrides = cockroachdb.ParseSha256Overrides(
        FLAGS.cloud_report_cockroachdb_sha256
    )
    return source, cockroachdb.ExpectedSha256('v20.2.7', 'amd64', overrides)


class SuiteSha256Test(pkb_common_test_case.PkbCommonTestCase):

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver())

  def testTheValueIsASha256OfTheReportsRelease(self):
    self.assertRegex(cockroach_sha256.SHA256, r'^[0-9a-f]{64}$')
    self.assertEqual(cockroach_sha256.VERSION, cockroachdb.DEFAULT_VERSION)

  def testTheSuitesConfigGivesIt(self):
    self.assertEqual(
        suite.GetConfig({})['flags'][cockroach_sha256.FLAG],
        f'amd64={cockroach_sha256.SHA256}',
    )
    self.assertEqual(_Sha256(), (cockroachdb.SHA_FLAG, cockroach_sha256.SHA256))

  def testTheCommandLineAndAConfigFileWin(self):
    self.assertEqual(
        _Sha256(f'--cloud_report_cockroachdb_sha256=amd64={OTHER}'),
        (cockroachdb.SHA_FLAG, OTHER),
    )
    config = suite.GetConfig(
        {'flags': {cockroach_sha256.FLAG: f'amd64={OTHER}'}}
    )
    self.assertEqual(config['flags'][cockroach_sha256.FLAG], f'amd64={OTHER}')

  def testNotGivenForAnotherRelease(self):
    with flagsaver.flagsaver(cloud_report_cockroachdb_version='v23.1.14'):
      self.assertEqual(cockroach_sha256.ConfigFlags(), {})
      self.assertNotIn(
          cockroach_sha256.FLAG, suite.GetConfig({})['flags'] or {}
      )


if __name__ == '__main__':
  pkb_common_test_case.absltest.main()
