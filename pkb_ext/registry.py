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
"""The one place that touches PKB internals.

Register() adds pkb_ext's benchmarks, packages, benchmark sets, data loaders
and publishers to PKB's module-level registries, and the local NVMe volume
counts of the report's AWS machines that PKB's table lacks. It also makes
PKB's package cleanup of static VMs survive its own loop (see
_FixPackageCleanup), prints a refusal PKB has logged once
(_QuietLoggedRefusals), and lets each configuration of a matrix take its VMs
from its own --static_vm_file (_LoadConfigStaticVms). Our flags are defined as a
side effect of importing our modules, before PKB parses its command line.

It refuses to replace anything PKB or another extension already registered
under the same name, and calling it again is a no-op.

`pkb.py --helpmatch=cloud_report` prints the flags of the modules whose name
matches `cloud_report`. Some of our flags are defined in modules named
otherwise (pkb_ext.publish.publisher, linux_packages.cloud_report_cockroachdb), so
Register() also lists each cloud_report_ flag of such a module under the name
`cloud_report flags of MODULE`; the flag is still defined by MODULE.
"""

import functools
import importlib
import logging
import os
import pkgutil
import re
import sys
import threading
import types

from pkb_ext import errors
from pkb_ext import paths
from pkb_ext.suite import phase_table

# PKB modules are imported inside the functions: importing this module must not
# import PKB's benchmark_sets, whose import is what triggers the autoload.
# pylint: disable=g-import-not-at-top

BENCHMARKS_PACKAGE = 'benchmarks'
# pkb_ext's own benchmark modules: the suite and the standalone cpu, io and
# net phases, which are not exported to PKB.
SUITE_PACKAGE = 'pkb_ext.suite'
PACKAGES_PACKAGE = 'linux_packages'
CONFIGS_PACKAGE = 'pkb_ext.configs'
PUBLISH_PACKAGE = 'pkb_ext.publish'
SUITE_BENCHMARK = 'cloud_report_2021'
BENCHMARK_SET = 'cloud_report'
PHASES_BENCHMARK_SET = 'cloud_report_phases'
FLAG_PREFIX = 'cloud_report_'
HELP_PREFIX = 'cloud_report flags of '
# Linux packages only pkb_ext has (the postgres engine's go-tpc).
EXTENSION_PACKAGES = ('pkb_ext.tpcc_postgres.go_tpc',)

# Instance-store NVMe volumes of the report's Appendix II machines missing from
# PKB's providers/aws/aws_disk.NUM_LOCAL_VOLUMES (without an entry PKB gives
# the VM no local disk: "Not enough local disks"). Source: the AWS EC2 user
# guide's instance store volumes table, 2 x 300 GB NVMe SSD each.
AWS_LOCAL_VOLUMES = {
    'm5ad.4xlarge': 2,
    'm5dn.4xlarge': 2,
    'r5ad.4xlarge': 2,
    'r5dn.4xlarge': 2,
}

_lock = threading.RLock()
_registered = False


class RegistryError(errors.Error):
  """A pkb_ext name clashes with one that PKB already has."""


def _Modules(package_name: str) -> list[types.ModuleType]:
  package = importlib.import_module(package_name)
  return [
      importlib.import_module(f'{package_name}.{info.name}')
      for info in pkgutil.iter_modules(package.__path__)
      if not info.ispkg
  ]


def BenchmarkModules() -> list[types.ModuleType]:
  """Returns our benchmark modules (names ending in _benchmark).

  A suite module replaces the exported module of its BENCHMARK_NAME: it
  runs the same benchmark as a phase of the report (resume, overlap,
  preflight), on the exported module's pieces and flags.
  """
  suite = [
      m for m in _Modules(SUITE_PACKAGE) if m.__name__.endswith('_benchmark')
  ]
  replaced = {m.BENCHMARK_NAME for m in suite}
  exported = [
      m for m in ExportedBenchmarkModules() if m.BENCHMARK_NAME not in replaced
  ]
  return exported + suite


def ExportedBenchmarkModules() -> list[types.ModuleType]:
  """The exported unit's benchmark modules, those the suite replaces too."""
  return [
      m
      for m in _Modules(BENCHMARKS_PACKAGE)
      if m.__name__.endswith('_benchmark')
  ]


def PackageModules() -> dict[str, types.ModuleType]:
  """Returns our linux packages by the name PKB installs them under."""
  return {m.__name__.rsplit('.', 1)[-1]: m for m in _Modules(PACKAGES_PACKAGE)}


def ExtensionPackageModules() -> dict[str, types.ModuleType]:
  """Returns pkb_ext's own linux packages (not exported) by install name."""
  modules = [importlib.import_module(n) for n in EXTENSION_PACKAGES]
  return {m.PACKAGE_NAME: m for m in modules}


def _AddUnique(registry: dict, name: str, module, kind: str) -> None:
  existing = registry.get(name)
  if existing is None:
    registry[name] = module
  elif existing is not module:
    raise RegistryError(
        f'pkb_ext {kind} {name!r} ({module.__name__}) clashes with '
        f'{existing.__name__}, already registered in PKB; rename ours.'
    )


def _RegisterBenchmarks() -> list[str]:
  from perfkitbenchmarker import linux_benchmarks

  names = []
  for module in BenchmarkModules():
    _AddUnique(
        linux_benchmarks.VALID_BENCHMARKS,
        module.BENCHMARK_NAME,
        module,
        'benchmark',
    )
    if module not in linux_benchmarks.BENCHMARKS:
      linux_benchmarks.BENCHMARKS.append(module)
    names.append(module.BENCHMARK_NAME)
  return names


def _RegisterPackages() -> None:
  from perfkitbenchmarker import linux_packages

  for name, module in PackageModules().items():
    _AddUnique(linux_packages.PACKAGES, name, module, 'package')


def _RegisterBenchmarkSets() -> None:
  """The suite's set, and the set of the phase table's standalone ones."""
  from perfkitbenchmarker import benchmark_sets

  sets = {
      BENCHMARK_SET: {
          benchmark_sets.MESSAGE: (
              'The Cockroach Labs 2021 Cloud Report suite (pkb_ext).'
          ),
          benchmark_sets.BENCHMARK_LIST: [SUITE_BENCHMARK],
      },
      PHASES_BENCHMARK_SET: {
          benchmark_sets.MESSAGE: (
              'Each 2021 Cloud Report phase as its own benchmark (pkb_ext).'
          ),
          benchmark_sets.BENCHMARK_LIST: sorted(phase_table.BENCHMARKS),
      },
  }
  for name, entry in sets.items():
    existing = benchmark_sets.BENCHMARK_SETS.get(name)
    if existing is not None and existing != entry:
      raise RegistryError(
          f'pkb_ext benchmark set {name!r} clashes with one PKB already has.'
      )
    benchmark_sets.BENCHMARK_SETS[name] = entry


def _RegisterDataLoaders() -> None:
  """Lets PKB's data.ResourcePath find our configs and the setup cache."""
  from perfkitbenchmarker import data

  configs = importlib.import_module(CONFIGS_PACKAGE)
  wanted = [os.path.dirname(configs.__file__)]
  cache_data = paths.CacheDataDir()
  if os.path.isdir(cache_data):
    wanted.append(cache_data)
  present = {
      getattr(loader, 'path', None) for loader in data.DEFAULT_RESOURCE_LOADERS
  }
  for path in wanted:
    if path not in present:
      data.DEFAULT_RESOURCE_LOADERS.append(data.FileResourceLoader(path))


def _RegisterPublishers() -> None:
  from perfkitbenchmarker import publisher

  publish = importlib.import_module(PUBLISH_PACKAGE)
  for cls in publish.PublisherClasses():
    if cls not in publisher.EXTERNAL_PUBLISHERS:
      publisher.EXTERNAL_PUBLISHERS.append(cls)


def _RegisterLocalDisks() -> None:
  """Adds AWS_LOCAL_VOLUMES to PKB's table; PKB's own entries are kept."""
  from perfkitbenchmarker.providers.aws import aws_disk

  for machine_type, count in AWS_LOCAL_VOLUMES.items():
    known = aws_disk.NUM_LOCAL_VOLUMES.setdefault(machine_type, count)
    if known != count:
      logging.info(
          'pkb_ext: PKB knows %d local volumes on %s (pkb_ext: %d); keeping'
          " PKB's",
          known,
          machine_type,
          count,
      )


class _WalkedCopySet(set):
  """A set whose iteration walks a copy: it may change while it is walked."""

  def __iter__(self):
    return iter(tuple(set.__iter__(self)))


def _FixPackageCleanup() -> None:
  """Lets PKB's PackageCleanup uninstall every package of a static VM.

  PKB's BaseLinuxMixin.PackageCleanup loops over vm._installed_packages and
  calls vm.Uninstall(name), which on Debian and Ubuntu discards the name from
  that same set: the loop ends with "Set changed size during iteration"
  after the first package, so RestorePackages (dpkg's selections restored,
  what PKB installed purged) and the removal of the install dir never run,
  and PKB logs "Got an exception deleting VMs". The wrapper gives the loop
  a set that iterates over a copy; PKB's own method does the rest.
  """
  from perfkitbenchmarker import linux_virtual_machine

  mixin = linux_virtual_machine.BaseLinuxMixin
  cleanup = mixin.PackageCleanup
  if hasattr(cleanup, 'pkb_ext_wrapped'):
    return

  @functools.wraps(cleanup)
  def PackageCleanup(self):
    self._installed_packages = _WalkedCopySet(self._installed_packages)
    return cleanup(self)

  PackageCleanup.pkb_ext_wrapped = cleanup
  mixin.PackageCleanup = PackageCleanup


def _LoadConfigStaticVms(sender, benchmark_spec=None, **_) -> None:
  """Before a configuration provisions: its --static_vm_file is its pool.

  pkb.py reads --static_vm_file once, at start-up, from the command line, so
  a value a flag matrix or zip sets per configuration is otherwise ignored
  and every configuration takes the same VMs. Here (PKB's flags already
  redirected to the configuration's) the pool is refilled from the
  configuration's file; with the command line's file, that is the pool
  pkb.py read. Runs in the process that runs the configuration (each
  --run_processes child has its own pool).
  """
  from absl import flags
  from perfkitbenchmarker import stages
  from perfkitbenchmarker import static_virtual_machine as static_vm

  del benchmark_spec  # the flags say it
  if 'static_vm_file' not in flags.FLAGS:
    return
  path = flags.FLAGS.static_vm_file
  if sender != stages.PROVISION or not path:
    return
  cls = static_vm.StaticVirtualMachine
  with cls.vm_pool_lock:
    cls.vm_pool.clear()
  with open(path) as f:
    cls.ReadStaticVirtualMachineFile(f)
  logging.info('static VMs of this configuration: %s', path)


def _ConnectStaticVmPools() -> None:
  from perfkitbenchmarker import events

  from pkb_ext import coremark
  from pkb_ext import netperf

  events.before_phase.connect(_LoadConfigStaticVms, weak=False)
  # --cloud_report_coremark_install=data: PKB's coremark tree from the data
  # search path's verified tarball, before a CoreMark benchmark's Prepare.
  events.before_phase.connect(coremark.BeforePhase, weak=False)
  # --cloud_report_netperf_install=distro: the OS's netperf at PKB's paths,
  # before a netperf benchmark's Prepare.
  events.before_phase.connect(netperf.BeforePhase, weak=False)


def _RegisterExtensions() -> None:
  """Plugs what only pkb_ext has into the registration points of ours.

  The exported benchmarks know nothing of pkb_ext: each standalone phase
  benchmark's CheckPrerequisites becomes pkb_ext's whole preflight
  (preflight.StandaloneCheck: the access, spool directory, quota and other
  checks, and the phase's own, which the exported one runs alone), and
  pkb_ext's packages (go-tpc, for the suite's postgres TPC-C engine) join
  PKB's.
  """
  from perfkitbenchmarker import linux_packages

  from pkb_ext.suite import preflight

  for module in BenchmarkModules():
    own = module.CheckPrerequisites
    if module.BENCHMARK_NAME != SUITE_BENCHMARK and not hasattr(
        own, 'pkb_ext_wrapped'
    ):
      module.CheckPrerequisites = preflight.StandaloneCheck(module)
  for name, module in ExtensionPackageModules().items():
    _AddUnique(linux_packages.PACKAGES, name, module, 'package')


def LoggedByPkb(tb) -> bool:
  """Whether PKB logged this traceback's exception, with the traceback.

  PKB's _CreateBenchmarkSpecs calls each benchmark's CheckPrerequisites and
  logs whatever it raises (logging.exception) before raising it again.
  """
  while tb is not None and tb.tb_next is not None:
    frame, called = tb.tb_frame, tb.tb_next.tb_frame
    if (
        frame.f_code.co_name == '_CreateBenchmarkSpecs'
        and frame.f_globals.get('__name__') == 'perfkitbenchmarker.pkb'
        and called.f_code.co_name == 'CheckPrerequisites'
    ):
      return True
    tb = tb.tb_next
  return False


def _QuietLoggedRefusals() -> None:
  """Prints a refusal PKB has already logged once, not twice.

  A CheckPrerequisites refusal (preflight's) reaches the user in PKB's log
  line with its traceback; pkb.py then lets it end the process, where
  Python would print it and a second traceback again. The hook prints
  nothing more for such an exception (the exit status stays 1) and hands
  every other one to the hook it replaced.
  """
  previous = sys.excepthook
  if hasattr(previous, 'pkb_ext_wrapped'):
    return

  def ExceptHook(kind, value, tb):
    if not LoggedByPkb(tb):
      previous(kind, value, tb)

  ExceptHook.pkb_ext_wrapped = previous
  sys.excepthook = ExceptHook


def _RegisterFlagHelp() -> None:
  """Lists our flags under a module name that --helpmatch=cloud_report finds."""
  from absl import flags

  by_module = flags.FLAGS.flags_by_module_dict()
  for module, module_flags in list(by_module.items()):
    if re.search('cloud_report', module):
      continue
    alias = HELP_PREFIX + module
    listed = {id(f) for f in by_module.get(alias, [])}
    for flag in module_flags:
      if flag.name.startswith(FLAG_PREFIX) and id(flag) not in listed:
        flags.FLAGS.register_flag_by_module(alias, flag)
        listed.add(id(flag))


def Register() -> None:
  """Registers pkb_ext with PKB; safe to call more than once."""
  global _registered
  # Importing benchmark_sets first may run the autoload hook, which calls
  # Register() itself; the lock is re-entrant and the flag makes that a no-op.
  from perfkitbenchmarker import benchmark_sets  # pylint: disable=unused-import

  with _lock:
    if _registered:
      return
    _registered = True
    try:
      names = _RegisterBenchmarks()
      _RegisterPackages()
      _RegisterBenchmarkSets()
      _RegisterDataLoaders()
      _RegisterPublishers()
      _RegisterLocalDisks()
      _RegisterExtensions()
      _FixPackageCleanup()
      _QuietLoggedRefusals()
      _ConnectStaticVmPools()
      _RegisterFlagHelp()
    except BaseException:
      _registered = False
      raise
    logging.debug('pkb_ext registered benchmarks: %s', ', '.join(names))


def ResolveBenchmarks(pkb_argv: list[str]) -> list[tuple[str, str]]:
  """Resolves PKB flags to benchmarks, as pkb.py would, without running.

  Args:
    pkb_argv: PKB command-line flags, e.g. ['--benchmarks=cloud_report_2021'].

  Returns:
    (benchmark name, module name) pairs, in run order.
  """
  from absl import flags
  from perfkitbenchmarker import benchmark_sets

  Register()
  flag_values = flags.FLAGS
  flag_values(['pkb.py'] + list(pkb_argv))
  return [
      (module.BENCHMARK_NAME, module.__name__)
      for module, _ in benchmark_sets.GetBenchmarksFromFlags()
  ]
