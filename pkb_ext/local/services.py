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
"""The local cloud's own services: object storage emulators.

A cloud offers object storage as a service, so the local cloud does too:
`up` starts them on this machine, in the client host's network namespace
(bound to its address; not in its file system or process list, as a
cloud's service is not on the VM), with their keys, data and logs in
STATE/services/:
  minio            S3 (MinIO), port 9000;
  fake-gcs         GCS (fake-gcs-server, in-memory), port 4443;
  azurite          Azure Blob (Azurite's blob service), port 10000, with
                   --disableTelemetry and --skipApiVersionCheck (the Azure
                   SDK may speak a newer API version than Azurite knows).
Their programs come from $CACHE/bin (built or installed by scripts/setup.d).
Each is known by its PID, checked by its start time, and ends with the
client host at `down`. Keys are generated here and reach the services
through an environment file only root can read (never a command line) and
the object storage phase through a credentials file (mode 0600) in the
state dir, whose path `pkb-ext local flags` prints; the keys never appear
as flag values. None of the emulators models a cloud's throttling or
network.
Services the benchmark deploys itself (PostgreSQL on db1, go-tpc on the
client) are the phases' business.
"""

import base64
import dataclasses
import os
import secrets
import time
import urllib.error
import urllib.request

from pkb_ext import local
from pkb_ext.local import layout
from pkb_ext.local import network
from pkb_ext.local import system

SERVICE_HOST = 'client'
MINIO_HOST = SERVICE_HOST
MINIO_PORT = 9000
MINIO_USER = 'pkbext-local'
FAKE_GCS_PORT = 4443
AZURITE_PORT = 10000
AZURITE_ACCOUNT = 'pkbextlocal'
GCS_PROJECT = 'pkb-ext-local'
AZURITE_MAIN = 'azurite/node_modules/azurite/dist/src/blob/main.js'
SDK_PYTHON = 'object-storage-sdk/bin/python'
CREDENTIALS_FILE = 'object-storage.env'


@dataclasses.dataclass(frozen=True)
class Service:
  """How to run one object storage emulator on the client host."""

  name: str
  provider: str  # the object storage phase's provider: s3, gcs, azure
  program: str  # under $CACHE/bin (BIN_DIR on the hosts)
  comm: str  # its process name, once started
  port: int
  setup: str  # the setup step that provides the program


SERVICES = (
    Service('minio', 's3', 'minio', 'minio', MINIO_PORT, '50-go-tools'),
    Service(
        'fake-gcs',
        'gcs',
        'fake-gcs-server',
        'fake-gcs-server',
        FAKE_GCS_PORT,
        '55-object-storage-emulators',
    ),
    Service(
        'azurite',
        'azure',
        AZURITE_MAIN,
        'node',
        AZURITE_PORT,
        '55-object-storage-emulators',
    ),
)
BY_PROVIDER = {s.provider: s for s in SERVICES}


def Endpoint(plan: layout.Plan, service: Service) -> str:
  """The URL the phase is given (for Azurite, the account's URL)."""
  url = f'http://{plan.Host(SERVICE_HOST).ip}:{service.port}'
  return url + f'/{AZURITE_ACCOUNT}' if service.name == 'azurite' else url


def MinioEndpoint(plan: layout.Plan) -> str:
  return Endpoint(plan, BY_PROVIDER['s3'])


def Healthy(service: Service, endpoint: str) -> bool:
  """Whether the service answers HTTP (Azurite: any status will do)."""
  url = {
      'minio': endpoint + '/minio/health/live',
      'fake-gcs': endpoint + '/storage/v1/b',
      'azurite': endpoint + '?comp=list',
  }[service.name]
  try:
    with urllib.request.urlopen(url, timeout=1) as resp:
      return resp.status == 200
  except urllib.error.HTTPError as e:
    return service.name == 'azurite' and e.code in (400, 403)
  except (urllib.error.URLError, OSError):
    return False


def _RootPid(
    host: layout.Host,
    nspid: int,
    service: Service,
    log_path: str,
    wait_s: float = 15,
) -> int:
  """This machine's PID of a process known by its PID on a host.

  The PID that `nohup ... & echo $!` prints is a shell until it execs
  nohup and then the service; on a loaded machine that takes a moment, so
  the process is looked for until it is the service, has gone, or wait_s
  passed.
  """
  deadline = time.monotonic() + wait_s
  while True:
    pids = [
        p for p in network.NetnsPids(host.netns) if system.NsPid(p) == nspid
    ]
    if pids and system.Comm(pids[0]) == service.comm:
      return pids[0]
    if not pids or time.monotonic() > deadline:
      break
    time.sleep(0.2)
  raise system.LocalCloudError(
      f"{service.name} (pid {nspid} in {host.name}'s network) exited at"
      f' start; see {log_path}'
  )


def _Command(
    service: Service, host: layout.Host, env_file: str, bin_dir: str
) -> str:
  """The shell command that starts the service in the background."""
  program = f'{bin_dir}/{service.program}'
  prelude = ''
  if service.name == 'minio':
    prelude = 'mkdir -p ~/minio-data && '
    run = (
        f'{program} server --quiet --address {host.ip}:{service.port}'
        ' --console-address 127.0.0.1:9001 ~/minio-data'
    )
  elif service.name == 'fake-gcs':
    url = f'http://{host.ip}:{service.port}'
    run = (
        f'{program} -scheme http -host {host.ip} -port {service.port}'
        f' -backend memory -external-url {url} -public-host'
        f' {host.ip}:{service.port} -log-level warn'
    )
  else:
    prelude = 'mkdir -p ~/azurite-data && '
    run = (
        f'node {program} --blobHost {host.ip} --blobPort {service.port}'
        ' --location ~/azurite-data --silent --disableTelemetry'
        ' --skipApiVersionCheck'
    )
  # Only the service runs in the background, its output in its log, so the
  # ssh session ends at `echo $!`.
  return (
      f'{prelude}set -a && . ~/{env_file} && set +a; nohup {run}'
      f' > ~/{service.name}.log 2>&1 < /dev/null & echo $!'
  )


def _Environment(service: Service, record: dict) -> tuple[dict, str]:
  """(secrets kept in the record, the env file's text) of a service."""
  if service.name == 'minio':
    keys = {
        'access_key': MINIO_USER,
        'secret_key': record.get('secret_key') or secrets.token_hex(16),
    }
    text = (
        f'MINIO_ROOT_USER={keys["access_key"]}\n'
        f'MINIO_ROOT_PASSWORD={keys["secret_key"]}\nMINIO_BROWSER=off\n'
    )
  elif service.name == 'azurite':
    keys = {
        'account': AZURITE_ACCOUNT,
        'key': (
            record.get('key')
            or base64.b64encode(secrets.token_bytes(32)).decode()
        ),
    }
    text = f'AZURITE_ACCOUNTS={keys["account"]}:{keys["key"]}\n'
  else:
    keys, text = {'project': GCS_PROJECT}, ''
  return keys, text


def EnsureService(plan: layout.Plan, state: dict, service: Service) -> dict:
  """Starts a service on the client host unless it runs; returns its record."""
  record = state.setdefault('services', {}).get(service.name) or {}
  endpoint = Endpoint(plan, service)
  if system.IsAlive(record.get('pid'), record.get('start')) and Healthy(
      service, endpoint
  ):
    return record
  if not os.path.exists(os.path.join(plan.bin_dir, service.program)):
    raise system.LocalCloudError(
        f'{plan.bin_dir}/{service.program} missing: run scripts/setup.sh (its'
        f' step {service.setup}), or `up --no-minio`'
    )
  host = plan.Host(SERVICE_HOST)
  # One left from an earlier start would hold the port. Anything in the
  # client's namespace was started by us or through our hosts, so it is ours
  # to end.
  marker = f'{plan.bin_dir}/{service.program}'
  stray = [
      (p, system.StartTime(p))
      for p in network.NetnsPids(host.netns)
      if marker in system.CmdLine(p)
  ]
  system.Terminate(stray)
  keys, env_text = _Environment(service, record)
  env_file = f'.pkb-ext-{service.name}.env'
  home = HomeDir(plan)
  os.makedirs(home, mode=0o700, exist_ok=True)
  # Keys go in a file only root can read, never on a command line.
  fd = os.open(
      os.path.join(home, env_file), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600
  )
  with os.fdopen(fd, 'w') as f:
    f.write(env_text)
  command = _Command(service, host, env_file, plan.bin_dir)
  out = system.Run([
      'ip', 'netns', 'exec', host.netns, 'env', '-i', f'HOME={home}',
      'PATH=/usr/local/bin:/usr/bin:/bin', 'bash', '-c', command,
  ]).stdout  # fmt: skip
  log_path = os.path.join(home, f'{service.name}.log')
  pid = _RootPid(host, int(out.split()[-1]), service, log_path)
  deadline = time.monotonic() + 90
  while not Healthy(service, endpoint):
    if time.monotonic() > deadline or system.StartTime(pid) is None:
      with open(log_path, errors='replace') as f:
        log = '\n'.join(f.read().splitlines()[-20:])
      raise system.LocalCloudError(
          f'{service.name} on {host.name} did not become healthy at'
          f' {endpoint}: {log}'
      )
    time.sleep(0.25)
  record = {
      'pid': pid,
      'start': system.StartTime(pid),
      'host': host.name,
      'provider': service.provider,
      'endpoint': endpoint,
      **keys,
  }
  state['services'][service.name] = record
  return record


def EnsureMinio(plan: layout.Plan, state: dict) -> dict:
  """Starts MinIO on the client host unless it runs; returns its record."""
  return EnsureService(plan, state, BY_PROVIDER['s3'])


def CredentialsText(state: dict) -> str:
  """The credentials file of the running services (NAME=VALUE lines)."""
  services = state.get('services', {})
  lines = ['# Object storage keys of the local cloud; mode 0600.']
  if 'minio' in services:
    lines += [
        f'AWS_ACCESS_KEY_ID={services["minio"]["access_key"]}',
        f'AWS_SECRET_ACCESS_KEY={services["minio"]["secret_key"]}',
    ]
  if 'azurite' in services:
    lines += [
        f'AZURE_STORAGE_ACCOUNT={services["azurite"]["account"]}',
        f'AZURE_STORAGE_KEY={services["azurite"]["key"]}',
    ]
  if 'fake-gcs' in services:
    lines.append(f'GOOGLE_CLOUD_PROJECT={services["fake-gcs"]["project"]}')
  return '\n'.join(lines) + '\n'


def HomeDir(plan: layout.Plan) -> str:
  """The emulators' home: their keys, data and logs (the state dir's)."""
  return os.path.join(plan.state_dir, 'services')


def CredentialsPath(plan: layout.Plan) -> str:
  return os.path.join(plan.state_dir, CREDENTIALS_FILE)


def EnsureObjectStorage(plan: layout.Plan, state: dict, log=print) -> None:
  """Starts every emulator whose program is there; writes the keys file.

  MinIO is required; fake-gcs-server and Azurite are skipped with a warning
  when setup has not provided them (the phase then runs on S3 alone).
  """
  for service in SERVICES:
    program = os.path.join(plan.bin_dir, service.program)
    if service.name != 'minio' and not os.path.exists(program):
      log(
          f'warning: {program} missing (scripts/setup.d/{service.setup}.sh):'
          f' no {service.provider} object storage'
      )
      state.setdefault('services', {}).pop(service.name, None)
      continue
    record = EnsureService(plan, state, service)
    log(f'{service.name}: {record["endpoint"]} (pid {record["pid"]})')
  path = CredentialsPath(plan)
  fd = os.open(path + '.tmp', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
  with os.fdopen(fd, 'w') as f:
    os.fchmod(f.fileno(), 0o600)
    f.write(CredentialsText(state))
  os.replace(path + '.tmp', path)
  python = os.path.join(plan.bin_dir, SDK_PYTHON)
  state['object_storage'] = {
      'credentials_file': path,
      # The hosts' interpreter with the pinned SDKs, if setup made it; an
      # image's hosts install them on their own Python, as a cloud VM.
      'python': (
          f'{local.BIN_DIR}/{SDK_PYTHON}'
          if os.path.exists(python) and not plan.os_image
          else None
      ),
  }
