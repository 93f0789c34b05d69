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
"""pkb_ext_dev.upstream_suite's outcome reading and diffing (no suite run)."""

import json
import signal
import subprocess
import sys

import pytest

from pkb_ext_dev import upstream_suite as suite

# The shape pytest's --junitxml writes (a collection error, a skip, a
# failure, an error in teardown of a passing test, a pass).
_JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="2" failures="1" skipped="1"
 tests="5">
<testcase classname="" name="tests.broken_test" time="0.0">
 <error message="collection failure">ImportError</error></testcase>
<testcase classname="tests.a_test.ATest" name="testSkip" time="0.0">
 <skipped type="pytest.skip" message="no">no</skipped></testcase>
<testcase classname="tests.a_test.ATest" name="testFail" time="0.0">
 <failure message="AssertionError">x</failure></testcase>
<testcase classname="tests.a_test.ATest" name="testTeardown" time="0.0"/>
<testcase classname="tests.a_test.ATest" name="testTeardown" time="0.0">
 <error message="failed on teardown">x</error></testcase>
<testcase classname="tests.a_test.ATest" name="testPass" time="0.0"/>
</testsuite></testsuites>
"""


def testOutcomesFromJunitXml(tmp_path):
  path = tmp_path / 'run.xml'
  path.write_text(_JUNIT)
  outcomes = suite.Outcomes(str(path))
  assert outcomes == {
      '::tests.broken_test': 'error',
      'tests.a_test.ATest::testSkip': 'skipped',
      'tests.a_test.ATest::testFail': 'failed',
      'tests.a_test.ATest::testTeardown': 'error',
      'tests.a_test.ATest::testPass': 'passed',
  }
  assert suite.Counts(outcomes) == {
      'passed': 1,
      'failed': 1,
      'error': 2,
      'skipped': 1,
  }


def testNotJunitXmlIsAClearError(tmp_path):
  path = tmp_path / 'run.xml'
  path.write_text('pytest crashed\n')
  with pytest.raises(suite.SuiteError, match='run.xml: no JUnit XML'):
    suite.Outcomes(str(path))


def testDiffFindsNewFailuresNewTestsAndMissingOnes():
  baseline = {'a': 'passed', 'b': 'failed', 'c': 'passed', 'd': 'skipped'}
  after = {
      'a': 'error',  # newly broken
      'b': 'failed',  # failed before too: not new
      'd': 'passed',  # changed, not a failure
      'n1': 'passed',  # added by the patch
      'n2': 'failed',  # added, and failing
  }  # 'c' no longer runs
  diff = suite.Diff(baseline, after)
  assert diff['changed'] == {
      'a': ['passed', 'error'],
      'c': ['passed', None],
      'd': ['skipped', 'passed'],
      'n1': [None, 'passed'],
      'n2': [None, 'failed'],
  }
  assert diff['new_failures'] == ['a', 'n2']
  assert diff['missing'] == ['c']
  assert diff['new_tests'] == {
      'passed': 1,
      'failed': 1,
      'error': 0,
      'skipped': 0,
  }


def testSameOutcomesDiffToNothing():
  outcomes = {'a': 'passed', 'b': 'failed'}
  diff = suite.Diff(outcomes, dict(outcomes))
  assert diff['changed'] == {}
  assert diff['new_failures'] == [] and diff['missing'] == []


def testRequirementsExpandNestedFilesAndDropComments(tmp_path):
  (tmp_path / 'sub').mkdir()
  (tmp_path / 'sub' / 'r.txt').write_text('# only\ncsapi>=0.0.7\n')
  (tmp_path / 'req.txt').write_text(
      '# c\nabsl-py\n\n-rsub/r.txt\nmock>=1.0.1  # why\n'
  )
  assert suite.Requirements(str(tmp_path), 'req.txt') == [
      'absl-py',
      'csapi>=0.0.7',
      'mock>=1.0.1',
  ]


def testMainWritesTheResultAfterEachPatch(tmp_path, monkeypatch, capsys):
  """Main through Check, with PKB's tree, venv, git and pytest stood in."""
  series = tmp_path / 'series'
  series.mkdir()
  for name in ('0001-a.patch', '0002-b.patch'):
    (series / name).write_text('one\ntwo\n')
  base = {'t.A.testOne': 'passed', 't.A.testTwo': 'passed'}
  runs = iter([
      (base, 1.0),
      (dict(base, **{'t.B.testNew': 'passed'}), 1.0),
      (dict(base, **{'t.A.testTwo': 'failed'}), 1.0),
  ])
  seen = []
  out = tmp_path / 'result.json'

  def RunSuite(*args):
    del args
    if out.exists():
      seen.append(len(json.loads(out.read_text())['patches']))
    return next(runs)

  monkeypatch.setattr(suite.pkb_source, 'PinnedCommit', lambda: 'abc')
  monkeypatch.setattr(suite, 'FreshTree', lambda tree, commit: None)
  monkeypatch.setattr(suite, 'EnsureVenv', lambda venv, tree, log: [])
  monkeypatch.setattr(suite, '_Apply', lambda tree, patch: None)
  monkeypatch.setattr(suite, 'RunSuite', RunSuite)
  rc = suite.Main([
      '--out', str(out), '--series', str(series),
      '--work', str(tmp_path / 'work'), '--venv', str(tmp_path / 'venv'),
  ])  # fmt: skip
  assert rc == 1  # patch 2 breaks testTwo
  assert seen == [1]  # patch 1's result was on disk before patch 2's run
  result = json.loads(out.read_text())
  assert [p['patch'] for p in result['patches']] == [
      '0001-a.patch',
      '0002-b.patch',
  ]
  assert result['patches'][0]['new_tests']['passed'] == 1
  assert result['patches'][1]['new_failures'] == ['t.A.testTwo']
  assert result['regressions'] == 1 and not result['ok']
  assert 'regressions: 1; ok: False' in capsys.readouterr().out


def _Series(tmp_path, texts):
  paths = []
  for i, text in enumerate(texts, 1):
    path = tmp_path / f'{i:04d}-p.patch'
    path.write_text(text)
    paths.append(str(path))
  return paths


def testResumeKeepsTheFinishedPatches(tmp_path):
  patches = _Series(tmp_path, ['a\n', 'b\nb\n', 'c\n'])
  previous = {
      'pkb_commit': 'abc',
      'patches': [
          {'patch': '0001-p.patch', 'lines': 1, 'counts': {}},
          {
              'patch': '0002-p.patch',
              'lines': 2,
              'sha256': suite.PatchId(patches[1]),
              'counts': {},
          },
          {'patch': '0003-p.patch', 'lines': 1},  # stopped during its run
      ],
  }
  assert suite.Finished(previous, 'abc', patches) == (2, '')


def testThePatchIdIgnoresTheExportsCommitAndDate(tmp_path):
  one, two, other = _Series(
      tmp_path,
      [
          'From 1111 Mon Sep 17 00:00:00 2001\nDate: Sun, 1\n+x\n',
          'From 2222 Mon Sep 17 00:00:00 2001\nDate: Mon, 2\n+x\n',
          'From 2222 Mon Sep 17 00:00:00 2001\nDate: Mon, 2\n+y\n',
      ],
  )
  assert suite.PatchId(one) == suite.PatchId(two) != suite.PatchId(other)


@pytest.mark.parametrize(
    'change',
    [{'lines': 5}, {'sha256': '0' * 64}, {'patch': '0002-q.patch'}],
)
def testResumeRunsAgainFromTheFirstPatchThatChanged(tmp_path, change):
  patches = _Series(tmp_path, ['a\n', 'b\n', 'c\n'])
  entries = [
      {'patch': f'000{i}-p.patch', 'lines': 1, 'counts': {}} for i in (1, 2, 3)
  ]
  entries[1].update(change)
  previous = {'pkb_commit': 'abc', 'patches': entries}
  kept, why = suite.Finished(previous, 'abc', patches)
  assert kept == 1
  assert why == '0002-p.patch is not the patch the result measured'


def testResumeRefusesAnotherPin(tmp_path):
  patches = _Series(tmp_path, ['a\n'])
  previous = {'pkb_commit': 'def', 'patches': []}
  with pytest.raises(suite.SuiteError, match='the result is of PKB def'):
    suite.Finished(previous, 'abc', patches)


def testResumeOfALongerResultKeepsTheSeries(tmp_path):
  patches = _Series(tmp_path, ['a\n'])
  done = {'patch': '0001-p.patch', 'lines': 1, 'counts': {}}
  previous = {'pkb_commit': 'abc', 'patches': [done, dict(done)]}
  assert suite.Finished(previous, 'abc', patches) == (
      1,
      'the result has 2 patches',
  )


def testTheSuiteRaisesKeyboardInterruptEvenWhenStartedIgnoringSigint():
  # As a shell's background job without job control starts it.
  ask = 'import signal; print(signal.getsignal(signal.SIGINT))'
  before = signal.signal(signal.SIGINT, signal.SIG_IGN)
  try:
    inherited, reset = (
        subprocess.run(
            [sys.executable, '-c', ask], capture_output=True, text=True,
            check=True, preexec_fn=preexec,
        ).stdout.strip()
        for preexec in (None, suite.DefaultInterrupts)
    )  # fmt: skip
  finally:
    signal.signal(signal.SIGINT, before)
  assert inherited == str(int(signal.SIG_IGN))
  assert reset == '<built-in function default_int_handler>'
