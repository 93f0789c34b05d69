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
"""pkb_door: PKB's flags, benchmarks and config files, read as pkb.py does."""

import os
import types

from absl import flags
from absl.testing import flagsaver

from pkb_ext import errors
from pkb_ext import paths
from pkb_ext import pkb_door
from pkb_ext_dev import pkb_tests

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')

ROOT = paths.RepoRoot()


class PkbDoorTest(pkb_common_test_case.PkbCommonTestCase):

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver())

  def testParseFlagsTakesPkbsAliases(self):
    flag_values, rest = pkb_door.ParseFlags(
        ['--scratch_disk_size=123', '--zones=us-east-1a', 'extra']
    )
    self.assertIs(flag_values, flags.FLAGS)
    self.assertEqual(flag_values.data_disk_size, 123)
    self.assertEqual(flag_values.zone, ['us-east-1a'])
    self.assertEqual(rest, ['pkb.py', 'extra'])

  def testAFlagThatDoesNotParseIsAUsageError(self):
    with self.assertRaisesRegex(pkb_door.FlagError, 'no_such_flag') as cm:
      pkb_door.ParseFlags(['--no_such_flag=1'])
    self.assertIsInstance(cm.exception, errors.UsageError)
    self.assertEqual(cm.exception.exit_status, 2)

  def testBenchmarksFromFlags(self):
    pkb_door.ParseFlags(['--benchmarks=cloud_report_2021'])
    ((module, user_config),) = pkb_door.BenchmarksFromFlags()
    self.assertEqual(module.BENCHMARK_NAME, 'cloud_report_2021')
    self.assertIsInstance(user_config, dict)

  def testAnUnknownBenchmarkIsAConfigError(self):
    pkb_door.ParseFlags(['--benchmarks=nosuch'])
    with self.assertRaisesRegex(pkb_door.ConfigError, 'nosuch') as cm:
      pkb_door.BenchmarksFromFlags()
    self.assertEqual(cm.exception.exit_status, 1)

  def testBuildConfigAppliesTheConfigsFlags(self):
    flag_values, _ = pkb_door.ParseFlags([
        '--benchmarks=cloud_report_2021',
        '--cloud=AWS',
        '--ignore_package_requirements',
    ])
    ((module, _),) = pkb_door.BenchmarksFromFlags()
    user_config = {'flags': {'machine_type': 'c5a.4xlarge'}}
    config = pkb_door.BuildConfig(module, user_config, flag_values)
    self.assertEqual(config.vm_groups['db'].vm_spec.machine_type, 'c5a.4xlarge')

  def testWhatGetConfigRaisesIsAConfigError(self):
    flag_values, _ = pkb_door.ParseFlags([])

    def GetConfig(user_config):
      raise KeyError(user_config)

    module = types.SimpleNamespace(BENCHMARK_NAME='x', GetConfig=GetConfig)
    with self.assertRaises(pkb_door.ConfigError):
      pkb_door.BuildConfig(module, {}, flag_values)

  def testResourcePath(self):
    path = os.path.join(ROOT, 'configs', 'machines', 'aws.yaml')
    self.assertEqual(pkb_door.ResourcePath(path), path)
    self.assertIsNone(pkb_door.ResourcePath('no/such/file.yaml'))

  def testConfigImport(self):
    self.assertEqual(pkb_door.ConfigImport('#import a.yaml'), 'a.yaml')
    self.assertIsNone(pkb_door.ConfigImport('cloud_report_2021:'))


if __name__ == '__main__':
  pkb_common_test_case.absltest.main()
