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
"""Fault injection on a local cloud of its own (tests/local/test_faults*.py).

FaultCloud is a TestCloud (pkb_ext_dev.local_cloud) with its own prefix,
subnet and state dir, so the fault tests never touch the cloud of `make
local` or of the other local tests. On its hosts:

  Shim(host, path, content)   replaces a file (a tool, a script) on ONE
      host with `content`, by a bind mount in that host's own mount
      namespace; the original stays readable at RealPath(path). Unshim
      undoes it. Nothing on this machine or on the other hosts changes.
  DropSsh(host, pattern)      waits for a process of the host matching
      pattern, then ends the sshd connection that serves it (SIGKILL to the
      connection's sshd processes): for the ssh client this is a dropped
      connection (exit 255); what the host ran keeps running, as after a
      real network failure.
  Pkb(...)                    runs stock pkb.py --benchmarks=cloud_report_2021
      on the cloud with the smoke preset and more flags.
"""

import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time

from pkb_ext import paths
from pkb_ext.local import layout
from pkb_ext_dev import local_cloud

FAULT_PREFIX = 'pkbflt'
FAULT_SUBNET = '10.247.85.0/24'
FAULT_DISK_GIB = 1  # PostgreSQL's WAL fills a smaller disk (smoke tpcc)
FAULT_DIR = '/run/pkb-ext-faults'  # on the hosts (their own tmpfs)


def FaultStateDir() -> str:
  return os.path.join(paths.CacheDir(), 'local-faults')


def ExitScript(
    tool: str, code: int = 3, real: str | None = None, when: str = '*'
) -> str:
  """A stand-in that prints an error and exits `code` (a broken tool).

  Args:
    tool: the tool's name, for the message.
    code: the exit status.
    real: the real tool, run unchanged for calls that `when` does not match.
    when: a bash case pattern on the arguments ("$*") of the failing calls.
  """
  passthrough = ''
  if real:
    passthrough = (
        f'case "$*" in {when}) ;; *) exec {shlex.quote(real)} "$@" ;; esac\n'
    )
  return (
      '#!/bin/bash\n'
      + passthrough
      + f'echo "pkb-ext fault injection: {tool} exits {code} on purpose" >&2\n'
      f'exit {code}\n'
  )


def TruncateScript(real: str, keep: float = 0.5, when: str = '*') -> str:
  """A stand-in that runs the real tool and prints part of its stdout.

  Args:
    real: the real tool (RealPath of the shimmed path).
    keep: the fraction of stdout printed.
    when: a bash case pattern on the arguments ("$*"); other calls run the
      real tool unchanged (e.g. a version check).
  """
  return (
      '#!/bin/bash\n'
      f'case "$*" in {when}) ;; *) exec {shlex.quote(real)} "$@" ;; esac\n'
      f'out=$(mktemp {FAULT_DIR}/out.XXXXXX)\n'
      f'{shlex.quote(real)} "$@" > "$out"; rc=$?\n'
      f'head -c $(( $(wc -c < "$out") * {int(keep * 100)} / 100 )) "$out"\n'
      'rm -f "$out"; exit $rc\n'
  )


def LogTruncateScript(
    real: str, log: str, when: str, unless: str = '', keep: float = 0.5
) -> str:
  """A stand-in that runs the real tool, then cuts the log file it wrote.

  For a tool whose output a phase reads from a file afterwards (PKB's
  coremark make writes CoreMark's output to run1.log, which RunCoremark
  then reads with cat).

  Args:
    real: the real tool (RealPath of the shimmed path).
    log: the file, relative to the working directory, that is cut.
    when: a bash case pattern on the arguments ("$*") of the calls whose log
      is cut; other calls run the real tool unchanged.
    unless: a pattern of calls run unchanged even if `when` matches.
    keep: the fraction of the log's bytes kept.
  """
  q = shlex.quote
  return (
      '#!/bin/bash\n'
      + (
          f'case "$*" in {unless}) exec {q(real)} "$@" ;; esac\n'
          if unless
          else ''
      )
      + f'case "$*" in {when}) ;; *) exec {q(real)} "$@" ;; esac\n'
      f'{q(real)} "$@"; rc=$?\n'
      f'if [ -f {q(log)} ]; then n=$(wc -c < {q(log)});'
      f' head -c $(( n * {int(keep * 100)} / 100 )) {q(log)} > {q(log)}.cut'
      f' && mv {q(log)}.cut {q(log)}; fi\n'
      'exit $rc\n'
  )


def RealPath(path: str) -> str:
  return f'{FAULT_DIR}/real/{path.strip("/").replace("/", "__")}'


class FaultCloud(local_cloud.TestCloud):
  """A TestCloud with the fault tests' prefix, subnet and state dir."""

  def __init__(self, state_dir: str | None = None):
    super().__init__(state_dir or FaultStateDir(), FAULT_DISK_GIB)
    self.plan = layout.Plan(
        state_dir=self.state_dir,
        prefix=FAULT_PREFIX,
        subnet=FAULT_SUBNET,
        disk_gib=FAULT_DISK_GIB,
    )

  @property
  def env(self) -> dict[str, str]:
    return super().env | {
        'PKB_EXT_LOCAL_PREFIX': FAULT_PREFIX,
        'PKB_EXT_LOCAL_SUBNET': FAULT_SUBNET,
    }

  def Leftovers(self) -> list[str]:
    """What of this cloud exists on the machine; [] after a clean down."""
    found = []
    netns = subprocess.run(
        ['ip', 'netns', 'list'], capture_output=True, text=True, check=False
    ).stdout.split()
    found += [f'netns {n}' for n in netns if n.startswith(FAULT_PREFIX + '-')]
    links = subprocess.run(
        ['ip', '-o', 'link', 'show'], capture_output=True, text=True,
        check=False,
    ).stdout  # fmt: skip
    for m in re.finditer(rf'^\d+: ({FAULT_PREFIX}[^:@ ]*)', links, re.M):
      found.append(f'link {m.group(1)}')
    loops = subprocess.run(
        ['losetup', '-a'], capture_output=True, text=True, check=False
    ).stdout
    found += [f'loop {x}' for x in loops.splitlines() if self.state_dir in x]
    if os.path.exists(self.state_dir):
      found.append(f'dir {self.state_dir}')
    return found

  @staticmethod
  def EndSshMasters(work: str) -> list[int]:
    """Ends PKB's ssh ControlMaster processes of runs under `work`.

    PKB keeps one per host for --ssh_control_persist (30 min) after pkb.py
    exits; once the hosts are gone they would linger until ServerAlive
    gives up. Returns the PIDs signalled.
    """
    ended = []
    for pid in filter(str.isdigit, os.listdir('/proc')):
      try:
        with open(f'/proc/{pid}/cmdline', 'rb') as f:
          cmd = f.read().replace(b'\0', b' ').decode(errors='replace')
      except OSError:
        continue
      if cmd.startswith(f'ssh: {work}/') and '[mux]' in cmd:
        try:
          os.kill(int(pid), signal.SIGTERM)
          ended.append(int(pid))
        except ProcessLookupError:
          pass
    return ended

  def Run(self, host: str, command: str, timeout=120) -> str:
    """Runs command on a host over ssh; returns stdout, raises on failure."""
    proc = self.Ssh(host, command, timeout=timeout)
    if proc.returncode:
      raise AssertionError(
          f'{host}: {command!r} exited {proc.returncode}: {proc.stderr}'
      )
    return proc.stdout

  # --- Shims -------------------------------------------------------------

  def Shim(self, host: str, path: str, content: str) -> None:
    """Replaces `path` on one host by `content` (see module docstring)."""
    real, fake = RealPath(path), f'{FAULT_DIR}/fake/{os.path.basename(path)}'
    q = shlex.quote
    self.Run(
        host,
        f'set -e; p=$(readlink -f {q(path)}); sudo mkdir -p {FAULT_DIR}/real'
        f' {FAULT_DIR}/fake; sudo chmod 1777 {FAULT_DIR};'
        f' if ! mountpoint -q "$p"; then sudo cp -p "$p" {q(real)}; fi;'
        f' printf %s {q(content)} | sudo tee {q(fake)} >/dev/null;'
        f' sudo chmod 755 {q(fake)}; if mountpoint -q "$p"; then sudo umount'
        f' "$p"; fi; sudo mount --bind {q(fake)} "$p"',
    )

  def PutScript(self, host: str, name: str, content: str) -> str:
    """Writes an executable script on a host; returns its path there."""
    path = f'{FAULT_DIR}/bin/{name}'
    q = shlex.quote
    self.Run(
        host,
        f'sudo mkdir -p {FAULT_DIR}/bin && sudo chmod 1777 {FAULT_DIR} &&'
        f' printf %s {q(content)} | sudo tee {q(path)} >/dev/null &&'
        f' sudo chmod 755 {q(path)}',
    )
    return path

  def Unshim(self, host: str, path: str) -> None:
    q = shlex.quote(path)
    self.Run(host, f'if mountpoint -q {q}; then sudo umount {q}; fi')

  # --- Processes of a host, seen from this machine -----------------------

  def _NetnsInode(self, host: str) -> int:
    return os.stat(f'/run/netns/{self.plan.Host(host).netns}').st_ino

  def HostProcesses(self, host: str) -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process of a host."""
    inode, out = self._NetnsInode(host), {}
    for pid in filter(str.isdigit, os.listdir('/proc')):
      try:
        if os.stat(f'/proc/{pid}/ns/net').st_ino != inode:
          continue
        with open(f'/proc/{pid}/stat') as f:
          ppid = int(f.read().rsplit(')', 1)[1].split()[1])
        with open(f'/proc/{pid}/cmdline', 'rb') as f:
          cmd = f.read().replace(b'\0', b' ').decode(errors='replace')
      except (OSError, ValueError, IndexError):
        continue
      out[int(pid)] = (ppid, cmd.strip())
    return out

  def FindProcess(self, host: str, pattern: str) -> int | None:
    for pid, (_, cmd) in self.HostProcesses(host).items():
      if re.search(pattern, cmd):
        return pid
    return None

  def _SshdOf(self, procs, pid) -> list[int]:
    """The sshd processes (session, then monitor) that pid runs under."""
    chain = []
    while pid in procs:
      ppid, cmd = procs[pid]
      # 'sshd: USER@notty' and 'sshd: USER [priv]'; the listener is
      # 'sshd: /usr/sbin/sshd -D ...'.
      if cmd.startswith('sshd: ') and not cmd.startswith('sshd: /'):
        chain.append(pid)
      pid = ppid
    return chain

  def DropSsh(
      self,
      host: str,
      pattern: str,
      timeout_s: float = 300,
      after_s: float = 0.0,
      while_running: str | None = None,
  ) -> dict:
    """Drops the ssh connection serving the first process matching pattern.

    Args:
      host: the host.
      pattern: regular expression on a process's command line; the process
        must run under an sshd session (not a daemonized one).
      timeout_s: how long to wait for such a process.
      after_s: wait this long after it appears before dropping.
      while_running: only while a process matching this also runs on the
        host (e.g. the tool a RobustRemoteCommand waits for).

    Returns:
      {'pid', 'cmdline', 'killed' (sshd pids), 'at' (time.time())}.

    Raises:
      TimeoutError: no such process appeared in time.
    """
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
      procs = self.HostProcesses(host)
      if while_running and not any(
          re.search(while_running, cmd) for _, cmd in procs.values()
      ):
        time.sleep(0.05)
        continue
      for pid, (_, cmd) in procs.items():
        if not re.search(pattern, cmd):
          continue
        sshd = self._SshdOf(procs, pid)
        if not sshd:
          continue
        if after_s:
          time.sleep(after_s)
        for s in sshd:
          try:
            os.kill(s, signal.SIGKILL)
          except ProcessLookupError:
            pass
        return {'pid': pid, 'cmdline': cmd, 'killed': sshd, 'at': time.time()}
      time.sleep(0.05)
    raise TimeoutError(f'{host}: no process matching {pattern!r} under sshd')

  def DropSshInBackground(self, host, pattern, **kwargs):
    """DropSsh in a thread; returns (thread, result dict filled when done)."""
    result = {}

    def Target():
      try:
        result.update(self.DropSsh(host, pattern, **kwargs))
      except Exception as e:  # pylint: disable=broad-except
        result['error'] = repr(e)

    thread = threading.Thread(target=Target, daemon=True)
    thread.start()
    return thread, result

  def ShimWhenRunning(
      self, host, trigger, path_glob, content_of, timeout_s: float = 900
  ):
    """In a thread: shims a file a phase makes, while the phase runs.

    Once a process matching `trigger` runs on the host (e.g. the single-core
    CoreMark run, after the phase built every binary), shims each file
    matching path_glob with content_of(path); once one of them has run and
    no process uses it any more, removes the shims (so the phase's cleanup
    can delete them).

    Returns:
      (thread, result dict: 'shimmed' paths, 'ran', or 'error').
    """
    result = {}

    def Target():
      try:
        deadline = time.monotonic() + timeout_s
        while not self.FindProcess(host, trigger):
          if time.monotonic() > deadline:
            raise TimeoutError(f'{host}: nothing matched {trigger!r}')
          time.sleep(0.05)
        paths = self.Run(host, f'ls -d {path_glob}').split()
        for path in paths:
          self.Shim(host, path, content_of(path))
        result['shimmed'] = paths
        used = '|'.join(re.escape(p) for p in paths)
        while not self.FindProcess(host, used):
          if time.monotonic() > deadline:
            raise TimeoutError(f'{host}: {paths} never ran')
          time.sleep(0.05)
        result['ran'] = True
        while self.FindProcess(host, used):
          time.sleep(0.1)
        for path in paths:
          self.Unshim(host, path)
      except Exception as e:  # pylint: disable=broad-except
        result['error'] = repr(e)

    thread = threading.Thread(target=Target, daemon=True)
    thread.start()
    return thread, result

  # --- Stock pkb.py ------------------------------------------------------

  def PkbArgv(self, work: str, run_uri: str, *flags) -> list[str]:
    flag_file = os.path.join(work, 'flags')
    if not os.path.exists(flag_file):
      proc = self.Cli('flags', '--preset=smoke', f'--spool-dir={work}/spool')
      if proc.returncode:
        raise AssertionError(f'pkb-ext local flags: {proc.stderr}')
      with open(os.open(flag_file, os.O_WRONLY | os.O_CREAT, 0o600), 'w') as f:
        f.write(proc.stdout)
    pkb = os.path.join(os.path.dirname(sys.executable), 'pkb.py')
    return [sys.executable, pkb, '--benchmarks=cloud_report_2021',
            f'--flagfile={flag_file}', f'--temp_dir={work}/pkb',
            f'--json_path={work}/samples-{run_uri}.json',
            f'--run_uri={run_uri}', *flags]  # fmt: skip

  def Pkb(self, work: str, run_uri: str, *flags, timeout=1800):
    """Runs stock pkb.py on this cloud; returns the CompletedProcess.

    Its stderr (PKB's log) is also kept as work/RUN_URI-N.log.
    """
    proc = subprocess.run(
        self.PkbArgv(work, run_uri, *flags),
        env=self.env, capture_output=True, text=True, timeout=timeout,
        check=False,
    )  # fmt: skip
    n = len([f for f in os.listdir(work) if f.startswith(run_uri + '-')])
    with open(os.path.join(work, f'{run_uri}-{n + 1}.log'), 'w') as f:
      f.write(proc.stderr)
    return proc
