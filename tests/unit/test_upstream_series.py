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
"""Tests for pkb_ext.upstream.series: grouping and splitting the series."""

from absl.testing import absltest

from pkb_ext.upstream import series

B = 'pkb/linux_benchmarks'
P = 'pkb/linux_packages'
D = 'pkb/data/cr'
LAYOUT = series.Layout(
    benchmarks=B,
    packages=P,
    data=D,
    tests='tests',
    test_data='tests/data/cr',
)


def _Module(imports=(), body='', name=None):
  lines = [f'from {m.rsplit(".", 1)[0]} import {m.rsplit(".", 1)[1]}'
           for m in imports]  # fmt: skip
  if name:
    lines.append(f"BENCHMARK_NAME = '{name}'")
  return '\n'.join(lines + [body]) + '\n'


def _Tree():
  """Two phases (a, b) and the suite; h is shared, a_lib is a's alone."""
  texts = {
      f'{B}/a_benchmark.py': _Module(['pkb.linux_benchmarks.cr.a_lib',
                                      'pkb.linux_benchmarks.cr.h'], name='a'),
      f'{B}/b_benchmark.py': _Module(['pkb.linux_benchmarks.cr.h',
                                      'pkb.linux_benchmarks.cr.b_lib'],
                                     name='b'),
      f'{B}/suite_benchmark.py': _Module(['pkb.linux_benchmarks.cr.h'],
                                         name='suite'),
      f'{B}/cr/__init__.py': '',
      f'{B}/cr/h.py': '',
      f'{B}/cr/a_lib.py': _Module(['pkb.linux_packages.a_pkg'],
                                  "JOB = 'a/job.j2'"),
      f'{B}/cr/b_lib.py': "NAME = 'b/req-{provider}.txt'\n",
      f'{P}/a_pkg.py': '',
      f'{D}/a/job.j2': 'x\n',
      f'{D}/b/req-s3.txt': 'x\n',
      f'{D}/mm/suite.yaml': 'x\n',
      'tests/a_test.py': _Module(['pkb.linux_benchmarks.cr.a_lib'],
                                 "_Read('a', 'out.txt')"),
      'tests/suite_test.py': _Module(['pkb.linux_benchmarks.suite_benchmark'],
                                     "DIR = 'mm'"),
      'tests/data/cr/a/out.txt': 'x\n',
  }  # fmt: skip
  names = {f'{B}/a_benchmark.py': 'a', f'{B}/b_benchmark.py': 'b',
           f'{B}/suite_benchmark.py': 'suite'}  # fmt: skip
  return texts, names


class GroupTest(absltest.TestCase):

  def testEveryFileInTheGroupItBelongsTo(self):
    texts, names = _Tree()
    groups, home = series.Group(texts, names, LAYOUT)
    self.assertEqual(groups, [series.SHARED, 'a_pkg', 'a', 'b', 'suite'])
    self.assertEqual(set(home), set(texts))
    self.assertEqual(
        home,
        {
            f'{B}/a_benchmark.py': 'a',
            f'{B}/b_benchmark.py': 'b',
            f'{B}/suite_benchmark.py': 'suite',
            f'{B}/cr/__init__.py': series.SHARED,
            f'{B}/cr/h.py': series.SHARED,
            f'{B}/cr/a_lib.py': 'a',
            f'{B}/cr/b_lib.py': 'b',
            f'{P}/a_pkg.py': 'a_pkg',  # a package is a patch of its own
            f'{D}/a/job.j2': 'a',
            f'{D}/b/req-s3.txt': 'b',
            f'{D}/mm/suite.yaml': 'suite',
            'tests/a_test.py': 'a',
            'tests/suite_test.py': 'suite',
            'tests/data/cr/a/out.txt': 'a',
        },
    )

  def testAModuleMovesToTheEarliestGroupThatImportsIt(self):
    texts, names = _Tree()
    # h (shared) now needs b_lib: b_lib comes with the shared helpers.
    texts[f'{B}/cr/h.py'] = _Module(['pkb.linux_benchmarks.cr.b_lib'])
    _, home = series.Group(texts, names, LAYOUT)
    self.assertEqual(home[f'{B}/cr/b_lib.py'], series.SHARED)
    self.assertEqual(home[f'{D}/b/req-s3.txt'], series.SHARED)

  def testUnplacedFilesAreErrors(self):
    for extra, message in (
        ({f'{B}/cr/orphan.py': ''}, 'orphan.py: imported by no benchmark'),
        ({f'{D}/x/unused.txt': 'x\n'}, 'unused.txt: named by no exported'),
        ({'tests/t_test.py': 'import os\n'}, 't_test.py: imports no exported'),
        ({'tests/data/cr/a/unread.txt': 'x\n'}, 'unread.txt: read by no'),
        ({'elsewhere/x.py': ''}, 'x.py: no rule places it'),
    ):
      texts, names = _Tree()
      texts.update(extra)
      with self.subTest(extra=extra):
        with self.assertRaisesRegex(series.SeriesError, message):
          series.Group(texts, names, LAYOUT)

  def testPatternsOfLiteralsAndFStrings(self):
    patterns = series.Patterns(
        "A = 'x/{p}.txt'\nB = f'run_{n}wh_tail.txt'\nC = '{}/{}'\n"
        "D = f'{a}.{b}'\n",
        'm.py',
    )
    matched = [p.pattern for p in patterns if p.fullmatch('x/s3.txt')]
    self.assertLen(matched, 1)
    self.assertTrue(any(p.fullmatch('run_3500wh_tail.txt') for p in patterns))
    self.assertFalse(any(p.fullmatch('a/b') for p in patterns))
    self.assertFalse(any(p.fullmatch('all.json') for p in patterns))


def _BigA():
  """_Tree with a's group over 390 lines: a_lib and its helper a_util."""
  texts, names = _Tree()
  texts[f'{B}/cr/a_util.py'] = 'x = 1\n' * 200
  texts[f'{B}/cr/a_lib.py'] = (
      _Module(['pkb.linux_packages.a_pkg', 'pkb.linux_benchmarks.cr.a_util'],
              "JOB = 'a/job.j2'")
      + 'y = 2\n' * 200
  )  # fmt: skip
  return texts, names


class SplitTest(absltest.TestCase):

  def testSmallGroupsAreOnePatchEach(self):
    texts, names = _Tree()
    groups, home = series.Group(texts, names, LAYOUT)
    anchors = {n: d for d, n in names.items()}
    parts = series.Split(texts, groups, home, anchors, LAYOUT)
    self.assertEqual([p.group for p in parts], groups)
    self.assertEqual(sorted(f for p in parts for f in p.files), sorted(texts))

  def testABigGroupSplitsAlongModuleLinesInImportOrder(self):
    texts, names = _BigA()
    groups, home = series.Group(texts, names, LAYOUT)
    anchors = {n: d for d, n in names.items()}
    parts = series.Split(texts, groups, home, anchors, LAYOUT, limit=390)
    a_parts = [p for p in parts if p.group == 'a']
    self.assertEqual([(p.index, p.count) for p in a_parts],
                     [(1, 3), (2, 3), (3, 3)])  # fmt: skip
    self.assertEqual(a_parts[0].files, [f'{B}/cr/a_util.py'])
    (pkg,) = [p for p in parts if p.group == 'a_pkg']
    self.assertEqual(pkg.files, [f'{P}/a_pkg.py'])
    # a_lib with the data file it names and the test (and its data) of it
    self.assertCountEqual(
        a_parts[1].files,
        [f'{B}/cr/a_lib.py', f'{D}/a/job.j2', 'tests/a_test.py',
         'tests/data/cr/a/out.txt'],
    )  # fmt: skip
    self.assertEqual(a_parts[2].files, [f'{B}/a_benchmark.py'])
    self.assertEqual(sorted(f for p in parts for f in p.files), sorted(texts))

  def testCapturedOutputGoesWithItsEarliestReader(self):
    texts, names = _BigA()
    # A test of a's benchmark module (listed first, as a sorted walk lists
    # it) reads a_test's output too.
    texts = {
        'tests/a_benchmark_test.py': _Module(
            ['pkb.linux_benchmarks.a_benchmark'], "F = 'out.txt'"
        )
    } | texts
    groups, home = series.Group(texts, names, LAYOUT)
    anchors = {n: d for d, n in names.items()}
    parts = series.Split(texts, groups, home, anchors, LAYOUT, limit=390)
    a_parts = [p for p in parts if p.group == 'a']
    self.assertIn('tests/a_test.py', a_parts[1].files)
    self.assertIn('tests/data/cr/a/out.txt', a_parts[1].files)
    self.assertCountEqual(
        a_parts[2].files, [f'{B}/a_benchmark.py', 'tests/a_benchmark_test.py']
    )

  def testAModuleOverTheLimitIsAnError(self):
    texts, names = _Tree()
    texts[f'{P}/a_pkg.py'] = 'x = 1\n' * 500
    groups, home = series.Group(texts, names, LAYOUT)
    anchors = {n: d for d, n in names.items()}
    with self.assertRaisesRegex(series.SeriesError, 'a_pkg.py: .* over the'):
      series.Split(texts, groups, home, anchors, LAYOUT, limit=400)


if __name__ == '__main__':
  absltest.main()
