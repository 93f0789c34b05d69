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
"""A local cloud for tests: its own state dir, prefix and subnet.

The local test tier brings up a second cloud beside any `make local` one
(prefix pkbtest, subnet 10.247.74.0/24, small disks), drives it through the
real `pkb-ext local` command line, and checks that `down` leaves nothing.
"""

import ast
import datetime
import hashlib
import json
import os
import re
import shutil
import site
import subprocess
import sys

from pkb_ext import paths
from pkb_ext.local import images
from pkb_ext.local import layout

# Each overridable, so that a second checkout's test tier can run beside
# this one's with its own names, addresses and state.
TEST_PREFIX = os.environ.get('PKB_EXT_TEST_LOCAL_PREFIX') or 'pkbtest'
TEST_SUBNET = os.environ.get('PKB_EXT_TEST_LOCAL_SUBNET') or '10.247.74.0/24'
TEST_DISK_GIB = 1.5  # the smoke preset loads 3 warehouses (~0.5 GiB)
_TOOLS = ('ip', 'unshare', 'losetup', 'ssh', 'ssh-keygen', '/usr/sbin/sshd')


def TestStateDir() -> str:
  """The test cloud's state dir (the cache: the hosts hide /tmp)."""
  return os.environ.get('PKB_EXT_TEST_LOCAL_STATE') or os.path.join(
      paths.CacheDir(), 'local-test'
  )


def Unavailable() -> str | None:
  """Returns why the local cloud cannot run here, or None if it can."""
  if os.geteuid() != 0:
    return 'the local cloud needs root (namespaces, loop devices, mounts)'
  missing = [t for t in _TOOLS if not shutil.which(t)]
  if missing:
    return f'missing tools: {", ".join(missing)}'
  with open('/proc/filesystems') as f:
    if 'overlay' not in f.read():
      return 'the kernel has no overlay file system'
  return None


def Status(cli) -> dict:
  """`pkb-ext local ... status --json` through cli(*args), as a dict.

  Raises:
    AssertionError: the command failed (its stderr's end).
  """
  proc = cli('status', '--json')
  if proc.returncode:
    raise AssertionError(f'status failed: {proc.stderr[-2000:]}')
  return json.loads(proc.stdout)


class TestCloud:
  """Drives `pkb-ext local` for one test cloud.

  Its hosts run on this machine's software (--image=host) unless an image
  is given: the tests that run a phase without PKB's installs need the
  machine's tools.
  """

  image = images.HOST_IMAGE

  def __init__(
      self,
      state_dir: str,
      disk_gib: float = TEST_DISK_GIB,
      image: str | None = None,
  ):
    self.state_dir = state_dir
    self.image = image or self.image
    self.plan = layout.Plan(
        state_dir=state_dir,
        prefix=TEST_PREFIX,
        subnet=TEST_SUBNET,
        disk_gib=disk_gib,
        image=self.image,
    )

  @property
  def env(self) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PKB_EXT_LOCAL_STATE=self.state_dir,
        PKB_EXT_LOCAL_PREFIX=TEST_PREFIX,
        PKB_EXT_LOCAL_SUBNET=TEST_SUBNET,
        PKB_EXT_LOCAL_DISK_GIB=str(self.plan.disk_gib),
        PKB_EXT_LOCAL_IMAGE=self.image,
    )
    return env

  def Cli(self, *args, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, '-m', 'pkb_ext.cli', 'local', *args],
        env=self.env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )

  def UpForTests(self) -> bool:
    """Brings the cloud up unless it is up; returns whether it was already.

    A cloud that is down but left something behind (a run that died) is
    taken down first.
    """
    proc = self.Cli('status', '--json')
    was_up = proc.returncode == 0 and json.loads(proc.stdout).get('up')
    if not was_up:
      if self.Leftovers():
        self.Cli('down')
      proc = self.Cli('up')
      if proc.returncode:
        self.Cli('down')
        raise AssertionError(f'up failed: {proc.stdout}\n{proc.stderr}')
    return bool(was_up)

  def DownAfterTests(self, was_up: bool) -> None:
    """Takes the cloud down unless it was up before; nothing may be left."""
    if was_up:
      return
    proc = self.Cli('down')
    left = self.Leftovers()
    if proc.returncode or left:
      raise AssertionError(f'down left {left}: {proc.stderr}')

  def Status(self) -> dict:
    return Status(self.Cli)

  def State(self) -> dict:
    with open(self.plan.state_file) as f:
      return json.load(f)

  def Ssh(self, host: str, command: str, timeout=60):
    from pkb_ext.local import sshd  # pylint: disable=g-import-not-at-top

    return subprocess.run(
        sshd.SshArgv(self.plan, self.plan.Host(host), command),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )

  def CommandLog(self, host: str) -> list[str]:
    """Every ssh command the host ran (the sshd ForceCommand's log)."""
    return [command for _, command in self.TimedCommandLog(host)]

  def TimedCommandLog(self, host: str) -> list[tuple[datetime.datetime, str]]:
    """(start time, command) of every ssh command the host ran."""
    path = os.path.join(self.plan.HostDir(host), 'log', 'commands.log')
    try:
      with open(path) as f:
        lines = [line.rstrip('\n').split('\t', 2) for line in f]
    except FileNotFoundError:
      return []
    return [
        (datetime.datetime.fromisoformat(when.replace('Z', '+00:00')), what)
        for when, _, what in (x for x in lines if len(x) == 3)
    ]

  def GuardLog(self, host: str) -> list[str]:
    path = os.path.join(self.plan.HostDir(host), 'log', 'guard.log')
    try:
      with open(path) as f:
        return f.read().splitlines()
    except FileNotFoundError:
      return []

  def Leftovers(self) -> list[str]:
    """What of this cloud exists on the machine; [] after a clean down."""
    found = []
    netns = subprocess.run(
        ['ip', 'netns', 'list'], capture_output=True, text=True, check=False
    ).stdout
    found += [
        f'netns {line.split()[0]}'
        for line in netns.splitlines()
        if line.startswith(TEST_PREFIX + '-')
    ]
    links = subprocess.run(
        ['ip', '-o', 'link', 'show'],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    for line in links.splitlines():
      name = line.split(':')[1].strip().split('@')[0]
      if name.startswith(TEST_PREFIX):
        found.append(f'link {name}')
    # The state dir itself or a path below it, not a sibling whose name it
    # begins (another checkout's or tier half's local-test-b).
    in_state = re.compile(re.escape(self.state_dir) + r'(/|\s|\)|$)').search
    loops = subprocess.run(
        ['losetup', '-a'], capture_output=True, text=True, check=False
    ).stdout
    found += [f'loop {line}' for line in loops.splitlines() if in_state(line)]
    for pid in filter(str.isdigit, os.listdir('/proc')):
      try:
        with open(f'/proc/{pid}/cmdline', 'rb') as f:
          cmdline = f.read().replace(b'\0', b' ').decode(errors='replace')
      except OSError:
        continue
      if in_state(cmdline) or any(
          f'{h.ip}:' in cmdline for h in self.plan.hosts
      ):
        if 'pytest' not in cmdline:
          found.append(f'process {pid}: {cmdline[:100]}')
    if os.path.exists(self.state_dir):
      found.append(f'dir {self.state_dir}')
    return found


def MachinePackages() -> dict[str, object]:
  """What is installed on this machine: its dpkg database's digest and the
  distributions in its Pythons' site-packages (this one's and python3's)."""
  with open('/var/lib/dpkg/status', 'rb') as f:
    dpkg = hashlib.sha256(f.read()).hexdigest()
  dirs = set(site.getsitepackages())
  system = subprocess.run(
      ['/usr/bin/python3', '-c', 'import site; print(site.getsitepackages())'],
      capture_output=True,
      text=True,
      check=True,
  ).stdout
  dirs.update(ast.literal_eval(system.strip()))
  found = {}
  for d in sorted(dirs):
    if os.path.isdir(d):
      found[d] = sorted(
          n for n in os.listdir(d) if n.endswith(('.dist-info', '.egg-info'))
      )
  return {'dpkg_status_sha256': dpkg, 'site_packages': found}
