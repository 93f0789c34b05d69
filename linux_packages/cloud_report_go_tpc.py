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
"""go-tpc v1.0.9 (github.com/pingcap/go-tpc), the TPC-C driver for PostgreSQL.

go-tpc has no release binaries and its go.mod needs Go 1.18 (PKB's go_lang
package is 1.17), so it is built on the PKB host, never on the VM:
scripts/setup.d/50-go-tools.sh builds it at the pinned version into
$PKB_EXT_CACHE/bin/go-tpc (with a .go-tpc.version stamp). Install() pushes a
binary for the VM's architecture from, in order:

  - the data search path, as go-tpc-v1.0.9-linux-<amd64|arm64> (e.g. one
    cross-built with GOARCH=arm64 for Graviton);
  - the setup cache's go-tpc, if its stamp says v1.0.9 and the VM's
    architecture is the host's.

On the local cloud every host already has the setup cache's binary at
/opt/pkb-ext/bin/go-tpc (and vm.Install does nothing there); Path() finds it.
--cloud_report_go_tpc_path names a binary already on the VM instead.
"""

import os
import platform
import posixpath

from absl import flags
from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_packages

from pkb_ext import paths

PACKAGE_NAME = 'cloud_report_go_tpc'
VERSION = 'v1.0.9'
MODULE = 'github.com/pingcap/go-tpc'
LOCAL_CLOUD_PATH = '/opt/pkb-ext/bin/go-tpc'  # pkb_ext.local.BinaryPath
_ARCH = {'x86_64': 'amd64', 'amd64': 'amd64', 'aarch64': 'arm64'}
_ARCH |= {'arm64': 'arm64'}

_PATH = flags.DEFINE_string(
    'cloud_report_go_tpc_path',
    None,
    'A go-tpc binary already on the client VM to use instead of installing'
    f' {VERSION}.',
)


def DataName(arch: str) -> str:
  return f'go-tpc-{VERSION}-linux-{arch}'


def InstalledPath() -> str:
  return posixpath.join(linux_packages.INSTALL_DIR, PACKAGE_NAME, 'go-tpc')


def Path(vm) -> str:
  """Returns the go-tpc to run on the VM (the flag, local cloud, install)."""
  if _PATH.value:
    return _PATH.value
  _, _, code = vm.RemoteCommandWithReturnCode(
      f'test -x {LOCAL_CLOUD_PATH}', ignore_failure=True
  )
  return LOCAL_CLOUD_PATH if code == 0 else InstalledPath()


def _CachedBinary(arch: str) -> str | None:
  """The setup cache's go-tpc, if pinned and built for this architecture."""
  binary = os.path.join(paths.CacheDir(), 'bin', 'go-tpc')
  stamp = os.path.join(paths.CacheDir(), 'bin', '.go-tpc.version')
  try:
    with open(stamp) as f:
      version = f.read().strip()
  except OSError:
    return None
  host_arch = _ARCH.get(platform.machine())
  if version == VERSION and arch == host_arch and os.access(binary, os.X_OK):
    return binary
  return None


def Install(vm) -> None:
  """Pushes the pinned go-tpc to InstalledPath() (see module docstring)."""
  if _PATH.value:
    return
  out, _ = vm.RemoteCommand('uname -m')
  arch = _ARCH.get(out.strip())
  if arch is None:
    raise errors.Setup.InvalidConfigurationError(
        f'{vm.name}: no go-tpc build for machine {out.strip()!r}'
    )
  target = InstalledPath()
  vm.RemoteCommand(
      f'sudo mkdir -p {posixpath.dirname(target)} &&'
      f' sudo chmod 777 {posixpath.dirname(target)}'
  )
  if data.ResourceExists(DataName(arch)):
    vm.PushDataFile(DataName(arch), target)
  else:
    cached = _CachedBinary(arch)
    if cached is None:
      raise errors.Setup.BadPreprovisionedDataError(
          f'no go-tpc {VERSION} for linux-{arch}: put one in the data search'
          f' path as {DataName(arch)} (build: GOARCH={arch} CGO_ENABLED=0'
          f' GONOSUMDB={MODULE} go build {MODULE}/cmd/go-tpc from a module'
          f' requiring {MODULE} {VERSION}, as'
          ' scripts/setup.d/50-go-tools.sh does), or run setup on a'
          f' {arch} host'
      )
    vm.PushFile(cached, target)
  vm.RemoteCommand(f'chmod 755 {target} && {target} version')


def Uninstall(vm) -> None:
  vm.RemoteCommand(f'rm -f {InstalledPath()}')


def RunWorkloadCommand(
    binary: str,
    host: str,
    port: int,
    user: str,
    database: str,
    warehouses: int,
    threads: int,
    duration: str,
    wait: bool = False,
    interval: str = '10s',
) -> str:
  """`go-tpc tpcc run` against PostgreSQL (plain output)."""
  return ' '.join([
      binary,
      'tpcc',
      'run',
      *ConnectionArgs(host, port, user, database),
      f'--warehouses {warehouses}',
      f'-T {threads}',
      f'--time {duration}',
      f'--interval {interval}',
      *(['--wait'] if wait else []),
  ])


def PrepareCommand(
    binary: str,
    host: str,
    port: int,
    user: str,
    database: str,
    warehouses: int,
    threads: int,
    check: bool = True,
) -> str:
  """`go-tpc tpcc prepare`: creates and loads the TPC-C tables.

  check=False skips go-tpc's consistency checks after loading (on 2 vCPUs,
  27 s instead of 234 s for one warehouse).
  """
  return ' '.join([
      binary,
      'tpcc',
      'prepare',
      *ConnectionArgs(host, port, user, database),
      f'--warehouses {warehouses}',
      f'-T {threads}',
      *([] if check else ['--no-check']),
  ])


def ConnectionArgs(host: str, port: int, user: str, database: str) -> list:
  return [
      '-d postgres',
      f'-H {host}',
      f'-P {port}',
      f'-U {user}',
      f'-D {database}',
      '--conn-params sslmode=disable',
  ]
