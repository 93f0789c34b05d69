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
"""The hosts' OS images: Debian root file systems built with mmdebstrap.

An image is a directory tree made once from Debian's registry and cached
under $PKB_EXT_CACHE/images/, keyed by everything that goes into it (suite,
mirror, components, package list, and the files written into it): the same
key is never built twice, and a change of any of them builds a new one. A
host's root is an overlay of the image (read-only, shared) and the host's
own upper layer (see hostfs), so nothing a host does reaches the image.

Each image is configured the way a cloud image is for its network: apt
through an HTTP proxy (apt-cacher-ng on the bridge) and pip through an index
(proxpi on the bridge), both named MIRROR_HOST, which each host's /etc/hosts
maps to its bridge address (see mirrors).
"""

import contextlib
import dataclasses
import datetime
import fcntl
import hashlib
import json
import os
import shutil

from pkb_ext import paths
from pkb_ext.local import system

DEFAULT_IMAGE = 'debian12'
HOST_IMAGE = 'host'  # no image: the hosts overlay this machine's software
IMAGE_ENV = 'PKB_EXT_LOCAL_IMAGE'
MIRROR_URL = 'http://deb.debian.org/debian'
SECURITY_URL = 'http://deb.debian.org/debian-security'
MIRROR_HOST = 'pkb-ext-mirror'  # the bridge, in each host's /etc/hosts
APT_PROXY_PORT = 23142
PIP_INDEX_PORT = 23141
BUILD_TIMEOUT_S = 1200

# What a minimal Debian cloud image has that PKB relies on: sshd, python3
# (PKB's remote scripts), sudo, and the tools PKB runs on every VM (ip, ps,
# killall, lsmod, hostname; mke2fs, which Debian 13's minbase lacks and a
# cloud image's ext4 root never does). python3-pip: PKB's pip package uses
# the image's pip and only falls back to downloading get-pip.py, which the
# hosts cannot reach.
PACKAGES = (
    'ca-certificates',
    'e2fsprogs',
    'hostname',
    'iproute2',
    'kmod',
    'netbase',
    'openssh-server',
    'procps',
    'psmisc',
    'python3',
    'python3-pip',
    'sudo',
)
# netperf, which the net phase installs from the OS, is in non-free.
COMPONENTS = ('main', 'non-free')

# The image's own configuration: (path, text). No service starts at package
# install (the hosts have no init system: a phase starts what it runs).
_FILES = (
    # No pipelining through the proxy: apt-cacher-ng may close a
    # connection mid-pipeline when hosts refresh the same index at once, and
    # apt then waits on it for good; a timeout and retries get it past that.
    (
        'etc/apt/apt.conf.d/01pkb-ext-proxy',
        (
            f'Acquire::http::Proxy "http://{MIRROR_HOST}:{APT_PROXY_PORT}";\n'
            'Acquire::http::Pipeline-Depth "0";\n'
            'Acquire::http::Timeout "30";\n'
            'Acquire::Retries "3";\n'
        ),
    ),
    (
        'etc/pip.conf',
        (
            '[global]\nindex-url ='
            f' http://{MIRROR_HOST}:{PIP_INDEX_PORT}/index/\ntrusted-host ='
            f' {MIRROR_HOST}\n'
        ),
    ),
    ('usr/sbin/policy-rc.d', '#!/bin/sh\nexit 101\n'),
)


@dataclasses.dataclass(frozen=True)
class Image:
  """One OS image the local cloud can run its hosts from."""

  name: str  # what --image takes
  os_type: str  # PKB's os_type of the hosts
  suite: str  # Debian's code name
  python: str  # the suite's python3, major.minor

  def Sources(self) -> str:
    """The image's /etc/apt/sources.list.d/debian.sources (deb822)."""
    components = ' '.join(COMPONENTS)
    return (
        f'Types: deb\nURIs: {MIRROR_URL}\n'
        f'Suites: {self.suite} {self.suite}-updates\n'
        f'Components: {components}\n'
        'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n'
        f'Types: deb\nURIs: {SECURITY_URL}\nSuites: {self.suite}-security\n'
        f'Components: {components}\n'
        'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
    )

  def Files(self) -> tuple[tuple[str, str], ...]:
    return _FILES + (('etc/apt/sources.list.d/debian.sources', self.Sources()),)

  @property
  def key(self) -> str:
    """A digest of everything the image is built from."""
    recipe = {
        'suite': self.suite,
        'mirror': MIRROR_URL,
        'built_from': 'sources',  # Sources(): the suite, updates, security
        'components': COMPONENTS,
        'packages': PACKAGES,
        'files': self.Files(),
    }
    digest = hashlib.sha256(json.dumps(recipe, sort_keys=True).encode())
    return digest.hexdigest()[:12]


IMAGES = {
    i.name: i
    for i in (
        Image('debian12', 'debian12', 'bookworm', '3.11'),
        Image('debian13', 'debian13', 'trixie', '3.13'),
    )
}
CHOICES = tuple(IMAGES) + (HOST_IMAGE,)


def DefaultImage() -> str:
  return os.environ.get(IMAGE_ENV) or DEFAULT_IMAGE


def CacheRoot() -> str:
  return os.path.join(paths.CacheDir(), 'images')


def RootDir(image: Image) -> str:
  """Where the image's root file system is (once built)."""
  return os.path.join(CacheRoot(), f'{image.name}-{image.key}', 'root')


def ManifestPath(image: Image) -> str:
  return os.path.join(os.path.dirname(RootDir(image)), 'manifest.json')


@contextlib.contextmanager
def _Lock(path: str):
  os.makedirs(os.path.dirname(path), exist_ok=True)
  with open(path, 'w') as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)  # another build of it: wait for it
    yield


def Ensure(image: Image, log=print) -> str:
  """Builds the image unless cached; returns its root directory.

  Raises:
    system.LocalCloudError: mmdebstrap is missing or the build failed.
  """
  root = RootDir(image)
  with _Lock(os.path.join(CacheRoot(), f'.{image.name}.lock')):
    if os.path.exists(ManifestPath(image)):
      return root
    if not shutil.which('mmdebstrap'):
      raise system.LocalCloudError(
          'mmdebstrap is missing (a Debian package): run scripts/setup.sh,'
          ' or `up --image=host`'
      )
    top = os.path.dirname(root)
    shutil.rmtree(top, ignore_errors=True)  # a build that died
    os.makedirs(top)
    part = root + '.part'
    log(f'image {image.name}: building Debian {image.suite} with mmdebstrap')
    started = datetime.datetime.now(datetime.timezone.utc)
    argv = [
        'mmdebstrap', '--mode=root', '--variant=minbase',
        f'--components={",".join(COMPONENTS)}',
        f'--include={",".join(PACKAGES)}',
        # Cloud images make their sshd host keys at first boot; so do the
        # hosts (hostfs), so none is baked in.
        '--customize-hook=rm -f "$1"/etc/ssh/ssh_host_*',
        '--customize-hook=: > "$1"/etc/machine-id',
        # The sources on stdin: the suite, its updates and security archive,
        # so the image has its suite's updates, as a cloud image has when
        # built (PKB's package restore on static VMs would otherwise
        # upgrade them on each host at the end of every run).
        image.suite, part, '-',
    ]  # fmt: skip
    system.Run(argv, input_text=image.Sources(), timeout=BUILD_TIMEOUT_S)
    apt = os.path.join(part, 'etc', 'apt')
    with contextlib.suppress(FileNotFoundError):
      os.remove(os.path.join(apt, 'sources.list'))
    for name in os.listdir(os.path.join(apt, 'sources.list.d')):
      os.remove(os.path.join(apt, 'sources.list.d', name))  # ours follows
    for rel, text in image.Files():
      path = os.path.join(part, rel)
      os.makedirs(os.path.dirname(path), exist_ok=True)
      with open(path, 'w') as f:
        f.write(text)
      os.chmod(path, 0o755 if rel.startswith('usr/sbin/') else 0o644)
    packages = system.Run(
        ['chroot', part, 'dpkg-query', '-W', '-f', '${Package}=${Version}\n']
    ).stdout.split()
    python = system.Run(
        ['chroot', part, 'python3', '-c', 'import sys; print(sys.version)']
    ).stdout.split()[0]
    os.rename(part, root)
    manifest = {
        'name': image.name,
        'os_type': image.os_type,
        'suite': image.suite,
        'key': image.key,
        'built': started.isoformat(timespec='seconds'),
        'python': python,
        'packages': packages,
    }
    with open(ManifestPath(image), 'w') as f:
      json.dump(manifest, f, indent=1)
    log(f'image {image.name}: {root} (Python {python}, {len(packages)} pkgs)')
    return root
