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
"""Each host's sshd: keys, start inside the namespaces, readiness, ssh."""

import os
import socket
import subprocess
import time

from pkb_ext.local import images
from pkb_ext.local import layout
from pkb_ext.local import system


def EnsureKey(path: str) -> str:
  """Creates an ed25519 key pair if missing; returns the public key."""
  if not os.path.exists(path):
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    system.Run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C',
                f'pkb-ext-local-{os.path.basename(path)}', '-f', path])  # fmt: skip
  with open(path + '.pub') as f:
    return f.read()


def Start(plan: layout.Plan, host: layout.Host) -> tuple[int, int]:
  """Starts a host's sshd in its namespaces; returns (pid, start time).

  The host gets its own mount, UTS and PID namespaces inside its network
  namespace: `unshare --pid --fork` makes init.sh (which ends in `exec sshd
  -D`) PID 1 of the host, so `ps`, `kill`, `killall` and `pkill` on a host see
  only its own processes, and ending its sshd ends everything on it. The PID
  returned is the sshd's PID on this machine.
  """
  hdir = plan.HostDir(host.name)
  EnsureKey(os.path.join(hdir, 'ssh_host_ed25519_key'))
  init, image_root = 'init.sh', []
  if plan.os_image:
    init, image_root = 'image-init.sh', [images.RootDir(plan.os_image)]
  argv = [
      'ip', 'netns', 'exec', host.netns,
      'unshare', '--mount', '--uts', '--pid', '--fork', '--kill-child',
      '--mount-proc', '--propagation', 'private', '--',
      '/bin/bash', os.path.join(plan.shared_dir, init),
      hdir, host.name, plan.bin_dir, plan.shared_dir, *image_root,
  ]  # fmt: skip
  log_path = os.path.join(hdir, 'init.log')
  with open(log_path, 'w') as log:
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        close_fds=True,
    )
  deadline = time.monotonic() + 20
  while time.monotonic() < deadline:
    if proc.poll() is not None:
      with open(log_path) as f:
        init_log = f.read().strip()
      raise system.LocalCloudError(
          f'host {host.name}: sshd exited {proc.returncode} at start: '
          f'{init_log or "(no output)"}; see {plan.SshdLog(host.name)}'
      )
    child = system.Children(proc.pid)
    if (
        child
        and system.Comm(child[0]) == 'sshd'
        and _Listening(host.ip, plan.ssh_port)
    ):
      proc.returncode = 0  # runs on after us; silence Popen's warning
      return child[0], system.StartTime(child[0])
    time.sleep(0.1)
  proc.kill()
  raise system.LocalCloudError(
      f'host {host.name}: sshd did not listen on {host.ip}:{plan.ssh_port} '
      f'within 20 s; see {hdir}/init.log and {plan.SshdLog(host.name)}'
  )


def _Listening(ip: str, port: int) -> bool:
  try:
    with socket.create_connection((ip, port), timeout=0.5):
      return True
  except OSError:
    return False


def SshArgv(plan: layout.Plan, host: layout.Host, command: str) -> list[str]:
  """The ssh command line that runs command on a host as its user."""
  return [
      'ssh', '-p', str(plan.ssh_port), '-i', plan.key_file,
      '-o', 'UserKnownHostsFile=/dev/null', '-o', 'StrictHostKeyChecking=no',
      '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes',
      '-o', 'ConnectTimeout=5', '-o', 'LogLevel=ERROR',
      f'{layout.USER}@{host.ip}', command,
  ]  # fmt: skip


def Ssh(plan, host, command, check=True, timeout=60):
  return system.Run(SshArgv(plan, host, command), check=check, timeout=timeout)
