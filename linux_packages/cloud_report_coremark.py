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
"""Installs CoreMark v1.01 source from a verified tarball, and builds it.

Why not PKB's `coremark` package: it always downloads the tag's archive with
wget from GitHub, so it cannot install offline, and it checks nothing. PKB's
preprovisioned-data path (vm.InstallPreprovisionedPackageData) does not fit
either: it pushes a file found in the data search path without checking its
sha256, and its fallback download saves the file under the URL's base name
and then checksums a file of the data name.

This package takes the tarball from the data search path when it is there
(e.g. a coremark-v1.01.tar.gz made with `git archive` of the tag)
and otherwise downloads the tag's archive from GitHub. GitHub compresses its
archives itself, so their bytes (and sha256) need not match ours; what is
pinned is therefore checked at three levels:
- the tarball's sha256, required for the data-search-path tarball;
- the commit id git archive writes in the tar's pax header (what
  `git get-tar-commit-id` reads), required for both;
- the sha256 of the extracted file tree (each file's sha256, sorted by path),
  required for both: it is the same for any archive of that commit.
"""

import logging
import posixpath
import re

from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker import linux_packages

PACKAGE_NAME = 'cloud_report_coremark'
VERSION = 'v1.01'
COMMIT = 'cfa9ab377835911f23d9b0831c7be302ed1f58de'
TARBALL = 'coremark-v1.01.tar.gz'
TARBALL_SHA256 = (
    'b49f82b132b61df0ac99dc099760c4803521848e88d51678c6e32e9e5d82da71'
)
TREE_SHA256 = '2f777054d567f29c253c353a84bc11423c94ae84e3054089300e4bbbdf33dd90'
GITHUB_URL = 'https://github.com/eembc/coremark/archive/refs/tags/v1.01.tar.gz'
PORT_DIR = 'linux64'  # CoreMark's own choice for any 64-bit Linux, arm64 too
SOURCE_DATA_PATH = 'data search path'
SOURCE_GITHUB = 'github'

# The performance run's arguments (the Makefile's run1.log PARAM1): seeds 0,
# 0, 0x66, the iteration count, all three algorithms (7), 1 and 2000 bytes.
_PERFORMANCE_SEEDS = ('0x0', '0x0', '0x66')
_PERFORMANCE_TAIL = ('7', '1', '2000')
# Parallelism method -> (CoreMark define, extra libraries).
PARALLELISM = {
    'pthread': ('USE_PTHREAD', '-lpthread'),
    'fork': ('USE_FORK', ''),
    'socket': ('USE_SOCKET', ''),
}
_SHA256 = re.compile(r'\b([0-9a-f]{64})\b')
_PAX_COMMIT = re.compile(r'comment=([0-9a-f]{40})')


def RootDir() -> str:
  """Where this package keeps everything on the VM (read at call time)."""
  return posixpath.join(linux_packages.INSTALL_DIR, PACKAGE_NAME)


def SourceDir() -> str:
  return posixpath.join(RootDir(), 'coremark-' + VERSION.lstrip('v'))


def BinaryPath(name: str) -> str:
  return posixpath.join(RootDir(), 'bin', name)


def CompileFlags(threads: int, parallelism: str | None) -> tuple[str, str]:
  """Returns (XCFLAGS, LFLAGS_END) for a build.

  Args:
    threads: contexts to run in parallel; 1 builds the single-core binary.
    parallelism: pthread, fork or socket; ignored for one thread.
  """
  if threads < 1:
    raise ValueError(f'CoreMark needs at least one thread, got {threads}')
  if threads == 1:
    return '', '-lrt'
  if parallelism not in PARALLELISM:
    raise ValueError(
        f'unknown CoreMark parallelism {parallelism!r}; expected one of'
        f' {", ".join(PARALLELISM)}'
    )
  define, libs = PARALLELISM[parallelism]
  return f'-DMULTITHREAD={threads} -D{define}', f'-lrt {libs}'.strip()


def BuildCommand(name: str, threads: int, parallelism: str | None) -> str:
  """Returns the command that builds one binary, BinaryPath(name)."""
  xcflags, lflags = CompileFlags(threads, parallelism)
  return (
      f'cd {SourceDir()} && make PORT_DIR={PORT_DIR} clean >/dev/null && '
      f'make PORT_DIR={PORT_DIR} XCFLAGS="{xcflags}" LFLAGS_END="{lflags}"'
      f' link && mkdir -p {posixpath.dirname(BinaryPath(name))} && '
      f'mv coremark.exe {BinaryPath(name)}'
  )


def RunCommand(name: str, iterations: int) -> str:
  """Returns the command for one performance run of a built binary.

  Args:
    name: the binary's name (see BuildCommand).
    iterations: iterations per context; 0 lets CoreMark pick a count that
      lasts at least 10 s (what `./coremark.exe` with no arguments does).
  """
  if iterations < 0:
    raise ValueError(f'iterations must be >= 0, got {iterations}')
  args = ' '.join(_PERFORMANCE_SEEDS + (str(iterations),) + _PERFORMANCE_TAIL)
  return f'{BinaryPath(name)} {args}'


def _Fetch(vm, tar_path: str) -> str:
  """Puts the tarball on the VM; returns where it came from."""
  vm.RemoteCommand(f'mkdir -p {RootDir()}')
  if data.ResourceExists(TARBALL):
    vm.PushDataFile(TARBALL, tar_path)
    return SOURCE_DATA_PATH
  logging.info(
      '%s not in the data search path; downloading %s', TARBALL, GITHUB_URL
  )
  vm.Install('wget')
  vm.RemoteCommand(f'wget -q -O {tar_path} {GITHUB_URL}')
  return SOURCE_GITHUB


def _Check(what: str, actual: str | None, expected: str, source: str) -> None:
  if actual != expected:
    raise errors.Setup.BadPreprovisionedDataError(
        f'CoreMark {VERSION} tarball from the {source}: {what} is {actual},'
        f' expected {expected}'
    )


def Verify(vm, tar_path: str, source: str) -> None:
  """Checks the tarball on the VM and extracts it into SourceDir().

  Args:
    vm: the VM.
    tar_path: the tarball on the VM.
    source: SOURCE_DATA_PATH (the exact tarball is required) or SOURCE_GITHUB.

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
  tar_sha = m.group(1) if m else None
  logging.info('CoreMark tarball from the %s: sha256 %s', source, tar_sha)
  if source == SOURCE_DATA_PATH:
    _Check('sha256', tar_sha, TARBALL_SHA256, source)
  m = _PAX_COMMIT.search(out)
  _Check('git commit (pax header)', m.group(1) if m else None, COMMIT, source)
  src = SourceDir()
  # Extracted only after the checks above; the tree hashed in the same
  # command.
  out, _ = vm.RemoteCommand(
      f'rm -rf {src} && mkdir -p {src} && '
      f'tar -xzf {tar_path} -C {src} --strip-components=1 && '
      f'cd {src} && find . -type f -print0 | LC_ALL=C sort -z | '
      'xargs -0 sha256sum | sha256sum'
  )
  m = _SHA256.search(out)
  _Check('file tree sha256', m.group(1) if m else None, TREE_SHA256, source)


def InstallSource(vm) -> str:
  """Puts the verified CoreMark source in SourceDir(); returns its origin.

  Needs no package manager: on hosts where vm.Install() does nothing (PKB's
  --install_packages=false) call this directly.
  """
  tar_path = posixpath.join(RootDir(), TARBALL)
  source = _Fetch(vm, tar_path)
  Verify(vm, tar_path, source)
  return source


def Install(vm) -> None:
  """Installs a compiler and the verified CoreMark source on the VM."""
  vm.Install('build_tools')
  InstallSource(vm)


def Uninstall(vm) -> None:
  vm.RemoteCommand(f'rm -rf {RootDir()}')
