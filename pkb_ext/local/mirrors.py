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
"""The package registries' caching proxies, on the bridge address.

The hosts have no route beyond the bridge. apt on a host reaches Debian's
registry through apt-cacher-ng (the image's apt proxy), and pip reaches
PyPI through proxpi (the image's pip index); both run on this machine,
bound to the bridge address only, started by `up` and ended by `down`
(each known by its PID and start time). apt-cacher-ng forwards only to
Debian's archive and security archive (ForceManaged); proxpi only to PyPI.
They reach them as this machine's own apt and pip do. Their caches are
kept under $PKB_EXT_CACHE/mirrors/<prefix>/ across `down`, so a second
`up` downloads nothing it already has.
"""

import os
import subprocess
import time
import urllib.error
import urllib.request

from pkb_ext import paths
from pkb_ext.local import images
from pkb_ext.local import layout
from pkb_ext.local import system

APT_CACHER = '/usr/sbin/apt-cacher-ng'
PROXPI_VENV = 'proxpi-venv'  # under $PKB_EXT_CACHE (scripts/setup.d/57)
NAMES = ('apt-cacher-ng', 'proxpi')
_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt'


def CacheDir(plan: layout.Plan, name: str) -> str:
  return os.path.join(paths.CacheDir(), 'mirrors', plan.prefix, name)


def RunDir(plan: layout.Plan) -> str:
  return os.path.join(plan.state_dir, 'mirrors')


def ProxpiPython() -> str:
  return os.path.join(paths.CacheDir(), PROXPI_VENV, 'bin', 'python')


def AptCacherConfig(plan: layout.Plan) -> str:
  """acng.conf: Debian's archives only, on the bridge address only."""
  return (
      f'CacheDir: {CacheDir(plan, "apt-cacher-ng")}\n'
      f'LogDir: {RunDir(plan)}\n'
      'SupportDir: /usr/lib/apt-cacher-ng\n'
      f'Port: {images.APT_PROXY_PORT}\n'
      f'BindAddress: {plan.bridge_ip}\n'
      f'PidFile: {RunDir(plan)}/apt-cacher-ng.pid\n'
      'ForeGround: 1\n'
      'ForceManaged: 1\n'
      'ExThreshold: 4\n'
      # An index checked upstream is served as is for 5 minutes: the hosts
      # of a run refresh the same ones within seconds of each other.
      'FreshIndexMaxAge: 300\n'
      'Remap-debrep: deb.debian.org/debian ; '
      f'{images.MIRROR_URL}/\n'
      'Remap-secdeb: deb.debian.org/debian-security ; '
      f'{images.SECURITY_URL}/\n'
  )


def Argv(plan: layout.Plan, name: str) -> tuple[list[str], dict]:
  """(argv, environment) of one proxy."""
  env = {'PATH': '/usr/sbin:/usr/bin:/sbin:/bin', 'LC_ALL': 'C.UTF-8'}
  for var in ('http_proxy', 'https_proxy', 'no_proxy'):
    for v in (var, var.upper()):
      if os.environ.get(v):
        env[v] = os.environ[v]
  if name == 'apt-cacher-ng':
    return [APT_CACHER, '-c', os.path.join(RunDir(plan), 'acng')], env
  env.update(
      PROXPI_CACHE_DIR=CacheDir(plan, 'proxpi'),
      # Wait for a file's download rather than redirect pip to PyPI, which
      # the hosts cannot reach.
      PROXPI_DOWNLOAD_TIMEOUT='900',
      REQUESTS_CA_BUNDLE=_CA_BUNDLE,
  )
  return [
      ProxpiPython(), '-m', 'flask', '--app', 'proxpi.server', 'run',
      '--host', plan.bridge_ip, '--port', str(images.PIP_INDEX_PORT),
  ], env  # fmt: skip


def Url(plan: layout.Plan, name: str) -> str:
  if name == 'apt-cacher-ng':
    return f'http://{plan.bridge_ip}:{images.APT_PROXY_PORT}/acng-report.html'
  return f'http://{plan.bridge_ip}:{images.PIP_INDEX_PORT}/health'


def _Healthy(url: str) -> bool:
  try:
    with urllib.request.urlopen(url, timeout=2) as resp:
      return resp.status == 200
  except urllib.error.HTTPError as e:
    return e.code < 500
  except (urllib.error.URLError, OSError):
    return False


def _Missing() -> list[str]:
  missing = []
  if not os.path.exists(APT_CACHER):
    missing.append(f'{APT_CACHER} (Debian package apt-cacher-ng)')
  if not os.path.exists(ProxpiPython()):
    missing.append(f'{ProxpiPython()} (proxpi, scripts/setup.d/57-mirrors.sh)')
  return missing


def Ensure(plan: layout.Plan, state: dict, log=print) -> None:
  """Starts each proxy unless it runs; records them in state['mirrors']."""
  missing = _Missing()
  if missing:
    raise system.LocalCloudError(
        f'missing {", ".join(missing)}: run scripts/setup.sh, or `up'
        ' --image=host`'
    )
  run = RunDir(plan)
  os.makedirs(os.path.join(run, 'acng'), exist_ok=True)
  with open(os.path.join(run, 'acng', 'acng.conf'), 'w') as f:
    f.write(AptCacherConfig(plan))
  records = state.setdefault('mirrors', {})
  for name in NAMES:
    record = records.get(name) or {}
    url = Url(plan, name)
    if system.IsAlive(record.get('pid'), record.get('start')) and _Healthy(url):
      continue
    os.makedirs(CacheDir(plan, name), exist_ok=True)
    argv, env = Argv(plan, name)
    log_path = os.path.join(run, f'{name}.out')
    with open(log_path, 'ab') as out:
      proc = subprocess.Popen(
          argv,
          env=env,
          stdin=subprocess.DEVNULL,
          stdout=out,
          stderr=subprocess.STDOUT,
          start_new_session=True,
          close_fds=True,
      )
    records[name] = {
        'pid': proc.pid,
        'start': system.StartTime(proc.pid),
        'url': url,
    }
    deadline = time.monotonic() + 30
    while not _Healthy(url):
      if proc.poll() is not None or time.monotonic() > deadline:
        proc.kill()
        with open(log_path, errors='replace') as f:
          tail = ' '.join(f.read().splitlines()[-5:])
        raise system.LocalCloudError(
            f'{name} did not answer at {url}: {tail} (see {log_path})'
        )
      time.sleep(0.2)
    proc.returncode = 0  # runs on after us; silence Popen's warning
    log(f'{name}: {url} (pid {proc.pid})')


def Stop(state: dict) -> list[str]:
  """Ends the proxies; returns a line per process ended."""
  records = state.get('mirrors') or {}
  pids = [(r.get('pid'), r.get('start')) for r in records.values()]
  ended = system.Terminate([(p, t) for p, t in pids if p])
  state.pop('mirrors', None)
  return [f'process {pid} (mirror)' for pid in ended]
