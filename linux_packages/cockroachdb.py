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
"""Installs a pinned CockroachDB release; starts, initializes, stops a cluster.

PKB has no CockroachDB package. This one installs the official release
tarball cockroach-<version>.linux-<amd64|arm64>.tgz, taken from the data
search path when it is there (offline) and otherwise downloaded from
binaries.cockroachdb.com, and refuses it unless its sha256 is the pinned one.

Pinned: v20.2.7, the 2021 report's release line, for amd64. Its sha256 is the
one the Arch User Repository's cockroachdb-bin 20.2.7-1 PKGBUILD pins for
https://binaries.cockroachdb.com/cockroach-v20.2.7.linux-amd64.tgz (read in
the archlinux/aur mirror; it could not be downloaded and re-checked here).
No linux-arm64 tarball of v20.2 exists (official arm64 builds start with
v22.2; the report's Graviton2 runs used a custom build), and no published
arm64 sha256 was found: for Graviton pass a release and its sha256, from the
tarball's .sha256sum file, with --cloud_report_cockroachdb_version and
--cloud_report_cockroachdb_sha256=arm64=<hex>.

The cluster: one insecure node per db VM, its store on the VM's data disk,
with the cache and SQL memory of the CRL repository's driver script
(cmd/generate.go at the 2021 report's commit 47fabad: `roachprod start ...
--args="--cache=0.25 --max-sql-memory=0.4"`); each node writes a pid file, so
stopping it signals exactly that process.
"""

import logging
import posixpath
import re
import shlex

from absl import flags
from perfkitbenchmarker import background_tasks
from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_packages
from perfkitbenchmarker import vm_util

PACKAGE_NAME = 'cockroachdb'
DEFAULT_VERSION = 'v20.2.7'
# (version, arch) -> sha256 of the official tarball (see module docstring).
PINNED_SHA256 = {
    (
        'v20.2.7',
        'amd64',
    ): '498f99c751daaa2665dffbe98265605ab257bdb80581256b9a517ecc4c5f7c82',
}
ARCH_OF_MACHINE = {'x86_64': 'amd64', 'aarch64': 'arm64', 'arm64': 'arm64'}
URL = 'https://binaries.cockroachdb.com/{tarball}'
SQL_PORT = 26257
HTTP_PORT = 8080
# The CRL repository's start arguments (cmd/generate.go, commit 47fabad).
DEFAULT_CACHE = '.25'
DEFAULT_MAX_SQL_MEMORY = '.4'
_VERSION = re.compile(r'^v\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?$')
_SHA256 = re.compile(r'\b([0-9a-f]{64})\b')

_VERSION_FLAG = flags.DEFINE_string(
    'cloud_report_cockroachdb_version',
    DEFAULT_VERSION,
    'CockroachDB release to install (official tarball).',
)
_SHA256_FLAG = flags.DEFINE_list(
    'cloud_report_cockroachdb_sha256',
    [],
    'ARCH=SHA256 pairs (ARCH amd64 or arm64): the sha256 of the release'
    ' tarball for that architecture, required when the release/architecture'
    f' has no pinned value (pinned: {sorted(PINNED_SHA256)}).',
)


def _CheckVersion(value) -> bool:
  if not _VERSION.match(value or ''):
    raise flags.ValidationError(
        f'--cloud_report_cockroachdb_version={value!r}: expected a release'
        ' such as v20.2.7'
    )
  return True


def _CheckSha256(values) -> bool:
  try:
    ParseSha256Overrides(values)
  except ValueError as e:
    raise flags.ValidationError(f'--cloud_report_cockroachdb_sha256: {e}')
  return True


flags.register_validator('cloud_report_cockroachdb_version', _CheckVersion)
flags.register_validator('cloud_report_cockroachdb_sha256', _CheckSha256)


def ParseSha256Overrides(values) -> dict[str, str]:
  """Returns {arch: sha256} from ARCH=SHA256 strings."""
  out = {}
  for item in values or ():
    arch, sep, digest = item.partition('=')
    if not sep or arch not in ('amd64', 'arm64'):
      raise ValueError(f'{item!r}: expected amd64=<sha256> or arm64=<sha256>')
    if not re.fullmatch(r'[0-9a-f]{64}', digest):
      raise ValueError(f'{item!r}: the sha256 must be 64 lowercase hex digits')
    out[arch] = digest
  return out


def Tarball(version: str, arch: str) -> str:
  return f'cockroach-{version}.linux-{arch}.tgz'


def ExpectedSha256(version: str, arch: str, overrides=None) -> str:
  """Returns the sha256 the tarball must have.

  Raises:
    errors.Setup.InvalidConfigurationError: none is pinned or given.
  """
  overrides = overrides or {}
  if arch in overrides:
    return overrides[arch]
  if (version, arch) in PINNED_SHA256:
    return PINNED_SHA256[(version, arch)]
  hint = ''
  if arch == 'arm64' and version.startswith(('v19.', 'v20.', 'v21.', 'v22.1')):
    hint = (
        f' CockroachDB publishes no linux-arm64 build of {version}'
        ' (official arm64 tarballs start with v22.2).'
    )
  raise errors.Setup.InvalidConfigurationError(
      f'no sha256 pinned for {Tarball(version, arch)}.{hint} Pass a release'
      ' with --cloud_report_cockroachdb_version and its sha256 (from'
      f' {URL.format(tarball=Tarball(version, arch))}.sha256sum for that'
      f' release) with --cloud_report_cockroachdb_sha256={arch}=<sha256>.'
  )


def RootDir() -> str:
  return posixpath.join(linux_packages.INSTALL_DIR, 'cloud_report_cockroachdb')


def BinaryPath() -> str:
  """The cockroach binary (its lib/ with libgeos sits beside it)."""
  return posixpath.join(RootDir(), 'cockroach')


def MachineArch(vm) -> str:
  out, _ = vm.RemoteCommand('uname -m')
  machine = out.strip()
  if machine not in ARCH_OF_MACHINE:
    raise errors.Setup.InvalidConfigurationError(
        f'{vm.name}: no CockroachDB Linux build for machine {machine!r}'
    )
  return ARCH_OF_MACHINE[machine]


def Install(vm) -> None:
  """Puts the verified cockroach binary at BinaryPath() on the VM."""
  version = _VERSION_FLAG.value
  arch = MachineArch(vm)
  tarball = Tarball(version, arch)
  expected = ExpectedSha256(
      version, arch, ParseSha256Overrides(_SHA256_FLAG.value)
  )
  root = RootDir()
  tar_path = posixpath.join(root, tarball)
  vm.RemoteCommand(f'sudo mkdir -p {root} && sudo chmod 777 {root}')
  if data.ResourceExists(tarball):
    vm.PushDataFile(tarball, tar_path)
    source = 'data search path'
  else:
    url = URL.format(tarball=tarball)
    logging.info('%s not in the data search path; downloading %s', tarball, url)
    vm.InstallPackages('curl')
    vm.RemoteCommand(f'curl -fsSL -o {tar_path} {url}')
    source = url
  out, _ = vm.RemoteCommand(f'sha256sum {tar_path}')
  m = _SHA256.search(out)
  actual = m.group(1) if m else None
  if actual != expected:
    raise errors.Setup.BadPreprovisionedDataError(
        f'{tarball} from the {source}: sha256 {actual}, expected {expected}'
    )
  vm.RemoteCommand(
      f'tar -xzf {tar_path} -C {root} --strip-components=1 && '
      f'{BinaryPath()} version'
  )


def Uninstall(vm) -> None:
  vm.RemoteCommand(f'sudo rm -rf {RootDir()}')


def PidFile(store_dir: str) -> str:
  return posixpath.join(store_dir, 'cockroach.pid')


def StartCommand(
    store_dir: str,
    listen_ip: str,
    join_ips,
    cache: str = DEFAULT_CACHE,
    max_sql_memory: str = DEFAULT_MAX_SQL_MEMORY,
) -> str:
  """Starts one insecure node in the background, its store in store_dir."""
  join = ','.join(f'{ip}:{SQL_PORT}' for ip in join_ips)
  return ' '.join([
      BinaryPath(),
      'start',
      '--insecure',
      f'--store=path={shlex.quote(store_dir)}',
      f'--listen-addr={listen_ip}:{SQL_PORT}',
      f'--http-addr={listen_ip}:{HTTP_PORT}',
      f'--join={join}',
      f'--cache={cache}',
      f'--max-sql-memory={max_sql_memory}',
      f'--pid-file={shlex.quote(PidFile(store_dir))}',
      f'--log-dir={shlex.quote(posixpath.join(store_dir, "logs"))}',
      '--background',
  ])


def InitCommand(host_ip: str) -> str:
  return f'{BinaryPath()} init --insecure --host={host_ip}:{SQL_PORT}'


def PgUrl(ip: str) -> str:
  return f'postgresql://root@{ip}:{SQL_PORT}?sslmode=disable'


def SqlCommand(host_ip: str, statement: str) -> str:
  return (
      f'{BinaryPath()} sql --insecure --host={host_ip}:{SQL_PORT}'
      f' -e {shlex.quote(statement)}'
  )


def StopCommand(store_dir: str) -> str:
  """Stops the node whose pid file is in store_dir, waiting up to 60 s."""
  pid_file = shlex.quote(PidFile(store_dir))
  return (
      f'if [ -f {pid_file} ]; then pid=$(cat {pid_file});'
      ' kill -TERM "$pid" 2>/dev/null;'
      ' for i in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1;'
      ' done; kill -KILL "$pid" 2>/dev/null; rm -f'
      f' {pid_file}; fi; true'
  )


def StartCluster(
    vms,
    store_dirs,
    cache: str = DEFAULT_CACHE,
    max_sql_memory: str = DEFAULT_MAX_SQL_MEMORY,
) -> None:
  """Starts a node on each VM, initializes the cluster, waits for SQL."""
  ips = [vm.internal_ip for vm in vms]

  def _Start(vm, store):
    vm.RemoteCommand(
        f'sudo mkdir -p {shlex.quote(store)} && sudo chown $(id -u):$(id -g)'
        f' {shlex.quote(store)}'
    )
    vm.RemoteCommand(
        StartCommand(store, vm.internal_ip, ips, cache, max_sql_memory)
    )

  background_tasks.RunThreaded(
      _Start, [((vm, store), {}) for vm, store in zip(vms, store_dirs)]
  )
  vms[0].RemoteCommand(InitCommand(ips[0]))
  WaitForSql(vms[0], ips[0])


@vm_util.Retry(poll_interval=5, timeout=300, log_errors=False)
def WaitForSql(vm, host_ip: str) -> None:
  vm.RemoteCommand(SqlCommand(host_ip, 'SELECT 1'))


def StopCluster(vms, store_dirs) -> None:
  background_tasks.RunThreaded(
      lambda vm, store: vm.RemoteCommand(StopCommand(store)),
      [((vm, store), {}) for vm, store in zip(vms, store_dirs)],
  )
