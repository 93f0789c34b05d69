#!/usr/bin/env python3
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
"""A behavioural double of the `cockroach` binary, for tests only.

CockroachDB cannot be installed here, so this stands in for it at the process
boundary, behaving the way pkb_ext's cockroachdb package and TPC-C engine
depend on. It is never installed on a cloud: BuildTarball() packs it as
cockroach-<version>.linux-<arch>/cockroach, the release tarball's layout, so
a test installs it through the package's own path (data search path plus
--cloud_report_cockroachdb_sha256).

  version
  start --insecure --store=path=DIR --listen-addr=IP:PORT --join=A,B,C
        [--http-addr --cache --max-sql-memory --pid-file --log-dir]
        [--background]
      Listens for real on --listen-addr (a line protocol of its own, not
      PostgreSQL's wire protocol). Like cockroach, the server raises its soft
      open-file limit to min(hard, 15000) and refuses to start when the hard
      limit is below 1956 (one store: 1700 + 256 network descriptors). With
      --background the command re-runs itself as a child in a new session
      and returns once the child listens and has written --pid-file; the
      child keeps the stdout and stderr it inherited, so an ssh session
      that runs the command without redirecting them never ends. A node
      learns that the cluster was initialised from its --join peers. SIGTERM
      stops it.
  init --insecure --host=IP:PORT
  sql --insecure --host=IP:PORT -e STATEMENT
      Answers once the cluster is initialised; fails before that.
  workload fixtures import tpcc --warehouses=N URL
  workload run tpcc --warehouses=W --active-warehouses=N --ramp=R
        --duration=D URL...
      Opens 2 connections per active warehouse (cockroach's tpcc workload
      with waits: numConnsPerWarehouse) to the nodes, so it fails with "too
      many open files" when the session's soft RLIMIT_NOFILE is too low;
      runs for the ramp and the duration, printing progress each second;
      then prints the summary of a real captured `cockroach workload` run
      (tests/data/tpcc, see its PROVENANCE.md) rescaled to N warehouses and
      the measured time. Throughput and latency follow a capacity curve: at
      or below the capacity (cockroach-double.json beside the binary) the
      passing 3,500-warehouse capture scaled by 1 + 0.5 r^2 (r = N /
      capacity); above it the failing 4,000-warehouse capture scaled by r^2,
      with throughput saturated. Above the capacity it can instead fail as
      the real binary does at the overload edge (`edge_failure` in the
      config): `die` prints `Initializing N connections...`, then `Error:
      read tcp ...: connection reset by peer` and exits 1 with no summary;
      `zero` runs its time and prints the all-zero summary of a run that
      completed nothing, exit 0; `hang` never ends (until it is killed).
      The shapes are real captured outputs (tests/data/tpcc/PROVENANCE.md).
  workload fixtures import tpcc --warehouses=N URL
      Fails, as the real import does, when the tables exist already. With
      import_failure (config) `liveness`, it imports nothing: it waits
      import_s (config), then fails as an IMPORT job whose node lost its
      liveness did (`Error: importing fixture: importing table stock: pq:
      job ...: node liveness error: restarting in the background`, exit 1;
      see tests/data/tpcc/PROVENANCE.md).
  workload fixtures make tpcc --warehouses=N [storage flags] URL
  workload fixtures load tpcc --warehouses=N [--checks=B] [storage flags]
        URL
      The fixture bucket is a directory (the config's fixtures_dir:
      PROVIDER/BUCKET/PREFIX/tpcc/version=...,warehouses=N/TABLE/BACKUP).
      The storage flags are the release's: from v22.1 --provider-override,
      --bucket-override, --prefix-override, --auth-params-override; before,
      --gcs-bucket-override and --gcs-prefix-override (another is cobra's
      `Error: unknown flag: --X`, exit 1). make imports the tables, then
      stores the fixture (`Error: fixture URL already exists` if it is
      there). load fails as the real one does when the bucket has no
      fixture for N warehouses (`Error: finding fixture: fixture not found:
      FOLDER`, exit 1; see tests/data/tpcc/PROVENANCE.md); else it restores
      half the warehouses, waits fixture_load_s (config), then the rest, so
      that a load killed half-way leaves a partial database.
  sql --insecure --host=IP:PORT [--format=F] -e STATEMENT
      `SELECT count(*) FROM tpcc.warehouse` prints the imported count (an
      error that the relation does not exist before an import); `DROP
      DATABASE ... tpcc ...` removes the imported tables.
"""

import argparse
import errno
import gzip
import hashlib
import io
import json
import os
import re
import resource
import selectors
import signal
import socket
import subprocess
import sys
import tarfile
import threading
import time
import urllib.parse

DEFAULT_VERSION = 'v20.2.7'
CONFIG_NAME = 'cockroach-double.json'
DATA_DIR_NAME = 'double-data'
PASS_TEMPLATE = 'cockroach_v22.1.2_9node_8vcpu_3500wh_tail.txt'
FAIL_TEMPLATE = 'cockroach_v22.1.2_9node_8vcpu_4000wh_tail.txt'
TEMPLATES = (PASS_TEMPLATE, FAIL_TEMPLATE)
# cockroach's server (setOpenFileLimitInner) for one store.
MIN_OPEN_FILES = 1700 + 256
RECOMMENDED_OPEN_FILES = 10000 + 5000
CONNS_PER_WAREHOUSE = 2  # cockroach's tpcc workload with waits
TPMC_PER_WAREHOUSE = 12.86
STATE_FILE = 'double-state.json'
# What a run above the capacity does (the config's edge_failure).
EDGE_NONE = 'none'  # the failing capture's summary, rescaled
EDGE_DIE = 'die'  # connection reset by peer, exit 1, no summary
EDGE_ZERO = 'zero'  # the all-zero summary of a run that completed nothing
EDGE_HANG = 'hang'  # never ends
EDGE_FAILURES = (EDGE_NONE, EDGE_DIE, EDGE_ZERO, EDGE_HANG)
# How `fixtures import` fails (the config's import_failure), besides over
# tables that exist already.
IMPORT_LIVENESS = 'liveness'  # the import job's node lost its liveness
LIVENESS_JOB = 331304217787891713  # the job ID of the captured message
ZERO_SUMMARY_HEADER = (
    '_elapsed_______tpmC____efc__avg(ms)__p50(ms)__p90(ms)__p95(ms)'
    '__p99(ms)_pMax(ms)'
)
_REPO_DATA = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', 'data', 'tpcc'
)
_OPS = ('delivery', 'newOrder', 'orderStatus', 'payment', 'stockLevel')
_TABLES = ('warehouse', 'district', 'customer', 'history', 'order',
           'new_order', 'item', 'stock', 'order_line')  # fmt: skip
FIXTURE_VERSION = '2.2.0'  # workload/tpcc's fixture version in the folder


def _Config() -> dict:
  path = os.path.join(os.path.dirname(os.path.abspath(__file__)), CONFIG_NAME)
  config = {
      'version': DEFAULT_VERSION,
      'capacity_warehouses': 3500,
      'start_delay_s': 0.5,
      'edge_failure': EDGE_NONE,
  }
  try:
    with open(path) as f:
      config.update(json.load(f))
  except FileNotFoundError:
    pass
  return config


def _Template(name: str) -> str:
  here = os.path.dirname(os.path.abspath(__file__))
  for directory in (os.path.join(here, DATA_DIR_NAME), _REPO_DATA):
    path = os.path.join(directory, name)
    if os.path.exists(path):
      with open(path) as f:
        return f.read()
  raise FileNotFoundError(f'cockroach double: no capture {name}')


def _Fail(message: str, code: int = 1):
  print(message, file=sys.stderr, flush=True)
  sys.exit(code)


def _Addr(value: str) -> tuple[str, int]:
  host, _, port = value.rpartition(':')
  if not host or not port.isdigit():
    _Fail(f'ERROR: invalid address {value!r}: expected HOST:PORT')
  return host, int(port)


def _Duration(value: str) -> float:
  m = re.fullmatch(r'(\d+(?:\.\d+)?)(ms|s|m|h)', value or '')
  if not m:
    _Fail(f'Error: invalid duration {value!r}')
  scale = {'ms': 0.001, 's': 1, 'm': 60, 'h': 3600}[m.group(2)]
  return float(m.group(1)) * scale


def _Request(addr, line: str, timeout: float = 5) -> str:
  """Sends one request line to a node; returns its reply line."""
  with socket.create_connection(addr, timeout=timeout) as s:
    s.sendall(line.encode() + b'\n')
    return _ReadLine(s)


def _ReadLine(s) -> str:
  data = b''
  while not data.endswith(b'\n'):
    chunk = s.recv(4096)
    if not chunk:
      break
    data += chunk
  return data.decode().strip()


# ---------------------------------------------------------------- the node


class Node:
  """One node: its listener, its store's state, its --join peers."""

  def __init__(self, listen, store_dir, peers, log):
    self.listen = listen
    self.store_dir = store_dir
    self.peers = [p for p in peers if p != listen]
    self.log = log
    self.lock = threading.Lock()
    self.stopping = False
    self.state = {'initialised': False, 'warehouses': 0, 'epoch': 0}
    try:
      with open(os.path.join(store_dir, STATE_FILE)) as f:
        self.state.update(json.load(f))
    except FileNotFoundError:
      pass

  def _Save(self):
    path = os.path.join(self.store_dir, STATE_FILE)
    with open(path + '.tmp', 'w') as f:
      json.dump(self.state, f)
    os.replace(path + '.tmp', path)

  def _Merge(self, initialised: bool, warehouses: int, epoch: int):
    """Takes a peer's (or a request's) view: a later epoch (a drop) wins
    whole; in one epoch, the most warehouses imported."""
    with self.lock:
      mine = self.state
      if epoch > mine['epoch']:
        new = {'initialised': mine['initialised'] or initialised,
               'warehouses': warehouses, 'epoch': epoch}  # fmt: skip
      elif epoch == mine['epoch']:
        new = {'initialised': mine['initialised'] or initialised,
               'warehouses': max(warehouses, mine['warehouses']),
               'epoch': epoch}  # fmt: skip
      else:
        return
      if new != mine:
        self.state = new
        self._Save()
        self.log(f'cluster state: {self.state}')

  def Handle(self, line: str) -> tuple[str, bool]:
    """Returns (reply, keep the connection open)."""
    verb, _, arg = line.partition(' ')
    with self.lock:
      init, warehouses = self.state['initialised'], self.state['warehouses']
      epoch = self.state['epoch']
    if verb == 'STATE':
      return f'OK init={int(init)} warehouses={warehouses} epoch={epoch}', False
    if verb == 'INIT':
      if init:
        return 'ERR cluster has already been initialized', False
      self._Merge(True, 0, epoch)
      return 'OK', False
    if not init:
      return 'ERR node is waiting for the cluster to be initialized', False
    if verb == 'SQL':
      return 'OK ' + arg, False
    if verb == 'COUNT':
      if not warehouses:
        return 'ERR relation "tpcc.warehouse" does not exist', False
      return f'OK {warehouses}', False
    if verb == 'DROP':
      self._Merge(True, 0, epoch + 1)
      return 'OK', False
    if verb == 'IMPORT':
      if warehouses:
        return 'ERR relation "warehouse" already exists', False
      self._Merge(True, int(arg), epoch)
      return 'OK', False
    if verb == 'GROW':  # a restore adding tables' rows to its first ones
      self._Merge(True, int(arg), epoch)
      return 'OK', False
    if verb == 'CONN':
      return 'OK', True
    return f'ERR unknown request {verb!r}', False

  def _Gossip(self):
    while not self.stopping:
      for peer in self.peers:
        try:
          reply = _Request(peer, 'STATE', timeout=0.5)
        except OSError:
          continue
        m = re.fullmatch(r'OK init=(\d) warehouses=(\d+) epoch=(\d+)', reply)
        if m:
          self._Merge(m.group(1) == '1', int(m.group(2)), int(m.group(3)))
      time.sleep(0.2)

  def Serve(self, server: socket.socket):
    sel = selectors.DefaultSelector()
    sel.register(server, selectors.EVENT_READ, None)
    buffers = {}
    threading.Thread(target=self._Gossip, daemon=True).start()
    while not self.stopping:
      for key, _ in sel.select(timeout=0.2):
        if key.data is None:
          try:
            conn, _ = server.accept()
          except OSError as e:
            self.log(f'accept: {e}')
            continue
          buffers[conn] = b''
          sel.register(conn, selectors.EVENT_READ, 'conn')
          continue
        conn = key.fileobj
        try:
          chunk = conn.recv(4096)
        except OSError:
          chunk = b''
        if not chunk:
          sel.unregister(conn)
          buffers.pop(conn, None)
          conn.close()
          continue
        if conn not in buffers:  # a held workload connection
          continue
        buffers[conn] += chunk
        if b'\n' not in buffers[conn]:
          continue
        line = buffers.pop(conn).split(b'\n', 1)[0].decode().strip()
        reply, keep = self.Handle(line)
        try:
          conn.sendall(reply.encode() + b'\n')
        except OSError:
          keep = False
        if not keep:
          sel.unregister(conn)
          conn.close()
    for key in list(sel.get_map().values()):
      key.fileobj.close()


def _RaiseOpenFiles():
  """As cockroach's server does: soft up to min(hard, 15000), or refuse."""
  soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
  if hard != resource.RLIM_INFINITY and hard < MIN_OPEN_FILES:
    _Fail(
        f'ERROR: hard open file descriptor limit of {hard} is under the'
        f' minimum required {MIN_OPEN_FILES}'
    )
  target = RECOMMENDED_OPEN_FILES
  if hard != resource.RLIM_INFINITY:
    target = min(hard, target)
  if soft != resource.RLIM_INFINITY and soft < target:
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def _StartParser():
  p = argparse.ArgumentParser(prog='cockroach start', allow_abbrev=False)
  p.add_argument('--insecure', action='store_true')
  p.add_argument('--store', required=True)
  p.add_argument('--listen-addr', required=True)
  p.add_argument('--http-addr')
  p.add_argument('--join', default='')
  p.add_argument('--cache')
  p.add_argument('--max-sql-memory')
  p.add_argument('--pid-file')
  p.add_argument('--log-dir')
  p.add_argument('--background', action='store_true')
  p.add_argument('--double-notify-fd', type=int, help=argparse.SUPPRESS)
  return p


def Start(argv) -> int:
  args = _StartParser().parse_args(argv)
  if not args.insecure:
    _Fail(
        'ERROR: no certificates found; use --insecure (the double has no TLS)'
    )
  store = (
      args.store[len('path=') :]
      if args.store.startswith('path=')
      else args.store
  )
  store = store.split(',')[0]
  if args.background:
    return _Background(argv)
  listen = _Addr(args.listen_addr)
  peers = [_Addr(a) for a in args.join.split(',') if a]
  os.makedirs(store, exist_ok=True)
  log_dir = args.log_dir or os.path.join(store, 'logs')
  os.makedirs(log_dir, exist_ok=True)
  log_file = open(os.path.join(log_dir, 'cockroach.log'), 'a')

  def Log(message):
    log_file.write(f'{time.strftime("%y%m%d %H:%M:%S")} {message}\n')
    log_file.flush()

  _RaiseOpenFiles()
  time.sleep(float(_Config()['start_delay_s']))
  server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
  server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
  try:
    server.bind(listen)
  except OSError as e:
    Log(f'listen {args.listen_addr}: {e}')
    _Fail(f'ERROR: cockroach server exited with error: listen tcp'
          f' {args.listen_addr}: bind: {e.strerror}')  # fmt: skip
  server.listen(1024)
  node = Node(listen, store, peers, Log)

  def Stop(signum, frame):
    del frame
    Log(f'received signal {signal.Signals(signum).name}; stopping')
    node.stopping = True

  signal.signal(signal.SIGTERM, Stop)
  signal.signal(signal.SIGINT, Stop)
  if args.pid_file:
    with open(args.pid_file, 'w') as f:
      f.write(f'{os.getpid()}\n')
  Log(f'node listening on {args.listen_addr}; join {args.join}')
  print(
      f'CockroachDB node starting at {time.strftime("%Y-%m-%d %H:%M:%S")}\n'
      f'build:               {_Config()["version"]} (pkb_ext test double)\n'
      f'sql:                 postgresql://root@{args.listen_addr}'
      '?sslmode=disable\n'
      f'store[0]:            path={store}\n'
      f'status:              {"restarted" if node.state["initialised"] else "initialized new node, waiting for init"}\n'
      f'pid file:            {args.pid_file}',
      flush=True,
  )  # fmt: skip
  if args.double_notify_fd is not None:
    os.write(args.double_notify_fd, b'ready\n')
    os.close(args.double_notify_fd)
  node.Serve(server)
  server.close()
  Log('stopped')
  return 0


def _Background(argv) -> int:
  """Re-runs start as a child in a new session; returns once it is ready."""
  read_fd, write_fd = os.pipe()
  child_argv = [a for a in argv if a != '--background']
  child = subprocess.Popen(
      [sys.executable, os.path.abspath(__file__), 'start', *child_argv,
       f'--double-notify-fd={write_fd}'],
      pass_fds=(write_fd,),
      start_new_session=True,
  )  # fmt: skip; stdin, stdout and stderr are inherited, as cockroach's are
  os.close(write_fd)
  with os.fdopen(read_fd, 'rb') as r:
    ready = r.readline()
  if ready.strip() == b'ready':
    return 0
  code = child.wait()
  _Fail(f'ERROR: the server exited with status {code} before it was ready')


# ---------------------------------------------------------- the clients


def _Client(name, argv, extra=()):
  p = argparse.ArgumentParser(prog=f'cockroach {name}', allow_abbrev=False)
  p.add_argument('--insecure', action='store_true')
  p.add_argument('--host', required=True)
  p.add_argument('--format', default='table')
  for flag in extra:
    p.add_argument(flag, required=True)
  return p.parse_args(argv)


def _Ask(addr, line):
  try:
    reply = _Request(addr, line)
  except OSError as e:
    _Fail(
        'ERROR: cannot dial server.\nIs the server running?\n'
        f'dial tcp {addr[0]}:{addr[1]}: connect: {e.strerror or e}'
    )
  if not reply.startswith('OK'):
    _Fail(f'ERROR: {reply[4:] or "no reply"}')
  return reply


def Init(argv) -> int:
  args = _Client('init', argv)
  _Ask(_Addr(args.host), 'INIT')
  print('Cluster successfully initialized')
  return 0


_COUNT = re.compile(r'^\s*SELECT\s+count\(\*\)\s+FROM\s+tpcc\.warehouse\s*;?\s*$',
                    re.I)  # fmt: skip
_DROP = re.compile(r'^\s*DROP\s+DATABASE\s+(IF\s+EXISTS\s+)?tpcc\b', re.I)


def Sql(argv) -> int:
  args = _Client('sql', argv, ('-e',))
  addr = _Addr(args.host)
  if _COUNT.match(args.e):
    try:
      reply = _Request(addr, 'COUNT')
    except OSError as e:
      _Fail(f'ERROR: cannot dial server.\ndial tcp {addr[0]}:{addr[1]}: {e}')
    if not reply.startswith('OK'):
      _Fail(f'ERROR: {reply[4:]}\nSQLSTATE: 42P01')
    print(f'count\n{reply[3:]}')
    return 0
  if _DROP.match(args.e):
    _Ask(addr, 'DROP')
    print('DROP DATABASE')
    return 0
  reply = _Ask(addr, 'SQL ' + args.e.replace('\n', ' '))
  statement = reply[3:]
  if statement.upper().startswith('SELECT'):
    print('?column?\n1\n(1 row)')
  else:
    print(' '.join(statement.split()[:3]).upper())
  return 0


def _UrlAddr(url: str) -> tuple[str, int]:
  parsed = urllib.parse.urlparse(url)
  if parsed.scheme not in ('postgres', 'postgresql') or not parsed.hostname:
    _Fail(f'Error: invalid connection URL {url!r}')
  return parsed.hostname, parsed.port or 26257


def _WorkloadParser(name):
  p = argparse.ArgumentParser(prog=f'cockroach workload {name} tpcc',
                              allow_abbrev=False)  # fmt: skip
  p.add_argument('--warehouses', type=int, required=True)
  p.add_argument('urls', nargs='+')
  return p


def Import(argv, quiet=False) -> int:
  args = _WorkloadParser('fixtures import').parse_args(argv)
  addr = _UrlAddr(args.urls[0])
  config = _Config()
  if config.get('import_failure') == IMPORT_LIVENESS:
    time.sleep(float(config.get('import_s', 0)))
    _Fail(f'Error: importing fixture: importing table stock: pq: job'
          f' {LIVENESS_JOB}: node liveness error: restarting in the'
          ' background')  # fmt: skip
  try:
    reply = _Request(addr, f'IMPORT {args.warehouses}')
  except OSError as e:
    _Fail(f'Error: dial tcp {addr[0]}:{addr[1]}: {e.strerror or e}')
  if reply.startswith('ERR relation'):  # the real import's wrapping
    _Fail(f'Error: importing fixture: importing table warehouse: pq:'
          f' {reply[4:]}')  # fmt: skip
  if not reply.startswith('OK'):
    _Fail(f'Error: {reply[4:]}')
  n = args.warehouses
  rows = (('warehouse', n), ('district', 10 * n), ('customer', 30000 * n),
          ('history', 30000 * n), ('order', 30000 * n),
          ('new_order', 9000 * n), ('item', 100000), ('stock', 100000 * n),
          ('order_line', 300000 * n))  # fmt: skip
  for table, count in rows:
    if quiet:
      break
    print(f'I{time.strftime("%y%m%d %H:%M:%S")}.000000 1 workload/'
          f'workloadsql/dataload.go imported {table} (0s, {count} rows)')  # fmt: skip
  return 0


# ---------------------------------------------------------- the fixtures


def _FixturesParser(name, version):
  """`fixtures make|load tpcc`'s flags in this release (multi-provider
  flags from v22.1, GCS-only ones before)."""
  p = argparse.ArgumentParser(prog=f'cockroach workload fixtures {name} tpcc',
                              allow_abbrev=False)  # fmt: skip
  p.add_argument('--warehouses', type=int, required=True)
  p.add_argument('--checks', default='true')
  if _Release(version) >= (22, 1, 0):
    for flag in ('--provider-override', '--bucket-override',
                 '--prefix-override', '--auth-params-override'):  # fmt: skip
      p.add_argument(flag, default='')
  else:
    p.add_argument('--gcs-bucket-override', default='')
    p.add_argument('--gcs-prefix-override', default='')
  p.add_argument('urls', nargs='+')
  return p


def _Release(version):
  return tuple(int(x) for x in re.findall(r'\d+', version)[:3])


def _FixtureArgs(name, argv):
  """(args, the fixture's folder, its URL) of a fixtures command."""
  config = _Config()
  parser = _FixturesParser(name, config['version'])
  args, unknown = parser.parse_known_args(argv)
  if unknown:  # cobra's words for a flag the release does not have
    _Fail(f'Error: unknown flag: {unknown[0].split("=")[0]}')
  provider = getattr(args, 'provider_override', '') or 'gs'
  bucket = (getattr(args, 'bucket_override', '')
            or getattr(args, 'gcs_bucket_override', '')
            or 'cockroach-fixtures')  # fmt: skip
  prefix = (getattr(args, 'prefix_override', '')
            or getattr(args, 'gcs_prefix_override', '')
            or 'workload')  # fmt: skip
  folder = FixtureFolder(prefix, args.warehouses)
  root = config.get('fixtures_dir')
  if not root:
    _Fail(f'Error: failed to create {provider} client: no credentials')
  path = os.path.join(root, provider, bucket, folder)
  return args, folder, path, f'{provider}://{bucket}/{folder}'


def FixtureFolder(prefix: str, warehouses: int) -> str:
  """The fixture's folder: the generator's version and options
  (workloadccl's generatorToStorageFolder)."""
  return (f'{prefix}/tpcc/version={FIXTURE_VERSION},'
          'deprecated-fk-indexes=false,fks=true,interleaved=false,'
          f'seed=1,warehouses={warehouses}')  # fmt: skip


def _WriteBackup(path, table, warehouses):
  os.makedirs(os.path.join(path, table), exist_ok=True)
  with open(os.path.join(path, table, 'BACKUP'), 'w') as f:
    f.write(f'{warehouses}\n')


def WriteFixture(fixtures_dir, provider, bucket, prefix, warehouses) -> str:
  """Stores a fixture as `fixtures make` would (for tests); its path."""
  path = os.path.join(
      fixtures_dir, provider, bucket, FixtureFolder(prefix, warehouses)
  )
  for table in _TABLES:
    _WriteBackup(path, table, warehouses)
  return path


def FixturesMake(argv) -> int:
  """IMPORTs the tables, then BACKs each one UP to the bucket."""
  args, _, path, url = _FixtureArgs('make', argv)
  if os.path.exists(os.path.join(path, 'warehouse', 'BACKUP')):
    _Fail(f'Error: fixture {url} already exists')
  if Import([f'--warehouses={args.warehouses}', args.urls[0]], quiet=True):
    return 1
  for table in _TABLES:
    _WriteBackup(path, table, args.warehouses)
    print(f'I{time.strftime("%y%m%d %H:%M:%S")}.000000 1 ccl/workloadccl/'
          f'cliccl/fixtures.go stored backup {url}/{table}')  # fmt: skip
  return 0


def FixturesLoad(argv) -> int:
  """RESTOREs the fixture of --warehouses, or fails as the real one does
  when the bucket has none (a fixture made for another warehouse count is
  in another folder). The restore takes fixture_load_s (config), holding
  half the warehouses meanwhile."""
  args, folder, path, _ = _FixtureArgs('load', argv)
  if not os.path.exists(os.path.join(path, 'warehouse', 'BACKUP')):
    _Fail(f'Error: finding fixture: fixture not found: {folder}')
  addr = _UrlAddr(args.urls[0])
  n = args.warehouses
  _Ask(addr, f'IMPORT {max(1, n // 2)}')
  time.sleep(float(_Config().get('fixture_load_s', 0)))
  _Ask(addr, f'GROW {n}')
  print(f'I{time.strftime("%y%m%d %H:%M:%S")}.000000 1 ccl/workloadccl/'
        f'cliccl/fixtures.go restored {len(_TABLES)} tables')  # fmt: skip
  return 0


# ------------------------------------------------------------ the curve


def Curve(active: int, capacity: int) -> tuple[str, float, float]:
  """(capture, latency factor, efc %) at `active` warehouses."""
  r = active / capacity
  if r <= 1:
    return PASS_TEMPLATE, 1 + 0.5 * r * r, 97.8
  return FAIL_TEMPLATE, r * r, min(85.5, 97.8 / r)


def _Row(line):
  fields = line.split()
  name = fields[-1] if not re.match(r'^[0-9.]+%?$', fields[-1]) else None
  nums = fields[:-1] if name else fields
  return nums, name


def Summary(template: str, elapsed: float, active: int, lat: float,
            efc: float) -> str:  # fmt: skip
  """The capture's summary, rescaled to `active` warehouses and `elapsed`."""
  lines = template.splitlines()
  first = next(
      i for i, l in enumerate(lines) if l.startswith('_elapsed___errors_____')
  )
  final_at = max(
      i for i, l in enumerate(lines) if l.startswith('_elapsed_______tpmC')
  )
  old_tpmc = float(lines[final_at + 1].split()[1])
  tpmc = TPMC_PER_WAREHOUSE * active * efc / 100
  scale = tpmc / old_tpmc
  out = []
  for i, line in enumerate(lines[first:], first):
    if not line.strip() or not line.lstrip()[0].isdigit():
      out.append(line)
      continue
    nums, name = _Row(line)
    if i == final_at + 1:
      out.append(
          f'{elapsed:7.1f}s {tpmc:10.1f} {efc:5.1f}%'
          + ''.join(f' {float(v) * lat:8.1f}' for v in nums[3:])
      )
      continue
    ops_per_s = float(nums[3]) * scale
    out.append(
        f'{elapsed:7.1f}s {int(nums[1]):9d} {round(ops_per_s * elapsed):14d}'
        f' {ops_per_s:14.1f}'
        + ''.join(f' {float(v) * lat:8.1f}' for v in nums[4:9])
        + f'  {name or ""}'
    )
  return '\n'.join(out) + '\n'


def _Progress(template: str):
  """The capture's per-second progress rows: (ops/s inst, cum, latencies)."""
  rows = []
  for line in template.splitlines():
    nums, name = _Row(line) if line.strip() else ([], None)
    if name in _OPS and len(nums) == 8:
      rows.append((name, [float(v) for v in nums[2:]]))
  return rows


def Run(argv) -> int:
  p = _WorkloadParser('run')
  p.add_argument('--active-warehouses', type=int)
  p.add_argument('--ramp', default='0s')
  p.add_argument('--duration', required=True)
  args = p.parse_args(argv)
  active = args.active_warehouses or args.warehouses
  addrs = [_UrlAddr(u) for u in args.urls]
  reply = _Ask(addrs[0], 'STATE')
  loaded = int(re.search(r'warehouses=(\d+)', reply).group(1))
  if loaded < args.warehouses:
    _Fail(f'Error: {args.warehouses} warehouses expected, {loaded} imported:'
          ' run `cockroach workload fixtures import tpcc` first')  # fmt: skip
  if active > args.warehouses:
    _Fail(f'Error: --active-warehouses={active} is above --warehouses')
  conns = []
  for i in range(CONNS_PER_WAREHOUSE * active):
    addr = addrs[i % len(addrs)]
    try:
      conn = socket.create_connection(addr, timeout=10)
      conn.sendall(b'CONN\n')
      if _ReadLine(conn) != 'OK':
        _Fail(f'Error: {addr[0]}:{addr[1]} refused the connection')
    except OSError as e:
      if e.errno in (errno.EMFILE, errno.ENFILE):
        _Fail(f'Error: dial tcp {addr[0]}:{addr[1]}: socket: too many open'
              ' files')  # fmt: skip
      _Fail(f'Error: dial tcp {addr[0]}:{addr[1]}: {e.strerror or e}')
    conns.append(conn)
  config = _Config()
  capacity = int(config['capacity_warehouses'])
  edge = config.get('edge_failure', EDGE_NONE)
  if edge not in EDGE_FAILURES:
    _Fail(f'cockroach double: edge_failure {edge!r}: one of {EDGE_FAILURES}')
  if active > capacity and edge != EDGE_NONE:
    return _FailAtTheEdge(edge, conns, addrs, args, active)
  name, lat, efc = Curve(active, capacity)
  template = _Template(name)
  progress = _Progress(template)
  ramp, duration = _Duration(args.ramp), _Duration(args.duration)
  began = time.monotonic()
  tick = 0
  while time.monotonic() - began < ramp:
    time.sleep(min(1, ramp - (time.monotonic() - began)))
  measured = time.monotonic()
  while time.monotonic() - measured < duration:
    time.sleep(max(0, min(1, duration - (time.monotonic() - measured))))
    elapsed = time.monotonic() - measured
    if tick % 10 == 0:
      print('_elapsed___errors__ops/sec(inst)___ops/sec(cum)__p50(ms)'
            '__p95(ms)__p99(ms)_pMax(ms)')  # fmt: skip
    for k in range(len(_OPS)):
      op, vals = progress[(tick * len(_OPS) + k) % len(progress)]
      print(f'{elapsed:7.1f}s {0:8d} {vals[0] * efc / 97.8:14.1f}'
            f' {vals[1] * efc / 97.8:14.1f}'
            + ''.join(f' {v * lat:8.1f}' for v in vals[2:])
            + f' {op}')  # fmt: skip
    sys.stdout.flush()
    tick += 1
  elapsed = round(time.monotonic() - measured, 1)
  print()
  sys.stdout.write(Summary(template, elapsed, active, lat, efc))
  for conn in conns:
    conn.close()
  return 0


def _FailAtTheEdge(edge, conns, addrs, args, active) -> int:
  """What the real workload does above what the cluster sustains."""
  print(f'Initializing {CONNS_PER_WAREHOUSE * active} connections...',
        flush=True)  # fmt: skip
  if edge == EDGE_HANG:
    while True:
      time.sleep(60)
  if edge == EDGE_DIE:
    time.sleep(min(1.0, _Duration(args.ramp)))
    local = conns[0].getsockname() if conns else ('0.0.0.0', 0)
    for conn in conns:
      conn.close()
    host, port = addrs[0]
    _Fail(f'Error: read tcp {local[0]}:{local[1]}->{host}:{port}: read:'
          ' connection reset by peer')  # fmt: skip
  # EDGE_ZERO: the run takes its time and completes nothing.
  ramp, duration = _Duration(args.ramp), _Duration(args.duration)
  time.sleep(ramp)
  began = time.monotonic()
  while time.monotonic() - began < duration:
    time.sleep(max(0, min(1, duration - (time.monotonic() - began))))
  elapsed = time.monotonic() - began
  for conn in conns:
    conn.close()
  print(f'\n{ZERO_SUMMARY_HEADER}\n{elapsed:8.1f}s        0.0   0.0%'
        + '      0.0' * 6)  # fmt: skip
  return 0


def Version(argv) -> int:
  del argv
  config = _Config()
  print(f'Build Tag:        {config["version"]}\n'
        'Build Type:       pkb_ext test double (tests/doubles/cockroach.py)\n'
        f'Platform:         linux {os.uname().machine}')  # fmt: skip
  return 0


def Main(argv) -> int:
  if not argv:
    _Fail('Usage: cockroach [command]')
  command, rest = argv[0], argv[1:]
  if command == 'workload' and rest[:3] == ['fixtures', 'import', 'tpcc']:
    return Import(rest[3:])
  if command == 'workload' and rest[:3] == ['fixtures', 'make', 'tpcc']:
    return FixturesMake(rest[3:])
  if command == 'workload' and rest[:3] == ['fixtures', 'load', 'tpcc']:
    return FixturesLoad(rest[3:])
  if command == 'workload' and rest[:2] == ['run', 'tpcc']:
    return Run(rest[2:])
  handlers = {'version': Version, 'start': Start, 'init': Init, 'sql': Sql}
  if command not in handlers:
    _Fail(f'Error: unknown command "{" ".join(argv[:3])}" for "cockroach"')
  return handlers[command](rest)


# ------------------------------------------------------- for the tests


def BuildTarball(
    dest_dir: str,
    version: str = DEFAULT_VERSION,
    arch: str = 'amd64',
    capacity_warehouses: int = 3500,
    start_delay_s: float = 0.5,
    edge_failure: str = EDGE_NONE,
    **config,
) -> tuple[str, str]:
  """Packs this double as a release tarball; returns (path, sha256).

  The tarball has the release's layout, cockroach-<version>.linux-<arch>/
  cockroach, plus the double's config and the captures it prints. config:
  more of the config's keys (fixtures_dir, fixture_load_s, import_failure,
  import_s).
  """
  top = f'cockroach-{version}.linux-{arch}'
  members = {
      f'{top}/cockroach': (open(os.path.abspath(__file__), 'rb').read(), 0o755),
      f'{top}/{CONFIG_NAME}': (
          json.dumps({
              'version': version,
              'capacity_warehouses': capacity_warehouses,
              'start_delay_s': start_delay_s,
              'edge_failure': edge_failure,
              **config,
          }).encode(),
          0o644,
      ),
  }
  for name in TEMPLATES:
    members[f'{top}/{DATA_DIR_NAME}/{name}'] = (
        _Template(name).encode(),
        0o644,
    )
  raw = io.BytesIO()
  with tarfile.open(fileobj=raw, mode='w') as tar:
    for name, (content, mode) in members.items():
      info = tarfile.TarInfo(name)
      info.size, info.mode, info.mtime = len(content), mode, 0
      tar.addfile(info, io.BytesIO(content))
  blob = gzip.compress(raw.getvalue(), mtime=0)
  path = os.path.join(dest_dir, f'{top}.tgz')
  with open(path, 'wb') as f:
    f.write(blob)
  return path, hashlib.sha256(blob).hexdigest()


if __name__ == '__main__':
  sys.exit(Main(sys.argv[1:]))
