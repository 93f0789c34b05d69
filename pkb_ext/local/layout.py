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
"""The local cloud's plan: hosts, addresses, names and where files go.

Pure: nothing here touches the system. Every name a local cloud creates on
the machine (namespaces, links, the bridge) starts with its prefix (default
DEFAULT_PREFIX), so `down` and `status` never mistake someone else's for
ours, and two local clouds (e.g. `make local`'s and the test tier's) with
their own prefix, subnet and state dir can coexist.
"""

import dataclasses
import ipaddress
import os
import re

from pkb_ext import paths
from pkb_ext.local import images
from pkb_ext.local import machine_types

DEFAULT_PREFIX = 'pkbext'
DEFAULT_SUBNET = '10.247.73.0/24'
DEFAULT_SSH_PORT = 2022
DEFAULT_DISK_GIB = 2
USER = 'pkbext'
UID = 47301  # exists only inside the hosts (their own /etc/passwd)
ZONE = 'local-1'
OS_TYPE = 'debian12'
STATE_DIR_ENV = 'PKB_EXT_LOCAL_STATE'

# (name, role, host number in the subnet). PKB hands pool VMs to the
# benchmark's vm_groups in alphabetical group order (client, then db), so the
# static VM file lists the client first.
HOSTS = (
    ('client', 'client', 10),
    ('db1', 'db', 11),
    ('db2', 'db', 12),
    ('db3', 'db', 13),
)
BRIDGE_HOST_NUMBER = 1
# Paths the hosts see as their own (hostfs): the state dir, which their
# sshd reads, must not be under one of them.
HIDDEN_DIRS = (
    '/tmp',
    '/home',
    '/run',
    '/mnt',
    '/usr',
    '/etc',
    '/var',
    '/opt',
    '/dev',
)


def DefaultPrefix() -> str:
  return os.environ.get('PKB_EXT_LOCAL_PREFIX') or DEFAULT_PREFIX


def DefaultSubnet() -> str:
  return os.environ.get('PKB_EXT_LOCAL_SUBNET') or DEFAULT_SUBNET


def DefaultStateDir() -> str:
  return os.environ.get(STATE_DIR_ENV) or os.path.join(
      paths.CacheDir(), 'local'
  )


def MachineTypeStateDir(name: str) -> str:
  """The default state dir of a local machine type's cloud."""
  return f'{DefaultStateDir()}-{machine_types.Get(name).short}'


def BinCacheDir() -> str:
  """Where scripts/setup.d/50-go-tools.sh puts minio and go-tpc."""
  return os.path.join(paths.CacheDir(), 'bin')


@dataclasses.dataclass(frozen=True)
class Host:
  """One host of the local cloud."""

  name: str
  role: str  # 'db' or 'client'
  ip: str
  netns: str
  veth: str  # the host-side end, on the bridge; the namespace side is eth0

  @property
  def has_disk(self) -> bool:
    return self.role == 'db'


@dataclasses.dataclass(frozen=True)
class Plan:
  """Everything `up` builds, derived from its options."""

  state_dir: str
  prefix: str = DEFAULT_PREFIX
  subnet: str = DEFAULT_SUBNET
  ssh_port: int = DEFAULT_SSH_PORT
  disk_gib: float = DEFAULT_DISK_GIB
  bin_dir: str = dataclasses.field(default_factory=BinCacheDir)
  image: str = images.DEFAULT_IMAGE  # images.CHOICES
  # A local machine type (machine_types.NAMES) whose limits cap every host;
  # '' for none: each host has the whole machine.
  machine_type: str = ''

  def __post_init__(self):
    real = os.path.realpath(self.state_dir)
    hidden = [d for d in HIDDEN_DIRS if real == d or real.startswith(d + '/')]
    if hidden or not os.path.isabs(self.state_dir):
      raise ValueError(
          f'--state-dir {self.state_dir}: need an absolute path outside'
          f' {", ".join(HIDDEN_DIRS)}, which the hosts replace with their own'
      )
    if not re.fullmatch(r'[a-z][a-z0-9]{1,7}', self.prefix):
      raise ValueError(
          f'--prefix {self.prefix!r}: need 2-8 lowercase letters or digits,'
          ' starting with a letter (it names namespaces and links)'
      )
    net = ipaddress.ip_network(self.subnet, strict=True)
    if net.version != 4 or not net.is_private or net.prefixlen > 28:
      raise ValueError(
          f'--subnet {self.subnet}: need a private IPv4 network of at least'
          ' 16 addresses'
      )
    if self.image not in images.CHOICES:
      raise ValueError(
          f'--image {self.image!r}: choose from {", ".join(images.CHOICES)}'
      )
    if self.machine_type:
      machine_types.Get(self.machine_type)  # ValueError names the choices
    if not 1024 <= self.ssh_port <= 65535:
      raise ValueError(f'--ssh-port {self.ssh_port}: need 1024..65535')
    if not 0.0625 <= self.disk_gib <= 1024:
      raise ValueError(
          f'--disk-size {self.disk_gib} GiB: need 0.0625 (64 MiB)..1024'
      )

  @property
  def limits(self) -> machine_types.MachineType | None:
    """The machine type whose limits cap the hosts; None: no caps."""
    return machine_types.Get(self.machine_type) if self.machine_type else None

  @property
  def os_image(self) -> images.Image | None:
    """The hosts' OS image; None: they overlay this machine's software."""
    return images.IMAGES.get(self.image)

  @property
  def os_type(self) -> str:
    return self.os_image.os_type if self.os_image else OS_TYPE

  @property
  def bridge(self) -> str:
    return self.prefix + '0'

  @property
  def network(self) -> ipaddress.IPv4Network:
    return ipaddress.ip_network(self.subnet)

  @property
  def bridge_ip(self) -> str:
    return str(self.network[BRIDGE_HOST_NUMBER])

  @property
  def prefixlen(self) -> int:
    return self.network.prefixlen

  @property
  def hosts(self) -> tuple[Host, ...]:
    return tuple(
        Host(
            name=name,
            role=role,
            ip=str(self.network[number]),
            netns=f'{self.prefix}-{name}',
            veth=f'{self.prefix}-{name}',
        )
        for name, role, number in HOSTS
    )

  def Host(self, name: str) -> Host:
    for host in self.hosts:
      if host.name == name:
        return host
    raise KeyError(f'no local host {name!r}')

  @property
  def disk_bytes(self) -> int:
    # A whole number of MiB, so direct I/O and the sector size line up.
    return int(self.disk_gib * 1024) * 1024 * 1024

  # Files, all under state_dir.
  @property
  def state_file(self) -> str:
    return os.path.join(self.state_dir, 'state.json')

  @property
  def lock_file(self) -> str:
    return os.path.join(self.state_dir, '.lock')

  @property
  def static_vm_file(self) -> str:
    return os.path.join(self.state_dir, 'static_vms.json')

  @property
  def key_file(self) -> str:
    return os.path.join(self.state_dir, 'ssh', 'id_ed25519')

  @property
  def shared_dir(self) -> str:
    """Scripts every host mounts read-only at HOST_ROOT/lib."""
    return os.path.join(self.state_dir, 'lib')

  def HostDir(self, name: str) -> str:
    return os.path.join(self.state_dir, 'hosts', name)

  def SshdLog(self, name: str) -> str:
    sub = ('log',) if self.os_image else ()
    return os.path.join(self.HostDir(name), *sub, 'sshd.log')

  def DiskImage(self, name: str) -> str:
    return os.path.join(self.state_dir, 'disks', f'{name}.img')
