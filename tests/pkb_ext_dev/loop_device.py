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
"""A private direct-I/O loop device for io phase tests and benchmarks.

LoopDevice makes an image file in its own temp dir, attaches it with
`losetup --find --show --direct-io=on` and, on exit, detaches exactly the
device it attached (never by pattern), after unmounting whatever it mounted
itself. Needs root.
"""

import contextlib
import os
import shutil
import subprocess
import tempfile

ROOT_REQUIRED = 'loop devices need root'
_TOOLS = ('losetup', 'mkfs.ext4', 'mount', 'umount', 'findmnt', 'fio')


def Unavailable() -> str | None:
  """Returns why a loop device cannot be used here, or None."""
  if os.geteuid() != 0:
    return ROOT_REQUIRED
  missing = [t for t in _TOOLS if not shutil.which(t)]
  if missing:
    return f'missing tools: {", ".join(missing)}'
  return None


def _Run(*argv) -> str:
  return subprocess.run(
      argv, capture_output=True, text=True, check=True
  ).stdout.strip()


class LoopDevice(contextlib.AbstractContextManager):
  """A loop device over a file in a private temp dir; see module docstring.

  Attributes:
    dir: the temp dir (image, mount points).
    image: the backing file.
    device: e.g. /dev/loop7, set on entry.
  """

  def __init__(
      self,
      size_bytes: int = 1 << 30,
      prefix: str = 'pkb-ext-fio-',
      directory: str | None = None,
  ):
    """Plans the device; nothing is made before entry.

    Args:
      size_bytes: the image's size.
      prefix: of the temp dir's name.
      directory: where the temp dir goes (default: the system's temp dir);
        e.g. /dev/shm for a RAM-backed device that other jobs' disk I/O
        cannot disturb.
    """
    self.size_bytes = size_bytes
    self.dir = tempfile.mkdtemp(prefix=prefix, dir=directory)
    self.image = os.path.join(self.dir, 'disk.img')
    self.device = None
    self._mounts = []

  def __enter__(self):
    with open(self.image, 'wb') as f:
      f.truncate(self.size_bytes)
    self.device = _Run(
        'losetup', '--find', '--show', '--direct-io=on', self.image
    )
    backing = _Run('losetup', '--noheadings', '-O', 'BACK-FILE', self.device)
    if os.path.realpath(backing) != os.path.realpath(self.image):
      raise RuntimeError(f'{self.device} is backed by {backing}, not ours')
    return self

  def MkfsAndMount(self, name: str = 'mnt') -> str:
    """Makes an ext4 file system on the device, mounts it in the temp dir."""
    mount_point = os.path.join(self.dir, name)
    os.makedirs(mount_point, exist_ok=True)
    _Run('mkfs.ext4', '-q', '-F', self.device)
    _Run('mount', self.device, mount_point)
    self._mounts.append(mount_point)
    return mount_point

  def Track(self, mount_point: str) -> None:
    """Unmount this mount point of the device on exit too."""
    self._mounts.append(mount_point)

  def MountedOn(self) -> list[str]:
    out = subprocess.run(
        ['findmnt', '-rno', 'TARGET', '--source', self.device],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return out.split()

  def __exit__(self, *exc):
    for mount_point in reversed(self._mounts):
      if mount_point in self.MountedOn():
        subprocess.run(['umount', mount_point], check=False)
    if self.device:
      backing = subprocess.run(
          ['losetup', '--noheadings', '-O', 'BACK-FILE', self.device],
          capture_output=True,
          text=True,
          check=False,
      ).stdout.strip()
      if os.path.realpath(backing) == os.path.realpath(self.image):
        subprocess.run(['losetup', '--detach', self.device], check=False)
    shutil.rmtree(self.dir, ignore_errors=True)
    return False
