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
"""PKB's whole unit suite at the pin and after each patch of the series.

  python -m pkb_ext_dev.upstream_suite --out RESULT.json [--series DIR]
      [--venv DIR] [--work DIR] [--workers N] [--timeout S] [--resume]

Writes the upstream series (`pkb-ext upstream`; or takes --series), extracts
PKB's source at the pin from the setup cache into a fresh git tree, runs
PKB's unit suite there once as the baseline, then applies each patch in turn
(`git apply --check`, `git apply --index`, a commit) and runs the whole
suite again. Each run records every test's outcome (passed, failed, error,
skipped); RESULT.json holds, per patch, whether it applied, the counts, and
every test whose outcome differs from the baseline. A test that newly fails
or errors, or a baseline test that no longer runs, is a regression; the
command exits 1 on any, or on a patch that does not apply.

With --resume (and the --work and --out of a run that stopped midway), the
baseline's and each finished patch's outcomes are read back from the work
directory instead of run again: the finished patches are applied to a fresh
tree, and the suite runs from the first patch without a result, or from the
first that is not the patch the result measured (another name, line count
or PatchId: the text less the export's commit and date lines), which it
names. A result of another PKB pin is refused.

The suite runs as PKB's tox.ini runs it (every test under tests/ except
tests/scripts, and not TestConnectRemoteAccessPort or
TestLinuxVirtualMachine), with pytest in place of nose, which does not run
on Python 3.12. It runs in a venv of its own (default: the cache's
pkb-test-venv, made on first use) holding PKB's requirements.txt and
requirements-testing.txt (each that installs on its Python; the others are
listed in RESULT.json), pint 0.26.1, pytest and pytest-xdist, and nothing
of pkb_ext: each run checks that pkb_ext cannot be imported there.
"""

import argparse
import collections
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

from pkb_ext import errors
from pkb_ext import paths
from pkb_ext.upstream import errors as upstream_errors
from pkb_ext.upstream import export
from pkb_ext.upstream import pkb_source

PYTHON_VERSION = '3.12'
# What PKB's requirements leave open that its code needs pinned (see
# scripts/setup.d/30-pkb.sh), and the runner.
PINS = ('pint==0.26.1', 'setuptools<81')
RUNNER = ('pytest', 'pytest-xdist')
# tox.ini's nosetests -e excludes, as a pytest -k expression.
EXCLUDED = 'not TestConnectRemoteAccessPort and not TestLinuxVirtualMachine'
BAD = ('failed', 'error')
OUTCOMES = ('passed', 'failed', 'error', 'skipped')
_GIT = ['git', '-c', 'user.name=t', '-c', 'user.email=t@localhost', '-C']
_ISOLATION = (
    'import importlib.util, sys\n'
    "bad = [n for n in ('pkb_ext', 'pkb_ext_dev', 'benchmarks',"
    " 'linux_packages')"
    ' if importlib.util.find_spec(n)]\n'
    "sys.exit('importable: ' + ', '.join(bad) if bad else 0)\n"
)


class SuiteError(errors.Error):
  """The suite cannot be run; the message says why."""


def DefaultVenv() -> str:
  return os.path.join(paths.CacheDir(), 'pkb-test-venv')


def Requirements(tree: str, name: str) -> list[str]:
  """The requirement lines of a PKB requirements file, -r files expanded."""
  out = []
  with open(os.path.join(tree, name), encoding='utf-8') as f:
    for line in f:
      line = line.split('#', 1)[0].strip()
      if not line:
        continue
      if line.startswith('-r'):
        out.extend(Requirements(tree, line[2:].strip()))
      else:
        out.append(line)
  return out


def _Python() -> str:
  """A Python PYTHON_VERSION interpreter (pyenv's, else on PATH)."""
  root = os.path.expanduser('~/.pyenv/versions')
  if os.path.isdir(root):
    for name in sorted(os.listdir(root), reverse=True):
      if name.startswith(PYTHON_VERSION + '.'):
        return os.path.join(root, name, 'bin', 'python3')
  found = shutil.which(f'python{PYTHON_VERSION}')
  if not found:
    raise SuiteError(f'no Python {PYTHON_VERSION}: install it (pyenv)')
  return found


def EnsureVenv(venv: str, tree: str, log=print) -> list[str]:
  """Makes the suite's venv if missing or stale; returns what did not install.

  Args:
    venv: the venv directory.
    tree: a PKB tree (its requirements files).
    log: where progress lines go.

  Returns:
    The requirements of PKB's testing list that failed to install.
  """
  wanted = Requirements(tree, 'requirements.txt')
  testing = [
      r for r in Requirements(tree, 'requirements-testing.txt')
      if r not in wanted
  ]  # fmt: skip
  stamp_text = json.dumps([wanted, testing, PINS, RUNNER])
  stamp = hashlib.sha256(stamp_text.encode()).hexdigest()
  stamp_file = os.path.join(venv, '.pkb-ext-stamp.json')
  python = os.path.join(venv, 'bin', 'python')
  if os.path.isfile(stamp_file) and os.path.isfile(python):
    with open(stamp_file, encoding='utf-8') as f:
      saved = json.load(f)
    if saved.get('stamp') == stamp:
      return saved['not_installed']
  log(f'[suite] making {venv} (PKB requirements, {", ".join(PINS)})')
  subprocess.run([_Python(), '-m', 'venv', '--clear', venv], check=True)
  pip = [python, '-m', 'pip', 'install', '-q', '--disable-pip-version-check']
  subprocess.run(pip + ['--upgrade', 'pip', *PINS, 'wheel'], check=True)
  subprocess.run(pip + wanted + list(PINS), check=True)
  subprocess.run(pip + list(RUNNER) + list(PINS), check=True)
  not_installed = []
  if subprocess.run(pip + testing + list(PINS), check=False).returncode:
    for requirement in testing:  # one by one: keep what installs
      if subprocess.run(pip + [requirement] + list(PINS)).returncode:
        not_installed.append(requirement)
  log(f'[suite] not installed: {", ".join(not_installed) or "none"}')
  with open(stamp_file, 'w', encoding='utf-8') as f:
    json.dump({'stamp': stamp, 'not_installed': not_installed}, f)
  return not_installed


def Outcomes(junit_xml: str) -> dict[str, str]:
  """Test id (classname::name) -> outcome, from pytest's JUnit XML.

  A collection error is a test of its own (pytest names it after the
  module); a test reported twice (an error in its teardown) keeps the worse
  outcome.
  """
  try:
    root = ET.parse(junit_xml).getroot()
  except (ET.ParseError, OSError) as e:
    raise SuiteError(f'{junit_xml}: no JUnit XML: {e}') from e
  out = {}
  rank = {o: i for i, o in enumerate(('passed', 'skipped', 'failed', 'error'))}
  for case in root.iter('testcase'):
    key = f"{case.get('classname', '')}::{case.get('name', '')}"
    outcome = 'passed'
    for tag in ('skipped', 'failure', 'error'):
      if case.find(tag) is not None:
        outcome = 'failed' if tag == 'failure' else tag
    if key in out and rank[out[key]] > rank[outcome]:
      continue
    out[key] = outcome
  return out


def Counts(outcomes: dict[str, str]) -> dict[str, int]:
  counts = collections.Counter(outcomes.values())
  return {o: counts.get(o, 0) for o in OUTCOMES}


def Diff(baseline: dict[str, str], after: dict[str, str]) -> dict:
  """How a run's outcomes differ from the baseline's.

  Args:
    baseline: test id -> outcome at the pin.
    after: test id -> outcome after a patch.

  Returns:
    changed: test id -> [before, after] for every test whose outcome
      differs (None: not run); new_tests: how many tests only `after` ran,
      by outcome; new_failures: tests failing or erring after that did not
      before (new tests too); missing: baseline tests that did not run.
  """
  changed = {}
  for key in sorted(set(baseline) | set(after)):
    before, now = baseline.get(key), after.get(key)
    if before != now:
      changed[key] = [before, now]
  new = {k: a for k, (b, a) in changed.items() if b is None}
  return {
      'changed': changed,
      'new_tests': Counts(new),
      'new_failures': [
          k for k, (b, a) in changed.items() if a in BAD and b not in BAD
      ],
      'missing': [k for k, (_, a) in changed.items() if a is None],
  }


def DefaultInterrupts() -> None:
  """Gives SIGINT and SIGQUIT their default action (in the child, before
  its exec): a shell that starts a command in the background without job
  control has them ignored, and a Python started so never raises
  KeyboardInterrupt (PKB's testInterrupt then fails, as no terminal run
  would)."""
  for sig in (signal.SIGINT, signal.SIGQUIT):
    signal.signal(sig, signal.SIG_DFL)


def RunSuite(
    tree: str, venv: str, junit_xml: str, workers: int, timeout: int
) -> tuple[dict[str, str], float]:
  """Runs PKB's unit suite in tree; returns (outcomes, seconds)."""
  python = os.path.join(venv, 'bin', 'python')
  env = {
      'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
      'HOME': os.path.join(os.path.dirname(junit_xml), 'home'),
      'PYTHONPATH': tree,
      'LANG': 'C.UTF-8',
  }
  os.makedirs(env['HOME'], exist_ok=True)
  isolated = subprocess.run(
      [python, '-c', _ISOLATION], env=env, cwd=tree,
      capture_output=True, text=True, check=False,
  )  # fmt: skip
  if isolated.returncode:
    raise SuiteError(f'{venv}: not isolated: {isolated.stderr.strip()}')
  command = [
      python, '-m', 'pytest', 'tests', '--ignore=tests/scripts',
      '-k', EXCLUDED, '-p', 'no:cacheprovider', '-q', '--no-header',
      '-o', 'addopts=', f'--junitxml={junit_xml}',
  ]  # fmt: skip
  if workers:
    command += ['-n', str(workers)]
  start = time.monotonic()
  with open(junit_xml + '.log', 'w', encoding='utf-8') as log:
    proc = subprocess.run(
        command, cwd=tree, env=env, stdout=log, stderr=subprocess.STDOUT,
        timeout=timeout, check=False, preexec_fn=DefaultInterrupts,
    )  # fmt: skip
  seconds = time.monotonic() - start
  if proc.returncode not in (0, 1):  # 1: some test failed
    raise SuiteError(
        f'pytest exited {proc.returncode} in {tree}; see {junit_xml}.log'
    )
  return Outcomes(junit_xml), seconds


def _Apply(tree: str, patch: str) -> str | None:
  """Applies one patch and commits; returns git's error, or None."""
  for args in (['apply', '--check'], ['apply', '--index']):
    result = subprocess.run(
        _GIT + [tree] + args + [patch],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if result.returncode:
      return result.stderr.strip()
  subprocess.run(
      _GIT + [tree, 'commit', '-qm', os.path.basename(patch)], check=True
  )
  return None


def FreshTree(tree: str, commit: str) -> None:
  """PKB's source at commit (the cache's archive) as a new git tree."""
  os.makedirs(tree)
  pkb_source.ExtractPkb(pkb_source.SourceArchive(commit), tree)
  for args in (['init', '-q'], ['add', '-A'], ['commit', '-qm', 'pin']):
    subprocess.run(_GIT + [tree] + args, check=True)


def PatchId(path: str) -> str:
  """The SHA-256 of a patch without the header lines every export changes
  (the commit in its first line, its Date:)."""
  with open(path, encoding='utf-8') as f:
    lines = f.read().splitlines(keepends=True)
  kept = [
      l
      for i, l in enumerate(lines)
      if not (i == 0 and l.startswith('From ')) and not l.startswith('Date: ')
  ]
  return hashlib.sha256(''.join(kept).encode()).hexdigest()


def Finished(
    previous: dict, commit: str, patches: list[str]
) -> tuple[int, str]:
  """How many leading patches of a stopped run's result can be kept.

  Args:
    previous: the stopped run's RESULT.json.
    commit: PKB's pinned commit now.
    patches: the series' patch files, in order.

  Returns:
    (kept, why): the number of leading patches that applied, have outcomes
    and are the same patch now (name, line count and PatchId, where the
    result holds one); why names the first that is not, or is empty.

  Raises:
    SuiteError: the result is of another pin.
  """
  if previous.get('pkb_commit') != commit:
    raise SuiteError(
        f"cannot resume: the result is of PKB {previous.get('pkb_commit')},"
        f' the pin is {commit}'
    )
  done = [p for p in previous.get('patches', []) if 'counts' in p]
  for kept, (entry, path) in enumerate(zip(done, patches)):
    name = os.path.basename(path)
    with open(path, encoding='utf-8') as f:
      lines = f.read().count('\n')
    same = (
        entry.get('patch') == name
        and entry.get('lines') == lines
        and entry.get('sha256', PatchId(path)) == PatchId(path)
    )
    if not same:
      return kept, f'{name} is not the patch the result measured'
  if len(done) > len(patches):
    return len(patches), f'the result has {len(done)} patches'
  return len(done), ''


def Check(
    work: str,
    venv: str,
    series_dir: str | None = None,
    workers: int = 0,
    timeout: int = 3600,
    log=print,
    out: str | None = None,
    resume: bool = False,
) -> dict:
  """Runs the baseline and one suite run per patch; returns the result.

  With out, the result so far is written there after each patch, so a run
  stopped midway keeps what it measured; with resume, that result and the
  outcomes in work are kept, and the runs go on from the first patch
  without a result.
  """
  commit = pkb_source.PinnedCommit()
  tree = os.path.join(work, 'pkb')
  previous = None
  if resume:
    try:
      with open(out, encoding='utf-8') as f:
        previous = json.load(f)
    except (OSError, TypeError, ValueError) as e:
      raise SuiteError(f'cannot resume: no result to resume: {e}') from e
    shutil.rmtree(tree, ignore_errors=True)
  FreshTree(tree, commit)
  not_installed = EnsureVenv(venv, tree, log)
  if series_dir is None:
    series_dir = os.path.join(work, 'series')
    export.Write(series_dir)
  patches = sorted(
      os.path.join(series_dir, n)
      for n in os.listdir(series_dir)
      if n.endswith('.patch')
  )
  if not patches:
    raise SuiteError(f'{series_dir}: no .patch file')
  runs = os.path.join(work, 'runs')
  os.makedirs(runs, exist_ok=resume)

  def Run(name):
    outcomes, seconds = RunSuite(
        tree, venv, os.path.join(runs, f'{name}.xml'), workers, timeout
    )
    log(f'[suite] {name}: {Counts(outcomes)} in {seconds:.0f} s')
    return outcomes, seconds

  kept, why = Finished(previous, commit, patches) if previous else (0, '')
  if previous:
    baseline = Outcomes(os.path.join(runs, 'baseline.xml'))
    result = dict(previous, patches=previous['patches'][:kept])
    log(
        f'[suite] resuming after {kept} of {len(patches)} patches'
        + (f' ({why}: it runs again)' if why else '')
    )
  else:
    baseline, seconds = Run('baseline')
    result = {
        'pkb_commit': commit,
        'work': work,
        'runner': f'pytest -k {EXCLUDED!r}, workers {workers or 1}',
        'not_installed': not_installed,
        'baseline': {'seconds': round(seconds, 1), 'counts': Counts(baseline)},
        'patches': [],
    }
  for index, patch in enumerate(patches):
    name = os.path.basename(patch)
    if index < kept:
      error = _Apply(tree, patch)
      if error:
        raise SuiteError(f'cannot resume: {name} no longer applies: {error}')
      continue
    lines = open(patch, encoding='utf-8').read().count('\n')
    entry = {'patch': name, 'lines': lines, 'sha256': PatchId(patch)}
    result['patches'].append(entry)
    error = _Apply(tree, patch)
    entry['applied'] = error is None
    if error:
      entry['apply_error'] = error
      log(f'[suite] {name}: does not apply: {error}')
      break
    outcomes, seconds = Run(re.sub(r'\.patch$', '', name))
    entry.update(seconds=round(seconds, 1), counts=Counts(outcomes))
    entry.update(Diff(baseline, outcomes))
    _Summarize(result, len(patches), out)
  return _Summarize(result, len(patches), out)


def _Summarize(result: dict, patches: int, out: str | None) -> dict:
  """Counts the regressions so far; writes the result to out, if given."""
  result['regressions'] = sum(
      len(p.get('new_failures', [])) + len(p.get('missing', []))
      for p in result['patches']
  )
  result['ok'] = (
      result['regressions'] == 0
      and all(p['applied'] for p in result['patches'])
      and len(result['patches']) == patches
  )
  if out:
    with open(out, 'w', encoding='utf-8') as f:
      json.dump(result, f, indent=1)
  return result


def Main(argv: list[str]) -> int:
  parser = argparse.ArgumentParser(
      prog='python -m pkb_ext_dev.upstream_suite', description=__doc__
  )
  parser.add_argument('--out', required=True, help='the result JSON file')
  parser.add_argument('--series', help='an existing series (default: write)')
  parser.add_argument('--venv', default=DefaultVenv())
  parser.add_argument('--work', help='work directory (default: a temporary)')
  parser.add_argument(
      '--workers',
      type=int,
      default=0,
      help=(
          'pytest-xdist -n (default 0: serial, as tox runs it; with workers,'
          " some of PKB's tests pass or fail by which tests share a worker,"
          ' so runs differ without any patch)'
      ),
  )
  parser.add_argument('--timeout', type=int, default=3600, help='s per run')
  parser.add_argument(
      '--resume',
      action='store_true',
      help='go on from a stopped run (its --work and --out)',
  )
  args = parser.parse_args(argv)
  if args.resume and not args.work:
    parser.error("--resume needs the stopped run's --work")
  work = args.work or tempfile.mkdtemp(prefix='pkb-ext-suite-')
  print(f'[suite] work directory {work}; result in {args.out}')
  try:
    result = Check(
        work, args.venv, args.series, args.workers, args.timeout,
        out=args.out, resume=args.resume,
    )  # fmt: skip
  except (SuiteError, upstream_errors.ExportError) as e:
    print(f'upstream_suite: {e}', file=sys.stderr)
    return 2
  print(f"baseline: {result['baseline']}")
  for p in result['patches']:
    print(
        f"{p['patch']}: {p['lines']} lines, applied {p['applied']},"
        f" {p.get('counts')}, new tests {p.get('new_tests')}, new failures"
        f" {p.get('new_failures')}, missing {len(p.get('missing', []))}"
    )
  print(f"regressions: {result['regressions']}; ok: {result['ok']}")
  return 0 if result['ok'] else 1


if __name__ == '__main__':
  sys.exit(Main(sys.argv[1:]))
