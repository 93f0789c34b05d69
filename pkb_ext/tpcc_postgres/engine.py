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
"""The postgres engine: PostgreSQL on db1, go-tpc on the client.

`go-tpc tpcc prepare` loads the maximum warehouses into PostgreSQL on db1
(or, with --cloud_report_tpcc_fixtures=auto, pg_restore of a stored dump:
pkb_ext.tpcc_postgres.dumps); a step runs `go-tpc tpcc run --warehouses N`
(transactions pick warehouses 1..N) with threads_per_warehouse * N threads.
go-tpc has no ramp: one process runs the ramp and the measured time (and
half a report interval more, so that the last report comes before go-tpc
stops), reporting every interval that divides both, and the parser takes the
reports after the ramp's (gotpc_parser.WindowHeader): the connections'
start-up and the run's end fall outside what is measured. The server, its
data directory on db1's data disk and its access rules are
PostgresCommands'.
"""

import dataclasses
import logging
import math
import shlex
from typing import Any

from perfkitbenchmarker import errors

from benchmarks.cloud_report import remote
from pkb_ext.suite import topology as topology_lib
from pkb_ext.suite.disk import guard as disk_guard
from benchmarks.cloud_report.tpcc import engines
from benchmarks.cloud_report.tpcc import fixtures as tpcc_fixtures
from benchmarks.cloud_report.tpcc import samples as tpcc_samples
from pkb_ext.tpcc_postgres import dumps as pg_dumps
from pkb_ext.tpcc_postgres import go_tpc
from pkb_ext.tpcc_postgres import params as pg_params
from pkb_ext.tpcc_postgres import parser as gotpc_parser

ENGINE = 'postgres'  # --cloud_report_tpcc_engine's value
PG_USER = 'postgres'
PG_FALLBACK_DIR = '/var/lib/postgresql/cloud_report_postgres'
# Prints the newest PostgreSQL server's bin dir (Debian/Ubuntu layout).
_NEWEST_PG_BIN = (
    'ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1'
)
# go-tpc --wait runs past --time (keying and think times), up to about this
# many times it.
GOTPC_WAIT_OVERRUN = 3.0


@dataclasses.dataclass
class PostgresEngine:
  """PostgreSQL on db1, go-tpc on the client."""

  params: Any  # cloud_report.tpcc.params.Params
  own: pg_params.PostgresParams = pg_params.PostgresParams()
  name: str = ENGINE
  tool: str = gotpc_parser.GO_TPC

  def Parse(self, text: str):
    """Its steps' output: go-tpc's."""
    return gotpc_parser.Parse(text)

  @classmethod
  def New(cls, params) -> 'PostgresEngine':
    """The engine for the phase's Params, its own read from its flags."""
    return cls(params, pg_params.PostgresParams.FromFlags())

  def Threads(self, warehouses: int) -> int:
    return max(1, math.ceil(warehouses * self.own.gotpc_threads_per_warehouse))

  def Fingerprint(self) -> dict[str, Any]:
    return {
        'gotpc_version': go_tpc.VERSION,
        'threads_per_warehouse': self.own.gotpc_threads_per_warehouse,
        'wait': self.own.gotpc_wait,
        'postgres_options': list(self.own.postgres_options),
    }

  def DataDir(self, db) -> str:
    return self.own.postgres_data_dir or engines.DataDiskDir(
        db, 'cloud_report_postgres', PG_FALLBACK_DIR
    )

  def Probe(self, db) -> tuple[str, int]:
    """(server bin dir, MemTotal in kB) of db, from one command.

    The bin dir is --cloud_report_tpcc_postgres_bin_dir, else the newest
    /usr/lib/postgresql/*/bin.

    Raises:
      errors.Setup.InvalidSetupError: no PostgreSQL server is found.
    """
    out, _ = db.RemoteCommand(
        f'echo "bin_dir=$({_NEWEST_PG_BIN})";'
        ' awk \'/^MemTotal:/ {print "mem_kb=" $2}\' /proc/meminfo'
    )
    values = dict(line.strip().partition('=')[::2] for line in out.splitlines())
    bin_dir = self.own.postgres_bin_dir or values.get('bin_dir', '')
    if not bin_dir:
      raise errors.Setup.InvalidSetupError(
          f'{db.name}: no PostgreSQL server in /usr/lib/postgresql/*/bin; set'
          ' --cloud_report_tpcc_postgres_bin_dir'
      )
    mem_kb = values.get('mem_kb', '')
    if not mem_kb.isdigit():
      raise errors.VirtualMachine.RemoteCommandError(
          f'{db.name}: no MemTotal in /proc/meminfo: {out[-300:]!r}'
      )
    return bin_dir, int(mem_kb)

  def Install(self, topology) -> None:
    """Installs PostgreSQL (its service stopped) and go-tpc."""
    db, client = topology.first_db, topology.RequireClient(engines.PHASE)
    if getattr(db, 'install_packages', True) and hasattr(db, 'InstallPackages'):
      db.InstallPackages('postgresql')
      db.RemoteCommand('sudo systemctl stop postgresql 2>/dev/null; true')
    client.Install(go_tpc.PACKAGE_NAME)

  def Setup(self, topology) -> None:
    """Mounts the data disk, starts the server, loads the tables."""
    db, client = topology.first_db, topology.RequireClient(engines.PHASE)
    if not self.own.postgres_data_dir:
      disk_guard.MountDataDisk(db, engines.DATA_MOUNT)
    bin_dir, mem_kb = self.Probe(db)
    ctl = PostgresCommands(
        bin_dir=bin_dir,
        data_dir=self.DataDir(db),
        port=self.own.postgres_port,
    )
    max_threads = max(
        self.Threads(self.params.max_warehouses),
        self.own.gotpc_load_threads,
    )
    settings = [
        f'listen_addresses={db.internal_ip}',
        f'max_connections={max_threads + 20}',
        f'shared_buffers={mem_kb // 4}kB',
    ] + list(self.own.postgres_options)
    wanted = self.params.max_warehouses
    out, _ = db.RemoteCommand(ctl.ResumeCommand(settings, engines.DATABASE))
    loaded = remote.LastInteger(out)
    if loaded is not None and loaded >= wanted:
      logging.info(
          'tpcc: %s already holds %d warehouses (%d wanted); no load',
          ctl.data_dir,
          loaded,
          wanted,
      )
      return
    set_up = ' && '.join(ctl.SetUpCommands(client.internal_ip, settings))
    db.RemoteCommand(set_up)
    dumps = self._Dumps(client)
    if dumps is not None:
      why = pg_dumps.Restore(db, ctl, dumps, wanted, engines.DATABASE)
      where = f'{wanted} warehouses at {dumps.Url(pg_dumps.Key(wanted))}'
      if not why:
        out, _ = db.RemoteCommand(ctl.ResumeCommand(settings, engines.DATABASE))
        if remote.LastInteger(out) == wanted:
          logging.info('tpcc: fixtures: loaded %s', where)
          return
        why = f'the restore left {remote.LastInteger(out)} warehouses'
      logging.info('tpcc: fixtures: generating %d warehouses: %s', wanted, why)
      if why.startswith(('pg_restore', 'the restore')):
        db.RemoteCommand(set_up)  # the generation starts clean
    binary = go_tpc.Path(client)
    load = go_tpc.PrepareCommand(
        binary,
        db.internal_ip,
        self.own.postgres_port,
        PG_USER,
        engines.DATABASE,
        self.params.max_warehouses,
        self.own.gotpc_load_threads,
        check=self.own.gotpc_load_check,
    )
    limit = self.params.LoadTimeout(1)
    tail, status = engines.RunLogged(
        client, load, f'{engines.WORK_DIR}/prepare.txt', limit
    )
    if status in remote.TIMED_OUT:
      raise errors.Benchmarks.RunError(
          f'go-tpc prepare did not finish in {limit} s and was ended'
          ' (--cloud_report_tpcc_load_timeout); is the database disk full or'
          f' the server down? Output tail: {tail[-1500:]}'
      )
    if status or 'Finished' not in tail:
      raise errors.Benchmarks.RunError(
          f'go-tpc prepare exited {status}: {tail[-2000:]}'
      )
    if dumps is not None and self.params.fixtures_make:
      pg_dumps.Save(db, ctl, dumps, wanted, engines.DATABASE)

  def _Dumps(self, client):
    """The fixture dumps' bucket with --cloud_report_tpcc_fixtures=auto."""
    if self.params.fixtures != tpcc_fixtures.AUTO:
      return None
    if not self.params.fixtures_bucket:
      logging.info(
          'tpcc: fixtures: generating %d warehouses: no'
          ' --cloud_report_tpcc_fixtures_bucket',
          self.params.max_warehouses,
      )
      return None
    dumps = pg_dumps.Dumps.FromFlags(
        topology_lib.RegionOf(client), self.params.fixtures_bucket
    )
    if dumps is None:
      logging.info(
          'tpcc: fixtures: generating %d warehouses: no S3 object storage'
          ' endpoint (--cloud_report_object_storage_endpoint) holds dumps',
          self.params.max_warehouses,
      )
    return dumps

  def _Command(
      self, topology, warehouses: int, duration: str, interval: str = ''
  ) -> str:
    db, client = topology.first_db, topology.RequireClient(engines.PHASE)
    return go_tpc.RunWorkloadCommand(
        go_tpc.Path(client),
        db.internal_ip,
        self.own.postgres_port,
        PG_USER,
        engines.DATABASE,
        warehouses,
        self.Threads(warehouses),
        duration,
        wait=self.own.gotpc_wait,
        interval=interval or self.own.gotpc_interval,
    )

  def RunStep(self, topology, warehouses: int, iteration: int):
    """Runs one step, its ramp (if any) in the same go-tpc process; returns
    (output, status): with a ramp, the output starts with the measured
    window's line and holds every interval report (module docstring)."""
    client = topology.RequireClient(engines.PHASE)
    log = f'{engines.WORK_DIR}/step-{iteration:02d}-{warehouses}wh.txt'
    ramp_s, duration_s = self.params.ramp_s, self.params.duration_s
    if not ramp_s:
      return engines.RunLogged(
          client,
          self._Command(topology, warehouses, self.params.duration),
          log,
          self.StepTimeout(),
      )
    interval_s = gotpc_parser.WindowInterval(
        ramp_s, duration_s, engines.DurationSeconds(self.own.gotpc_interval)
    )
    run_ms = (ramp_s + duration_s) * 1000 + interval_s * 500
    tail, status = engines.RunLogged(
        client,
        self._Command(topology, warehouses, f'{run_ms}ms', f'{interval_s}s'),
        log,
        self.StepTimeout(),
    )
    if len(tail.splitlines()) >= engines.OUTPUT_TAIL_LINES:
      tail, _ = client.RemoteCommand(f'cat {shlex.quote(log)}')
    header = gotpc_parser.WindowHeader(ramp_s, duration_s, interval_s)
    return f'{header}\n{tail}', status

  def _Overrun(self) -> float:
    # With --wait, keying and think times make go-tpc run past its --time.
    return GOTPC_WAIT_OVERRUN if self.own.gotpc_wait else 1.0

  def StepTimeout(self) -> int:
    """Seconds a step (its ramp and measured time) may take before it is
    ended."""
    return self.params.StepTimeout(self._Overrun())

  def StepExtra(self, warehouses: int) -> dict[str, Any]:
    """go-tpc's threads, and what its latency percentiles are: with a ramp,
    the largest of the measured window's interval reports' (go-tpc prints
    no histogram to merge), an upper bound of the window's own."""
    basis = 'max_of_interval_reports' if self.params.ramp_s else 'whole_run'
    return {
        'threads': self.Threads(warehouses),
        'latency_percentile_basis': basis,
    }

  def SampleMetadata(self, topology) -> dict[str, Any]:
    """What go-tpc's efficiency is computed against (--wait or not)."""
    del topology
    return {
        'efficiency_basis': tpcc_samples.EfficiencyBasis(self.own.gotpc_wait)
    }

  def Cleanup(self, topology) -> None:
    """Stops and removes the server in one command (the bin dir looked up in
    it), then unmounts the data disk Prepare mounted."""
    db = topology.first_db
    ctl = PostgresCommands(
        bin_dir=self.own.postgres_bin_dir or f'$({_NEWEST_PG_BIN})',
        data_dir=self.DataDir(db),
        port=self.own.postgres_port,
    )
    db.RemoteCommand(' && '.join(ctl.TearDownCommands()))
    if not self.own.postgres_data_dir:
      disk_guard.UnmountDataDisk(db, engines.DATA_MOUNT)


@dataclasses.dataclass(frozen=True)
class PostgresCommands:
  """Commands that make, start, stop and remove our PostgreSQL server."""

  bin_dir: str
  data_dir: str
  port: int

  def _As(self, command: str) -> str:
    return f'sudo -u {PG_USER} {command}'

  def _StartCommand(self, settings) -> str:
    d = shlex.quote(self.data_dir)
    options = ' '.join(f'-c {s}' for s in settings)
    server_options = shlex.quote(f'-p {self.port} -k {self.data_dir} {options}')
    return self._As(
        f'{self.bin_dir}/pg_ctl -D {d} -l {d}/server.log -w -t 300'
        f' -o {server_options} start'
    )

  def ResumeCommand(self, settings, database: str) -> str:
    """Prints the warehouses a server of ours already holds (nothing when
    there is none), starting it first where it is stopped."""
    d = shlex.quote(self.data_dir)
    count = self._As(
        f'{self.bin_dir}/psql -h {d} -p {self.port} -d {database} -tAc'
        ' "SELECT count(*) FROM warehouse"'
    )
    running = self._As(f'{self.bin_dir}/pg_ctl -D {d} status >/dev/null')
    return (
        f'if sudo test -f {d}/PG_VERSION; then'
        f' {{ {running} || {self._StartCommand(settings)} >/dev/null; }}'
        f' && {count} 2>/dev/null; fi; true'
    )

  def StopCommand(self) -> str:
    d = shlex.quote(self.data_dir)
    return (
        f'if sudo test -f {d}/postmaster.pid; then'
        f' {self._As(f"{self.bin_dir}/pg_ctl -D {d} -m fast -w stop")}; fi'
    )

  def SetUpCommands(self, client_ip: str, settings) -> list[str]:
    """From nothing (or a previous server of ours) to an empty tpcc DB, in
    order (Prepare runs them as one command, joined with &&)."""
    d = shlex.quote(self.data_dir)
    hba = '\\n'.join([
        f'local all {PG_USER} peer',
        f'host all {PG_USER} 127.0.0.1/32 trust',
        f'host all {PG_USER} {client_ip}/32 trust',
    ])
    return [
        self.StopCommand(),
        (
            f'sudo rm -rf {d} && sudo mkdir -p {d} && sudo chown {PG_USER}: {d}'
            f' && sudo chmod 700 {d}'
        ),
        self._As(
            f'{self.bin_dir}/initdb -D {d} -U {PG_USER} --auth-local=peer'
            ' --auth-host=reject >/dev/null'
        ),
        f"printf '{hba}\\n' | {self._As(f'tee {d}/pg_hba.conf')} >/dev/null",
        self._StartCommand(settings),
        self._As(
            f'{self.bin_dir}/psql -h {d} -p {self.port} -d postgres -v'
            f' ON_ERROR_STOP=1 -c "CREATE DATABASE {engines.DATABASE}"'
        ),
    ]

  def TearDownCommands(self) -> list[str]:
    return [self.StopCommand(), f'sudo rm -rf {shlex.quote(self.data_dir)}']
