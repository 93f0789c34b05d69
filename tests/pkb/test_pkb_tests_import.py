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
"""PKB's own test helpers load from the pinned checkout."""

from absl.testing import absltest

from pkb_ext_dev import pkb_tests


class PkbTestsImportTest(absltest.TestCase):

  def testCommonTestCase(self):
    common = pkb_tests.Import('pkb_common_test_case')
    self.assertTrue(issubclass(common.PkbCommonTestCase, absltest.TestCase))
    self.assertTrue(hasattr(common.PkbCommonTestCase, 'MockRemoteCommand'))
    self.assertIs(pkb_tests.Import('pkb_common_test_case'), common)

  def testMissingHelperIsClear(self):
    with self.assertRaisesRegex(ImportError, 'no tests/nope.py'):
      pkb_tests.Import('nope')


if __name__ == '__main__':
  absltest.main()
