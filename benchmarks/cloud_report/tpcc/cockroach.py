# Copyright 2026 PerfKitBenchmarker Authors. All rights reserved.
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
"""A CockroachDB cluster on the db VMs: start, initialize, count, stop.

The cluster: one insecure node per db VM, its store on the VM's data disk,
with the cache and SQL memory of the CRL repository's driver script
(cmd/generate.go at the 2021 report's commit 47fabad: `roachprod start ...
--args="--cache=0.25 --max-sql-memory=0.4"`); each node writes a pid file, so
stopping it signals exactly that process. `cockroach start --background`
re-runs itself in the background and the child keeps the stdout and stderr
it was given, so over ssh StartCommand gives it /dev/null and a log file
instead of the session's pipes, bounds the wait for the node to be ready with
`timeout`, and raises the shell's open-file limit first (cockroach refuses to
start below 1,956 and wants 15,000 for one store). A failed start raises an
error carrying the tail of that log.
"""

import posixpath
import shlex

from perfkitbenchmarker import background_tasks
from perfkitbenchmarker import errors
from perfkitbenchmarker import vm_util

from benchmarks.cloud_report import remote
from linux_packages import cloud_report_cockroachdb as cockroachdb

# The CRL repository's start arguments (cmd/generate.go, commit 47fabad).
DEFAULT_CACHE = '.25'
DEFAULT_MAX_SQL_MEMORY = '.4'
SQL_PORT = 26257
HTTP_PORT = 8080
# Open files: cockroach's server refuses to start below MIN (1,700 for one
# store + 256 network descriptors) and wants RECOMMENDED (10,000 + 5,000);
# `cockroach workload run tpcc` opens 2 connections per active warehouse.
NODE_MIN_OPEN_FILES = 1956
NODE_OPEN_FILES = 15000
WORKLOAD_CONNS_PER_WAREHOUSE = 2
WORKLOAD_OPEN_FILES_HEADROOM = 1024
OPEN_FILES_MARK = 'cloud_report_open_files:'
RUNNING_MARK = 'cloud_report_cockroach_running:'
START_TIMEOUT_S = 300
START_LOG = 'cockroach-start.log'  # in the node's log dir
# What `cockroach init` says to a cluster that was initialized before.
ALREADY_INITIALIZED = 'cluster has already been initialized'


def PidFile(store_dir: str) -> str:
  return posixpath.join(store_dir, 'cockroach.pid')


def LogDir(store_dir: str) -> str:
  return posixpath.join(store_dir, 'logs')


def StartLog(store_dir: str) -> str:
  return posixpath.join(LogDir(store_dir), START_LOG)


def WorkloadOpenFiles(active_warehouses: int) -> int:
  """Open files `cockroach workload run tpcc` needs at this many warehouses."""
  return (
      WORKLOAD_CONNS_PER_WAREHOUSE * active_warehouses
      + WORKLOAD_OPEN_FILES_HEADROOM
  )


def RaiseOpenFilesCommand(need: int, what: str) -> str:
  """Raises this shell's open-file limit to at least need, or fails.

  The soft limit goes up to need where the hard limit allows it; else both
  limits are raised with `sudo -n prlimit` on the shell itself. When the
  soft limit is still below need, it prints a line starting with
  OPEN_FILES_MARK to stderr and the group's status is 1. One `{ ...; }`
  group in the calling shell, so it chains with &&; POSIX sh (it also runs
  under dash, as PKB's RobustRemoteCommand runs commands).
  """
  return (
      f'{{ n={need}; s=$(ulimit -Sn); h=$(ulimit -Hn);'
      ' if [ "$s" != unlimited ] && [ "$s" -lt "$n" ]; then'
      ' if [ "$h" = unlimited ] || [ "$h" -ge "$n" ]; then ulimit -Sn "$n";'
      ' else sudo -n prlimit --pid $$ --nofile="$n:$n" >/dev/null 2>&1;'
      ' fi; fi; s=$(ulimit -Sn);'
      ' if [ "$s" != unlimited ] && [ "$s" -lt "$n" ]; then'
      f' echo "{OPEN_FILES_MARK} {what} needs $n open files; the soft limit'
      ' is $s (hard $(ulimit -Hn)) and neither ulimit nor sudo prlimit could'
      ' raise it: raise nofile for the login user (limits.conf) or allow'
      ' passwordless sudo" >&2; false; fi; }'
  )


def NodeCommand(
    store_dir: str,
    listen_ip: str,
    join_ips,
    cache: str = DEFAULT_CACHE,
    max_sql_memory: str = DEFAULT_MAX_SQL_MEMORY,
) -> str:
  """`cockroach start ... --background`: one insecure node, store in store_dir.

  Run as it is over ssh this never returns (see the module docstring):
  StartCommand wraps it.
  """
  join = ','.join(f'{ip}:{SQL_PORT}' for ip in join_ips)
  return ' '.join([
      cockroachdb.BinaryPath(),
      'start',
      '--insecure',
      f'--store=path={shlex.quote(store_dir)}',
      f'--listen-addr={listen_ip}:{SQL_PORT}',
      f'--http-addr={listen_ip}:{HTTP_PORT}',
      f'--join={join}',
      f'--cache={cache}',
      f'--max-sql-memory={max_sql_memory}',
      f'--pid-file={shlex.quote(PidFile(store_dir))}',
      f'--log-dir={shlex.quote(LogDir(store_dir))}',
      '--background',
  ])


def StartCommand(
    store_dir: str,
    listen_ip: str,
    join_ips,
    cache: str = DEFAULT_CACHE,
    max_sql_memory: str = DEFAULT_MAX_SQL_MEMORY,
    timeout_s: int = START_TIMEOUT_S,
) -> str:
  """Starts a node in the background and returns once it is ready.

  A node already running from this store (its pid file names a live
  process) is kept: the command prints RUNNING_MARK and succeeds. A stopped
  node restarts on its store. Its stdin is /dev/null and its output goes
  to StartLog(store_dir), so the ssh session ends when `cockroach start`
  returns; `timeout` bounds that wait; the open-file limit is raised first
  (RaiseOpenFilesCommand).
  """
  log = shlex.quote(StartLog(store_dir))
  pid_file = shlex.quote(PidFile(store_dir))
  return (
      f'if [ -f {pid_file} ] && kill -0 "$(cat {pid_file})" 2>/dev/null;'
      f' then echo "{RUNNING_MARK} pid $(cat {pid_file})"; else'
      f' mkdir -p {shlex.quote(LogDir(store_dir))} &&'
      f' {RaiseOpenFilesCommand(NODE_OPEN_FILES, "cockroach start")} &&'
      f' timeout -k 10 {timeout_s}'
      f' {NodeCommand(store_dir, listen_ip, join_ips, cache, max_sql_memory)}'
      f' </dev/null >>{log} 2>&1; fi'
  )


def StartFailureCommand(store_dir: str, lines: int = 40) -> str:
  """Prints the tails of a node's start log and server log."""
  return (
      f'tail -n {lines} {shlex.quote(StartLog(store_dir))};'
      f' tail -n {lines} {shlex.quote(LogDir(store_dir))}/cockroach.log'
      ' 2>/dev/null; true'
  )


def InitCommand(host_ip: str) -> str:
  """Initializes the cluster; succeeds when it was initialized already."""
  init = (
      f'{cockroachdb.BinaryPath()} init --insecure --host={host_ip}:{SQL_PORT}'
  )
  return (
      f'out=$({init} 2>&1); rc=$?; echo "$out";'
      f' [ $rc -eq 0 ] || echo "$out" | grep -q "{ALREADY_INITIALIZED}"'
  )


def CountCommand(host_ip: str, table: str) -> str:
  """Prints `count` then the rows of table (CSV)."""
  return (
      f'{cockroachdb.BinaryPath()} sql --insecure --host={host_ip}:{SQL_PORT}'
      f' --format=csv -e {shlex.quote(f"SELECT count(*) FROM {table}")}'
  )


def LoadedWarehouses(vm, host_ip: str, database: str) -> int | None:
  """TPC-C warehouses the cluster holds (None: no such table).

  Raises:
    errors.Benchmarks.RunError: the count failed for another reason.
  """
  table = f'{database}.warehouse'
  out, err, code = vm.RemoteCommandWithReturnCode(
      CountCommand(host_ip, table), ignore_failure=True
  )
  if code and 'does not exist' in err:
    return None
  count = None if code else remote.LastInteger(out)
  if count is None:
    raise errors.Benchmarks.RunError(
        f'{vm.name}: cannot count the rows of {table}: exit status {code};'
        f' {(err or out).strip()[-500:]}'
    )
  return count


def PgUrl(ip: str) -> str:
  return f'postgresql://root@{ip}:{SQL_PORT}?sslmode=disable'


def SqlCommand(host_ip: str, statement: str) -> str:
  return (
      f'{cockroachdb.BinaryPath()} sql --insecure --host={host_ip}:{SQL_PORT}'
      f' -e {shlex.quote(statement)}'
  )


def StopCommand(store_dir: str) -> str:
  """Stops the node whose pid file is in store_dir, waiting up to 60 s."""
  pid_file = shlex.quote(PidFile(store_dir))
  return (
      f'if [ -f {pid_file} ]; then pid=$(cat {pid_file});'
      ' kill -TERM "$pid" 2>/dev/null;'
      ' for i in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1;'
      ' done; kill -KILL "$pid" 2>/dev/null; rm -f'
      f' {pid_file}; fi; true'
  )


def StartNode(
    vm,
    store_dir: str,
    join_ips,
    cache: str = DEFAULT_CACHE,
    max_sql_memory: str = DEFAULT_MAX_SQL_MEMORY,
    timeout_s: int = START_TIMEOUT_S,
) -> None:
  """Starts the node on vm; raises with the log tails if it does not start.

  Raises:
    errors.Benchmarks.PrepareException: the start failed or timed out.
  """
  store = shlex.quote(store_dir)
  vm.RemoteCommand(
      f'sudo mkdir -p {store} && sudo chown $(id -u):$(id -g) {store}'
  )
  command = StartCommand(
      store_dir, vm.internal_ip, join_ips, cache, max_sql_memory, timeout_s
  )
  _, stderr, code = vm.RemoteCommandWithReturnCode(
      command, ignore_failure=True, timeout=timeout_s + 60
  )
  if not code:
    return
  if OPEN_FILES_MARK in stderr:
    reason = stderr.strip()
  elif code in (124, 137):
    reason = f'the node was not ready after {timeout_s} s'
  else:
    reason = f'exit status {code}'
  tail, _ = vm.RemoteCommand(StartFailureCommand(store_dir))
  raise errors.Benchmarks.PrepareException(
      f'{vm.name}: cockroach start failed ({reason}). Log tails'
      f' ({StartLog(store_dir)}, cockroach.log):\n{tail[-3000:]}'
  )


def StartCluster(
    vms,
    store_dirs,
    cache: str = DEFAULT_CACHE,
    max_sql_memory: str = DEFAULT_MAX_SQL_MEMORY,
) -> None:
  """Starts a node on each VM, initializes the cluster, waits for SQL."""
  ips = [vm.internal_ip for vm in vms]
  background_tasks.RunThreaded(
      lambda vm, store: StartNode(vm, store, ips, cache, max_sql_memory),
      [((vm, store), {}) for vm, store in zip(vms, store_dirs)],
  )
  vms[0].RemoteCommand(InitCommand(ips[0]))
  WaitForSql(vms[0], ips[0])


@vm_util.Retry(poll_interval=5, timeout=300, log_errors=False)
def WaitForSql(vm, host_ip: str) -> None:
  vm.RemoteCommand(SqlCommand(host_ip, 'SELECT 1'))


def StopCluster(vms, store_dirs) -> None:
  background_tasks.RunThreaded(
      lambda vm, store: vm.RemoteCommand(StopCommand(store)),
      [((vm, store), {}) for vm, store in zip(vms, store_dirs)],
  )
