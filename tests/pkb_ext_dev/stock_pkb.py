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
"""Runs stock PKB's real Main on fake static VMs, for tests.

RunMain() starts pkb_ext_dev.fake_vm_main in a subprocess (PKB's Main sets
global flags, logging and temp dirs) over static VMs in TEST-NET-1
(192.0.2.0/24, never contacted), with playback answers put first in its fake
shell, and returns the exit status, the logged remote commands and the
samples PKB's JSON publisher wrote.

A test that must change how the fake shell answers (e.g. play back
RobustRemoteCommand's protocol) passes `boot`: Python source run in the
subprocess before PKB's Main, at module level, with `driver` (the
fake_vm_main module) and `extra` (the JSON-decoded `extra` argument, or None)
defined.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
import copy
import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

from pkb_ext import labels

DRIVER_MODULE = 'pkb_ext_dev.fake_vm_main'
# TEST-NET-1 (RFC 5737): documentation addresses, never routed.
_TEST_NET_1 = '192.0.2.{}'
_ANSWERS_ENV = 'PKB_EXT_FAKE_ANSWERS'  # read by fake_vm_main
_EXTRA_ENV = 'PKB_EXT_STOCK_PKB_EXTRA'
_BOOT_HEAD = f"""
import json, os, sys
from pkb_ext_dev import fake_vm_main as driver
extra = None
if os.environ.get({_EXTRA_ENV!r}):
  with open(os.environ[{_EXTRA_ENV!r}]) as f:
    extra = json.load(f)
"""
_BOOT_TAIL = """
sys.exit(driver.main(sys.argv))
"""


def DriverCommand() -> list[str]:
  """Returns the argv prefix that runs fake_vm_main; add COMMAND_LOG, flags."""
  return [sys.executable, '-m', DRIVER_MODULE]


def StaticVms(count: int, **extra: Any) -> list[dict[str, Any]]:
  """Returns PKB static VM entries for 192.0.2.1 .. 192.0.2.<count>.

  Args:
    count: how many VMs (1 to 254).
    **extra: keys added to (or replacing) every entry's, e.g.
      local_disks=['/dev/vdb'] or os_type='ubuntu2204'; each entry gets its
      own copy.

  Raises:
    ValueError: if count does not fit in TEST-NET-1.
  """
  if not 1 <= count <= 254:
    raise ValueError(f'{count} static VMs do not fit in TEST-NET-1 (1 to 254)')
  vms = []
  for i in range(1, count + 1):
    ip = _TEST_NET_1.format(i)
    vm = {
        'ip_address': ip,
        'user_name': 'perfkit',
        'keyfile_path': '/dev/null',
        'internal_ip': ip,
        'zone': 'local-1',
        'os_type': 'ubuntu2404',
    }
    vm.update(copy.deepcopy(extra))
    vms.append(vm)
  return vms


def StaticVmFile(directory: str, vms: Sequence[Mapping[str, Any]]) -> str:
  """Writes vms as <directory>/static_vms.json; returns its path."""
  path = os.path.join(directory, 'static_vms.json')
  with open(path, 'w') as f:
    json.dump(list(vms), f)
  return path


def Labels(pkb_json_sample: Mapping[str, Any]) -> dict[str, str]:
  """Returns the metadata of one sample from PKB's JSON publisher.

  The publisher packs metadata as '|key:value|,|key:value|'; a value keeps
  any further colons, and every value is a string.

  Args:
    pkb_json_sample: one decoded line of PKB's --json_path file.
  """
  return labels.Decode(pkb_json_sample['labels'])


@dataclasses.dataclass(frozen=True)
class MainResult:
  """What one RunMain() run left.

  Attributes:
    proc: the finished subprocess (returncode, stdout, stderr).
    commands: every remote command, in order, as {'vm': name, 'command': str}.
    samples: the samples PKB's JSON publisher wrote, decoded.
    run_dir: PKB's run directory (pkb.log, the run's state files).
  """

  proc: subprocess.CompletedProcess
  commands: tuple[dict[str, str], ...]
  samples: tuple[dict[str, Any], ...]
  run_dir: str

  @property
  def command_texts(self) -> tuple[str, ...]:
    """The remote commands alone, in order."""
    return tuple(c['command'] for c in self.commands)


def _ReadJsonLines(path: str) -> tuple[Any, ...]:
  if not os.path.exists(path):
    return ()
  with open(path) as f:
    return tuple(json.loads(line) for line in f if line.strip())


def _RunUntil(argv, env, tmp, timeout, kill_when):
  """Runs argv in its own session; SIGKILLs that session once kill_when()."""
  out_path = os.path.join(tmp, 'main.stdout')
  err_path = os.path.join(tmp, 'main.stderr')
  with open(out_path, 'w') as out, open(err_path, 'w') as err:
    child = subprocess.Popen(
        argv, stdout=out, stderr=err, env=env, start_new_session=True
    )
    deadline = time.monotonic() + timeout
    try:
      while child.poll() is None:
        if kill_when():
          os.killpg(child.pid, signal.SIGKILL)
          break
        if time.monotonic() > deadline:
          os.killpg(child.pid, signal.SIGKILL)
          child.wait()
          raise subprocess.TimeoutExpired(argv, timeout)
        time.sleep(0.2)
    finally:
      child.wait()
  with open(out_path) as out, open(err_path) as err:
    return subprocess.CompletedProcess(
        argv, child.returncode, out.read(), err.read()
    )


def RunMain(
    tmp: str,
    benchmark: str,
    vms: Sequence[Mapping[str, Any]],
    *,
    run_uri: str,
    answers: Iterable[Sequence[str]] = (),
    flags: Mapping[str, Any] | None = None,
    boot: str | None = None,
    extra: Any = None,
    timeout: float = 600,
    kill_when: Callable[[], bool] | None = None,
) -> MainResult:
  """Runs `pkb.py --benchmarks=<benchmark>` on fake static VMs.

  Args:
    tmp: an empty directory for this run's files (PKB's temp dir is tmp/pkb).
    benchmark: the --benchmarks value.
    vms: static VM entries, e.g. StaticVms(2).
    run_uri: the --run_uri value.
    answers: (command fragment, stdout) pairs tried, first match wins, before
      fake_vm_main's built-in answers.
    flags: more PKB flags, name -> value, passed as --name=value.
    boot: Python source run before PKB's Main (see the module docstring).
    extra: JSON-serializable data handed to `boot` as `extra`.
    timeout: seconds the run may take.
    kill_when: polled while the run goes on; once it returns True, the run
      (pkb.py and every process it started: it runs in its own session) is
      killed with SIGKILL, as a crash or an operator would.

  Returns:
    The run's MainResult; a run that failed has whatever it logged.
  """
  answers_path = os.path.join(tmp, 'answers.json')
  with open(answers_path, 'w') as f:
    json.dump([list(a) for a in answers], f)
  env = dict(os.environ, **{_ANSWERS_ENV: answers_path})
  env.pop(_EXTRA_ENV, None)
  if extra is not None:
    extra_path = os.path.join(tmp, 'extra.json')
    with open(extra_path, 'w') as f:
      json.dump(extra, f)
    env[_EXTRA_ENV] = extra_path
  log = os.path.join(tmp, 'commands.jsonl')
  samples_path = os.path.join(tmp, 'samples.json')
  program = _BOOT_HEAD + (boot or '') + _BOOT_TAIL
  argv = [
      sys.executable,
      '-c',
      program,
      log,
      f'--benchmarks={benchmark}',
      f'--static_vm_file={StaticVmFile(tmp, vms)}',
      f'--temp_dir={tmp}/pkb',
      f'--json_path={samples_path}',
      '--accept_licenses',
      '--ignore_package_requirements',
      f'--run_uri={run_uri}',
  ] + [f'--{name}={value}' for name, value in (flags or {}).items()]
  if kill_when is None:
    proc = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
    )
  else:
    proc = _RunUntil(argv, env, tmp, timeout, kill_when)
  return MainResult(
      proc=proc,
      commands=_ReadJsonLines(log),
      samples=_ReadJsonLines(samples_path),
      run_dir=os.path.join(tmp, 'pkb', 'runs', run_uri),
  )
