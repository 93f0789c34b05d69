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
"""The local cloud's own services: MinIO, its S3 object store.

A cloud offers object storage as a service, so the local cloud does too:
`up` starts MinIO (the binary from $CACHE/bin, seen at BIN_DIR on the hosts)
on the client host, as the hosts' user, over ssh like anything else that
runs there, with its data in the client's home. The object storage phase
reaches it through --cloud_report_object_storage_endpoint and the keys, which
`pkb-ext local flags` prints. Services the benchmark deploys itself
(PostgreSQL on db1, go-tpc on the client) are the phases' business.
"""

import os
import secrets
import time
import urllib.error
import urllib.request

from pkb_ext import local
from pkb_ext.local import layout
from pkb_ext.local import network
from pkb_ext.local import sshd
from pkb_ext.local import system

MINIO_HOST = 'client'
MINIO_PORT = 9000
MINIO_USER = 'pkbext-local'
_ENV_FILE = '.pkb-ext-minio.env'


def MinioEndpoint(plan: layout.Plan) -> str:
  return f'http://{plan.Host(MINIO_HOST).ip}:{MINIO_PORT}'


def _Healthy(endpoint: str) -> bool:
  try:
    with urllib.request.urlopen(
        endpoint + '/minio/health/live', timeout=1
    ) as resp:
      return resp.status == 200
  except (urllib.error.URLError, OSError):
    return False


def _RootPid(host: layout.Host, nspid: int, wait_s: float = 15) -> int:
  """This machine's PID of a process known by its PID on a host.

  The PID that `nohup ... & echo $!` prints is a shell until it execs
  nohup and then minio; on a loaded machine that takes a moment, so the
  process is looked for until it is minio, has gone, or wait_s passed.
  """
  deadline = time.monotonic() + wait_s
  while True:
    pids = [
        p for p in network.NetnsPids(host.netns) if system.NsPid(p) == nspid
    ]
    if pids and system.Comm(pids[0]) == 'minio':
      return pids[0]
    if not pids or time.monotonic() > deadline:
      break
    time.sleep(0.2)
  raise system.LocalCloudError(
      f'MinIO (pid {nspid} on {host.name}) exited at start; see ~/minio.log'
      f' on {host.name}'
  )


def EnsureMinio(plan: layout.Plan, state: dict) -> dict:
  """Starts MinIO on the client host unless it runs; returns its record."""
  record = state.setdefault('services', {}).get('minio') or {}
  endpoint = MinioEndpoint(plan)
  if system.IsAlive(record.get('pid'), record.get('start')) and _Healthy(
      endpoint
  ):
    return record
  if not os.path.exists(os.path.join(plan.bin_dir, 'minio')):
    raise system.LocalCloudError(
        f'{plan.bin_dir}/minio missing: run scripts/setup.sh (its step'
        ' 50-go-tools builds MinIO), or `up --no-minio`'
    )
  host = plan.Host(MINIO_HOST)
  # A MinIO left from an earlier start would hold the port. Anything in the
  # client's namespace was started through our hosts, so it is ours to end.
  stray = [
      (p, system.StartTime(p))
      for p in network.NetnsPids(host.netns)
      if system.Comm(p) == 'minio'
  ]
  system.Terminate(stray)
  secret = record.get('secret_key') or secrets.token_hex(16)
  # Keys go through stdin, so the command log does not hold them.
  system.Run(
      sshd.SshArgv(plan, host, f'umask 077 && cat > ~/{_ENV_FILE}'),
      input_text=(
          f'MINIO_ROOT_USER={MINIO_USER}\nMINIO_ROOT_PASSWORD={secret}\n'
          'MINIO_BROWSER=off\n'
      ),
  )
  out = sshd.Ssh(
      plan,
      host,
      f'mkdir -p ~/minio-data && set -a && . ~/{_ENV_FILE} && set +a; '
      f'nohup {local.BIN_DIR}/minio server --quiet '
      f'--address {host.ip}:{MINIO_PORT} --console-address 127.0.0.1:9001 '
      '~/minio-data > ~/minio.log 2>&1 < /dev/null & echo $!',
  ).stdout
  pid = _RootPid(host, int(out.split()[-1]))
  deadline = time.monotonic() + 60
  while not _Healthy(endpoint):
    if time.monotonic() > deadline or system.StartTime(pid) is None:
      log = sshd.Ssh(plan, host, 'tail -20 ~/minio.log', check=False).stdout
      raise system.LocalCloudError(
          f'MinIO on {host.name} did not become healthy at {endpoint}: {log}'
      )
    time.sleep(0.25)
  record = {
      'pid': pid,
      'start': system.StartTime(pid),
      'host': host.name,
      'endpoint': endpoint,
      'access_key': MINIO_USER,
      'secret_key': secret,
  }
  state['services']['minio'] = record
  return record
