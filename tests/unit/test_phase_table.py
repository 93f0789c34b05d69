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
"""Tests that phase_table is the one table of the phases' names, and true."""

import ast
import importlib
import os
import pathlib
import sys
from unittest import mock

from absl.testing import absltest

from pkb_ext.suite import phase_table
from pkb_ext.suite import phases
from pkb_ext.suite import phase_modules

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The product's sources: what ships, exported or ours.
PRODUCT = ('benchmarks', 'linux_packages', 'pkb_ext', 'configs')
TABLE_MODULE = pathlib.Path('pkb_ext', 'suite', 'phase_table.py')
_LAYOUT = 'pkb_ext/upstream/layout.py'
CLOUD_REPORT = 'benchmarks.cloud_report'
# Where a phase's modules live: pkb_ext's suite (its stages), and the
# exported unit (the tpcc phase's samples: the exported benchmark's).
PHASE_HOMES = (CLOUD_REPORT, 'pkb_ext.suite')
# Where benchmark modules live: the exported unit's and pkb_ext's suite's.
BENCHMARK_HOMES = ('benchmarks', 'pkb_ext.suite')


def _Home(row) -> str:
  """The package that holds a row's phase package."""
  return phase_modules.BY_PHASE[row.sample].stages.__name__.rsplit('.', 2)[0]


def PhaseNames() -> set[str]:
  """Every name of every phase: sample, package and tool names."""
  return {
      name
      for row in phase_table.TABLE
      for name in (row.sample, row.package, row.tool)
  }


def _Parts(node: ast.AST) -> list[ast.AST] | None:
  """The parts of a literal collection or of a call's arguments."""
  if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
    return [node]
  if isinstance(node, ast.Call):
    return [*node.args, *(k.value for k in node.keywords)]
  return None


def SecondTables(root: pathlib.Path, names: set[str]) -> list[str]:
  """Where a product source names two or more phase names in one literal.

  A tuple, list, set or dict literal (at any depth), or one call's
  arguments (a table row such as Tool('fio', 'io')), holding two or more
  string constants that are phase names, outside phase_table.

  Args:
    root: the repository's top.
    names: the phase names to look for.

  Returns:
    'path:line: names' for each such literal.
  """
  found = []
  for top in PRODUCT:
    for path in sorted((root / top).rglob('*.py')):
      rel = path.relative_to(root)
      if rel == TABLE_MODULE:
        continue
      tree = ast.parse(path.read_text(encoding='utf-8'), filename=str(rel))
      for node in ast.walk(tree):
        parts = _Parts(node)
        if parts is None:
          continue
        hits = [
            c.value
            for part in parts
            for c in ast.walk(part)
            if isinstance(c, ast.Constant) and c.value in names
        ]
        if len(hits) >= 2:
          found.append(f'{rel}:{node.lineno}: {", ".join(hits)}')
  return found


class OneTableTest(absltest.TestCase):

  def testNoSecondTableNamesAPhase(self):
    found = SecondTables(ROOT, PhaseNames())
    # Directories of configs/ the export leaves out (a tool's, a package's):
    # names of data directories that happen to equal phase names.
    allowed = [f for f in found if f.startswith(_LAYOUT + ':')]
    self.assertLen(allowed, 1, found)
    self.assertEqual([f for f in found if f not in allowed], [])

  def testTheScanFindsATable(self):
    root = pathlib.Path(self.create_tempdir().full_path)
    (root / 'pkb_ext').mkdir()
    (root / 'pkb_ext' / 'x.py').write_text(
        "PHASES = ('cpu', 'io')\nROW = Tool('fio', phase='io')\nONE = 'net'\n"
    )
    self.assertEqual(
        SecondTables(root, PhaseNames()),
        ['pkb_ext/x.py:1: cpu, io', 'pkb_ext/x.py:2: fio, io'],
    )

  def testTheTableImportsNothingButTheStandardLibrary(self):
    tree = ast.parse((ROOT / TABLE_MODULE).read_text(encoding='utf-8'))
    imported = set()
    for node in ast.walk(tree):
      if isinstance(node, ast.Import):
        imported.update(a.name for a in node.names)
      elif isinstance(node, ast.ImportFrom):
        imported.add(node.module)
    self.assertEqual(imported, {'dataclasses'})


class TableTest(absltest.TestCase):

  def testNamesAreUnique(self):
    for field in ('sample', 'package', 'tool', 'benchmark'):
      values = [getattr(row, field) for row in phase_table.TABLE]
      self.assertLen(set(values), len(values), field)

  def testSampleNamesAreThoseOfThePublishedSamples(self):
    self.assertEqual(
        phase_table.ORDER, ('cpu', 'io', 'net', 'object_storage', 'tpcc')
    )

  def testADifferentNameSaysWhy(self):
    for row in phase_table.TABLE:
      differs = {row.package, row.tool, row.benchmark} - {
          row.sample,
          f'cloud_report_{row.sample}',
      }
      if differs:
        self.assertTrue(row.why, f'{row.sample}: {sorted(differs)}')

  def testOnePhaseFillsAndSideDbPhasesAreSidePhases(self):
    self.assertLen([r for r in phase_table.TABLE if r.fills], 1)
    for row in phase_table.TABLE:
      if row.side_db:
        self.assertTrue(row.side, row.sample)
      if row.fills:
        self.assertFalse(row.side, row.sample)

  def testLookupsRefuseUnknownNames(self):
    self.assertIs(phase_table.ByTool('fio'), phase_table.IO)
    self.assertIs(phase_table.ByPackage('disk'), phase_table.IO)
    self.assertIs(phase_table.ByBenchmark('cloud_report_fio'), phase_table.IO)
    with self.assertRaisesRegex(KeyError, "unknown tool 'iperf'"):
      phase_table.ByTool('iperf')
    with self.assertRaisesRegex(KeyError, "unknown phase 'gpu'"):
      phase_table.Get('gpu')


def _BenchmarkModule(home: str, benchmark: str) -> list:
  """[the benchmark's module] if home holds it, else []."""
  path = ROOT.joinpath(*home.split('.'), f'{benchmark}_benchmark.py')
  if not path.is_file():
    return []
  return [importlib.import_module(f'{home}.{benchmark}_benchmark')]


class RowsAreTrueTest(absltest.TestCase):
  """Each row names what the phase's package and benchmark really are."""

  def testEachPackageHasItsModules(self):
    for row in phase_table.TABLE:
      self.assertIn(_Home(row), PHASE_HOMES, row.sample)
      packages = [
          ROOT.joinpath(*home.split('.'), row.package) for home in PHASE_HOMES
      ]
      for module in ('__init__', 'stages', 'parser', 'samples'):
        self.assertTrue(
            any((p / f'{module}.py').is_file() for p in packages),
            f'{row.package}/{module}',
        )

  def testPhaseModulesPairEachRowWithItsPackage(self):
    self.assertEqual(tuple(phase_modules.BY_PHASE), phase_table.ORDER)
    for name, modules in phase_modules.BY_PHASE.items():
      row = phase_table.Get(name)
      self.assertIs(modules.phase, row)
      prefix = f'{_Home(row)}.{row.package}.'
      self.assertIn(_Home(row), PHASE_HOMES, name)
      self.assertEqual(modules.stages.__name__, prefix + 'stages')
      self.assertEqual(modules.parser.__name__, prefix + 'parser')
      self.assertIn(
          modules.samples.__name__,
          [f'{home}.{row.package}.samples' for home in PHASE_HOMES],
      )
      self.assertIs(phases.Load(name), modules.stages)
      self.assertEqual(modules.stages.PHASE, name)

  def testEachToolsParserParsesItsCapturedOutput(self):
    data = ROOT / 'tests' / 'data'
    for row in phase_table.TABLE:
      outputs = sorted(
          p
          for p in (data / row.tool).iterdir()
          if p.suffix in ('.txt', '.json', '.jsonl')
          and not p.name.startswith('bad_')
      )
      self.assertTrue(outputs, row.tool)
      parsed = 0
      for path in outputs:
        try:
          out = phase_modules.ParseText(row.tool, path.read_text())
        except ValueError:  # a capture of a failed or cut-short run
          continue
        parsed += 1
        for s in out:
          self.assertEqual(s.metadata['phase'], row.sample, path.name)
      self.assertGreater(parsed, 0, f'no output of {row.tool} parses')

  def testEachBenchmarkModuleRunsItsRow(self):
    # The suite's module of each row (an exported module of the same name,
    # cloud_report_tpcc, is the one it replaces: see pkb_ext.registry).
    for row in phase_table.TABLE:
      (module,) = _BenchmarkModule('pkb_ext.suite', row.benchmark)
      self.assertEqual(module.BENCHMARK_NAME, row.benchmark)
      self.assertEqual(module.PHASE, row.sample)
      self.assertIn(row.benchmark + ':', module.BENCHMARK_CONFIG)

  def testEveryBenchmarkModuleIsTheSuiteOrARow(self):
    names = {
        p.name[: -len('_benchmark.py')]
        for home in BENCHMARK_HOMES
        for p in ROOT.joinpath(*home.split('.')).glob('*_benchmark.py')
    }
    self.assertEqual(names, {'cloud_report_2021', *phase_table.BENCHMARKS})


class LoadTest(absltest.TestCase):

  def testLoadFindsWhatABenchmarkModuleImported(self):
    self.assertTrue(os.path.isfile(phases.Load('cpu').__file__))

  def testLoadRefusesAPhaseNobodyImported(self):
    with self.assertRaisesRegex(ValueError, 'unknown phase'):
      phases.Load('gpu')
    with mock.patch.dict(sys.modules):
      del sys.modules[phases.ModuleName('cpu')]
      with self.assertRaisesRegex(ValueError, 'phase cpu: .* not imported'):
        phases.Load('cpu')


if __name__ == '__main__':
  absltest.main()
