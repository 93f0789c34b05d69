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
"""Data disks: pre-filled image files behind direct-I/O loop devices."""

import os

from pkb_ext.local import system

_FILL_CHUNK = 16 * 1024 * 1024


def FillImage(path: str, size: int) -> None:
  """Writes an image of exactly size bytes of incompressible data.

  A sparse or zero-filled file would read back without touching the disk; a
  cloud volume in the report was pre-filled by fio's fill job, so this is too.
  Each 16 MiB chunk differs (its first bytes carry its index).
  """
  os.makedirs(os.path.dirname(path), exist_ok=True)
  part = path + '.part'
  block = bytearray(os.urandom(_FILL_CHUNK))
  with open(part, 'wb') as f:
    written = 0
    index = 0
    while written < size:
      block[:8] = index.to_bytes(8, 'little')
      n = min(_FILL_CHUNK, size - written)
      f.write(block[:n] if n < _FILL_CHUNK else block)
      written += n
      index += 1
    f.flush()
    os.fsync(f.fileno())
  os.replace(part, path)


def BackingFile(device: str) -> str | None:
  """Returns the file behind a loop device, or None if it has none."""
  name = os.path.basename(device)
  try:
    with open(f'/sys/block/{name}/loop/backing_file') as f:
      return f.read().strip()
  except OSError:
    return None


def DirectIo(device: str) -> bool:
  name = os.path.basename(device)
  try:
    with open(f'/sys/block/{name}/loop/dio') as f:
      return f.read().strip() == '1'
  except OSError:
    return False


def FindLoop(image: str) -> str | None:
  """Returns the loop device backed by image, if any."""
  out = system.Run(['losetup', '-j', image, '-O', 'NAME', '-n'], check=False)
  names = out.stdout.split()
  return names[0] if names else None


def Attach(image: str) -> str:
  """Attaches image to a free loop device with direct I/O on.

  Returns:
    The device, e.g. /dev/loop3.

  Raises:
    system.LocalCloudError: if the kernel did not turn direct I/O on.
  """
  device = system.Run(
      ['losetup', '--find', '--show', '--direct-io=on', image]
  ).stdout.strip()
  if not DirectIo(device):
    # The backing file system's block size may need a matching sector size.
    system.Run(['losetup', '--detach', device])
    device = system.Run([
        'losetup', '--find', '--show', '--direct-io=on',
        '--sector-size', '4096', image,
    ]).stdout.strip()  # fmt: skip
    if not DirectIo(device):
      system.Run(['losetup', '--detach', device])
      raise system.LocalCloudError(
          f'the kernel refused direct I/O for {image} on {device}; the local'
          ' cloud needs a state dir on a file system that supports O_DIRECT'
          ' (e.g. ext4, xfs; not tmpfs)'
      )
  return device


def Detach(device: str, image: str) -> bool:
  """Detaches device only if it is still backed by our image."""
  backing = BackingFile(device)
  if backing is None or os.path.realpath(backing) != os.path.realpath(image):
    return False
  system.Run(['losetup', '--detach', device])
  return True
