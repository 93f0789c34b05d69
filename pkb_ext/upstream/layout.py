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
"""Where each exported file goes: a path of this repo -> its path in PKB.

  benchmarks/**            -> perfkitbenchmarker/linux_benchmarks/**
  linux_packages/*         -> perfkitbenchmarker/linux_packages/*
  configs/**               -> perfkitbenchmarker/data/cloud_report/**
  tests/upstream/**        -> tests/** (tests in PKB's layout)
  tests/data/<tool>/<file> -> tests/data/cloud_report/<tool>/<file>, the
                              captured outputs an exported test names
  configs/object_storage_api_test_scripts/*
                           -> perfkitbenchmarker/scripts/
                              object_storage_api_test_scripts/* (scripts
                              beside PKB's own; PKB's data search path finds
                              them there as it finds them here under
                              configs/), and tests/upstream/scripts/* ->
                              tests/scripts/*: the fix of PKB's module that
                              runs them carries them (pkb_fixes), not Plan

The __init__.py of the two package roots stays behind (PKB has its own), and
so do the configs/ entries only pkb_ext uses (CONFIGS_LEFT_OUT). The suite
and its cpu, io and net phases live in pkb_ext/suite, outside the unit.
"""

import dataclasses
import os

from pkb_ext.suite import phase_table
from pkb_ext.upstream import errors
from pkb_ext.upstream import series

DATA_SUBDIRECTORY = 'cloud_report'
BENCHMARKS_DEST = 'perfkitbenchmarker/linux_benchmarks'
PACKAGES_DEST = 'perfkitbenchmarker/linux_packages'
DATA_DEST = f'perfkitbenchmarker/data/{DATA_SUBDIRECTORY}'
TESTS_SOURCE = os.path.join('tests', 'upstream')
TEST_DATA_DEST = f'tests/data/{DATA_SUBDIRECTORY}'
# Captured tool outputs the exported tests may read (tests/data/<tool>/, one
# directory per phase's tool); a file is exported only when an exported test
# names it.
TEST_DATA_DIRS = tuple(sorted(phase_table.TOOLS))
# configs/ entries that only pkb_ext uses: the analysis' price tables and
# published baselines, the postgres engine's go-tpc build module, and the
# data of the suite and its phases (pkb_ext.suite): machine matrices, the fio
# job file, the object storage phase's worker and its requirements; and what
# only makes configs/ a package of ours.
CONFIGS_LEFT_OUT = (
    'baselines',
    'fio',
    'go_tpc',
    'machines',
    'object_storage',
    'pricing',
    '__init__.py',
)
# Scripts beside PKB's object storage API scripts, and their tests.
SCRIPTS_SOURCE = 'configs/object_storage_api_test_scripts'
SCRIPTS_DEST = 'perfkitbenchmarker/scripts/object_storage_api_test_scripts'
SCRIPT_TESTS_SOURCE = os.path.join(TESTS_SOURCE, 'scripts')
SCRIPT_TESTS_DEST = 'tests/scripts'
# Files of ours that are not exported: capture scripts need this repo's venv
# and tooling; the conftest only keeps pytest away from the exported tests.
_SKIPPED_NAMES = ('conftest.py',)
_SKIPPED_SUFFIXES = ('.pyc', '.sh')


@dataclasses.dataclass(frozen=True)
class ExportFile:
  source: str  # path relative to the source root
  dest: str  # path relative to PKB's root


def _Walk(root: str, top: str) -> list[str]:
  """Files under root/top (relative to root), without caches and dotfiles."""
  out = []
  for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
    dirnames[:] = sorted(
        d for d in dirnames if d != '__pycache__' and not d.startswith('.')
    )
    for name in sorted(filenames):
      if name.startswith('.') or name in _SKIPPED_NAMES:
        continue
      if name.endswith(_SKIPPED_SUFFIXES):
        continue
      out.append(os.path.relpath(os.path.join(dirpath, name), root))
  return out


def Plan(source_root: str) -> list[ExportFile]:
  """Lists what the patch adds: every exported file and its PKB path."""
  plan = []

  def Add(top, dest, left_out=()):
    for rel in _Walk(source_root, top):
      inner = os.path.relpath(rel, top)
      if inner.split(os.sep)[0] in left_out or inner in left_out:
        continue
      plan.append(ExportFile(rel, f'{dest}/{inner.replace(os.sep, "/")}'))

  for top in ('benchmarks', 'linux_packages', 'configs', TESTS_SOURCE):
    if not os.path.isdir(os.path.join(source_root, top)):
      raise errors.ExportError(
          f'{source_root} has no {top}/: pkb-ext upstream needs a source'
          ' checkout of pkb_ext'
      )
  Add('benchmarks', BENCHMARKS_DEST, ('__init__.py',))
  Add('linux_packages', PACKAGES_DEST, ('__init__.py',))
  scripts = os.path.relpath(SCRIPTS_SOURCE, 'configs')
  Add('configs', DATA_DEST, CONFIGS_LEFT_OUT + (scripts,))
  Add(
      TESTS_SOURCE,
      'tests',
      (os.path.relpath(SCRIPT_TESTS_SOURCE, TESTS_SOURCE),),
  )
  tests = {}
  for item in plan:
    if item.source.startswith(TESTS_SOURCE + os.sep):
      with open(os.path.join(source_root, item.source), encoding='utf-8') as f:
        tests[item.source] = f.read()
  for name in TEST_DATA_DIRS:
    top = os.path.join('tests', 'data', name)
    files = _Walk(source_root, top)
    try:
      named = series.TestDataNamed(
          tests, [os.path.basename(rel) for rel in files]
      )
    except SyntaxError as e:
      raise errors.ExportError(
          f'{e.filename}:{e.lineno}: not Python: {e.msg}'
      ) from e
    for rel in files:
      if os.path.basename(rel) in named:
        inner = os.path.relpath(rel, top).replace(os.sep, '/')
        plan.append(ExportFile(rel, f'{TEST_DATA_DEST}/{name}/{inner}'))
  return plan


def ScriptPaths(name: str) -> tuple[str, str]:
  """(PKB path, path here) of a script beside PKB's object storage scripts."""
  return f'{SCRIPTS_DEST}/{name}', f'{SCRIPTS_SOURCE}/{name}'


def ScriptTestPaths(name: str) -> tuple[str, str]:
  """(PKB path, path here) of a test of such a script."""
  return f'{SCRIPT_TESTS_DEST}/{name}', f'{SCRIPT_TESTS_SOURCE}/{name}'


def IsBenchmarkModule(dest: str) -> bool:
  """Whether dest is a benchmark module (one with a BENCHMARK_NAME)."""
  return dest.startswith(BENCHMARKS_DEST) and dest.endswith('_benchmark.py')


def IsTopLevelBenchmark(dest: str) -> bool:
  """Whether dest is a benchmark module directly in linux_benchmarks/."""
  folder, _, name = dest.rpartition('/')
  return folder == BENCHMARKS_DEST and name.endswith('_benchmark.py')


def IsTopLevelPackage(dest: str) -> bool:
  """Whether dest is a package module directly in linux_packages/."""
  folder, _, name = dest.rpartition('/')
  return folder == PACKAGES_DEST and name.endswith('.py')


def SeriesLayout() -> series.Layout:
  """The layout series cuts by."""
  return series.Layout(
      benchmarks=BENCHMARKS_DEST,
      packages=PACKAGES_DEST,
      data=DATA_DEST,
      tests='tests',
      test_data=TEST_DATA_DEST,
  )
