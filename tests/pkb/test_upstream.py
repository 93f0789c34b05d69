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
"""The exported series in a fresh PKB at the pin, pkb_ext not importable.

`pkb-ext upstream` writes the series; this applies it patch by patch to
PKB's source at the pinned commit (extracted from the setup cache's archive
into a temporary git repository) with `git apply --check`, then `git apply`,
and after each patch imports the modules it adds and runs its tests and
PKB's tests of the PKB files it edits. Everything that runs
in that tree runs in an interpreter started with -I -S, whose sys.path is the
patched tree, the standard library and the venv's site-packages (for PKB's
dependencies) without processing its .pth files: pkb_ext, our benchmarks
and linux_packages and the PKB checkout installed in the venv are not importable there, which
each run checks first.
"""

import email
import email.header
import email.utils
import json
import os
import re
import subprocess
import sys

from absl import flags
import pytest

from pkb_ext import registry
from pkb_ext.upstream import errors as upstream_errors
from pkb_ext.upstream import git as upstream_git
from pkb_ext.upstream import layout
from pkb_ext.upstream import pkb_edits
from pkb_ext.upstream import pkb_fixes
from pkb_ext.upstream import rewrite
from pkb_ext.upstream import series
from pkb_ext_dev import upstream_tree

# PKB's own tests of what the patch touches: benchmark sets, configs, data.
PKB_TESTS = (
    'tests/benchmark_sets_test.py',
    'tests/config_test.py',
    'tests/configs/benchmark_config_spec_test.py',
    'tests/configs/option_decoders_test.py',
    'tests/configs/spec_test.py',
    'tests/data_test.py',
)
# pylint messages left out on the patch's lines, each because PKB's own code
# and Google's style do the same (see _Lint).
_PYLINT_LEFT_OUT = {
    'C0301': 'line-too-long on an import line (Google style exempts them)',
    'W1404': 'implicit-str-concat (pyink output; all over PKB)',
    'C0103': 'invalid-name of a testCamelCase method (PKB tests all are)',
}
_Isolated = upstream_tree.Isolated


def testIsolationCheckCatchesAnImportablePkbExt(tmp_path):
  """Without -I -S the venv's .pth files make pkb_ext importable: caught."""
  result = _Isolated(str(tmp_path), 'pass\n', isolate=())
  assert result.returncode != 0
  assert 'ISOLATION BROKEN: pkb_ext is importable' in result.stderr


# PKB's own tests of the PKB files the series edits.
PKB_FILE_TESTS = {
    pkb_edits.DATA_INIT_FILE: 'tests/data_test.py',
    pkb_edits.LINUX_VM_FILE: pkb_edits.LINUX_VM_TEST_FILE,
    pkb_edits.LINUX_VM_TEST_FILE: pkb_edits.LINUX_VM_TEST_FILE,
    **{f: fix.test_file for fix in pkb_fixes.FIXES for f in fix.Files()},
}


def _OwnTestFile(path):
  """perfkitbenchmarker/a/b.py -> tests/a/b_test.py (None for others)."""
  prefix = 'perfkitbenchmarker/'
  if path.startswith(prefix) and path.endswith('.py'):
    return f'tests/{path[len(prefix) : -len(".py")]}_test.py'
  return None


# Runs the named test files (argv) after importing every module named by
# --import=NAME; prints the count of tests run.
_IMPORT_AND_TEST = """\
import importlib, unittest
modules = [a[len('--import='):] for a in sys.argv[1:] if a.startswith('--import=')]
files = [a for a in sys.argv[1:] if not a.startswith('--import=')]
for name in modules:
  importlib.import_module(name)
if files:
  unittest.main(module=None, argv=['unittest', *files])
print('Ran 0 tests (imports only)', file=sys.stderr)
"""


def _Git(tree, *args):
  return subprocess.run(
      ['git', '-C', tree, *args], capture_output=True, text=True, check=True
  ).stdout


def _Pin(export):
  """The tree's commit before the series (the pin)."""
  return f'HEAD~{len(export.patches)}'


@pytest.fixture(scope='module')
def git_user(tmp_path_factory):
  """(name, email) git is configured with here, the series' author.

  On a machine without one, a global git configuration of the test's own
  gives one, so that the export finds it the way it finds a user's.
  """
  with pytest.MonkeyPatch.context() as env:
    try:
      author = upstream_git.ConfiguredAuthor(os.getcwd())
    except upstream_errors.ExportError:
      config = tmp_path_factory.mktemp('git') / 'config'
      config.write_text('[user]\n\tname = T\n\temail = t@example.com\n')
      env.setenv('GIT_CONFIG_GLOBAL', str(config))
      author = upstream_git.ConfiguredAuthor(os.getcwd())
    yield author


@pytest.fixture(scope='module')
def patched(tmp_path_factory, git_user):
  """(export, tree, log): the series written and applied to a fresh PKB.

  After each patch its new modules import, and its own tests and PKB's
  tests of the PKB files it edits pass; log holds (patch, tests run).
  """
  del git_user  # the export reads it from git's configuration
  log = []

  def TestPatch(tree, patch):
    modules = [
        '--import=' + p[: -len('.py')].replace('/', '.')
        for p in patch.added
        if p.endswith('.py')
        and p.startswith(
            (layout.BENCHMARKS_DEST + '/', layout.PACKAGES_DEST + '/')
        )
    ]
    tests = [p for p in patch.added if p.endswith('_test.py')] + [
        PKB_FILE_TESTS[p] for p in patch.modified if p in PKB_FILE_TESTS
    ]
    # A module a fix moves onto its change: its own PKB tests too.
    tests += [
        own
        for own in map(_OwnTestFile, patch.modified)
        if own and os.path.isfile(os.path.join(tree, own))
    ]
    tests = list(dict.fromkeys(tests))
    result = _Isolated(tree, _IMPORT_AND_TEST, *modules, *tests)
    assert (
        result.returncode == 0
    ), f'after {os.path.basename(patch.path)}:\n{result.stderr[-6000:]}'
    ran = re.search(r'^Ran (\d+) tests?', result.stderr, re.M)
    log.append((os.path.basename(patch.path), int(ran.group(1))))

  export, tree = upstream_tree.Build(
      str(tmp_path_factory.mktemp('upstream')), after_each=TestPatch
  )
  return export, tree, log


def testEveryPatchIsSmallAndTested(patched):
  export, _, log = patched
  assert len(export.patches) > 1
  for patch, (name, ran) in zip(export.patches, log):
    with open(patch.path, encoding='utf-8') as f:
      lines = f.read().count('\n')
    assert lines == patch.lines <= series.PATCH_LINE_LIMIT, name
    assert re.match(r'\d{4}-', name), name
    # Every patch brings tests of what it adds, and they ran after it.
    tests = [p for p in patch.added + patch.modified if p.endswith('_test.py')]
    assert tests, f'{name}: adds no test'
    assert ran > 0, name


def testTheSeriesAuthorIsTheConfiguredGitUser(patched, git_user):
  export, _, _ = patched
  name, email_address = git_user
  for patch in export.patches:
    with open(patch.path, encoding='utf-8') as f:
      text = f.read()
    header = email.message_from_string(text)['From']  # folded, maybe encoded
    author = str(email.header.make_header(email.header.decode_header(header)))
    assert email.utils.parseaddr(author) == (name, email_address), patch.path
    assert 'cloud-report-export' not in text, patch.path


def _ChangesAdded(patch_path):
  """The lines a patch adds to CHANGES.next.md."""
  with open(patch_path, encoding='utf-8') as f:
    text = f.read()
  if f'\n+++ b/{pkb_edits.CHANGES_FILE}\n' not in text:
    return []
  return [
      line[1:]
      for line in _DiffLines(text, pkb_edits.CHANGES_FILE)
      if line.startswith('+')
  ]


def _AddsABenchmark(patch) -> bool:
  return any(
      layout.IsBenchmarkModule(rel) and layout.IsTopLevelBenchmark(rel)
      for rel in patch.added
  )


def testChangesGainsAtMostSixLinesOneForEachFixAndBenchmark(patched):
  export, _, _ = patched
  added = {p.path: _ChangesAdded(p.path) for p in export.patches}
  lines = [line for patch_lines in added.values() for line in patch_lines]
  assert len(lines) <= 6, lines
  fixes = export.patches[: 1 + len(pkb_fixes.FIXES)]
  benchmarks = [p for p in export.patches if _AddsABenchmark(p)]
  assert len(benchmarks) == len(export.benchmarks)
  for patch in export.patches:
    expected = 1 if patch in fixes or patch in benchmarks else 0
    assert len(added[patch.path]) == expected, (patch.path, added[patch.path])
  for line in lines:  # for PKB's users: no module, helper or pkb_ext name
    assert line.startswith('-   ') and len(line) <= 80, line
    assert not re.search(
        r'(?i)`|\bcloud_report\.\w|helpers|pkb_ext|pkb-ext', line
    ), line


def testEachFixAppliesAloneToThePin(patched, tmp_path):
  """Patches 1..4 each apply to a clean pin, CHANGES.next.md included."""
  export, tree, _ = patched
  pin = str(tmp_path / 'pin')
  _Git(tree, 'worktree', 'add', '-q', '--detach', pin, _Pin(export))
  try:
    for patch in export.patches[: 1 + len(pkb_fixes.FIXES)]:
      result = subprocess.run(
          ['git', '-C', pin, 'apply', '--check', patch.path],
          capture_output=True,
          text=True,
          check=False,
      )
      assert result.returncode == 0, f'{patch.path}: {result.stderr}'
  finally:
    _Git(tree, 'worktree', 'remove', '--force', pin)


def testEveryFileLandsInOnePatch(patched):
  export, _, _ = patched
  added = [p for patch in export.patches for p in patch.added]
  assert sorted(added) == sorted(export.added)
  modified = {p for patch in export.patches for p in patch.modified}
  assert modified == set(export.modified)


def _Changed(export, tree, rel):
  """The lines of rel the series removes and adds ('-...', '+...')."""
  diff = _Git(tree, 'diff', '--unified=0', _Pin(export), '--', rel)
  return [
      line
      for line in diff.splitlines()
      if line[:1] in '+-' and not line.startswith(('+++', '---'))
  ]


def _DiffLines(diff, rel):
  """The lines a diff removes and adds in rel ('-...', '+...')."""
  section = re.search(
      rf'^diff --git a/{re.escape(rel)} b/.*?(?=^diff --git |\Z)',
      diff,
      re.M | re.S,
  ).group(0)
  return [
      line
      for line in section.splitlines()
      if line[:1] in '+-' and not line.startswith(('+++', '---'))
  ]


def testPkbFilesChangeOnlyOnTheFeaturesLines(patched):
  """Each PKB file the series edits only gains lines, but the fixes'."""
  export, tree, _ = patched
  fixed = {f: fix for fix in pkb_fixes.FIXES for f in fix.Files()}
  for rel in export.modified:
    body = _Changed(export, tree, rel)
    assert body, rel
    if rel in fixed:
      assert body == _DiffLines(fixed[rel].Diff(), rel), rel
      continue
    if rel == pkb_edits.LINUX_VM_FILE:
      assert body == [
          '-    for package_name in self._installed_packages:',
          '+    for package_name in list(self._installed_packages):',
      ], body
      continue
    assert not [l for l in body if l.startswith('-')], f'{rel}:\n{body}'
  data_diff = _Git(
      tree, 'diff', '--unified=0', _Pin(export), '--', pkb_edits.DATA_INIT_FILE
  )
  # The data package gains its subdirectory only with a data file to find.
  has_data = any(p.startswith(layout.DATA_DEST + '/') for p in export.added)
  assert [
      l for l in data_diff.splitlines() if l.startswith('+') and l[1:2] != '+'
  ] == ([f"+    '{layout.DATA_SUBDIRECTORY}',"] if has_data else [])
  assert (pkb_edits.DATA_INIT_FILE in export.modified) == has_data


def testPackageCleanupFixComesFirstAndItsTestFailsWithoutIt(patched):
  """The first patch fixes PKB's PackageCleanup; at the pin its test fails."""
  export, tree, _ = patched
  first = export.patches[0]
  assert first.added == (), first
  assert set(first.modified) == {
      pkb_edits.LINUX_VM_FILE,
      pkb_edits.LINUX_VM_TEST_FILE,
      pkb_edits.CHANGES_FILE,
  }, first
  assert first.subject == 'Let PackageCleanup uninstall every package of a VM.'
  with open(first.path, encoding='utf-8') as f:
    assert '+-   Fix PackageCleanup on Debian-based static VMs' in f.read()
  test = 'tests.linux_virtual_machine_test.PackageCleanupTest'
  run = 'import unittest\nunittest.main(module=None, argv=["u", sys.argv[1]])\n'
  fixed = _Isolated(tree, run, test)
  assert fixed.returncode == 0, fixed.stderr[-3000:]
  path = os.path.join(tree, pkb_edits.LINUX_VM_FILE)
  with open(path, encoding='utf-8') as f:
    patched_text = f.read()
  try:
    with open(path, 'w', encoding='utf-8') as f:
      f.write(_Git(tree, 'show', f'{_Pin(export)}:{pkb_edits.LINUX_VM_FILE}'))
    broken = _Isolated(tree, run, test)
  finally:
    with open(path, 'w', encoding='utf-8') as f:
      f.write(patched_text)
  assert broken.returncode != 0, broken.stderr[-3000:]
  assert 'Set changed size during iteration' in broken.stderr


def testModuleFixesComeNextAndTheirTestsFailWithoutThem(patched):
  """Patches 2.. fix PKB's modules; at the pin each fix's tests fail."""
  export, tree, _ = patched
  fixes = export.patches[1 : 1 + len(pkb_fixes.FIXES)]
  run = (
      'import unittest\nunittest.main(module=None, argv=["u", *sys.argv[1:]])\n'
  )
  for patch, fix in zip(fixes, pkb_fixes.FIXES):
    assert patch.subject == fix.subject, patch
    assert set(patch.modified) == {*fix.Files(), pkb_edits.CHANGES_FILE}
    assert set(patch.added) == {dest for dest, _ in fix.added}, patch
    assert fix.test_file in fix.Files() and fix.module in fix.Files(), fix
    with open(patch.path, encoding='utf-8') as f:
      assert f'+-   {fix.changes}\n' in f.read(), patch.path
    fixed = _Isolated(tree, run, *fix.tests)
    assert fixed.returncode == 0, fixed.stderr[-3000:]
    assert f'Ran {len(fix.tests)} test' in fixed.stderr, fixed.stderr[-3000:]
    path = os.path.join(tree, fix.module)
    with open(path, encoding='utf-8') as f:
      patched_text = f.read()
    try:
      with open(path, 'w', encoding='utf-8') as f:
        f.write(_Git(tree, 'show', f'{_Pin(export)}:{fix.module}'))
      broken = _Isolated(tree, run, *fix.tests)
    finally:
      with open(path, 'w', encoding='utf-8') as f:
        f.write(patched_text)
    assert broken.returncode != 0, broken.stderr[-3000:]
    for test in fix.tests:  # each one fails (or errs) at the pin
      name = test.rsplit('.', 1)[1]
      assert re.search(
          rf'^(FAIL|ERROR): {name} ', broken.stderr, re.M
      ), f'{test} passes at the pin:\n{broken.stderr[-3000:]}'


def testSeriesAddsAndChangesWhatItSays(patched):
  export, tree, _ = patched
  status = _Git(tree, 'diff', '--name-status', _Pin(export)).splitlines()
  added = sorted(line[2:] for line in status if line.startswith('A\t'))
  modified = sorted(line[2:] for line in status if line.startswith('M\t'))
  assert added == list(export.added)
  assert modified == sorted(export.modified)
  assert len(status) == len(added) + len(modified)
  for rel in export.added:
    if rel.endswith('.py'):
      with open(os.path.join(tree, rel), encoding='utf-8') as f:
        text = f.read()
      year = re.match(r'# Copyright (\d{4}) PerfKitBenchmarker Authors', text)
      assert year, f'{rel}: no PKB licence header'
      assert text.startswith(rewrite.PKB_HEADER.format(year=year.group(1))), rel
      assert 'pkb_ext Authors' not in text, rel


# What a reader of PKB's tree cannot find: our packages, test helpers,
# commands and setup cache.
_OURS = re.compile(
    r'\bpkb_ext\b|pkb_ext_dev|\.cache/pkb-ext'
    r'|(?<![\w./-])(?:benchmarks|linux_packages)(?:\.cloud_report| import )'
    r'|pkb-ext (?:run|list|plan|parse|local|publish|report|bench|upstream)\b'
)


def testExportedCodeNamesNothingPkbLacks(patched):
  export, tree, _ = patched
  found = []
  for rel in export.added:
    if rel.startswith(layout.TEST_DATA_DEST + '/'):
      continue  # captured outputs and their provenance notes
    with open(os.path.join(tree, rel), encoding='utf-8') as f:
      for number, line in enumerate(f, 1):
        if _OURS.search(line):
          found.append(f'{rel}:{number}: {line.strip()}')
  assert not found, 'exported code names pkb_ext things:\n' + '\n'.join(found)


def testPkbTestsAndExportedTestsPass(patched):
  export, tree, _ = patched
  exported = [
      p
      for p in export.added
      if p.startswith('tests/') and p.endswith('_test.py')
  ]
  assert any(
      p.startswith('tests/linux_benchmarks/cloud_report_') for p in exported
  )
  result = _Isolated(
      tree,
      'import unittest\n'
      "unittest.main(module=None, argv=['unittest', *sys.argv[1:]])\n",
      *PKB_TESTS,
      *exported,
  )
  assert result.returncode == 0, result.stderr[-6000:]
  ran = re.search(r'^Ran (\d+) tests?', result.stderr, re.M)
  assert ran and int(ran.group(1)) > 100, result.stderr[-2000:]
  assert re.search(r'^OK\b', result.stderr, re.M), result.stderr[-2000:]


def _OurFlags() -> set[str]:
  """Flags our exported modules define (the publisher's stay behind)."""
  registry.Register()
  registry.PackageModules()
  return {
      f.name
      for module, module_flags in flags.FLAGS.flags_by_module_dict().items()
      if module.startswith(('benchmarks.', 'linux_packages.'))
      for f in module_flags
  }


def testHelpmatchListsEveryCloudReportFlag(patched):
  _, tree, _ = patched
  result = _Isolated(
      tree,
      'import runpy\n'
      "sys.argv = ['pkb.py', '--helpmatch=cloud_report']\n"
      "runpy.run_path('pkb.py', run_name='__main__')\n",
  )
  assert result.returncode == 0, result.stderr[-4000:]
  listed = set(
      re.findall(r'^\s+--(?:\[no\])?(cloud_report\w*):', result.stdout, re.M)
  )
  defined = _Isolated(
      tree,
      'import json\n'
      'from absl import flags\n'
      'from perfkitbenchmarker import linux_benchmarks, linux_packages\n'
      'print(json.dumps(sorted(n for n in flags.FLAGS'
      " if n.startswith('cloud_report'))))\n",
  )
  assert defined.returncode == 0, defined.stderr[-4000:]
  in_pkb = set(json.loads(defined.stdout))
  assert in_pkb == _OurFlags(), 'the export lost or gained flags'
  assert sorted(in_pkb - listed) == [], 'flags --helpmatch=cloud_report misses'
  assert listed == in_pkb


def testBenchmarksFlagResolves(patched):
  """Each exported benchmark resolves by name to its module in PKB's tree."""
  export, tree, _ = patched
  ours = sorted(m.BENCHMARK_NAME for m in registry.ExportedBenchmarkModules())
  assert sorted(export.benchmarks) == ours
  result = _Isolated(
      tree,
      'import json\n'
      'from absl import flags\n'
      'from perfkitbenchmarker import benchmark_sets\n'
      'out = {}\n'
      'for name in sys.argv[1:]:\n'
      "  flags.FLAGS(['pkb.py', f'--benchmarks={name}'])\n"
      '  out[name] = [(m.BENCHMARK_NAME, m.__name__)'
      ' for m, _ in benchmark_sets.GetBenchmarksFromFlags()]\n'
      '  flags.FLAGS.unparse_flags()\n'
      'print(json.dumps(out))\n',
      *ours,
  )
  assert result.returncode == 0, result.stderr[-4000:]
  resolved = json.loads(result.stdout)
  for name in ours:
    assert resolved[name] == [
        [name, f'perfkitbenchmarker.linux_benchmarks.{name}_benchmark']
    ], resolved


def _AddedLines(patch_text: str) -> dict[str, set[int]]:
  """Line numbers each file of a unified diff adds (in the new file)."""
  added, path, line = {}, None, 0
  for text in patch_text.splitlines():
    if text.startswith('+++ '):
      path = None if text == '+++ /dev/null' else text[len('+++ b/') :]
      added.setdefault(path, set())
    elif text.startswith('@@'):
      line = int(re.match(r'@@ -\S+ \+(\d+)', text).group(1))
    elif path and text.startswith('+'):
      added[path].add(line)
      line += 1
    elif path and text.startswith(' '):
      line += 1
  return added


def _PythonFiles(export):
  return [
      p
      for p in export.added + export.modified
      if p.endswith('.py') and not p.startswith(layout.DATA_DEST)
  ]


def testPyinkCleanWithPkbSettings(patched):
  """The series' new files; PKB's own files are not all pyink-clean, and
  the series leaves their lines alone (testPkbFilesChangeOnly...)."""
  export, tree, _ = patched
  files = [
      os.path.join(tree, p)
      for p in _PythonFiles(export)
      if p not in export.modified
  ]
  result = rewrite.Pyink(files, check=True)
  assert result.returncode == 0, result.stdout[-4000:] + result.stderr


def _Lint(tree, files):
  result = subprocess.run(
      [
          sys.executable,
          '-m',
          'pylint',
          '--rcfile=.pylintrc',
          '--output-format=json',
          '--jobs=1',
          *files,
      ],
      cwd=tree,
      capture_output=True,
      text=True,
      env=dict(os.environ, PYTHONPATH=tree),
      check=False,
  )
  assert result.stdout.startswith('['), result.stderr[-4000:]
  return json.loads(result.stdout)


def testPylintCleanWithPkbSettingsOnThePatchedLines(patched):
  export, tree, _ = patched
  added = _AddedLines(_Git(tree, 'diff', _Pin(export)))
  files = _PythonFiles(export)
  problems = []
  for m in _Lint(tree, files):
    if m['line'] not in added.get(m['path'], ()):
      continue  # PKB's own line of a file the patch changes
    if m['message-id'] in _PYLINT_LEFT_OUT:
      with open(os.path.join(tree, m['path']), encoding='utf-8') as f:
        line = f.read().splitlines()[m['line'] - 1]
      if m['message-id'] == 'C0301' and re.match(r'(from|import) ', line):
        continue
      if m['message-id'] == 'W1404':
        continue
      if m['message-id'] == 'C0103' and re.search(r'def test[A-Z]\w*\(', line):
        continue
    problems.append(
        f"{m['path']}:{m['line']}: {m['message-id']} {m['message']}"
        f" ({m['symbol']})"
    )
  assert not problems, f'{len(problems)} pylint messages:\n' + '\n'.join(
      problems
  )


def testEachPhaseModulesPatchCarriesItsMockedVmTest(patched):
  """A standalone phase module and its PKB-style test land in one patch."""
  export, _, log = patched
  phase_modules = 0
  for patch, (name, ran) in zip(export.patches, log):
    for rel in patch.added:
      match = re.fullmatch(
          re.escape(layout.BENCHMARKS_DEST)
          + r'/(cloud_report_\w+_benchmark)\.py',
          rel,
      )
      if not match:
        continue
      phase_modules += 1
      test = f'tests/linux_benchmarks/{match.group(1)}_test.py'
      assert test in patch.added, f'{name} adds {rel} but not {test}'
      assert ran > 0, name
  assert phase_modules == len(export.benchmarks)


# What only this repository has: the local cloud and its emulators, the
# spool, and the configs/ folder (PKB's data package holds those files).
_LOCAL_ONLY = re.compile(
    r'local cloud|minio|azurite|fake-gcs|\bspool|\bconfigs/', re.I
)


def testSeriesNamesNoLocalOnlyThing(patched):
  export, _, _ = patched
  found = []
  for patch in export.patches:
    with open(patch.path, encoding='utf-8') as f:
      for number, line in enumerate(f, 1):
        if _LOCAL_ONLY.search(line):
          found.append(f'{os.path.basename(patch.path)}:{number}: {line[:120]}')
  assert not found, 'the series names local-only things:\n' + '\n'.join(found)
