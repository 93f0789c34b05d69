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
"""netperf from the OS at PKB's paths, for hosts that cannot build PKB's.

PKB's netperf package builds netperf 2.7.0 from its tarball (from the data
search path, else GitHub) into netperf.NETPERF_DIR; hosts without internet
(the local cloud) cannot, and with --install_packages=false vm.Install()
does nothing. With --cloud_report_netperf_install=distro (the local cloud's
presets pass it), before a netperf benchmark's Prepare (the net phase's
suite and standalone benchmark, and PKB's own netperf) each VM that will run
netperf or netserver (NetperfVms) gets the OS's: the OS package `netperf`
(Debian non-free, Ubuntu multiverse) is installed only if netperf or
netserver is missing, its `netperf -V` must say 2.6 or later (one line
refuses an older one), both are linked at PKB's NETPERF_PATH and
NETSERVER_PATH, and PKB's package counts as installed there. Where both of
PKB's paths already hold files that are not links (PKB's netperf, built on
that VM by an earlier run), they are kept: nothing is linked over them and a
log line says so; one of them without the other is refused in one line.

--cloud_report_netperf_install=auto (the OS's netperf if on the PATH, else
PKB's) is retired: distro now does what it did with the OS's, pkb (the
default) is PKB's package.
"""

import logging
import posixpath
import shlex

from absl import flags

# PKB modules are imported inside the functions: importing this module (the
# registry does, before PKB parses flags) must not import PKB's benchmarks.
# pylint: disable=g-import-not-at-top

# PKB's package name, and the benchmarks that run netperf from its paths.
PACKAGE = 'netperf'
BENCHMARKS = ('netperf', 'cloud_report_netperf', 'cloud_report_2021')
DISTRO_PACKAGE = 'netperf'
MIN_VERSION = (2, 6)
INSTALL_PKB = 'pkb'
INSTALL_DISTRO = 'distro'
INSTALL_MODES = (INSTALL_PKB, INSTALL_DISTRO)
RETIRED_AUTO = (
    '--cloud_report_netperf_install=auto is retired: use distro (the OS'
    " package's netperf, linked at PKB's paths) or pkb (PKB's netperf"
    ' package, the default)'
)


def _CheckInstall(value: str) -> bool:
  if value == 'auto':
    raise flags.ValidationError(RETIRED_AUTO)
  if value not in INSTALL_MODES:
    raise flags.ValidationError(
        f'--cloud_report_netperf_install: got {value!r}; give'
        f' {" or ".join(INSTALL_MODES)}'
    )
  return True


_INSTALL = flags.DEFINE_string(
    'cloud_report_netperf_install',
    INSTALL_PKB,
    "How netperf gets on the VMs: pkb (PKB's netperf package: 2.7.0 built"
    ' from its tarball) or distro (the OS package, 2.6 or later, linked at'
    " PKB's paths, for hosts without internet).",
)
flags.register_validator('cloud_report_netperf_install', _CheckInstall)


def ProbeCommand() -> str:
  """Prints the OS's netperf and netserver paths and `netperf -V`."""
  return (
      'n=$(command -v netperf); s=$(command -v netserver); '
      'echo "netperf=$n"; echo "netserver=$s"; '
      'if [ -n "$n" ]; then echo "version=$("$n" -V 2>&1)"; fi'
  )


def _Probe(vm) -> dict[str, str]:
  stdout, _ = vm.RemoteCommand(ProbeCommand(), ignore_failure=True)
  found = dict(
      line.split('=', 1) for line in stdout.splitlines() if '=' in line
  )
  return {k: found.get(k, '').strip() for k in ('netperf', 'netserver')} | {
      'version': found.get('version', '')
  }


def LinkCommand(netperf: str, netserver: str) -> str:
  """Links netperf and netserver at PKB's NETPERF_PATH and NETSERVER_PATH."""
  from perfkitbenchmarker.linux_packages import netperf as pkb_netperf

  links = ((netperf, pkb_netperf.NETPERF_PATH),
           (netserver, pkb_netperf.NETSERVER_PATH))  # fmt: skip
  dirs = sorted({posixpath.dirname(path) for _, path in links})
  return ' && '.join(
      [f'sudo mkdir -p {" ".join(map(shlex.quote, dirs))}']
      + [f'sudo ln -sfn {shlex.quote(s)} {shlex.quote(d)}' for s, d in links]
  )


def BuiltCommand() -> str:
  """Prints `built=PATH` for each of PKB's paths holding a file, not a link."""
  from perfkitbenchmarker.linux_packages import netperf as pkb_netperf

  return '; '.join(
      f'if [ -e {q} ] && [ ! -L {q} ]; then echo built={q}; fi'
      for q in map(
          shlex.quote, (pkb_netperf.NETPERF_PATH, pkb_netperf.NETSERVER_PATH)
      )
  )


def _KeepBuilt(vm) -> str | None:
  """The version of PKB's netperf built on `vm`, or None if none is there.

  Raises:
    errors.Setup.InvalidSetupError: only one of netperf and netserver is a
      file at PKB's paths, or that netperf names no version (net.Locate).
  """
  from perfkitbenchmarker import errors
  from perfkitbenchmarker.linux_packages import netperf as pkb_netperf

  from pkb_ext.suite.net import stages as net

  stdout, _ = vm.RemoteCommand(BuiltCommand(), ignore_failure=True)
  built = {
      line.split('=', 1)[1]
      for line in stdout.splitlines()
      if line.startswith('built=')
  }
  paths = (pkb_netperf.NETPERF_PATH, pkb_netperf.NETSERVER_PATH)
  if not built:
    return None
  if len(built) == 1:
    (there,) = built
    (missing,) = set(paths) - built
    raise errors.Setup.InvalidSetupError(
        f'--cloud_report_netperf_install=distro: {there} on {vm.name} is a'
        f" file, not a link, but {missing} is not: a partial build of PKB's"
        f" netperf; remove {there} to link the OS's, or use =pkb"
    )
  version = net.Locate(vm).version  # refuses one that names no version
  logging.info(
      "netperf: keeping PKB's netperf built at %s and %s on %s; the OS's"
      ' is not linked over them',
      *paths,
      vm.name,
  )
  return version


def LinkOsNetperf(vm) -> str:
  """Links the OS's netperf at PKB's paths; returns the version there.

  Installs the OS package first if netperf or netserver is missing. Where
  PKB's netperf is already built at its paths (files, not links), keeps it
  and links nothing.

  Raises:
    errors.Setup.InvalidSetupError: no netperf and netserver even after the
      OS package, a netperf older than MIN_VERSION, or only one of PKB's
      paths holds a file.
  """
  from perfkitbenchmarker import errors

  from pkb_ext.suite.net import parser

  kept = _KeepBuilt(vm)
  if kept is not None:
    return kept
  found = _Probe(vm)
  if not (found['netperf'] and found['netserver']):
    vm.InstallPackages(DISTRO_PACKAGE)
    found = _Probe(vm)
  version = parser.ParseVersion(found['version'])
  minimum = '.'.join(map(str, MIN_VERSION))
  if not (found['netperf'] and found['netserver']) or version is None:
    raise errors.Setup.InvalidSetupError(
        f'--cloud_report_netperf_install=distro: no netperf and netserver'
        f' on {vm.name} after installing the OS package {DISTRO_PACKAGE}'
        f" (found {found}); use =pkb to build PKB's"
    )
  if version[:2] < MIN_VERSION:
    raise errors.Setup.InvalidSetupError(
        f'--cloud_report_netperf_install=distro: {found["netperf"]} on'
        f' {vm.name} is netperf {".".join(map(str, version))}, older than'
        f' {minimum}; install netperf {minimum} or later, or use =pkb'
    )
  vm.RemoteCommand(LinkCommand(found['netperf'], found['netserver']))
  logging.info(
      "netperf %s from the OS at PKB's paths on %s",
      '.'.join(map(str, version)),
      vm.name,
  )
  return '.'.join(map(str, version))


def InstallFromOs(vm) -> None:
  """Links the OS's netperf; PKB's package then counts as installed.

  vm.Install('netperf') is then a no-op, as it is on a host whose
  install_packages is False. PKB's netperf already built there is kept.
  """
  LinkOsNetperf(vm)
  from pkb_ext.suite import placement

  placement.MarkInstalled(vm, PACKAGE)


def NetperfVms(spec) -> list:
  """The VMs a benchmark of BENCHMARKS runs netperf or netserver on.

  PKB's netperf: its first two VMs. The cloud_report benchmarks: the net
  phase's db VM, where the suite places it (the second db VM under
  overlap), and the client; none when the suite's net phase does not run.
  """
  if spec.name == PACKAGE:
    return list(spec.vms[:2])
  from pkb_ext.suite import phase_table
  from pkb_ext.suite import placement

  net = phase_table.NET.sample
  topology = placement.PhaseTopology(spec, net)
  if topology is None or topology.client_vm is None:
    return []
  return [topology.DbFor(net), topology.client_vm]


def BeforePhase(sender, benchmark_spec=None, **_) -> None:
  """PKB's before_phase handler: links the OS's netperf before a Prepare.

  Acts only with --cloud_report_netperf_install=distro, before the PREPARE
  stage of a benchmark of BENCHMARKS.
  """
  from perfkitbenchmarker import stages

  if sender != stages.PREPARE or benchmark_spec is None:
    return
  if _INSTALL.value != INSTALL_DISTRO:
    return
  if benchmark_spec.name not in BENCHMARKS:
    return
  for vm in NetperfVms(benchmark_spec):
    InstallFromOs(vm)
