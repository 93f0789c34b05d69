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
"""`up`, `down` and `status` of the local cloud, and its state file.

The state file (STATE_DIR/state.json) records what `up` made: whether it
created the bridge and each namespace, each sshd's PID and start time, each
loop device and its image. `down` removes those, plus any process still in
one of our namespaces (it can only have been started through our hosts),
and the state directory; nothing else.
"""

import contextlib
import fcntl
import json
import logging
import os
import shutil

from pkb_ext.local import disks
from pkb_ext.local import hostfs
from pkb_ext.local import images
from pkb_ext.local import layout
from pkb_ext.local import limits
from pkb_ext.local import mirrors
from pkb_ext.local import network
from pkb_ext.local import services
from pkb_ext.local import sshd
from pkb_ext.local import system

STATE_VERSION = 1


def LoadState(plan: layout.Plan) -> dict:
  try:
    with open(plan.state_file) as f:
      state = json.load(f)
  except FileNotFoundError:
    return {'version': STATE_VERSION, 'hosts': {}}
  except (OSError, ValueError) as e:
    raise system.LocalCloudError(f'cannot read {plan.state_file}: {e}') from e
  if state.get('version') != STATE_VERSION:
    raise system.LocalCloudError(
        f'{plan.state_file} has version {state.get("version")}, expected'
        f' {STATE_VERSION}: run `pkb-ext local down` with the pkb-ext that'
        ' made it'
    )
  return state


def SaveState(plan: layout.Plan, state: dict) -> None:
  tmp = plan.state_file + '.tmp'
  with open(
      os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 'w'
  ) as f:
    json.dump(state, f, indent=1, sort_keys=True)
  os.replace(tmp, plan.state_file)


def _PlanRecord(plan: layout.Plan) -> dict:
  return {
      'prefix': plan.prefix,
      'subnet': plan.subnet,
      'ssh_port': plan.ssh_port,
      'disk_gib': plan.disk_gib,
      'bin_dir': plan.bin_dir,
      'image': plan.image,
      'machine_type': plan.machine_type,
  }


def PlanOf(state_dir: str) -> layout.Plan:
  """Returns the plan a state dir was brought up with (defaults if none)."""
  plan = layout.Plan(
      state_dir=state_dir,
      prefix=layout.DefaultPrefix(),
      subnet=layout.DefaultSubnet(),
      image=images.DefaultImage(),
  )
  if os.path.exists(plan.state_file):
    return layout.Plan(state_dir=state_dir, **LoadState(plan).get('plan', {}))
  return plan


@contextlib.contextmanager
def _Locked(plan: layout.Plan):
  os.makedirs(plan.state_dir, mode=0o755, exist_ok=True)
  with open(plan.lock_file, 'w') as lock:
    try:
      fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as e:
      raise system.LocalCloudError(
          f'another pkb-ext local command holds {plan.lock_file}'
      ) from e
    yield


def StaticVmEntries(plan: layout.Plan, state: dict) -> list[dict]:
  """The PKB static VM file: client first (PKB fills groups alphabetically)."""
  entries = []
  for host in plan.hosts:
    entry = {
        'ip_address': host.ip,
        'internal_ip': host.ip,
        'user_name': layout.USER,
        'keyfile_path': plan.key_file,
        'ssh_port': plan.ssh_port,
        'zone': layout.ZONE,
        'os_type': plan.os_type,
        # On an image, PKB installs what each phase needs as on a cloud VM.
        # On this machine's software (--image=host), no apt/dpkg from PKB:
        # it skips Install(), InstallPackages(), the package snapshot and
        # PackageCleanup's purge on these hosts.
        'install_packages': plan.os_image is not None,
    }
    loop = state['hosts'].get(host.name, {}).get('loop')
    if host.has_disk and loop:
      entry['local_disks'] = [loop]
    entries.append(entry)
  return entries


def _EnsureDisk(plan, host, hstate) -> str:
  image = plan.DiskImage(host.name)
  loop = hstate.get('loop')
  size_ok = (
      os.path.exists(image)
      and os.path.getsize(image) == plan.disk_bytes
      and hstate.get('image_bytes') == plan.disk_bytes
  )
  if loop and not size_ok:
    disks.Detach(loop, image)
    hstate['loop'] = loop = None
  if not size_ok:
    logging.info('local: filling %s (%d MiB)', image, plan.disk_bytes >> 20)
    disks.FillImage(image, plan.disk_bytes)
    hstate['image'] = image
    hstate['image_bytes'] = plan.disk_bytes
  if loop and disks.BackingFile(loop) == image and disks.DirectIo(loop):
    return loop
  found = disks.FindLoop(image)
  if found and disks.DirectIo(found):
    hstate['loop'] = found
    return found
  if found:
    disks.Detach(found, image)
  hstate['loop'] = disks.Attach(image)
  return hstate['loop']


def _StopHost(host: layout.Host, hstate: dict) -> list[int]:
  """Ends every process in the host's namespace (sshd and what it ran)."""
  pids = [(p, system.StartTime(p)) for p in network.NetnsPids(host.netns)]
  if hstate.get('sshd_pid') and hstate['sshd_pid'] not in dict(pids):
    pids.append((hstate['sshd_pid'], hstate.get('sshd_start')))
  killed = system.Terminate(pids)
  hstate.pop('sshd_pid', None)
  hstate.pop('sshd_start', None)
  return killed


def Up(
    plan: layout.Plan, log=print, minio: bool = True, reset: bool = False
) -> dict:
  """Builds (or repairs) the local cloud; returns the state.

  Args:
    plan: what to build.
    log: prints a progress line.
    minio: also run the object storage emulators (MinIO, fake-gcs-server,
      Azurite) on the client.
    reset: restart every host (on an image: on a fresh layer of its own).
  """
  system.RequireRoot()
  with _Locked(plan):
    state = LoadState(plan)
    old = state.get('plan')
    if old and (
        old['prefix'],
        old['subnet'],
        old['ssh_port'],
        old.get('machine_type', ''),
    ) != (plan.prefix, plan.subnet, plan.ssh_port, plan.machine_type):
      raise system.LocalCloudError(
          f'{plan.state_dir} is up with prefix {old["prefix"]}, subnet '
          f'{old["subnet"]}, ssh port {old["ssh_port"]}, machine type '
          f'{old.get("machine_type") or "none"}: run `pkb-ext local'
          ' down` first to change them'
      )
    state['plan'] = _PlanRecord(plan)
    network.CheckSubnetFree(plan)
    public_key = sshd.EnsureKey(plan.key_file)
    hostfs.WriteShared(plan)
    if plan.os_image:
      images.Ensure(plan.os_image, log)
    for tool in ('minio', 'go-tpc'):
      if not os.path.exists(os.path.join(plan.bin_dir, tool)):
        log(
            f'warning: {plan.bin_dir}/{tool} missing'
            ' (scripts/setup.d/50-go-tools.sh)'
        )
    state['bridge_created'] = network.EnsureBridge(plan) or state.get(
        'bridge_created', False
    )
    SaveState(plan, state)
    if plan.os_image:
      try:
        mirrors.Ensure(plan, state, log)
      finally:
        SaveState(plan, state)
    for host in plan.hosts:
      hstate = state['hosts'].setdefault(host.name, {})
      hstate['ip'] = host.ip
      hstate['netns'] = host.netns
      created = network.EnsureHostNetwork(plan, host)
      hstate['netns_created'] = created or hstate.get('netns_created', False)
      SaveState(plan, state)
      disk = _EnsureDisk(plan, host, hstate) if host.has_disk else None
      SaveState(plan, state)
      fingerprint = hostfs.WriteHost(plan, host, public_key, disk)
      alive = system.IsAlive(hstate.get('sshd_pid'), hstate.get('sshd_start'))
      if alive and hstate.get('fingerprint') == fingerprint and not reset:
        _Limit(plan, host, hstate, disk)
        log(f'{host.name}: up ({host.ip}, sshd {hstate["sshd_pid"]})')
        continue
      if alive or network.NetnsPids(host.netns):
        log(f'{host.name}: ' + ('reset' if reset else 'configuration changed')
            + ', restarting')  # fmt: skip
        _StopHost(host, hstate)
      if plan.os_image:
        hostfs.ResetHost(plan, host)
        fingerprint = hostfs.WriteHost(plan, host, public_key, disk)
      pid, start = sshd.Start(plan, host)
      hstate.update(sshd_pid=pid, sshd_start=start, fingerprint=fingerprint)
      SaveState(plan, state)
      _Limit(plan, host, hstate, disk)
      SaveState(plan, state)
      log(f'{host.name}: started ({host.ip}:{plan.ssh_port}, sshd {pid}'
          + (f', disk {disk}' if disk else '') + ')')  # fmt: skip
    with open(plan.static_vm_file + '.tmp', 'w') as f:
      json.dump(StaticVmEntries(plan, state), f, indent=1)
    os.replace(plan.static_vm_file + '.tmp', plan.static_vm_file)
    state['static_vm_file'] = plan.static_vm_file
    SaveState(plan, state)
    _Verify(plan, state)
    if minio:
      try:
        services.EnsureObjectStorage(plan, state, log)
      finally:
        SaveState(plan, state)
    log(f'static VM file: {plan.static_vm_file}')
    return state


def _Limit(plan, host, hstate, disk) -> None:
  """Caps a host at the plan's machine type (if any), recording it."""
  if plan.limits:
    hstate['cgroups'] = limits.Apply(
        plan, host, plan.limits, hstate['sshd_pid'], disk
    )


def _Verify(plan: layout.Plan, state: dict) -> None:
  """Checks each host over ssh: user, sudo, its disk."""
  for host in plan.hosts:
    disk = state['hosts'][host.name].get('loop')
    check = 'sudo -n true && test "$(hostname)" = ' + host.name
    if disk:
      check += f' && test -b {disk}'
    proc = sshd.Ssh(plan, host, check, check=False, timeout=30)
    if proc.returncode:
      raise system.LocalCloudError(
          f'host {host.name}: ssh check failed ({proc.returncode}): '
          f'{proc.stderr.strip()}; see {plan.SshdLog(host.name)}'
      )


def Down(plan: layout.Plan, log=print) -> list[str]:
  """Removes what `up` made; returns a line per thing removed."""
  system.RequireRoot()
  removed = []
  with _Locked(plan):
    state = LoadState(plan)
    for host in plan.hosts:
      hstate = state['hosts'].get(host.name, {})
      for pid in _StopHost(host, hstate):
        removed.append(f'process {pid} ({host.name})')
      removed.extend(limits.Remove(plan, host))
      removed.extend(network.DeleteHostNetwork(host))
      image = plan.DiskImage(host.name)
      for loop in {hstate.get('loop'), disks.FindLoop(image)} - {None}:
        if disks.Detach(loop, image):
          removed.append(f'loop {loop} ({image})')
    removed.extend(mirrors.Stop(state))
    removed.extend(network.DeleteBridge(plan))
    for sub in ('hosts', 'disks', 'lib', 'ssh', 'mirrors', 'services'):
      path = os.path.join(plan.state_dir, sub)
      if os.path.isdir(path):
        shutil.rmtree(path)
        removed.append(f'dir {path}')
    for path in (
        plan.static_vm_file,
        services.CredentialsPath(plan),
        plan.state_file,
    ):
      if os.path.exists(path):
        os.remove(path)
        removed.append(f'file {path}')
  os.remove(plan.lock_file)
  with contextlib.suppress(OSError):
    os.rmdir(plan.state_dir)
  for line in removed:
    log(f'removed {line}')
  if not removed:
    log('nothing to remove')
  return removed


def _Processes(state: dict | None, kind: str, address: str) -> dict:
  """The services or mirrors of a state: address, PID, whether alive."""
  return {
      k: {
          address: v.get(address),
          'pid': v.get('pid'),
          'alive': system.IsAlive(v.get('pid'), v.get('start')),
      }
      for k, v in (state or {}).get(kind, {}).items()
  }


def Status(plan: layout.Plan) -> dict:
  """Reports what runs: hosts, addresses, sshd, disks and other processes."""
  state = LoadState(plan) if os.path.exists(plan.state_file) else None
  report = {
      'state_dir': plan.state_dir,
      'machine_type': plan.machine_type or None,
      'up': state is not None,
      'bridge': plan.bridge if network.LinkExists(plan.bridge) else None,
      'services': _Processes(state, 'services', 'endpoint'),
      'static_vm_file': (state or {}).get('static_vm_file'),
      'image': plan.image,
      'mirrors': _Processes(state, 'mirrors', 'url'),
      'hosts': [],
  }
  for host in plan.hosts:
    hstate = (state or {}).get('hosts', {}).get(host.name, {})
    pid = hstate.get('sshd_pid')
    loop = hstate.get('loop')
    procs = [
        {'pid': p, 'comm': system.Comm(p), 'cmdline': system.CmdLine(p)[:120]}
        for p in network.NetnsPids(host.netns)
    ]
    report['hosts'].append({
        'name': host.name,
        'role': host.role,
        'ip': host.ip,
        'netns': network.NetnsExists(host.netns),
        'addresses': network.HostAddresses(host),
        'sshd_pid': pid,
        'sshd_alive': system.IsAlive(pid, hstate.get('sshd_start')),
        'disk': loop,
        'disk_ok': (
            bool(loop) and disks.BackingFile(loop) == hstate.get('image')
        ),
        'disk_direct_io': bool(loop) and disks.DirectIo(loop),
        'processes': procs,
        'limits': limits.Read(plan, host) if plan.limits else {},
    })
  return report
