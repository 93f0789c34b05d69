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
"""CoreMark v1.01 offline: PKB's coremark tree from a verified tarball.

PKB's coremark package downloads the v1.01 tag from GitHub into
coremark_benchmark.COREMARK_DIR; hosts without internet (the local cloud)
cannot, and with --install_packages=false vm.Install() does nothing. With
--cloud_report_coremark_install=data (the local cloud's presets pass it),
before a CoreMark benchmark's Prepare (the cpu phase's suite and standalone
benchmark, and PKB's own coremark) the VM that will run CoreMark
(CoreMarkVms) gets that same tree from the tarball in PKB's data search
path, and PKB's package counts as installed there.

The tarball is checked at three levels before anything is extracted, and a
bad one is refused with one line (errors.Setup.BadPreprovisionedDataError):
- its sha256;
- the commit id git archive writes in the tar's pax header (what
  `git get-tar-commit-id` reads);
- the sha256 of the extracted file tree (each file's sha256, sorted by
  path): the same for any archive of that commit.

--cloud_report_coremark_parallelism is retired: the phase runs PKB's
coremark functions, whose --coremark_parallelism_method says the method.
"""

import dataclasses
import logging
import posixpath
import re

from absl import flags

# PKB modules are imported inside the functions: importing this module (the
# registry does, before PKB parses flags) must not import PKB's benchmarks.
# pylint: disable=g-import-not-at-top

VERSION = 'v1.01'
COMMIT = 'cfa9ab377835911f23d9b0831c7be302ed1f58de'
TARBALL = 'coremark-v1.01.tar.gz'
TARBALL_SHA256 = (
    'b49f82b132b61df0ac99dc099760c4803521848e88d51678c6e32e9e5d82da71'
)
TREE_SHA256 = '2f777054d567f29c253c353a84bc11423c94ae84e3054089300e4bbbdf33dd90'
# PKB's package name, and the benchmarks that build CoreMark in its tree.
PACKAGE = 'coremark'
BENCHMARKS = ('coremark', 'cloud_report_coremark', 'cloud_report_2021')
INSTALL_PKB = 'pkb'
INSTALL_DATA = 'data'
_SHA256 = re.compile(r'\b([0-9a-f]{64})\b')
_PAX_COMMIT = re.compile(r'comment=([0-9a-f]{40})')

_INSTALL = flags.DEFINE_enum(
    'cloud_report_coremark_install',
    INSTALL_PKB,
    [INSTALL_PKB, INSTALL_DATA],
    "How CoreMark gets on the VMs: pkb (PKB's coremark package: a download"
    f" from GitHub) or data (the verified {TARBALL} from PKB's data search"
    ' path, for hosts without internet).',
)
RETIRED_PARALLELISM = (
    "--cloud_report_coremark_parallelism is retired: use PKB's"
    ' --coremark_parallelism_method=PTHREAD|FORK|SOCKET (the cloud_report'
    ' benchmarks default to PTHREAD)'
)
flags.DEFINE_string(
    'cloud_report_coremark_parallelism',
    None,
    'Retired: use --coremark_parallelism_method.',
)
flags.register_validator(
    'cloud_report_coremark_parallelism',
    lambda value: value is None,
    RETIRED_PARALLELISM,
)


def TreeDir() -> str:
  """Where PKB's coremark benchmark builds: its package's extracted tag."""
  from perfkitbenchmarker.linux_benchmarks import coremark_benchmark

  return coremark_benchmark.COREMARK_DIR


@dataclasses.dataclass(frozen=True)
class Staged:
  """What Verify read on the VM, each equal to its expected value."""

  tree: str  # TreeDir(): the extracted tree
  tarball_sha256: str
  commit: str  # of the tarball's pax header
  tree_sha256: str


def _Check(what: str, actual: str | None, expected: str) -> None:
  if actual != expected:
    from perfkitbenchmarker import errors

    raise errors.Setup.BadPreprovisionedDataError(
        f'CoreMark {VERSION} tarball {TARBALL} from the data search path:'
        f' {what} is {actual}, expected {expected}'
    )


def Verify(vm, tar_path: str) -> Staged:
  """Checks the tarball on the VM, then extracts it into TreeDir().

  Returns:
    What it read (the checks passed: the expected values).

  Raises:
    errors.Setup.BadPreprovisionedDataError: a check failed.
  """
  # Both read-only checks of the tarball in one command: its sha256 line,
  # then the git commit of its pax header (a 40-hex comment, never a sha256).
  out, _ = vm.RemoteCommand(
      f'sha256sum {tar_path} && {{ gzip -dc {tar_path} | head -c 1024 |'
      " tr -d '\\000' | grep -ao 'comment=[0-9a-f]*' || true; }"
  )
  m = _SHA256.search(out)
  tar_sha256 = m.group(1) if m else None
  _Check('sha256', tar_sha256, TARBALL_SHA256)
  m = _PAX_COMMIT.search(out)
  commit = m.group(1) if m else None
  _Check('git commit (pax header)', commit, COMMIT)
  tree = TreeDir()
  # Extracted only after the checks above; the tree hashed in the same
  # command.
  out, _ = vm.RemoteCommand(
      f'rm -rf {tree} && mkdir -p {tree} && '
      f'tar -xzf {tar_path} -C {tree} --strip-components=1 && '
      f'cd {tree} && find . -type f -print0 | LC_ALL=C sort -z | '
      'xargs -0 sha256sum | sha256sum'
  )
  m = _SHA256.search(out)
  tree_sha256 = m.group(1) if m else None
  _Check('file tree sha256', tree_sha256, TREE_SHA256)
  return Staged(tree, tar_sha256, commit, tree_sha256)


def StageTree(vm) -> Staged:
  """Puts the verified tree where PKB's coremark package puts it.

  Replaces a tree already there (PKB's coremark Prepare edits its makefile).
  The bench's PKB side stages its tree with it too.

  Returns:
    What Verify read.

  Raises:
    errors.Setup.BadPreprovisionedDataError: the tarball is not in the data
      search path, or a check failed.
  """
  from perfkitbenchmarker import data
  from perfkitbenchmarker import errors

  if not data.ResourceExists(TARBALL):
    raise errors.Setup.BadPreprovisionedDataError(
        f"--cloud_report_coremark_install=data: {TARBALL} is not in PKB's"
        ' data search path (put it there, or use =pkb on hosts with internet)'
    )
  tar_path = posixpath.join(posixpath.dirname(TreeDir()), TARBALL)
  vm.RemoteCommand(f'mkdir -p {posixpath.dirname(tar_path)}')
  vm.PushDataFile(TARBALL, tar_path)
  staged = Verify(vm, tar_path)
  vm.RemoteCommand(f'rm -f {tar_path}')
  return staged


def InstallFromData(vm) -> None:
  """Stages the tree and counts PKB's package as installed on the VM.

  vm.Install('coremark') is then a no-op, as it is on a host whose
  install_packages is False; a compiler comes from PKB's build_tools.
  """
  vm.Install('build_tools')
  StageTree(vm)
  from pkb_ext.suite import placement

  placement.MarkInstalled(vm, PACKAGE)


def CoreMarkVms(spec) -> list:
  """The VMs a benchmark of BENCHMARKS builds and runs CoreMark on.

  PKB's coremark: its first VM. The cloud_report benchmarks: the cpu
  phase's db VM, where the suite places it (beside the io phase under
  overlap, the third db VM, else the second); none when the suite's cpu
  phase does not run.
  """
  if spec.name == PACKAGE:
    return list(spec.vms[:1])
  from pkb_ext.suite import phase_table
  from pkb_ext.suite import placement

  cpu = phase_table.CPU.sample
  topology = placement.PhaseTopology(spec, cpu)
  return [] if topology is None else [topology.DbFor(cpu)]


def BeforePhase(sender, benchmark_spec=None, **_) -> None:
  """PKB's before_phase handler: stages the tree before a Prepare.

  Acts only with --cloud_report_coremark_install=data, before the PREPARE
  stage of a benchmark of BENCHMARKS.
  """
  from perfkitbenchmarker import stages

  if sender != stages.PREPARE or benchmark_spec is None:
    return
  if _INSTALL.value != INSTALL_DATA or benchmark_spec.name not in BENCHMARKS:
    return
  for vm in CoreMarkVms(benchmark_spec):
    logging.info('CoreMark %s from %s on %s', VERSION, TARBALL, vm.name)
    InstallFromData(vm)
