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

go-tpc publishes no release binaries, so Install() puts a binary for the
VM's architecture at InstalledPath() from, in order:

  - --cloud_report_go_tpc_path: a go-tpc already on the VM (nothing to do);
  - the data search path, as go-tpc-v1.0.9-linux-<amd64|arm64> (a binary
    built elsewhere, e.g. by this project's setup: a shortcut);
  - a build on the VM: Go 1.22.12 from go.dev, checked against its pinned
    sha256 (PKB's preprovisioned-data mechanism), builds go-tpc from the
    Go module proxy through a small module (go_tpc/go.mod in the data
    directory) whose go.sum pins the sha256 of every module it needs; the
    build runs with -mod=readonly, so a module whose content differs fails.
"""

import posixpath

from absl import flags
from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_packages

PACKAGE_NAME = 'cloud_report_go_tpc'
VERSION = 'v1.0.9'
MODULE = 'github.com/pingcap/go-tpc'
GO_VERSION = '1.22.12'
# The module that builds go-tpc: go.mod (requires MODULE at VERSION), go.sum
# (the sha256 of every module in the build) and tools.go (imports the command).
BUILD_MODULE_FILES = ('go_tpc/go.mod', 'go_tpc/go.sum', 'go_tpc/tools.go')
_ARCH = {'x86_64': 'amd64', 'amd64': 'amd64', 'aarch64': 'arm64'}
_ARCH |= {'arm64': 'arm64'}
# Go's published sha256 of each toolchain tarball.
PREPROVISIONED_DATA = {
    f'go{GO_VERSION}.linux-amd64.tar.gz': (
        '4fa4f869b0f7fc6bb1eb2660e74657fbf04cdd290b5aef905585c86051b34d43'
    ),
    f'go{GO_VERSION}.linux-arm64.tar.gz': (
        'fd017e647ec28525e86ae8203236e0653242722a7436929b1f775744e26278e7'
    ),
}
PACKAGE_DATA_URL = {
    name: f'https://go.dev/dl/{name}' for name in PREPROVISIONED_DATA
}

_PATH = flags.DEFINE_string(
    'cloud_report_go_tpc_path',
    None,
    'A go-tpc binary already on the client VM to use instead of installing'
    f' {VERSION}.',
)


def DataName(arch: str) -> str:
  return f'go-tpc-{VERSION}-linux-{arch}'


def GoTarball(arch: str) -> str:
  return f'go{GO_VERSION}.linux-{arch}.tar.gz'


def InstallDir() -> str:
  return posixpath.join(linux_packages.INSTALL_DIR, PACKAGE_NAME)


def InstalledPath() -> str:
  return posixpath.join(InstallDir(), 'go-tpc')


def Path(vm) -> str:
  """Returns the go-tpc to run on the VM: the flag's, else the installed."""
  del vm  # the same path on every VM
  return _PATH.value or InstalledPath()


def BuildCommand(install_dir: str, go_binary: str) -> str:
  """Builds go-tpc in install_dir/build (holding BUILD_MODULE_FILES).

  Args:
    install_dir: where the binary goes (install_dir/go-tpc); the module
      download and build caches stay under it too.
    go_binary: the go command to build with.

  Returns:
    A shell command.
  """
  env = ' '.join([
      f'GOPATH={install_dir}/gopath',
      f'GOMODCACHE={install_dir}/gopath/pkg/mod',
      f'GOCACHE={install_dir}/gocache',
      'GOTOOLCHAIN=local',
      'GOFLAGS="-mod=readonly -buildvcs=false"',
      'CGO_ENABLED=0',
  ])
  return (
      f'cd {install_dir}/build && {env} {go_binary} build'
      f' -o {install_dir}/go-tpc {MODULE}/cmd/go-tpc'
  )


def _BuildOnVm(vm, arch: str) -> None:
  """Installs the pinned Go toolchain on the VM and builds go-tpc there."""
  tarball = GoTarball(arch)
  vm.InstallPreprovisionedPackageData(PACKAGE_NAME, [tarball], InstallDir())
  vm.RemoteCommand(
      f'cd {InstallDir()} && rm -rf go && tar -xzf {tarball} && mkdir -p build'
  )
  for name in BUILD_MODULE_FILES:
    vm.PushDataFile(
        name, posixpath.join(InstallDir(), 'build', posixpath.basename(name))
    )
  vm.RemoteCommand(
      BuildCommand(InstallDir(), posixpath.join(InstallDir(), 'go/bin/go'))
  )


def Install(vm) -> None:
  """Puts the pinned go-tpc at InstalledPath() (see module docstring)."""
  if _PATH.value:
    return
  out, _ = vm.RemoteCommand('uname -m')
  arch = _ARCH.get(out.strip())
  if arch is None:
    raise errors.Setup.InvalidConfigurationError(
        f'{vm.name}: no go-tpc build for machine {out.strip()!r}'
    )
  vm.RemoteCommand(
      f'sudo mkdir -p {InstallDir()} && sudo chmod 777 {InstallDir()}'
  )
  if data.ResourceExists(DataName(arch)):
    vm.PushDataFile(DataName(arch), InstalledPath())
  else:
    _BuildOnVm(vm, arch)
  vm.RemoteCommand(f'chmod 755 {InstalledPath()} && {InstalledPath()} version')


def Uninstall(vm) -> None:
  # Made with sudo in PKB's sticky install dir: only root may remove it.
  vm.RemoteCommand(f'sudo rm -rf {InstallDir()}')


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

  check=False skips go-tpc's consistency checks after loading, which can
  take several times as long as the load itself.
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
