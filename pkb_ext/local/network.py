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
"""The private bridge and one network namespace per host.

The bridge holds the first address of the subnet, so this machine (where
pkb.py runs) reaches every host; the hosts get no default route and no
forwarding or NAT is set up, so their traffic stays between the namespaces
and this machine.
"""

import ipaddress
import json
import os

from pkb_ext.local import layout
from pkb_ext.local import system

_NETNS_DIR = '/run/netns'


def _Ip(*args, check=True):
  return system.Run(['ip', *args], check=check)


def LinkExists(name: str) -> bool:
  return _Ip('link', 'show', 'dev', name, check=False).returncode == 0


def NetnsExists(name: str) -> bool:
  return os.path.exists(os.path.join(_NETNS_DIR, name))


def NetnsPids(name: str) -> list[int]:
  """Returns the PIDs of every process in one of our namespaces."""
  if not NetnsExists(name):
    return []
  out = _Ip('netns', 'pids', name, check=False).stdout
  return [int(p) for p in out.split()]


def CheckSubnetFree(plan: layout.Plan) -> None:
  """Refuses a subnet that overlaps a route that is not our bridge's."""
  routes = json.loads(_Ip('-j', '-4', 'route', 'show', 'table', 'all').stdout)
  ours = plan.network
  for route in routes:
    dst = route.get('dst', '')
    if dst in ('default', '') or route.get('dev') == plan.bridge:
      continue
    try:
      net = ipaddress.ip_network(dst, strict=False)
    except ValueError:
      continue
    if net.prefixlen > 0 and net.overlaps(ours) and not net.is_loopback:
      raise system.LocalCloudError(
          f'subnet {plan.subnet} overlaps route {dst} dev {route.get("dev")};'
          ' choose another with --subnet'
      )


def EnsureBridge(plan: layout.Plan) -> bool:
  """Creates the bridge (if missing) with the subnet's first address.

  Returns:
    Whether this call created it.
  """
  created = False
  if not LinkExists(plan.bridge):
    _Ip('link', 'add', plan.bridge, 'type', 'bridge')
    created = True
  addr = f'{plan.bridge_ip}/{plan.prefixlen}'
  have = _Ip('-j', 'addr', 'show', 'dev', plan.bridge).stdout
  if plan.bridge_ip not in have:
    _Ip('addr', 'add', addr, 'dev', plan.bridge)
  _Ip('link', 'set', plan.bridge, 'up')
  return created


def EnsureHostNetwork(plan: layout.Plan, host: layout.Host) -> bool:
  """Creates a host's namespace and its veth on the bridge, idempotently.

  Returns:
    Whether this call created the namespace.
  """
  created = False
  if not NetnsExists(host.netns):
    _Ip('netns', 'add', host.netns)
    created = True
  ns = ['-n', host.netns]
  if not LinkExists(host.veth):
    # Its peer may be left in the namespace from a broken run.
    _Ip(*ns, 'link', 'del', 'eth0', check=False)
    _Ip(
        'link', 'add', host.veth, 'type', 'veth',
        'peer', 'name', 'eth0', 'netns', host.netns,
    )  # fmt: skip
  _Ip('link', 'set', host.veth, 'master', plan.bridge)
  _Ip('link', 'set', host.veth, 'up')
  have = _Ip(*ns, '-j', 'addr', 'show', 'dev', 'eth0').stdout
  if f'"{host.ip}"' not in have:
    _Ip(*ns, 'addr', 'add', f'{host.ip}/{plan.prefixlen}', 'dev', 'eth0')
  _Ip(*ns, 'link', 'set', 'eth0', 'up')
  _Ip(*ns, 'link', 'set', 'lo', 'up')
  return created


def DeleteHostNetwork(host: layout.Host) -> list[str]:
  """Deletes a host's namespace and veth; returns what it removed."""
  removed = []
  if LinkExists(host.veth):
    _Ip('link', 'del', host.veth)
    removed.append(f'link {host.veth}')
  if NetnsExists(host.netns):
    _Ip('netns', 'del', host.netns)
    removed.append(f'netns {host.netns}')
  return removed


def DeleteBridge(plan: layout.Plan) -> list[str]:
  if LinkExists(plan.bridge):
    _Ip('link', 'del', plan.bridge)
    return [f'bridge {plan.bridge}']
  return []


def HostAddresses(host: layout.Host) -> list[str]:
  if not NetnsExists(host.netns):
    return []
  out = _Ip('-n', host.netns, '-j', '-4', 'addr', 'show', check=False).stdout
  addrs = []
  for link in json.loads(out or '[]'):
    for info in link.get('addr_info', []):
      addrs.append(f'{link["ifname"]}:{info["local"]}/{info["prefixlen"]}')
  return addrs
