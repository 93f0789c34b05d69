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
"""Tests for the 2021 Cloud Report's benchmarks, sets, data and phases."""

import importlib
import os
import types
import unittest

from absl.testing import flagsaver
from pkb_ext.suite import phase_table
from pkb_ext.suite import phases
from pkb_ext.suite import topology as topology_lib
import mock
from perfkitbenchmarker import benchmark_sets
from perfkitbenchmarker import configs
from perfkitbenchmarker import data
from perfkitbenchmarker import linux_benchmarks
from perfkitbenchmarker.providers.aws import aws_disk
from perfkitbenchmarker import publisher
from perfkitbenchmarker import sample
from pkb_ext import registry
from pkb_ext.suite import cloud_report_2021_benchmark
from pkb_ext.suite.disk import stages as storage
from pkb_ext.suite.object_storage import worker as object_storage_worker
from pkb_ext.suite import phase_modules
from pkb_ext.suite import runner
from tests import pkb_common_test_case
import yaml

_SUITE = cloud_report_2021_benchmark.BENCHMARK_NAME
_CLOUDS = {'aws.yaml': 'AWS', 'azure.yaml': 'Azure', 'gcp.yaml': 'GCP'}
# The suite's data files: pkb_ext's configs directory, a data search path
# of PKB's once pkb_ext is registered.
_DATA_DIR = os.path.dirname(
    importlib.import_module(registry.CONFIGS_PACKAGE).__file__
)


def _ReportBenchmarks():
  return {
      name: module
      for name, module in linux_benchmarks.VALID_BENCHMARKS.items()
      if name.startswith('cloud_report_')
  }


class _FlagsTestCase(pkb_common_test_case.PkbCommonTestCase):
  """Resolves benchmarks as benchmark_sets_test does: --benchmarks mocked."""

  def setUp(self):
    super().setUp()
    patcher = mock.patch(benchmark_sets.__name__ + '.FLAGS')
    self.mock_flags = patcher.start()
    self.addCleanup(patcher.stop)
    self.addCleanup(configs.GetConfigFlags.cache_clear)
    self.mock_flags.flag_matrix = None
    self.mock_flags.flag_zip = None
    self.mock_flags.num_benchmark_copies = 1

  def Resolve(self, *names):
    self.mock_flags.benchmarks = list(names)
    return benchmark_sets.GetBenchmarksFromFlags()


class BenchmarkConfigTest(pkb_common_test_case.PkbCommonTestCase):
  """Every exported benchmark config loads through PKB."""

  def testEveryBenchmarkConfigLoads(self):
    benchmarks = _ReportBenchmarks()
    self.assertIn(_SUITE, benchmarks)
    self.assertGreater(len(benchmarks), 1)
    for name, module in benchmarks.items():
      config = module.GetConfig({})
      self.assertNotEmpty(config['vm_groups'], name)
      for group in config['vm_groups'].values():
        self.assertGreaterEqual(group['vm_count'], 1, name)

  def testSuiteTopologyOnEveryCloud(self):
    config = cloud_report_2021_benchmark.GetConfig({})
    groups = config['vm_groups']
    self.assertEqual(groups['db']['vm_count'], 3)
    self.assertEqual(groups['client']['vm_count'], 1)
    for cloud in ('AWS', 'GCP', 'Azure'):
      self.assertEqual(groups['db']['disk_spec'][cloud]['disk_size'], 2500)
      self.assertEqual(
          groups['db']['vm_spec'][cloud], groups['client']['vm_spec'][cloud]
      )

  @flagsaver.flagsaver(cloud_report_phases=['cpu', 'net'])
  def testCpuAndNetGetOneDbVmWithoutADataDiskAndTheClient(self):
    groups = cloud_report_2021_benchmark.GetConfig({})['vm_groups']
    self.assertEqual(groups['db']['vm_count'], 1)
    self.assertNotIn('disk_spec', groups['db'])
    self.assertEqual(groups['client']['vm_count'], 1)

  @flagsaver.flagsaver(cloud_report_phases=['cpu', 'io'])
  def testOverlapPutsCpuOnASecondDbVmBesideIo(self):
    groups = cloud_report_2021_benchmark.GetConfig({})['vm_groups']
    self.assertEqual(groups['db']['vm_count'], 2)
    self.assertIn('disk_spec', groups['db'])
    self.assertNotIn('client', groups)
    with flagsaver.flagsaver(cloud_report_overlap=False):
      groups = cloud_report_2021_benchmark.GetConfig({})['vm_groups']
    self.assertEqual(groups['db']['vm_count'], 1)

  @flagsaver.flagsaver(cloud_report_phases=['cpu'])
  def testAUserVmCountIsKept(self):
    config = cloud_report_2021_benchmark.GetConfig(
        {'vm_groups': {'db': {'vm_count': 3}}}
    )
    self.assertEqual(config['vm_groups']['db']['vm_count'], 3)
    self.assertNotIn('disk_spec', config['vm_groups']['db'])


class SampleCatalogTest(pkb_common_test_case.PkbCommonTestCase):
  """The metric catalog of every phase (each phase's samples module)."""

  def testEveryMetricHasAUnit(self):
    catalog = phase_modules.Catalog()
    self.assertIn('cloud_report_phase_error', catalog)
    for name, unit in catalog.items():
      self.assertTrue(unit, f'{name} has no unit')


class ParseTextTest(pkb_common_test_case.PkbCommonTestCase):
  """Archived outputs of each phase's tool, parsed by the tool's name."""

  _OUTPUTS = {
      phase_table.CPU: 'single_core.txt',
      phase_table.IO: 'job_rd-iops.json',
      phase_table.NET: 'tcp_rr_csv.txt',
      phase_table.TPCC: 'cockroach_v20.2.3_resinfra_8node_100wh_30m.txt',
  }

  def testSamplesNameTheirPhase(self):
    """Each phase's samples, parsed from a captured output, name it."""
    for phase, name in self._OUTPUTS.items():
      path = os.path.join(
          os.path.dirname(__file__),
          os.pardir,
          'data',
          phase.tool,
          name,
      )
      with open(path, encoding='utf-8') as f:
        out = phase_modules.ParseText(phase.tool, f.read())
      self.assertNotEmpty(out, phase.tool)
      for s in out:
        self.assertEqual(s.metadata['phase'], phase.sample)
        self.assertIn(
            s.metric, phase_modules.BY_PHASE[phase.sample].samples.METRICS
        )

  def testAnUnknownToolIsRefused(self):
    with self.assertRaisesRegex(KeyError, 'unknown tool'):
      phase_modules.ParseText('iperf', '')


class BenchmarkSetsTest(_FlagsTestCase):

  def testSuiteSet(self):
    resolved = self.Resolve('cloud_report')
    self.assertEqual([m.BENCHMARK_NAME for m, _ in resolved], [_SUITE])

  def testPhasesSetIsEveryPhaseBenchmark(self):
    resolved = self.Resolve('cloud_report_phases')
    names = [m.BENCHMARK_NAME for m, _ in resolved]
    self.assertCountEqual(names, set(_ReportBenchmarks()) - {_SUITE})
    ours = registry.BenchmarkModules()
    for module, _ in resolved:
      self.assertIn(module, ours)


class MachineMatrixTest(_FlagsTestCase):
  """The report's machine matrices, as --benchmark_config_file names them."""

  def testEachCloudsDefaultMatrixExpands(self):
    """Each machine of the default matrix becomes one run."""
    clouds = sorted(
        f
        for f in os.listdir(os.path.join(_DATA_DIR, 'machines'))
        if f != 'local.yaml'  # the local cloud's matrix (pkb_ext's tests)
    )
    self.assertCountEqual(clouds, _CLOUDS)
    for name in clouds:
      with open(os.path.join(_DATA_DIR, 'machines', name)) as f:
        matrix = yaml.safe_load(f)[_SUITE]
      machines = matrix['flag_matrix_defs'][matrix['flag_matrix']][
          'machine_type'
      ]
      with flagsaver.flagsaver(benchmark_config_file=f'machines/{name}'):
        resolved = self.Resolve(_SUITE)
      self.assertCountEqual(
          [config['flags']['machine_type'] for _, config in resolved],
          machines,
      )
      for _, config in resolved:
        self.assertEqual(config['flags']['data_disk_size'], 2500, name)
        self.assertEqual(config['flags']['cloud'], _CLOUDS[name])

  def testPkbKnowsTheLocalDisksOfTheAwsLocalMatrix(self):
    with open(os.path.join(_DATA_DIR, 'machines', 'aws.yaml')) as f:
      matrix = yaml.safe_load(f)[_SUITE]['flag_matrix_defs']['local']
    self.assertEqual(matrix['data_disk_type'], ['local'])
    for machine_type in matrix['machine_type']:
      self.assertGreaterEqual(
          aws_disk.NUM_LOCAL_VOLUMES.get(machine_type, 0), 1, machine_type
      )


class DataTest(pkb_common_test_case.PkbCommonTestCase):
  """The data files the suite uses, as PKB's data search path finds them."""

  def testEveryDataFileResolvesByItsName(self):
    """Ours under data/cloud_report; the API scripts in PKB's scripts."""
    names = []
    for root, dirs, files in os.walk(_DATA_DIR):
      dirs[:] = [d for d in dirs if d != '__pycache__']
      for f in files:
        if f == '__init__.py':
          continue  # the package's, not a data file
        names.append(os.path.relpath(os.path.join(root, f), _DATA_DIR))
    self.assertIn(storage.JOB_FILE_TEMPLATE, names)
    for name, _ in object_storage_worker.WORKER_FILES:
      if name.startswith(object_storage_worker.API_SCRIPTS_DIR + '/'):
        self.assertTrue(os.path.isfile(data.ResourcePath(name)), name)
      else:
        self.assertIn(name, names)
    for name in names:
      self.assertEqual(
          os.path.realpath(data.ResourcePath(name)),
          os.path.realpath(os.path.join(_DATA_DIR, name)),
          name,
      )


class PhaseRegistryTest(pkb_common_test_case.PkbCommonTestCase):
  """The phase registry: the report's phases and their steps."""

  def testEveryPhaseLoadsWithItsSteps(self):
    self.assertEqual(
        tuple(phase_modules.LoadAll()),
        ('cpu', 'io', 'net', 'object_storage', 'tpcc'),
    )
    for name in phases.ORDER:
      module = phases.Load(name)
      self.assertEqual(module.PHASE, phase_table.Get(name).sample)
      for step in ('Install', 'Run', 'Cleanup'):
        self.assertTrue(callable(getattr(module, step)), f'{name}.{step}')

  def testValidateOrdersAndRejects(self):
    self.assertEqual(phases.Validate(['tpcc', 'cpu']), ['cpu', 'tpcc'])
    with self.assertRaisesRegex(ValueError, 'unknown phase'):
      phases.Validate(['gpu'])
    with self.assertRaisesRegex(ValueError, 'listed twice'):
      phases.Validate(['cpu', 'cpu'])

  def testCleanupRunsInReverseAndReportsFailures(self):
    """A failing cleanup does not stop the others."""
    calls = []

    def Fake(name):
      def Cleanup(topology):
        del topology
        calls.append(name)
        if name == 'net':
          raise RuntimeError('netserver did not stop')

      return mock.Mock(Cleanup=Cleanup)

    with mock.patch.object(phases, 'Load', side_effect=Fake):
      with self.assertLogs(level='ERROR') as logs:
        with self.assertRaisesRegex(phases.PhaseError, 'net: netserver'):
          runner.CleanupAll(None, ['cpu', 'net', 'tpcc'])
    self.assertIn('cleanup of phase net failed', logs.output[0])
    self.assertEqual(calls, ['tpcc', 'net', 'cpu'])


class SuiteStagesTest(pkb_common_test_case.PkbCommonTestCase):
  """The suite in PKB's stages, on fake phases: what each stage does."""

  def setUp(self):
    super().setUp()
    self.calls, self.published, self.failing = [], [], {'net'}
    self.enter_context(
        mock.patch.object(phases, 'Load', side_effect=self._FakePhase)
    )
    meta = mock.Mock()
    meta.ForSample.side_effect = lambda p, i: {'phase': p, 'iteration': i}
    topology = phases.Topology(
        db_vms=('db1', 'db2'),
        client_vm='client',
        run_metadata=meta,
        identity=phases.RunIdentity(
            'abc', 'config', self.create_tempdir().full_path
        ),
    )
    self.enter_context(
        mock.patch.object(topology_lib, 'FromSpec', return_value=topology)
    )
    self.enter_context(
        mock.patch.object(
            publisher,
            'PublishRunStageSamples',
            side_effect=lambda spec, s: self.published.append(list(s)),
        )
    )
    self.enter_context(
        flagsaver.flagsaver(
            cloud_report_phases=['cpu', 'io', 'net'], cloud_report_overlap=False
        )
    )
    self.spec = types.SimpleNamespace(name=_SUITE, always_call_cleanup=False)

  def _FakePhase(self, name):
    """A phase module that records its steps; self.failing's Run raises."""
    phase = mock.Mock(spec=['Install', 'Run', 'Cleanup'])

    def Run(topology):
      del topology
      self.calls.append((name, 'Run'))
      if name in self.failing:
        raise RuntimeError(f'{name} tool exited 1')
      return [sample.Sample(f'{name}_metric', 1, 'u', {})]

    phase.Install.side_effect = lambda t: self.calls.append((name, 'Install'))
    phase.Run.side_effect = Run
    phase.Cleanup.side_effect = lambda t: self.calls.append((name, 'Cleanup'))
    return phase

  def testPrepareInstallsRunPublishesEachPhaseAndRaisesCleanupCleans(self):
    """Each stage does its own part; a failed phase fails Run only."""
    cloud_report_2021_benchmark.Prepare(self.spec)
    self.assertEqual(
        self.calls, [('cpu', 'Install'), ('io', 'Install'), ('net', 'Install')]
    )
    self.calls.clear()
    with self.assertRaisesRegex(
        phases.PhaseError, 'net: RuntimeError: net tool exited 1'
    ):
      cloud_report_2021_benchmark.Run(self.spec)
    # No install again; each phase published once, as it ended.
    self.assertEqual(
        self.calls, [('cpu', 'Run'), ('io', 'Run'), ('net', 'Run')]
    )
    self.assertEqual(
        [[s.metric for s in p] for p in self.published],
        [['cpu_metric'], ['io_metric']],
    )
    self.assertEqual(self.published[0][0].metadata['run_number'], 0)
    # Nothing of ours on the spec: PKB's own always_call_cleanup only.
    self.assertEqual(
        vars(self.spec), {'name': _SUITE, 'always_call_cleanup': True}
    )
    self.calls.clear()
    cloud_report_2021_benchmark.Cleanup(self.spec)  # raises nothing
    self.assertEqual(
        self.calls, [('net', 'Cleanup'), ('io', 'Cleanup'), ('cpu', 'Cleanup')]
    )

  @flagsaver.flagsaver(run_stage_iterations=2)
  def testEachRunStageIterationRunsAndPublishesEveryPhase(self):
    """Every iteration runs every phase; run_number tells them apart."""
    self.failing = set()
    cloud_report_2021_benchmark.Prepare(self.spec)
    for _ in range(2):
      self.assertEqual(cloud_report_2021_benchmark.Run(self.spec), [])
    runs = [c for c in self.calls if c[1] == 'Run']
    self.assertLen(runs, 6)
    self.assertEqual(
        [(p[0].metric, p[0].metadata['run_number']) for p in self.published],
        [
            ('cpu_metric', 0),
            ('io_metric', 0),
            ('net_metric', 0),
            ('cpu_metric', 1),
            ('io_metric', 1),
            ('net_metric', 1),
        ],
    )


if __name__ == '__main__':
  unittest.main()
