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
"""Every pkb-ext command sees the registry stock pkb.py sees.

Each case runs in a fresh interpreter, as a user's command does (this test
process is registered by conftest, so an in-process call would prove
nothing). The commands run with the .pth autoload turned off, so what they
see is what pkb-ext itself registers; the reference is an interpreter that
imports PKB's benchmark_sets with the autoload on, as pkb.py does.
"""

import concurrent.futures
import glob
import json
import os
import subprocess
import sys

from absl.testing import absltest

from benchmarks.cloud_report import parsers
from pkb_ext.suite import phase_table
from pkb_ext import cli
from pkb_ext.suite.tpcc import engines
from pkb_ext.suite.tpcc import parser as tpcc_parser

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
_TPCC_DATA = os.path.join(_ROOT, 'tests', 'data', 'tpcc')

# What the registries hold, as JSON: printed by a child after its commands.
_SNAPSHOT = """
def _Snapshot():
  from perfkitbenchmarker import benchmark_sets
  from perfkitbenchmarker import data
  from perfkitbenchmarker import linux_benchmarks
  from perfkitbenchmarker import linux_packages
  from perfkitbenchmarker import publisher
  from pkb_ext.suite import preflight
  from pkb_ext.suite.tpcc import engines
  from pkb_ext.suite.tpcc import parser

  def Ours(name):
    return name.startswith(('benchmarks.', 'linux_packages.', 'pkb_ext.'))

  return {
      'tpcc_tools': sorted(parser.TOOLS),
      'tpcc_engines': engines.EngineNames(),
      'preflight': sorted(
          n for n, m in linux_benchmarks.VALID_BENCHMARKS.items()
          if Ours(m.__name__)
          and m.CheckPrerequisites.__module__ == preflight.__name__
      ),
      'benchmarks': sorted(
          n for n, m in linux_benchmarks.VALID_BENCHMARKS.items()
          if Ours(m.__name__)
      ),
      'packages': sorted(
          n for n, m in linux_packages.PACKAGES.items() if Ours(m.__name__)
      ),
      'benchmark_sets': sorted(
          n for n in benchmark_sets.BENCHMARK_SETS
          if n.startswith('cloud_report')
      ),
      'publishers': sorted(
          c.__module__ + '.' + c.__name__
          for c in publisher.EXTERNAL_PUBLISHERS if Ours(c.__module__)
      ),
      'data_loaders': sorted(
          str(getattr(l, 'path', '')) for l in data.DEFAULT_RESOURCE_LOADERS
      ),
  }
"""

# Runs each argv (a JSON list of argv lists) through pkb-ext's main, then
# prints {"results": [[status, stdout, stderr], ...], "registry": ...}.
_COMMANDS_CHILD = (
    """
import contextlib
import io
import json
import sys
from pkb_ext import cli

results = []
for argv in json.loads(sys.argv[1]):
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    try:
      status = cli.main(argv)
    except SystemExit as e:
      status = e.code
  results.append([status, out.getvalue(), err.getvalue()])
"""
    + _SNAPSHOT
    + """
pkb_imported = 'perfkitbenchmarker' in sys.modules  # before _Snapshot's
print(json.dumps({'results': results, 'pkb_imported': pkb_imported,
                  'registry': _Snapshot()}))
"""
)

# As pkb.py: PKB's benchmark_sets imported, the autoload registering.
_PKB_PY_CHILD = (
    'import json\nimport perfkitbenchmarker.benchmark_sets\n'
    + _SNAPSHOT
    + "print(json.dumps({'registry': _Snapshot()}))\n"
)

# Commands that never read the exported unit's registries.
_WITHOUT_PKB = ('report', 'compare', 'publish', 'upstream', 'local')


def _Captures() -> list[str]:
  return sorted(glob.glob(os.path.join(_TPCC_DATA, '*.txt')))


def _Child(program: str, args: list[str], autoload: bool) -> dict:
  env = dict(os.environ)
  env['PYTHONPATH'] = os.pathsep.join(
      p
      for p in (_ROOT, os.path.join(_ROOT, 'tests'), env.get('PYTHONPATH'))
      if p
  )
  env['PKB_EXT_AUTOLOAD'] = '1' if autoload else '0'
  proc = subprocess.run(
      [sys.executable, '-c', program, *args],
      env=env,
      capture_output=True,
      text=True,
      check=False,
      timeout=600,
  )
  if proc.returncode != 0:
    raise AssertionError(f'child failed ({proc.returncode}): {proc.stderr}')
  return json.loads(proc.stdout.strip().splitlines()[-1])


def _Commands(argvs: list[list[str]]) -> dict:
  return _Child(_COMMANDS_CHILD, [json.dumps(argvs)], autoload=False)


def _RegisteringCases() -> dict[str, list[list[str]]]:
  """Each registering command's argvs: one per registered engine or tool."""
  return {
      'list': [['list', '--benchmarks=cloud_report_phases']],
      'plan': [
          [
              'plan',
              f'--cloud_report_tpcc_engine={engine}',
              '--cloud_report_phases=tpcc',
          ]
          for engine in engines.EngineNames()
      ],
      'parse': [['parse', 'tpcc', path] for path in _Captures()],
  }


class EveryEntryPointTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cases = _RegisteringCases()
    jobs = {'pkb.py': lambda: _Child(_PKB_PY_CHILD, [], autoload=True)}
    jobs |= {
        name: lambda a=argvs: _Commands(a) for name, argvs in cases.items()
    }
    jobs['without_pkb'] = lambda: _Commands(
        [[c, '--help'] for c in _WITHOUT_PKB]
    )
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
      futures = {name: pool.submit(job) for name, job in jobs.items()}
      cls.children = {name: f.result() for name, f in futures.items()}
    cls.cases = cases

  def testTheReferenceHoldsWhatPkbExtAdds(self):
    reference = self.children['pkb.py']['registry']
    self.assertEqual(reference['tpcc_tools'], ['cockroach', 'go-tpc'])
    self.assertEqual(reference['tpcc_engines'], ['cockroach', 'postgres'])
    # Each standalone phase benchmark runs pkb_ext's whole preflight.
    self.assertEqual(reference['preflight'], sorted(phase_table.BENCHMARKS))
    self.assertContainsSubset(phase_table.BENCHMARKS, reference['benchmarks'])
    self.assertContainsSubset(
        ['cloud_report', 'cloud_report_phases'], reference['benchmark_sets']
    )

  def testEveryRegisteringCommandIsCovered(self):
    self.assertEqual(set(self.cases), cli.REGISTERING | {'parse'})

  def testParseSeesEveryTpccToolPkbPySees(self):
    reference = self.children['pkb.py']['registry']
    self.assertEqual(
        self.children['parse']['registry']['tpcc_tools'],
        reference['tpcc_tools'],
    )

  def testEachRegisteringCommandSeesWhatPkbPySees(self):
    reference = self.children['pkb.py']['registry']
    for name in cli.REGISTERING:
      with self.subTest(command=name):
        self.assertEqual(self.children[name]['registry'], reference)

  def testParseReadsEveryCaptureOfEveryTool(self):
    results = self.children['parse']['results']
    refusals = {
        'cockroach_died_connection_reset.txt': (
            'neither `cockroach workload run tpcc` output (no _elapsed___'
            ' table) nor go-tpc output (no [Summary] or tpmC: line)'
        ),
        # `workload fixtures` failures: no run's output.
        'cockroach_fixtures_load_not_found.txt': (
            'neither `cockroach workload run tpcc` output'
        ),
        'cockroach_fixtures_make_table_not_found.txt': (
            'neither `cockroach workload run tpcc` output'
        ),
        'gotpc_v1.0.9_bad_connection_refused_panic.txt': (
            'the TPC-C tool panicked: failed to connect to database'
        ),
        'gotpc_v1.0.9_bad_killed_mid_run.txt': 'no go-tpc [Summary] lines',
        # --wait for 4.5 s: no new order finished.
        'gotpc_v1.0.9_pg15_2wh_20threads_wait_4500ms_interval1s.txt': (
            'go-tpc [Summary] lacks NEW_ORDER'
        ),
    }
    tools = {'cockroach_': 'cockroach', 'gotpc_': 'go-tpc'}
    seen = set()
    for path, (status, out, err) in zip(_Captures(), results):
      name = os.path.basename(path)
      with self.subTest(capture=name):
        if name in refusals:
          self.assertEqual((status, out), (1, ''))
          self.assertIn(refusals[name], err)
          self.assertEqual(len(err.splitlines()), 1)
          continue
        self.assertEqual((status, err), (0, ''))
        samples = [json.loads(line) for line in out.splitlines()]
        self.assertNotEmpty(samples)
        tool = next(t for prefix, t in tools.items() if name.startswith(prefix))
        self.assertEqual({s['metadata']['tool'] for s in samples}, {tool})
        seen.add(tool)
    self.assertEqual(seen, set(tools.values()))

  def testPlanAcceptsEveryRegisteredEngine(self):
    for argv, (status, out, err) in zip(
        self.cases['plan'], self.children['plan']['results']
    ):
      with self.subTest(argv=argv):
        self.assertEqual(status, 0, err)
        self.assertIn('phase   tpcc', out)

  def testListResolvesTheRegisteredBenchmarkSet(self):
    [(status, out, err)] = self.children['list']['results']
    self.assertEqual(status, 0, err)
    listed = {line.split('\t')[0] for line in out.splitlines()}
    self.assertEqual(listed, set(phase_table.BENCHMARKS))

  def testCommandsWithoutRegistriesNeverImportPkb(self):
    child = self.children['without_pkb']
    for command, (status, _, err) in zip(_WITHOUT_PKB, child['results']):
      with self.subTest(command=command):
        self.assertEqual(status, 0, err)
    self.assertFalse(child['pkb_imported'])


class NoToolMatchesTest(absltest.TestCase):
  """The refusal of an output no TPC-C tool wrote."""

  def _Refusal(self, tools: dict) -> str:
    with self.assertRaises(parsers.ParseError) as raised:
      tpcc_parser.Detect('fio-3.33\nREAD: bw=1MiB/s\n', tools)
    return str(raised.exception)

  def testOneToolSaysNot(self):
    self.assertEqual(
        self._Refusal({'cockroach': tpcc_parser.TOOLS['cockroach']}),
        'not `cockroach workload run tpcc` output (no _elapsed___ table)',
    )

  def testSeveralToolsSayNeitherNor(self):
    tools = {
        name: (lambda _: False, None, f'{name} output')
        for name in ('a', 'b', 'c')
    }
    self.assertEqual(
        self._Refusal(tools), 'neither a output, b output nor c output'
    )


if __name__ == '__main__':
  absltest.main()
