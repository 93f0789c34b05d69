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
"""Finds or installs netperf 2.6+ (netperf and netserver) on a VM.

Three ways, chosen by the net phase's --cloud_report_netperf_install:

- auto (default): use a netperf >= 2.6 already on the PATH (the local
  cloud's hosts have Debian's netperf 2.7.0, so this works offline);
  otherwise install PKB's own `netperf` package.
- distro: the OS package (`netperf`: Debian non-free, Ubuntu multiverse),
  installed with the OS package manager only if no netperf >= 2.6 is there.
- pkb: always PKB's `netperf` package, which builds netperf 2.7.0 from its
  tarball (from the data search path, else GitHub) with histograms enabled;
  what PKB's own netperf benchmarks run on clouds.

Only installation is reused from PKB: its netperf benchmark's cleanup runs
`sudo killall netserver`, which would also kill other users' servers, so the
net phase starts and stops its own netserver by PID (see
cloud_report/net/stages.py).
"""

import dataclasses
import re

from perfkitbenchmarker import errors
from perfkitbenchmarker.linux_packages import netperf as pkb_netperf

PACKAGE_NAME = 'cloud_report_netperf'
INSTALL_MODES = ('auto', 'distro', 'pkb')
DISTRO_PACKAGE = 'netperf'
MIN_VERSION = (2, 6)
_VERSION = re.compile(r'Netperf version (\d+)\.(\d+)(?:\.(\d+))?')


@dataclasses.dataclass(frozen=True)
class Binaries:
  """Where netperf is on a VM, and its version."""

  netperf: str
  netserver: str
  version: str  # e.g. 2.7.0


def ParseVersion(text: str) -> tuple[int, ...] | None:
  """Returns (major, minor, patch) from `netperf -V` output, or None."""
  m = _VERSION.search(text or '')
  if not m:
    return None
  return tuple(int(g or 0) for g in m.groups())


def _ProbeCommand(netperf: str, netserver: str) -> str:
  return (
      f'n=$({netperf}); s=$({netserver}); '
      'echo "netperf=$n"; echo "netserver=$s"; '
      'if [ -n "$n" ]; then echo "version=$("$n" -V 2>&1)"; fi'
  )


def _Probe(vm, pkb_build: bool) -> Binaries | None:
  """Finds netperf and netserver on the VM, or returns None."""
  if pkb_build:
    command = _ProbeCommand(
        f'ls {pkb_netperf.NETPERF_PATH} 2>/dev/null',
        f'ls {pkb_netperf.NETSERVER_PATH} 2>/dev/null',
    )
  else:
    command = _ProbeCommand('command -v netperf', 'command -v netserver')
  stdout, _ = vm.RemoteCommand(command, ignore_failure=True)
  found = dict(
      line.split('=', 1) for line in stdout.splitlines() if '=' in line
  )
  version = ParseVersion(found.get('version', ''))
  if not (found.get('netperf') and found.get('netserver') and version):
    return None
  return Binaries(
      netperf=found['netperf'].strip(),
      netserver=found['netserver'].strip(),
      version='.'.join(map(str, version)),
  )


def _RecentEnough(binaries: Binaries | None) -> bool:
  return binaries is not None and (
      ParseVersion(f'Netperf version {binaries.version}') >= MIN_VERSION
  )


def Locate(vm, mode: str = 'auto') -> Binaries:
  """Returns the netperf that Install(vm, mode) made available.

  Raises:
    errors.Setup.InvalidSetupError: no netperf >= 2.6 is installed.
  """
  found = _Probe(vm, pkb_build=mode == 'pkb')
  if mode == 'auto' and not _RecentEnough(found):
    found = _Probe(vm, pkb_build=True)
  if not _RecentEnough(found):
    raise errors.Setup.InvalidSetupError(
        f'no netperf >= {".".join(map(str, MIN_VERSION))} on {vm.name}'
        f' (install mode {mode}; found {found}); was the net phase prepared?'
    )
  return found


def Install(vm, mode: str = 'auto') -> Binaries:
  """Makes netperf >= 2.6 available on a VM; see the module docstring.

  Args:
    vm: the VM.
    mode: auto, distro or pkb.

  Returns:
    The binaries to run.
  """
  if mode not in INSTALL_MODES:
    raise ValueError(
        f'unknown netperf install mode {mode!r}; expected one of'
        f' {", ".join(INSTALL_MODES)}'
    )
  if mode != 'pkb':
    found = _Probe(vm, pkb_build=False)
    if _RecentEnough(found):
      return found
    if mode == 'distro':
      vm.InstallPackages(DISTRO_PACKAGE)
      return Locate(vm, mode)
  vm.Install('netperf')
  return Locate(vm, 'pkb')


def AptInstall(vm) -> None:
  """vm.Install('cloud_report_netperf'): Install(vm, 'auto')."""
  Install(vm, 'auto')


def YumInstall(vm) -> None:
  """vm.Install('cloud_report_netperf') on RHEL-like VMs: as AptInstall."""
  AptInstall(vm)
