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
"""The io phase's safety guard: fio writes the whole target, so check it.

The io phase destroys what is on its target. Before any write it refuses a
target that

  * is the boot or root device, or a device either is built on (by
    major:minor of the /, /boot and /boot/efi mounts, through lsblk's
    inverse dependency tree, so a root partition or LVM volume protects its
    disk);
  * is mounted (as a file system or as swap);
  * holds a mounted partition (any descendant in lsblk's tree);
  * is missing, or is not a block device (a regular file included).

Nothing can be overridden.

PKB's fio_raw_device check (CheckPrerequisites) builds an error and never
raises it, so nothing here relies on PKB.

Probe(vm, path) runs one read-only shell command on the VM and ParseProbe
turns its output into DeviceFacts; Decide(facts) is pure and returns
the reasons to refuse; Check(vm, path) does both and raises.
"""

import dataclasses
import shlex

from benchmarks import cloud_report
from pkb_ext import errors as pkb_ext_errors
from pkb_ext.suite.disk import commands

_END = 'end-of-probe'

# One read-only command; every line is "<kind>\t<fields...>".
_PROBE = r"""
t={path}
r=$(readlink -f -- "$t" 2>/dev/null); [ -n "$r" ] || r=$t
printf 'resolved\t%s\n' "$r"
if [ -b "$r" ]; then k=block; elif [ -f "$r" ]; then k=file;
elif [ -e "$r" ]; then k=other; else k=missing; fi
printf 'kind\t%s\n' "$k"
if [ "$k" = block ]; then
  lsblk -nrpo NAME,MAJ:MIN,TYPE,MOUNTPOINT -- "$r" |
    while read -r n x ty m; do printf 'tree\t%s\t%s\t%s\t%s\n' "$n" "$x" "$ty" "$m"; done
fi
for mp in / /boot /boot/efi; do
  mm=$(findmnt -nvfo MAJ:MIN --mountpoint "$mp" 2>/dev/null | tr -d ' ')
  [ -n "$mm" ] || continue
  d=$(lsblk -nrpo NAME,MAJ:MIN | awk -v mm="$mm" '$2 == mm {{print $1; exit}}')
  printf 'protected\t%s\t%s\t%s\n' "$mp" "$mm" "$d"
  [ -n "$d" ] || continue
  lsblk -nrpso NAME,MAJ:MIN -- "$d" |
    while read -r n x; do printf 'protected\t%s\t%s\t%s\n' "$mp" "$x" "$n"; done
done
findmnt -rno MAJ:MIN,TARGET | while read -r x m; do
  case $x in 0:*) ;; *) printf 'mount\t%s\t%s\n' "$x" "$m" ;; esac
done
echo {end}
"""


class UnsafeTargetError(pkb_ext_errors.Error):
  """fio must not write to this target; the message names it and why."""


@dataclasses.dataclass(frozen=True)
class TreeNode:
  """The target or one of its descendants, as lsblk lists them."""

  name: str
  majmin: str
  type: str
  mountpoint: str  # '' when unmounted, '[SWAP]' for swap


@dataclasses.dataclass(frozen=True)
class DeviceFacts:
  """What the probe found about a target path on a VM."""

  path: str  # as given
  resolved: str  # after symlinks
  kind: str  # block, file, other or missing
  tree: tuple[TreeNode, ...]  # [0] is the target itself, for block devices
  # (mount point, major:minor, device name) of / , /boot, /boot/efi and
  # every device they are built on.
  protected: tuple[tuple[str, str, str], ...]
  # (major:minor, mount point) of every mount of a block device (major > 0).
  mounts: tuple[tuple[str, str], ...]

  @property
  def majmin(self) -> str:
    return self.tree[0].majmin if self.tree else ''


def ProbeCommand(path: str) -> str:
  return _PROBE.format(path=shlex.quote(path), end=_END)


def _Unescape(text: str) -> str:
  """lsblk -r and findmnt -r write spaces and such as \\xHH."""
  return text.encode('latin-1', 'backslashreplace').decode('unicode_escape')


def ParseProbe(path: str, text: str) -> DeviceFacts:
  """Turns the probe's output into DeviceFacts (pure).

  Raises:
    UnsafeTargetError: the probe's output is incomplete, so nothing is known.
  """
  lines = text.splitlines()
  if _END not in (l.strip() for l in lines):
    raise UnsafeTargetError(
        f'refusing to run fio on {path}: the device probe did not complete'
        f' (got {len(lines)} lines), so its safety is unknown'
    )
  resolved, kind = path, 'missing'
  tree, protected, mounts = [], [], []
  for line in lines:
    fields = line.split('\t')
    tag, rest = fields[0], fields[1:]
    if tag == 'resolved' and rest:
      resolved = rest[0]
    elif tag == 'kind' and rest:
      kind = rest[0]
    elif tag == 'tree' and len(rest) >= 3:
      mount = _Unescape(rest[3]) if len(rest) > 3 else ''
      tree.append(TreeNode(rest[0], rest[1], rest[2], mount))
    elif tag == 'protected' and len(rest) >= 2:
      protected.append((rest[0], rest[1], rest[2] if len(rest) > 2 else ''))
    elif tag == 'mount' and len(rest) == 2:
      mounts.append((rest[0], _Unescape(rest[1])))
  return DeviceFacts(
      path=path,
      resolved=resolved,
      kind=kind,
      tree=tuple(tree),
      protected=tuple(protected),
      mounts=tuple(mounts),
  )


def Decide(facts: DeviceFacts) -> list[str]:
  """Returns why fio must not write to the target; empty if it may (pure).

  Args:
    facts: what the probe found.
  """
  if facts.kind == 'missing':
    return [f'{facts.resolved} does not exist']
  reasons = []
  if facts.kind == 'block':
    target = facts.tree[0] if facts.tree else None
    ids = {facts.resolved} | ({target.majmin, target.name} if target else set())
    roots = sorted({mp for mp, mm, name in facts.protected if {mm, name} & ids})
    if roots:
      reasons.append(
          'it is the boot/root device (it holds ' + ', '.join(roots) + ')'
      )
    if target is None:
      reasons.append('lsblk does not list it, so its mounts are unknown')
    mounted_here = sorted(
        {m for mm, m in facts.mounts if target and mm == target.majmin}
        | ({target.mountpoint} if target and target.mountpoint else set())
    )
    if mounted_here:
      reasons.append('it is mounted on ' + ', '.join(mounted_here))
    for child in facts.tree[1:]:
      child_mounts = sorted(
          {m for mm, m in facts.mounts if mm == child.majmin}
          | ({child.mountpoint} if child.mountpoint else set())
      )
      if child_mounts:
        reasons.append(
            f'it holds {child.type} {child.name}, mounted on '
            + ', '.join(child_mounts)
        )
  elif facts.kind == 'file':
    reasons.append(
        'it is a regular file, not a block device (--cloud_report_fio_device'
        ' takes a block device)'
    )
  else:
    reasons.append(f'it is not a block device or a regular file ({facts.kind})')
  return reasons


def Probe(vm, path: str) -> DeviceFacts:
  """Probes a target path on a VM (read-only)."""
  stdout, _ = vm.RemoteCommand(ProbeCommand(path), ignore_failure=True)
  return ParseProbe(path, stdout)


def Check(vm, path: str) -> DeviceFacts:
  """Probes the target and raises unless fio may write to it.

  Returns:
    The facts, for the caller's metadata (e.g. kind).

  Raises:
    UnsafeTargetError: naming the device and every reason.
  """
  facts = Probe(vm, path)
  reasons = Decide(facts)
  if reasons:
    shown = path if facts.resolved == path else f'{path} ({facts.resolved})'
    raise UnsafeTargetError(
        f'refusing to run fio on {shown}: ' + '; '.join(reasons)
    )
  return facts


def _RawDataDevice(vm) -> str | None:
  disk = cloud_report.DataDisk(vm)
  if disk is None or getattr(disk, 'mount_point', None):
    return None
  return cloud_report.DiskDevice(disk)


def MountDataDisk(vm, mount_point: str) -> None:
  """Makes a file system on a raw data disk and mounts it at mount_point.

  For the tpcc phase's database, after the io phase measured the raw disk.
  Check refuses the root device, a mounted device and one holding mounted
  partitions; a disk an earlier Prepare mounted at mount_point is kept. A
  disk PKB mounted (its mount_point set) is left alone.
  """
  device = _RawDataDevice(vm)
  if not device:
    return
  mp, dev = shlex.quote(mount_point), shlex.quote(device)
  out, _ = vm.RemoteCommand(
      f'src=$(findmnt -nvfo SOURCE --mountpoint {mp} 2>/dev/null);'
      f' [ -n "$src" ] && [ "$(readlink -f "$src")" = "$(readlink -f {dev})" ]'
      ' && echo mounted; true'
  )
  if out.strip() == 'mounted':
    return
  Check(vm, device)
  vm.RemoteCommand(
      commands.MkfsCommand(device, 'ext4', None)
      + ' && '
      + commands.MountCommand(device, mount_point, 'discard')
  )


def UnmountDataDisk(vm, mount_point: str) -> None:
  """Unmounts what MountDataDisk mounted at mount_point."""
  device = _RawDataDevice(vm)
  if device:
    vm.RemoteCommand(commands.UnmountCommand(device, mount_point))
