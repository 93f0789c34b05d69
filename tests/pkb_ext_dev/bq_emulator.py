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
"""Starts and stops the BigQuery emulator (local-bigquery) for tests.

scripts/setup.d/60-bigquery-emulator.sh makes its venv in the cache, with the
DuckDB extensions it needs in the venv's DuckDB home. Emulator runs the
`local-bigquery` server there on free loopback ports, with HOME set to that
home (so DuckDB finds the extensions and downloads nothing), and stops it by
PID; if the process that started it dies first, the kernel sends it SIGTERM. Its data lives in a directory that survives Restart(), like a service
that went down and came back.

  with bq_emulator.Emulator() as emulator:
    client = emulator.Client()
    ...
"""

import contextlib
import ctypes
import datetime
import math
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

from pkb_ext import errors
from pkb_ext import paths
from pkb_ext_dev import ports

PROJECT = 'pkb-ext-test'
_LOOPBACK = '127.0.0.1'


class EmulatorError(errors.Error):
  """The emulator is missing or did not start."""


def VenvDir() -> str:
  return os.path.join(paths.CacheDir(), 'bq-emulator-venv')


def Executable() -> str:
  return os.path.join(VenvDir(), 'bin', 'local-bigquery')


def DuckDbHome() -> str:
  return os.path.join(VenvDir(), 'duckdb-home')


def _DieWithParent() -> None:
  """In the child: SIGTERM it when the process that started it dies."""
  pr_set_pdeathsig = 1
  with contextlib.suppress(OSError, AttributeError):
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def _NoProxyForLoopback() -> None:
  """Keeps HTTP clients of this process from proxying loopback calls."""
  for name in ('NO_PROXY', 'no_proxy'):
    hosts = [h for h in os.environ.get(name, '').split(',') if h]
    for host in (_LOOPBACK, 'localhost'):
      if host not in hosts:
        hosts.append(host)
    os.environ[name] = ','.join(hosts)


class Emulator:
  """One local-bigquery server; see module docstring."""

  def __init__(self, data_dir: str | None = None, project: str = PROJECT):
    self.project = project
    self._own_data = data_dir is None
    self.data_dir = data_dir or tempfile.mkdtemp(prefix='pkb-ext-bq-')
    self.port = ports.FreePort()
    self.grpc_port = ports.FreePort()
    self.log_path = os.path.join(self.data_dir, 'emulator.log')
    self._proc: subprocess.Popen | None = None

  @property
  def endpoint(self) -> str:
    return f'http://{_LOOPBACK}:{self.port}'

  @property
  def pid(self) -> int | None:
    return self._proc.pid if self._proc else None

  def Running(self) -> bool:
    return self._proc is not None and self._proc.poll() is None

  def _LogTail(self) -> str:
    try:
      with open(self.log_path, encoding='utf-8', errors='replace') as f:
        return ''.join(f.readlines()[-20:])
    except OSError:
      return ''

  def _Ready(self) -> bool:
    url = f'{self.endpoint}/bigquery/v2/projects/{self.project}/datasets'
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
      with opener.open(url, timeout=5) as response:
        return response.status == 200
    except (urllib.error.URLError, OSError):
      return False

  def Start(self, timeout_s: float = 90.0) -> 'Emulator':
    """Starts the server and waits until it answers."""
    if self.Running():
      return self
    if not os.access(Executable(), os.X_OK):
      raise EmulatorError(
          f'no BigQuery emulator at {Executable()}; run scripts/setup.sh'
      )
    _NoProxyForLoopback()
    env = {
        'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
        'HOME': DuckDbHome(),
        'LANG': 'C.UTF-8',
        'NO_PROXY': '*',
        'no_proxy': '*',
    }
    argv = [
        Executable(),
        'serve',
        '--host',
        _LOOPBACK,
        '--port',
        str(self.port),
        '--grpc-port',
        str(self.grpc_port),
        '--project',
        self.project,
        '--data-dir',
        self.data_dir,
    ]
    with open(self.log_path, 'ab') as log:
      self._proc = subprocess.Popen(  # pylint: disable=consider-using-with
          argv,
          env=env,
          cwd=self.data_dir,
          stdin=subprocess.DEVNULL,
          stdout=log,
          stderr=subprocess.STDOUT,
          start_new_session=True,
          preexec_fn=_DieWithParent,
      )
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
      if self._proc.poll() is not None:
        raise EmulatorError(
            f'the BigQuery emulator exited with {self._proc.returncode}:\n'
            + self._LogTail()
        )
      if self._Ready():
        return self
      time.sleep(0.2)
    self.Stop(signal.SIGKILL)
    raise EmulatorError(
        f'the BigQuery emulator did not answer in {timeout_s:g} s:\n'
        + self._LogTail()
    )

  def Stop(self, sig: int = signal.SIGTERM, timeout_s: float = 30.0) -> None:
    """Stops the server by its PID (SIGKILL if it does not exit in time)."""
    proc, self._proc = self._proc, None
    if proc is None:
      return
    if proc.poll() is None:
      with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, sig)
      try:
        proc.wait(timeout=timeout_s)
      except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
          os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=timeout_s)

  def Restart(self, timeout_s: float = 90.0) -> 'Emulator':
    """Stops and starts the server on the same ports and data."""
    self.Stop()
    return self.Start(timeout_s)

  def Client(self):
    """Returns a google-cloud-bigquery client of the emulator."""
    from google.auth import credentials  # pylint: disable=g-import-not-at-top
    from google.cloud import bigquery  # pylint: disable=g-import-not-at-top

    return bigquery.Client(
        project=self.project,
        credentials=credentials.AnonymousCredentials(),
        client_options={'api_endpoint': self.endpoint},
    )

  def Close(self) -> None:
    """Stops the server and removes a data directory it made."""
    self.Stop()
    if self._own_data:
      shutil.rmtree(self.data_dir, ignore_errors=True)

  def __enter__(self) -> 'Emulator':
    try:
      return self.Start()
    except BaseException:
      self.Close()
      raise

  def __exit__(self, *exc_info) -> None:
    self.Close()


def StartedOrSkip() -> Emulator:
  """A started Emulator, for a test class's setUpClass.

  Raises:
    unittest.SkipTest: no emulator is installed (naming the setup step that
      installs it).
  """
  if not os.access(Executable(), os.X_OK):
    raise unittest.SkipTest(
        f'no BigQuery emulator at {Executable()}; '
        'scripts/setup.d/60-bigquery-emulator.sh installs it'
    )
  emulator = Emulator()
  try:
    return emulator.Start()
  except BaseException:
    emulator.Close()
    raise


def ComparableRows(rows) -> list:
  """Rows as sorted tuples, floats rounded, NaN as None, datetimes naive.

  Makes the same query's rows from DuckDB and the emulator comparable.
  """

  def Normal(value):
    if isinstance(value, float):
      return None if math.isnan(value) else round(value, 9)
    if isinstance(value, datetime.datetime):
      return value.replace(tzinfo=None)
    return value

  return sorted(
      (tuple(sorted((k, Normal(v)) for k, v in r.items())) for r in rows),
      key=repr,
  )
