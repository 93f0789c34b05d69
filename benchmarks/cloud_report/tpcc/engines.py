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
"""CockroachDB as a TPC-C engine, and what any engine's steps share.

An engine loads the maximum warehouse count once (Setup), runs one step at
a given active warehouse count and returns the tool's raw output (RunStep),
and stops and removes its database (Cleanup). The stepping, parsing and
judging are shared (cloud_report.tpcc.runs, ToMeasurement below, with the
engine's Parse).

cockroach (the report's, the only engine defined here): a node on each db VM,
store on its data disk; the client imports the TPC-C fixtures for the
maximum warehouses and runs `cockroach workload run tpcc --warehouses=MAX
--active-warehouses=N --ramp --duration` against all nodes. Its efficiency
(efc) is measured with the workload's default keying and think times
(--wait=true), as in the report.

Another engine is any object with CockroachEngine's methods; whoever runs
the search passes the one it chose.
"""

import dataclasses
import logging
import posixpath
import re
import shlex
from typing import Any, Callable, Mapping

from perfkitbenchmarker import background_tasks
from perfkitbenchmarker import errors

from benchmarks import cloud_report
from benchmarks.cloud_report import remote
from benchmarks.cloud_report.parsers import ParseError
from benchmarks.cloud_report.tpcc import cockroach as cockroach_cluster
from benchmarks.cloud_report.tpcc import fixtures as tpcc_fixtures
from benchmarks.cloud_report.tpcc import parser as tpcc_parser
from benchmarks.cloud_report.tpcc import samples as tpcc_samples
from benchmarks.cloud_report.tpcc import stepping
from linux_packages import cloud_report_cockroachdb as cockroachdb

COCKROACH = 'cockroach'
PHASE = 'tpcc'  # the phase name samples carry
WORK_DIR = 'cloud_report_tpcc'  # on the client, in the login user's home
TAG_PREFIX = 'tpcc-'  # remote.Bounded's tag of a logged run: tpcc-<log name>
DATABASE = 'tpcc'
DATA_MOUNT = '/mnt/cloud_report_tpcc'  # a raw data disk's mount point
MIN_ELAPSED_FRACTION = 0.9  # a run shorter than this was cut short
WAREHOUSE_TOLERANCE = 0.02  # efficiency's implied warehouses vs requested
OUTPUT_TAIL_LINES = 150
_EXIT = re.compile(r'^cloud_report_tpcc_exit_status=(\d+)$', re.M)
_DURATION = re.compile(r'^(\d+)(s|m|h)$')
_SECONDS = {'s': 1, 'm': 60, 'h': 3600}
# Cluster settings tpcc.sh set before importing (cloud-report commit 47fabad).
COCKROACH_IMPORT_SETTINGS = (
    "SET CLUSTER SETTING kv.bulk_ingest.max_index_buffer_size = '2gib'",
    'SET CLUSTER SETTING kv.bulk_io_write.concurrent_addsstable_requests = 10',
    "SET CLUSTER SETTING schemachanger.backfiller.max_buffer_size = '5GiB'",
    "SET CLUSTER SETTING kv.snapshot_recovery.max_rate = '128 MiB'",
    "SET CLUSTER SETTING kv.snapshot_rebalance.max_rate = '128 MiB'",
)


def DurationSeconds(value: str) -> int:
  """Seconds of a duration written as the tools take it: 90s, 30m, 1h."""
  m = _DURATION.match(value or '')
  if not m:
    raise ValueError(f'{value!r} is not a duration such as 90s, 30m or 1h')
  return int(m.group(1)) * _SECONDS[m.group(2)]


def CutShort(elapsed_s: float, duration_s: float) -> bool:
  """Whether a run that ended after elapsed_s of duration_s was cut short."""
  return elapsed_s < MIN_ELAPSED_FRACTION * duration_s


def ToMeasurement(
    output: str,
    exit_status: int,
    warehouses: int,
    duration_s: float,
    extra: Mapping[str, Any] | None = None,
    bound_s: int | None = None,
    parse: Callable[[str], Any] = tpcc_parser.Parse,
) -> stepping.Measurement:
  """Judges a step's raw output, read by `parse`, as a measurement (pure).

  A run that the parser rejects (its error then ends with the tool's last
  output line when it exited non-zero), that exited non-zero, that ended before
  90 % of its duration, or whose efficiency was computed over another
  warehouse count has an error: it is no verdict, and the search runs the
  level again (--cloud_report_tpcc_step_retries) before it counts as
  failed. So has a run that bound_s ended (remote.TIMED_OUT).
  """
  extra = dict(extra or {})
  if bound_s is not None and exit_status in remote.TIMED_OUT:
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    last = f'; its last output line: {lines[-1][:300]}' if lines else ''
    return stepping.Measurement(
        {},
        f'the step did not end within {bound_s} s and was ended on the'
        f' client (--cloud_report_tpcc_step_timeout){last}',
        extra,
    )
  try:
    result = parse(output)
  except ParseError as e:
    status = f' (exit status {exit_status})' if exit_status else ''
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    if exit_status and lines:  # the tool's own last word, e.g. its error
      status += f'; its last output line: {lines[-1][:300]}'
    return stepping.Measurement({}, f'{e}{status}', extra)
  extra |= {
      'tool': result.tool,
      'efficiency_basis': tpcc_samples.EfficiencyBasis(result.think_time),
  }
  error = None
  implied = result.implied_warehouses
  if exit_status:
    error = f'{result.tool} exited with status {exit_status}'
  elif CutShort(result.elapsed_s, duration_s):
    error = f'the run ended after {result.elapsed_s:g} s of {duration_s:g} s'
  elif implied and abs(implied - warehouses) > WAREHOUSE_TOLERANCE * warehouses:
    error = (
        f'{result.tool} computed its efficiency over {implied:.0f}'
        f' warehouses, not the {warehouses} requested'
    )
  return stepping.Measurement(result.Metrics(), error, extra)


def RunLogged(vm, command: str, log_path: str, bound_s: int, prelude=None):
  """Runs command on vm, its output to log_path; returns (tail, status).

  The command (a simple command) is ended on the VM after bound_s
  (remote.Bounded: its status is then one of remote.TIMED_OUT), and tracked
  under the tag TAG_PREFIX + the log's name (remote.PidPath). A prelude (e.g.
  raising the open-file limit) runs first in the same shell, its output in
  the same log; when it fails, command does not run.
  """
  log = shlex.quote(log_path)
  status = shlex.quote(log_path + '.status')
  tag = TAG_PREFIX + posixpath.splitext(posixpath.basename(log_path))[0]
  command = remote.Bounded(command, bound_s, tag)
  run = f'{command} > {log} 2>&1'
  if prelude:
    run = f'{{ {prelude}; }} > {log} 2>&1 && {command} >> {log} 2>&1'
  wrapped = (
      f'mkdir -p {shlex.quote(posixpath.dirname(log_path))}; '
      f'{remote.ExitStatusTo(f"{{ {run}; }}", status)};'
      f' tail -n {OUTPUT_TAIL_LINES} {log};'
      f' echo cloud_report_tpcc_exit_status=$(cat {status})'
  )
  out, _ = vm.RobustRemoteCommand(
      wrapped, timeout=bound_s + remote.SSH_MARGIN_S
  )
  matches = _EXIT.findall(out)
  if not matches:
    raise errors.VirtualMachine.RemoteCommandError(
        f'{vm.name}: no exit status from {command!r}; output tail:'
        f' {out[-500:]!r}'
    )
  tail = out[: out.rfind('cloud_report_tpcc_exit_status=')]
  return tail, int(matches[-1])


def DataDiskDir(vm, name: str, fallback: str | None = None) -> str:
  """A directory on the VM's data disk.

  The disk's scratch mount point when PKB mounted it; DATA_MOUNT when it is a
  raw device (static VMs, disk_specs without mount_point), which a runner
  that leaves the disk raw until then formats and mounts there; else
  `fallback` (default: name in the login user's home), with a warning.
  """
  disk = cloud_report.DataDisk(vm)
  mount = getattr(disk, 'mount_point', None) if disk else None
  if mount:
    return posixpath.join(mount, name)
  if disk is not None and cloud_report.DiskDevice(disk):
    return posixpath.join(DATA_MOUNT, name)
  if fallback is None:
    home, _ = vm.RemoteCommand('echo $HOME')
    fallback = posixpath.join(home.strip(), name)
  logging.warning(
      'tpcc: %s has no data disk; the database goes to %s', vm.name, fallback
  )
  return fallback


@dataclasses.dataclass(frozen=True)
class Cluster:
  """The VMs an engine runs on: the database nodes, then the client."""

  db_vms: tuple[Any, ...]
  client: Any

  @property
  def first_db(self):
    return self.db_vms[0]

  def RequireClient(self, phase: str):
    """The client VM (`phase` names who asks, for runners without one)."""
    del phase
    return self.client


@dataclasses.dataclass
class CockroachEngine:
  """CockroachDB on the db VMs, `cockroach workload` on the client."""

  params: Any  # cloud_report.tpcc.params.Params
  name: str = COCKROACH
  tool: str = tpcc_parser.COCKROACH

  def Parse(self, text: str) -> tpcc_parser.Result:
    """Its steps' output: `cockroach workload run tpcc`'s."""
    return tpcc_parser.Parse(text)

  def StoreDirs(self, topology) -> list[str]:
    return [DataDiskDir(vm, 'cockroach') for vm in topology.db_vms]

  def Fingerprint(self) -> dict[str, Any]:
    return {
        'cockroach_version': cockroachdb._VERSION_FLAG.value,  # pylint: disable=protected-access
        'cache': self.params.cockroach_cache,
        'max_sql_memory': self.params.cockroach_max_sql_memory,
    }

  def Install(self, topology) -> None:
    """Installs CockroachDB on the db VMs and the client (kept if there)."""
    client = topology.RequireClient(PHASE)
    # Directly, not vm.Install: that does nothing where install_packages is
    # off, and this install needs no package manager.
    background_tasks.RunThreaded(
        cockroachdb.Install, list(topology.db_vms) + [client]
    )

  def Setup(self, topology) -> None:
    """Starts the cluster on the data disks and loads the warehouses.

    Idempotent, so a resumed run can set up again: running nodes are kept
    (stopped ones restart on their stores), and when the database already
    holds the warehouses (counted in it) nothing is loaded; a partial load
    is dropped and loaded again. With --cloud_report_tpcc_fixtures=auto the
    data comes from the fixture bucket when it can (cloud_report.tpcc.
    fixtures), else it is imported.
    """
    client = topology.RequireClient(PHASE)
    vms = list(topology.db_vms)
    cockroach_cluster.StartCluster(
        vms,
        self.StoreDirs(topology),
        self.params.cockroach_cache,
        self.params.cockroach_max_sql_memory,
    )
    first_ip = vms[0].internal_ip
    wanted = self.params.max_warehouses
    loaded = cockroach_cluster.LoadedWarehouses(client, first_ip, DATABASE)
    if loaded is not None and loaded >= wanted:
      logging.info(
          'tpcc: the cluster already holds %d warehouses (%d wanted); no'
          ' import',
          loaded,
          wanted,
      )
      return
    if loaded is not None:
      logging.warning(
          'tpcc: the cluster holds %d of %d warehouses (an interrupted'
          ' load?); dropping database %s and importing again',
          loaded,
          wanted,
          DATABASE,
      )
      client.RemoteCommand(
          cockroach_cluster.SqlCommand(
              first_ip, f'DROP DATABASE IF EXISTS {DATABASE} CASCADE'
          )
      )
    if self.params.cockroach_import_settings:
      for statement in COCKROACH_IMPORT_SETTINGS:
        _, stderr, code = client.RemoteCommandWithReturnCode(
            cockroach_cluster.SqlCommand(first_ip, statement),
            ignore_failure=True,
        )
        if code:
          logging.warning('tpcc: %s failed: %s', statement, stderr.strip())
    bound = self.params.LoadTimeout(len(vms))
    if self.params.fixtures == tpcc_fixtures.AUTO and tpcc_fixtures.SetUp(
        client, first_ip, self.params, bound, RunLogged, WORK_DIR
    ):
      return
    logging.info(
        'tpcc: importing %d warehouses, for at most %d s', wanted, bound
    )
    tail, status = RunLogged(
        client,
        ImportCommand(wanted, first_ip),
        f'{WORK_DIR}/import.txt',
        bound,
    )
    if status in remote.TIMED_OUT:
      raise errors.Benchmarks.RunError(
          f'cockroach fixtures import did not finish in {bound} s and was'
          ' ended (--cloud_report_tpcc_load_timeout); is a node down or its'
          f' disk full? Output tail: {tail[-1500:]}'
      )
    if status:
      raise errors.Benchmarks.RunError(
          f'cockroach fixtures import exited {status}: {tail[-2000:]}'
      )

  def RunStep(self, topology, warehouses: int, iteration: int):
    """Runs one step, the client's open-file limit raised for it first.

    Raises:
      errors.Benchmarks.RunError: the open-file limit cannot be raised to
        what `warehouses` active warehouses need.
    """
    client = topology.RequireClient(PHASE)
    urls = [vm.internal_ip for vm in topology.db_vms]
    command = WorkloadRunCommand(
        self.params.max_warehouses,
        warehouses,
        self.params.ramp,
        self.params.duration,
        urls,
    )
    log = f'{WORK_DIR}/step-{iteration:02d}-{warehouses}wh.txt'
    timeout = self.StepTimeout()
    prelude = cockroach_cluster.RaiseOpenFilesCommand(
        cockroach_cluster.WorkloadOpenFiles(warehouses),
        f'cockroach workload run tpcc at {warehouses} active warehouses',
    )
    tail, status = RunLogged(client, command, log, timeout, prelude)
    if status and cockroach_cluster.OPEN_FILES_MARK in tail:
      line = next(
          l for l in tail.splitlines() if cockroach_cluster.OPEN_FILES_MARK in l
      )
      raise errors.Benchmarks.RunError(f'tpcc: {client.name}: {line}')
    return tail, status

  def StepTimeout(self) -> int:
    """Seconds a step may take before it is ended on the client."""
    return self.params.StepTimeout()

  def StepExtra(self, warehouses: int) -> dict[str, Any]:
    del warehouses
    return {}

  def SampleMetadata(self, topology) -> dict[str, Any]:
    """The installed release, its checksum's source and comparability."""
    client = topology.RequireClient(PHASE)
    return cockroachdb.SampleMetadata(cockroachdb.InstalledInfo(client))

  def Cleanup(self, topology) -> None:
    dirs = self.StoreDirs(topology)
    cockroach_cluster.StopCluster(list(topology.db_vms), dirs)
    background_tasks.RunThreaded(
        lambda vm, path: vm.RemoteCommand(f'sudo rm -rf {shlex.quote(path)}'),
        [((vm, path), {}) for vm, path in zip(topology.db_vms, dirs)],
    )


def ImportCommand(warehouses: int, host_ip: str) -> str:
  return (
      f'{cockroachdb.BinaryPath()} workload fixtures import tpcc'
      f' --warehouses={warehouses}'
      f' {shlex.quote(cockroach_cluster.PgUrl(host_ip))}'
  )


def WorkloadRunCommand(
    warehouses: int, active: int, ramp: str, duration: str, host_ips
) -> str:
  urls = ' '.join(shlex.quote(cockroach_cluster.PgUrl(ip)) for ip in host_ips)
  return (
      f'{cockroachdb.BinaryPath()} workload run tpcc'
      f' --warehouses={warehouses} --active-warehouses={active}'
      f' --ramp={ramp} --duration={duration} {urls}'
  )
