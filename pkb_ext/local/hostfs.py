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
"""The files that make a host: its own /etc entries, home, scripts, config.

A host is a network namespace with its own mount, UTS (hostname) and PID
namespaces (see sshd.Start): it sees only its own processes, so `killall`
or `pkill` there (PKB's netperf cleanup runs `killall netserver`) cannot
reach this machine's or another host's.

On an OS image (IMAGE_INIT_SH) its root is an overlay of the image and its
own upper layer (STATE/hosts/NAME/upper, emptied by ResetHost whenever the
host starts), entered with pivot_root, with:
  /tmp, /home/USER      the host's own directories;
  /run, /dev/shm, /mnt  the host's own tmpfs (mount points go in /mnt);
  /proc, /sys           its PID and network namespaces'; /dev this machine's;
  /opt/pkb-ext/lib      the scripts below, read-only;
  /opt/pkb-ext/log      commands.log (every ssh command), sudo.log, sshd.log.
The user, its sudo rule, /etc/hosts (the hosts and MIRROR_HOST) and the
sshd's config and host key are files of the upper layer's /etc.

On this machine's software (--image=host, INIT_SH) it sees this machine's
root file system, with:
  /usr /etc /var /opt   overlays whose upper layers live in the host's
                        directory, so nothing a host writes there (even as
                        root) reaches this machine's files;
  /tmp, /home/USER, /run, /dev/shm, /mnt  as above;
  /opt/pkb-ext/bin      this machine's $CACHE/bin (go-tpc), read-only;
  /opt/pkb-ext/lib, /opt/pkb-ext/log  as above (and guard.log).
The user exists only in the hosts' /etc (an overlay file), with NOPASSWD
sudo. apt, apt-get, dpkg (but its queries) and friends are replaced by a
guard that refuses and logs: the hosts share this machine's packages.
"""

import hashlib
import json
import os
import shutil

from pkb_ext import local
from pkb_ext.local import images
from pkb_ext.local import layout
from pkb_ext.local import sshd

OVERLAID = ('usr', 'etc', 'var', 'opt')
GUARDED = (
    'apt', 'apt-get', 'apt-mark', 'apt-key', 'aptitude',
    'add-apt-repository', 'apt-add-repository', 'unattended-upgrade',
    'dpkg', 'dpkg-reconfigure', 'debconf-set-selections', 'snap',
)  # fmt: skip
_SECURE_PATH = (
    f'{local.BIN_DIR}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:'
    '/sbin:/bin'
)

# Runs as root inside the host's network namespace, in a new mount and UTS
# namespace (see sshd.Start); sets up the host's file system view, then
# becomes the host's sshd. Arguments: host dir, host name, bin dir, lib dir.
INIT_SH = r"""#!/bin/bash
set -euo pipefail
H=$1 NAME=$2 BIN=$3 LIB=$4
hostname "$NAME"
for d in usr etc var opt; do
  mount -t overlay "pkbext-$d" \
    -o "lowerdir=/$d,upperdir=$H/$d.upper,workdir=$H/$d.work" "/$d"
done
mount -t tmpfs -o mode=755,size=64m pkbext-run /run
mkdir -p /run/sshd /run/lock /run/user /run/postgresql
chmod 1777 /run/lock
if getent passwd postgres >/dev/null; then
  chown postgres:postgres /run/postgresql && chmod 2775 /run/postgresql
fi
ln -sfn /dev/shm /run/shm
mount -t tmpfs -o mode=1777,size=25% pkbext-shm /dev/shm
mount --bind "$H/tmp" /tmp
mount -t tmpfs -o mode=755,size=1m pkbext-home /home
mount -t tmpfs -o mode=755,size=1m pkbext-mnt /mnt
mkdir -p "/home/@USER@"
mount --bind "$H/home" "/home/@USER@"
mount --bind "$BIN" @HOST_ROOT@/bin
mount -o remount,bind,ro @HOST_ROOT@/bin
mount --bind "$LIB" @HOST_ROOT@/lib
mount -o remount,bind,ro @HOST_ROOT@/lib
mount --bind "$H/log" @HOST_ROOT@/log
exec /usr/sbin/sshd -D -f "$H/sshd_config" -E "$H/sshd.log"
"""

# As INIT_SH, for a host that runs from an OS image (5th argument: the
# image's root): its root is an overlay of the image and its own upper layer,
# entered with pivot_root, so nothing of this machine's file system is left
# in its mount namespace; only the scripts (lib, read-only) and its log dir
# are mounted in.
IMAGE_INIT_SH = r"""#!/bin/bash
set -euo pipefail
H=$1 NAME=$2 LIB=$4 IMAGE=$5
R=$H/root
hostname "$NAME"
mount -t overlay pkbext-root \
  -o "lowerdir=$IMAGE,upperdir=$H/upper,workdir=$H/work" "$R"
mount -t proc pkbext-proc "$R/proc"
mount -t sysfs pkbext-sys "$R/sys"
mount --rbind /dev "$R/dev"
mount -t tmpfs -o mode=1777,size=25% pkbext-shm "$R/dev/shm"
mount -t tmpfs -o mode=755,size=64m pkbext-run "$R/run"
mkdir -p "$R/run/sshd" "$R/run/lock" "$R/run/user"
chmod 1777 "$R/run/lock"
ln -sfn /dev/shm "$R/run/shm"
mount --bind "$H/tmp" "$R/tmp"
mount -t tmpfs -o mode=755,size=1m pkbext-home "$R/home"
mount -t tmpfs -o mode=755,size=1m pkbext-mnt "$R/mnt"
mkdir -p "$R/home/@USER@"
mount --bind "$H/home" "$R/home/@USER@"
mount --bind "$LIB" "$R@HOST_ROOT@/lib"
mount -o remount,bind,ro "$R@HOST_ROOT@/lib"
mount --bind "$H/log" "$R@HOST_ROOT@/log"
cd "$R"
mkdir -p .pkb-ext-old-root
pivot_root . .pkb-ext-old-root
cd /
umount -l /.pkb-ext-old-root
rmdir /.pkb-ext-old-root
exec /usr/sbin/sshd -D -f /etc/ssh/pkb-ext-sshd_config -E @LOG_DIR@/sshd.log
"""

# The sshd ForceCommand: logs the command, then runs it as sshd would.
CMDLOG_SH = r"""#!/bin/bash
c=${SSH_ORIGINAL_COMMAND:-}
c1=${c//$'\n'/\\n}
printf '%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)" \
  "$(cat /proc/sys/kernel/hostname)" "${c1:-<login shell>}" >> @COMMAND_LOG@ 2>/dev/null || true
case ":$PATH:" in *":@BIN_DIR@:"*) ;; *) export PATH=@BIN_DIR@:$PATH ;; esac
case "$c" in
  '') exec -l /bin/bash ;;
  /usr/lib/openssh/sftp-server|internal-sftp) exec /usr/lib/openssh/sftp-server ;;
  *) exec /bin/bash -c "$c" ;;
esac
"""

# Stands in for the package managers on the hosts.
GUARD_SH = r"""#!/bin/bash
tool=$(basename "$0")
if [ "$tool" = dpkg ]; then
  case "${1:-}" in
    -l|--list|-s|--status|-L|--listfiles|-S|--search|-p|--print-avail|\
    --print-architecture|--print-foreign-architectures|--get-selections|\
    --compare-versions|--version|--help|-C|--audit|--verify|-V)
      exec @HOST_ROOT@/lib/dpkg.real "$@" ;;
  esac
fi
printf '%s\t%s\t%s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)" "$(hostname)" \
  "$tool" "$*" >> @GUARD_LOG@ 2>/dev/null || true
echo "pkb-ext local cloud: '$tool $*' refused: the hosts share this" \
  "machine's packages (install them on the machine, see" \
  "docs/local_cloud.md)" >&2
exit 100
"""

_BASHRC = f"""# pkb-ext local cloud host
case ":$PATH:" in *":{local.BIN_DIR}:"*) ;; *) PATH={local.BIN_DIR}:$PATH ;; esac
export PATH
"""


def _Subst(text: str) -> str:
  return (
      text.replace('@USER@', layout.USER)
      .replace('@HOST_ROOT@', local.HOST_ROOT)
      .replace('@BIN_DIR@', local.BIN_DIR)
      .replace('@COMMAND_LOG@', local.COMMAND_LOG)
      .replace('@GUARD_LOG@', local.GUARD_LOG)
      .replace('@LOG_DIR@', local.LOG_DIR)
  )


def _Write(path: str, text: str, mode: int, uid: int = 0, gid: int = 0):
  os.makedirs(os.path.dirname(path), exist_ok=True)
  tmp = path + '.tmp'
  with open(tmp, 'w') as f:
    f.write(text)
  os.chmod(tmp, mode)
  os.chown(tmp, uid, gid)
  os.replace(tmp, path)


def _Dir(path: str, mode: int, uid: int = 0, gid: int = 0) -> None:
  os.makedirs(path, exist_ok=True)
  os.chmod(path, mode)
  os.chown(path, uid, gid)


def WriteShared(plan: layout.Plan) -> None:
  """Writes the scripts all hosts share (plan.shared_dir)."""
  lib = plan.shared_dir
  _Dir(lib, 0o755)
  _Write(os.path.join(lib, 'init.sh'), _Subst(INIT_SH), 0o755)
  _Write(os.path.join(lib, 'image-init.sh'), _Subst(IMAGE_INIT_SH), 0o755)
  _Write(os.path.join(lib, 'cmdlog'), _Subst(CMDLOG_SH), 0o755)
  _Write(os.path.join(lib, 'guard'), _Subst(GUARD_SH), 0o755)
  real = os.path.join(lib, 'dpkg.real')
  if os.path.exists('/usr/bin/dpkg') and not os.path.exists(real):
    shutil.copy2('/usr/bin/dpkg', real)
  _Dir(plan.bin_dir, 0o755)


def _EtcFiles(plan: layout.Plan, host: layout.Host) -> dict[str, str]:
  """Returns the host's /etc files (name -> text) that differ from its base
  (the image's, or this machine's)."""
  user, uid = layout.USER, layout.UID
  etc = (
      os.path.join(images.RootDir(plan.os_image), 'etc')
      if plan.os_image
      else '/etc'
  )

  def Read(name):
    with open(os.path.join(etc, name)) as f:
      return [
          line for line in f.read().splitlines()
          if not line.startswith(user + ':')
      ]  # fmt: skip

  passwd = Read('passwd') + [f'{user}:x:{uid}:{uid}::/home/{user}:/bin/bash']
  group = Read('group') + [f'{user}:x:{uid}:']
  shadow = Read('shadow') + [f'{user}:*:19000:0:99999:7:::']
  hosts = [
      '127.0.0.1\tlocalhost',
      '::1\tlocalhost ip6-localhost ip6-loopback',
  ] + [f'{h.ip}\t{h.name}' for h in plan.hosts]
  if plan.os_image:
    hosts.append(f'{plan.bridge_ip}\t{images.MIRROR_HOST}')
  sudoers = [
      f'Defaults:{user} !requiretty, logfile={local.LOG_DIR}/sudo.log',
      f'Defaults:{user} secure_path="{_SECURE_PATH}"',
      f'{user} ALL=(ALL:ALL) NOPASSWD: ALL',
  ]
  return {
      'passwd': '\n'.join(passwd) + '\n',
      'group': '\n'.join(group) + '\n',
      'shadow': '\n'.join(shadow) + '\n',
      'hosts': '\n'.join(hosts) + '\n',
      'hostname': host.name + '\n',
      'sudoers.d/pkb-ext-local': '\n'.join(sudoers) + '\n',
  }


def SshdConfig(plan: layout.Plan, host: layout.Host) -> str:
  key_dir = '/etc/ssh' if plan.os_image else plan.HostDir(host.name)
  return f"""# sshd of local-cloud host {host.name} (pkb-ext local up)
Port {plan.ssh_port}
ListenAddress {host.ip}
AddressFamily inet
HostKey {key_dir}/ssh_host_ed25519_key
PidFile /run/sshd.pid
UsePAM no
PermitRootLogin no
AllowUsers {layout.USER}
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile .ssh/authorized_keys
StrictModes yes
X11Forwarding no
PrintMotd no
PrintLastLog no
UseDNS no
MaxStartups 200
MaxSessions 200
Subsystem sftp /usr/lib/openssh/sftp-server
ForceCommand {local.HOST_ROOT}/lib/cmdlog
LogLevel INFO
"""


def Marker(plan: layout.Plan, host: layout.Host, disk: str | None) -> dict:
  return {
      'name': host.name,
      'role': host.role,
      'ip': host.ip,
      'ssh_port': plan.ssh_port,
      'data_disk': disk,
      'bin_dir': local.BIN_DIR,
      'image': plan.image,
      'hosts': {h.name: h.ip for h in plan.hosts},
  }


def _Layers(plan: layout.Plan, host: layout.Host) -> dict[str, str]:
  """Where the host's /etc, /usr and /opt files go on this machine."""
  hdir = plan.HostDir(host.name)
  if plan.os_image:
    upper = os.path.join(hdir, 'upper')
    return {d: os.path.join(upper, d) for d in OVERLAID}
  return {d: os.path.join(hdir, f'{d}.upper') for d in OVERLAID}


def ResetHost(plan: layout.Plan, host: layout.Host) -> None:
  """Empties an image host's own layer, /tmp and home (a fresh VM's)."""
  hdir = plan.HostDir(host.name)
  for d in ('upper', 'work', 'tmp', 'home'):
    shutil.rmtree(os.path.join(hdir, d), ignore_errors=True)


def WriteHost(
    plan: layout.Plan, host: layout.Host, public_key: str, disk: str | None
) -> str:
  """Writes a host's directory; returns a fingerprint of its configuration.

  Idempotent: files are rewritten, directories and data in them kept.
  """
  hdir = plan.HostDir(host.name)
  uid = layout.UID
  _Dir(hdir, 0o755)
  layers = _Layers(plan, host)
  if plan.os_image:
    for d in ('root', 'upper', 'work'):
      _Dir(os.path.join(hdir, d), 0o755)
  else:
    for d in OVERLAID:
      _Dir(layers[d], 0o755)
      _Dir(os.path.join(hdir, f'{d}.work'), 0o755)
  _Dir(os.path.join(hdir, 'tmp'), 0o1777)
  _Dir(os.path.join(hdir, 'log'), 0o755, uid, uid)
  home = os.path.join(hdir, 'home')
  _Dir(home, 0o755, uid, uid)
  _Dir(os.path.join(home, '.ssh'), 0o700, uid, uid)
  _Write(
      os.path.join(home, '.ssh', 'authorized_keys'), public_key, 0o600, uid, uid
  )
  for rc in ('.bashrc', '.profile'):
    if not os.path.exists(os.path.join(home, rc)):
      _Write(os.path.join(home, rc), _BASHRC, 0o644, uid, uid)
  etc = layers['etc']
  for name, text in _EtcFiles(plan, host).items():
    mode = 0o440 if name.startswith('sudoers') else 0o644
    gid = 0
    if name == 'shadow':
      mode, gid = 0o640, _Gid('shadow')
    _Write(os.path.join(etc, name), text, mode, 0, gid)
  config = SshdConfig(plan, host)
  key = os.path.join(hdir, 'ssh_host_ed25519_key')
  sshd.EnsureKey(key)
  if plan.os_image:
    # The host's sshd reads its config and key from its own /etc/ssh.
    _Write(os.path.join(etc, 'ssh', 'pkb-ext-sshd_config'), config, 0o600)
    for suffix, mode in (('', 0o600), ('.pub', 0o644)):
      with open(key + suffix) as f:
        _Write(os.path.join(etc, 'ssh', os.path.basename(key) + suffix),
               f.read(), mode)  # fmt: skip
  else:
    guard = _Subst(GUARD_SH)
    for tool in GUARDED:
      for sub in ('bin', 'sbin'):
        if os.path.exists(f'/usr/{sub}/{tool}'):
          _Write(os.path.join(layers['usr'], sub, tool), guard, 0o755)
          break
  opt = os.path.join(layers['opt'], local.HOST_ROOT.split('/', 2)[2])
  for d in ('bin', 'lib', 'log'):
    _Dir(os.path.join(opt, d), 0o755)
  if not plan.os_image:
    _Dir(os.path.join(layers['opt'], 'pkb'), 0o755, uid, uid)
  marker = Marker(plan, host, disk)
  _Write(os.path.join(opt, 'host.json'), json.dumps(marker, indent=1), 0o644)
  _Write(os.path.join(hdir, 'sshd_config'), config, 0o600)
  digest = hashlib.sha256()
  for part in (config, json.dumps(marker, sort_keys=True), INIT_SH, CMDLOG_SH):
    digest.update(part.encode())
  if plan.os_image:
    digest.update((IMAGE_INIT_SH + images.RootDir(plan.os_image)).encode())
    return digest.hexdigest()[:16]
  digest.update(plan.bin_dir.encode())
  # The overlays see packages installed on this machine after they were
  # mounted only unreliably, so a change of the package database restarts
  # the hosts at the next `up`.
  digest.update(str(_Mtime('/var/lib/dpkg/status')).encode())
  digest.update(str(_Mtime(plan.bin_dir)).encode())
  return digest.hexdigest()[:16]


def _Mtime(path: str) -> int:
  try:
    return os.stat(path).st_mtime_ns
  except OSError:
    return 0


def _Gid(group: str) -> int:
  import grp  # pylint: disable=g-import-not-at-top

  try:
    return grp.getgrnam(group).gr_gid
  except KeyError:
    return 0
