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
"""Every exported module is named by an exported test (pkb_ext.upstream.named)."""

from absl.testing import absltest

from pkb_ext.upstream import export
from pkb_ext.upstream import layout
from pkb_ext.upstream import named

_B = 'perfkitbenchmarker/linux_benchmarks'
_P = 'perfkitbenchmarker.linux_benchmarks'


class UnnamedTest(absltest.TestCase):

  def testImportsAndDottedNamesNameModules(self):
    texts = {
        f'{_B}/x_benchmark.py': '',
        f'{_B}/x/__init__.py': '',
        f'{_B}/x/a.py': '',
        f'{_B}/x/b.py': '',
        f'{_B}/x/c.py': '',
        f'{_B}/x/untested.py': '',
        'perfkitbenchmarker/linux_packages/y.py': '',
        'tests/linux_benchmarks/x_test.py': (
            f'import {_P}.x_benchmark\n'
            f'from {_P}.x import a\n'
            f"PATCH = '{_P}.x.b.Function'\n"
            f'# {_P}.x.c is the third.\n'
        ),
        'tests/data/cloud_report/z/out.py': f'import {_P}.x.untested\n',
    }
    self.assertEqual(
        named.Unnamed(texts, layout.SeriesLayout()),
        [f'{_B}/x/untested.py', 'perfkitbenchmarker/linux_packages/y.py'],
    )

  def testEveryExportedModuleIsNamedByAnExportedTest(self):
    self.assertEqual(export.UntestedModules(), [])


if __name__ == '__main__':
  absltest.main()
