# Copyright 2026 PerfKitBenchmarker Authors. All rights reserved.
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
"""Installs a CockroachDB release checked by its sha256; runs a cluster.

PKB has no CockroachDB package. This one installs the official release
tarball cockroach-<version>.linux-<amd64|arm64>.tgz, taken from the data
search path when it is there (offline) and otherwise downloaded from
binaries.cockroachdb.com, and refuses it unless its sha256 is the expected
one: given with --cloud_report_cockroachdb_sha256=<arch>=<sha256>, or, only
with --cloud_report_cockroachdb_vendor_checksum, read from the vendor's
published <tarball>.sha256sum fetched over HTTPS on the VM. Which of the two
it was is recorded on the VM (InstalledInfo) and in the samples' metadata.

No sha256 is pinned here. The only public value found for v20.2.7's amd64
tarball is the one a third-party build recipe lists (the Arch User
Repository's cockroachdb-bin PKGBUILD), and the tarball could not be
downloaded to check it, so this package cannot vouch for it. Pass a sha256
from a source you trust with --cloud_report_cockroachdb_sha256=amd64=<hex>,
or opt in to the vendor's checksum file with
--cloud_report_cockroachdb_vendor_checksum; without either, CheckRelease()
refuses the run before anything is provisioned, in one line naming both
flags.

The default release is v20.2.7, the 2021 report's release line, for amd64.
No linux-arm64 tarball of v20.2 exists: CockroachDB's Linux ARM64 builds
start with v22.2.0 (experimental before v22.2.13, generally available from
v22.2.14, per the v22.2 install docs), and the report's Graviton2 runs used a
custom build. So the release is chosen per architecture (VersionFor): amd64
machines run --cloud_report_cockroachdb_version; arm64 machines run
--cloud_report_cockroachdb_arm64_version, whose default (auto) is that same
release where it has a linux-arm64 build, else ARM64_DEFAULT_VERSION, the
last release of v22.2, the first line with linux-arm64 builds. CheckRelease()
says what is missing before anything is provisioned, from the machine type
(ArchOfMachineType) or --cloud_report_cockroachdb_arch. Results of another
release, or of arm64, are marked as not comparable with the report's v20.2
on amd64 (SampleMetadata).
"""

import json
import logging
import posixpath
import re
import shlex

from absl import flags
from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_packages

PACKAGE_NAME = 'cloud_report_cockroachdb'
DEFAULT_VERSION = 'v20.2.7'
# The release arm64 machines run when DEFAULT_VERSION (or the release given)
# has no linux-arm64 build: the last of v22.2, the first line with one.
ARM64_DEFAULT_VERSION = 'v22.2.19'
ARCH_OF_MACHINE = {'x86_64': 'amd64', 'aarch64': 'arm64', 'arm64': 'arm64'}
URL = 'https://binaries.cockroachdb.com/{tarball}'
_VERSION = re.compile(r'^v(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.]+)?$')
_SHA256 = re.compile(r'\b([0-9a-f]{64})\b')
ARCHS = ('amd64', 'arm64')
AUTO = 'auto'
FIRST_ARM64_RELEASE = (22, 2, 0)  # the first release with a linux-arm64 build
# Where the expected sha256 came from (SampleMetadata's
# cockroach_sha256_source).
SHA_FLAG = 'flag'  # --cloud_report_cockroachdb_sha256
SHA_VENDOR = 'vendor_sha256sum'  # <tarball>.sha256sum fetched over HTTPS
INSTALL_STAMP = 'install.json'

_VERSION_FLAG = flags.DEFINE_string(
    'cloud_report_cockroachdb_version',
    DEFAULT_VERSION,
    'CockroachDB release to install (official tarball).',
)
_ARM64_VERSION_FLAG = flags.DEFINE_string(
    'cloud_report_cockroachdb_arm64_version',
    AUTO,
    'CockroachDB release to install on arm64 machines. auto:'
    ' --cloud_report_cockroachdb_version where it has a linux-arm64 build'
    f' (v22.2.0 and later), else {ARM64_DEFAULT_VERSION}. The amd64 machines'
    ' run --cloud_report_cockroachdb_version.',
)
_SHA256_FLAG = flags.DEFINE_list(
    'cloud_report_cockroachdb_sha256',
    [],
    'ARCH=SHA256 pairs (ARCH amd64 or arm64): the sha256 of the release'
    ' tarball for that architecture, from a source you trust. No sha256 is'
    ' pinned: each architecture the run installs needs one, or'
    ' --cloud_report_cockroachdb_vendor_checksum.',
)
_ARCH_FLAG = flags.DEFINE_enum(
    'cloud_report_cockroachdb_arch',
    AUTO,
    [AUTO, *ARCHS],
    'CPU architecture of the VMs for CockroachDB. auto: from the machine'
    " type (PKB's ARM machine families) before provisioning, and from"
    ' `uname -m` on the VM; set it where the machine type says nothing'
    ' (static VMs).',
)
_VENDOR_CHECKSUM_FLAG = flags.DEFINE_boolean(
    'cloud_report_cockroachdb_vendor_checksum',
    False,
    'Where no sha256 is given for the release and architecture,'
    " check the tarball against the vendor's published <tarball>.sha256sum,"
    ' fetched over HTTPS on the VM (recorded in the samples as'
    f' cockroach_sha256_source={SHA_VENDOR}).',
)


def _CheckVersion(value) -> bool:
  if not _VERSION.match(value or ''):
    raise flags.ValidationError(
        f'--cloud_report_cockroachdb_version={value!r}: expected a release'
        ' such as v20.2.7'
    )
  return True


def _CheckArm64Version(value) -> bool:
  if value != AUTO and not _VERSION.match(value or ''):
    raise flags.ValidationError(
        f'--cloud_report_cockroachdb_arm64_version={value!r}: expected auto'
        ' or a release such as v22.2.19'
    )
  return True


def _CheckSha256(values) -> bool:
  try:
    ParseSha256Overrides(values)
  except ValueError as e:
    raise flags.ValidationError(f'--cloud_report_cockroachdb_sha256: {e}')
  return True


def _CheckArchFlags(values) -> bool:
  """Validates --cloud_report_cockroachdb_arch with the version flags.

  Only that the release has a build for the architecture: its sha256 may
  come from a benchmark config's flags, applied after the command line is
  parsed, so CheckRelease() checks it before provisioning.
  """
  arch = values['cloud_report_cockroachdb_arch']
  if arch not in ARCHS:
    return True
  try:
    version = VersionFor(
        arch,
        values['cloud_report_cockroachdb_version'],
        values['cloud_report_cockroachdb_arm64_version'],
    )
    has_build = HasBuild(version, arch)
  except ValueError as e:
    raise flags.ValidationError(str(e)) from e
  if not has_build:
    raise flags.ValidationError(str(_NoBuild(version, arch)))
  return True


flags.register_validator('cloud_report_cockroachdb_version', _CheckVersion)
flags.register_validator(
    'cloud_report_cockroachdb_arm64_version', _CheckArm64Version
)
flags.register_validator('cloud_report_cockroachdb_sha256', _CheckSha256)
flags.register_multi_flags_validator(
    [
        'cloud_report_cockroachdb_arch',
        'cloud_report_cockroachdb_version',
        'cloud_report_cockroachdb_arm64_version',
    ],
    _CheckArchFlags,
)


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


def ReleaseTuple(version: str) -> tuple[int, int, int]:
  m = _VERSION.match(version or '')
  if not m:
    raise ValueError(f'{version!r} is not a release such as v20.2.7')
  return int(m.group(1)), int(m.group(2)), int(m.group(3))


def HasBuild(version: str, arch: str) -> bool:
  """Whether CockroachDB publishes a Linux tarball of version for arch."""
  return arch == 'amd64' or ReleaseTuple(version) >= FIRST_ARM64_RELEASE


def VersionFor(
    arch: str, version: str | None = None, arm64_version: str | None = None
) -> str:
  """The release machines of arch run (see the module docstring).

  Arguments left None are read from the flags: version is
  --cloud_report_cockroachdb_version, arm64_version
  --cloud_report_cockroachdb_arm64_version.
  """
  if version is None:
    version = _VERSION_FLAG.value
  if arch != 'arm64':
    return version
  if arm64_version is None:
    arm64_version = _ARM64_VERSION_FLAG.value
  if arm64_version != AUTO:
    return arm64_version
  return version if HasBuild(version, arch) else ARM64_DEFAULT_VERSION


def _NoBuild(version: str, arch: str) -> Exception:
  return errors.Setup.InvalidConfigurationError(
      f'CockroachDB publishes no linux-{arch} build of {version} (official'
      ' arm64 tarballs start with v22.2.0): pass'
      ' --cloud_report_cockroachdb_arm64_version=v22.2.0 or later (or'
      ' auto) for arm64 machines'
  )


def Sha256Source(
    version: str, arch: str, overrides=None, vendor_checksum: bool = False
) -> str:
  """Where the tarball's expected sha256 comes from (SHA_*).

  Raises:
    errors.Setup.InvalidConfigurationError: there is no build of version for
      arch, or no sha256 is given and vendor_checksum is off.
  """
  if not HasBuild(version, arch):
    raise _NoBuild(version, arch)
  if arch in (overrides or {}):
    return SHA_FLAG
  if vendor_checksum:
    return SHA_VENDOR
  raise errors.Setup.InvalidConfigurationError(
      f'no sha256 pinned for {Tarball(version, arch)}. Pass its sha256, from'
      ' a source you trust, with'
      f' --cloud_report_cockroachdb_sha256={arch}=<sha256>, or opt in to'
      f' checking it against {URL.format(tarball=Tarball(version, arch))}'
      '.sha256sum, fetched over HTTPS on the VM, with'
      ' --cloud_report_cockroachdb_vendor_checksum.'
  )


def CheckRelease(
    arch: str,
    version: str | None = None,
    overrides=None,
    vendor_checksum: bool | None = None,
) -> str:
  """Checks that version can be installed on arch; returns Sha256Source.

  Arguments left None are read from the flags (version: VersionFor(arch)).

  Raises:
    errors.Setup.InvalidConfigurationError: see Sha256Source.
  """
  if version is None:
    version = VersionFor(arch)
  if overrides is None:
    overrides = ParseSha256Overrides(_SHA256_FLAG.value)
  if vendor_checksum is None:
    vendor_checksum = _VENDOR_CHECKSUM_FLAG.value
  return Sha256Source(version, arch, overrides, vendor_checksum)


def ExpectedSha256(version: str, arch: str, overrides=None) -> str:
  """Returns the sha256 given for the tarball (overrides, {arch: sha256}).

  Raises:
    errors.Setup.InvalidConfigurationError: none is given.
  """
  Sha256Source(version, arch, overrides)
  return overrides[arch]


def ArchOfMachineType(cloud: str | None, machine_type: str | None):
  """'arm64' or 'amd64' for a machine type of AWS, GCP or Azure, else None.

  Uses the providers' own tables of ARM machine families (Graviton's c6g,
  m7g, ...; GCP's t2a, c4a; Azure's D/E *p* sizes). None where PKB cannot
  tell: another cloud, no machine type (e.g. custom CPU and memory on GCP
  are x86), or a provider module that cannot be imported.
  """
  if not machine_type or not isinstance(machine_type, str):
    return None
  try:
    if cloud == 'AWS':
      # pylint: disable=g-import-not-at-top,import-outside-toplevel
      from perfkitbenchmarker.providers.aws import aws_virtual_machine

      arm = aws_virtual_machine.GetArmArchitecture(machine_type)
    elif cloud == 'GCP':
      # pylint: disable=g-import-not-at-top,import-outside-toplevel
      from perfkitbenchmarker.providers.gcp import gce_virtual_machine

      arm = gce_virtual_machine.GetArmArchitecture(machine_type)
    elif cloud == 'Azure':
      # pylint: disable=g-import-not-at-top,import-outside-toplevel
      from perfkitbenchmarker.providers.azure import azure_virtual_machine

      arm = azure_virtual_machine._MachineTypeIsArm(machine_type)  # pylint: disable=protected-access
    else:
      return None
  except ImportError as e:
    logging.warning('cockroachdb: cannot tell the architecture of %s on %s:'
                    ' %s', machine_type, cloud, e)  # fmt: skip
    return None
  return 'arm64' if arm else 'amd64'


def DeclaredArch(cloud: str | None, machine_type: str | None):
  """The architecture known before provisioning: the flag, else the type."""
  if _ARCH_FLAG.value != AUTO:
    return _ARCH_FLAG.value
  return ArchOfMachineType(cloud, machine_type)


def RootDir() -> str:
  return posixpath.join(linux_packages.INSTALL_DIR, 'cloud_report_cockroachdb')


def BinaryPath() -> str:
  """The cockroach binary (its lib/ with libgeos sits beside it)."""
  return posixpath.join(RootDir(), 'cockroach')


def MachineArch(vm) -> str:
  """Returns the VM's architecture as the release names it (amd64, arm64)."""
  out, _ = vm.RemoteCommand('uname -m')
  machine = out.strip()
  if machine not in ARCH_OF_MACHINE:
    raise errors.Setup.InvalidConfigurationError(
        f'{vm.name}: no CockroachDB Linux build for machine {machine!r}'
    )
  arch = ARCH_OF_MACHINE[machine]
  if _ARCH_FLAG.value not in (AUTO, arch):
    raise errors.Setup.InvalidConfigurationError(
        f'{vm.name} is {machine} ({arch}), not'
        f' --cloud_report_cockroachdb_arch={_ARCH_FLAG.value}'
    )
  return arch


def VendorChecksumCommand(tarball: str) -> str:
  """Fetches the vendor's published checksum of tarball, HTTPS only."""
  return (
      "curl -fsSL --proto '=https' --tlsv1.2"
      f' {URL.format(tarball=tarball)}.sha256sum'
  )


def Install(vm) -> None:
  """Puts the verified cockroach binary at BinaryPath() on the VM.

  Needs no package manager when the tarball is in the data search path, so
  it is called directly (vm.Install does nothing where install_packages is
  off, e.g. on static VMs). Records what it installed in InstalledInfo.
  """
  arch = MachineArch(vm)
  version = VersionFor(arch)
  tarball = Tarball(version, arch)
  overrides = ParseSha256Overrides(_SHA256_FLAG.value)
  source = CheckRelease(arch, version, overrides)
  installed = _InstallRecord(vm)
  if _SameRelease(installed, version, arch, source, overrides):
    logging.info(
        '%s: CockroachDB %s (%s) is installed already', vm.name, version, arch
    )
    return
  root = RootDir()
  tar_path = posixpath.join(root, tarball)
  vm.RemoteCommand(f'sudo mkdir -p {root} && sudo chmod 777 {root}')
  if data.ResourceExists(tarball):
    vm.PushDataFile(tarball, tar_path)
    origin = 'data search path'
  else:
    url = URL.format(tarball=tarball)
    logging.info('%s not in the data search path; downloading %s', tarball, url)
    vm.InstallPackages('curl')
    vm.RemoteCommand(f'curl -fsSL -o {tar_path} {url}')
    origin = url
  if source == SHA_VENDOR:
    out, _ = vm.RemoteCommand(VendorChecksumCommand(tarball))
    m = _SHA256.search(out)
    if not m:
      raise errors.Setup.BadPreprovisionedDataError(
          f'{URL.format(tarball=tarball)}.sha256sum holds no sha256:'
          f' {out[:200]!r}'
      )
    expected = m.group(1)
  else:
    expected = ExpectedSha256(version, arch, overrides)
  out, _ = vm.RemoteCommand(f'sha256sum {tar_path}')
  m = _SHA256.search(out)
  actual = m.group(1) if m else None
  if actual != expected:
    raise errors.Setup.BadPreprovisionedDataError(
        f'{tarball} from the {origin}: sha256 {actual}, expected {expected}'
        f' ({source})'
    )
  stamp = json.dumps({
      'version': version,
      'arch': arch,
      'sha256': actual,
      'sha256_source': source,
  })
  vm.RemoteCommand(
      f'tar -xzf {tar_path} -C {root} --strip-components=1 && '
      f'{BinaryPath()} version && printf %s {shlex.quote(stamp)} >'
      f' {posixpath.join(root, INSTALL_STAMP)}'
  )


def _InstallRecord(vm) -> dict | None:
  """What an earlier Install recorded on the VM (None: nothing usable)."""
  stamp = posixpath.join(RootDir(), INSTALL_STAMP)
  out, _, code = vm.RemoteCommandWithReturnCode(
      f'cat {stamp} && {BinaryPath()} version >/dev/null', ignore_failure=True
  )
  if code:
    return None
  try:
    record = json.loads(out)
  except ValueError:
    return None
  return record if isinstance(record, dict) else None


def _SameRelease(record, version, arch, source, overrides) -> bool:
  """Whether an install record is the release Install would put there."""
  if not record:
    return False
  if (record.get('version'), record.get('arch')) != (version, arch):
    return False
  if source == SHA_VENDOR:  # checked against the vendor's file then
    return record.get('sha256_source') == SHA_VENDOR
  return record.get('sha256') == ExpectedSha256(version, arch, overrides)


def InstalledInfo(vm) -> dict:
  """What Install put on the VM: version, arch, sha256, sha256_source."""
  out, _ = vm.RemoteCommand(f'cat {posixpath.join(RootDir(), INSTALL_STAMP)}')
  try:
    return json.loads(out)
  except ValueError as e:
    raise errors.Benchmarks.RunError(
        f'{vm.name}: no CockroachDB install record in {RootDir()}: {out!r}'
    ) from e


def SampleMetadata(info: dict) -> dict:
  """Samples' metadata for an install (InstalledInfo).

  The report's TPC-C figures come from v20.2 on amd64; other releases, and
  arm64 (which has no v20.2 build), are not comparable with them.
  """
  version, arch = info.get('version', ''), info.get('arch', '')
  comparable = arch == 'amd64' and version.startswith('v20.2.')
  md = {
      'cockroach_version': version,
      'cockroach_arch': arch,
      'cockroach_sha256': info.get('sha256'),
      'cockroach_sha256_source': info.get('sha256_source'),
      'comparable_with_report': comparable,
  }
  if not comparable:
    md['not_comparable_reason'] = (
        f'CockroachDB {version} on {arch}; the report ran v20.2 on amd64'
    )
  return md


def Uninstall(vm) -> None:
  vm.RemoteCommand(f'sudo rm -rf {RootDir()}')
