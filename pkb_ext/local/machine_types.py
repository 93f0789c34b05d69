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
"""The local cloud's machine types: hosts that differ by the limits set on
them, as cloud machines differ by theirs.

Pure: the types and the names a cloud of each type gets. A type caps each
host's CPU time (a CFS quota on the cgroup its sshd and everything it runs
belong to), its data disk (read and write IOPS and MB/s, blkio throttling,
as EBS and PD cap a volume), and its network (a token bucket on both ends of
its link). Every limit grows from the smallest type to the largest, so the
right ranking of any figure a limit governs is known by construction.

configs/pricing/static.yaml prices these types and publishes the same
limits (a test holds the two equal).
"""

import dataclasses

# The CFS period of the CPU quota. Shorter than the kernel's 100 ms
# default, so a capped host runs in short slices rather than stalling for
# most of each 100 ms.
CPU_PERIOD_US = 20_000


@dataclasses.dataclass(frozen=True)
class MachineType:
  """One local machine type's limits, applied to each of its hosts.

  Attributes:
    name: the machine type, as --machine_type names it.
    cpus: CPU time, in cores (the hosts still see every core).
    disk_iops: read and write IOPS of the data disk, each.
    disk_mbps: read and write MB/s (10**6 bytes) of the data disk, each.
    network_mbps: bandwidth of the host's link, each way, Mbit/s.
    number: the cloud's number: its subnet, prefix and state dir.
  """

  name: str
  cpus: float
  disk_iops: int
  disk_mbps: int
  network_mbps: int
  number: int

  @property
  def cpu_quota_us(self) -> int:
    return int(round(self.cpus * CPU_PERIOD_US))

  @property
  def cpu_shares(self) -> int:
    """Its cgroup's CPU weight: 16 times a process's (1024) per core.

    On a machine busy with other work, a host still gets its quota: the
    weights of all types at once, in proportion to their quotas, outweigh a
    few busy processes (the tiers' CPU hog, pytest, pkb.py).
    """
    return int(self.cpus * 1024 * 16)

  @property
  def disk_bytes_per_s(self) -> int:
    return self.disk_mbps * 1_000_000

  @property
  def short(self) -> str:
    """The part of the name after 'local-': s, m, l."""
    return self.name.split('-', 1)[1]

  @property
  def prefix(self) -> str:
    """The prefix of its cloud's namespaces and links."""
    return f'pkbx{self.short}'

  @property
  def subnet(self) -> str:
    return f'10.247.{80 + self.number}.0/24'


TYPES = (
    MachineType('local-s', 0.2, 200, 8, 40, number=1),
    MachineType('local-m', 0.4, 400, 16, 80, number=2),
    MachineType('local-l', 0.8, 800, 32, 160, number=3),
)
BY_NAME = {t.name: t for t in TYPES}
NAMES = tuple(BY_NAME)


def Get(name: str) -> MachineType:
  """Returns the machine type of that name.

  Raises:
    ValueError: no local machine type has it.
  """
  try:
    return BY_NAME[name]
  except KeyError:
    raise ValueError(
        f'--machine-type {name!r}: choose from {", ".join(NAMES)}'
    ) from None
