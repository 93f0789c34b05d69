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
"""The worker protocol: its config, its command, and its output to samples.

The worker (data file object_storage/ttfb_worker.py) runs PKB's object
storage TimeToFirstByte scenario (object_storage_api_test_scripts/ttfb.py,
whose docstring defines its output, on the provider's service interface)
on the client VM with the provider's SDK. The host pushes
a JSON config, runs the worker and reads back, in the same command, its exit
code, its JSON lines and the tail of its stderr (RunAndCollectCommand,
ParseCollected); Samples turns them into samples.
"""

import json
import logging

from benchmarks.cloud_report import remote
from pkb_ext import errors
from pkb_ext.suite import leftovers
from pkb_ext.suite import samples as samples_lib
from pkb_ext.suite.object_storage import parser as ttfb
from pkb_ext.suite.object_storage import samples as os_samples

WORK_DIR = 'cloud_report_object_storage'
TAG = 'ttfb-worker'  # the worker's leftovers.Tracked tag
WORKER_DATA = 'object_storage/ttfb_worker.py'
# PKB's object storage API test scripts the worker imports, as the package
# `providers` beside it (where PKB's object_storage_service pushes them).
API_SCRIPTS_DIR = 'object_storage_api_test_scripts'
API_SCRIPTS = (
    '__init__.py',
    'object_storage_interface.py',
    'azure_flags.py',
    's3_flags.py',
    's3.py',
    'gcs.py',
    'ttfb.py',
)
PROVIDERS_DIR = 'providers'
# Every data file the worker runs from, and where it goes in WORK_DIR.
WORKER_FILES = ((WORKER_DATA, 'ttfb_worker.py'),) + tuple(
    (f'{API_SCRIPTS_DIR}/{name}', f'{PROVIDERS_DIR}/{name}')
    for name in API_SCRIPTS
)
PROVIDERS = ('s3', 'gcs', 'azure')
# The module the worker imports, per provider.
SDK_IMPORT = {
    's3': 'boto3',
    'gcs': 'google.cloud.storage',
    'azure': 'azure.storage.blob',
}
# Pinned SDKs the worker needs, per provider (pip requirements data files).
REQUIREMENTS_DATA = 'object_storage/requirements-{provider}.txt'
RC_MARK = '@@@ cloud_report ttfb worker exit '
STDERR_MARK = '@@@ cloud_report ttfb worker stderr'


class ObjectStorageError(errors.Error, RuntimeError):
  """The phase cannot measure: one line naming provider and endpoint."""


def WorkerConfig(params, provider, bucket, region, extra=None) -> dict:
  """The worker's JSON config (pure); `extra` is the back-end's keys."""
  return {
      'provider': provider,
      'bucket': bucket,
      'region': region,
      'prefix': params.prefix,
      'endpoint': None,
      'latency_requests': params.latency_requests,
      'latency_object_bytes': params.latency_object_bytes,
      'sizes': list(params.sizes),
      'downloads_per_size': params.downloads_per_size,
      'concurrency': list(params.concurrency),
      'concurrency_rounds': params.concurrency_rounds,
      'concurrency_object_bytes': params.concurrency_object_bytes,
      **(extra or {}),
  }


def WorkerCommand(params) -> str:
  """Runs the worker, tracked (leftovers.Tracked, TAG); its exit code goes to
  worker.rc (pure)."""
  worker = leftovers.Tracked(
      f'{params.python} ttfb_worker.py --config worker.json --out ttfb.jsonl',
      TAG,
  )
  worker += ' 2> worker.stderr'
  return f'cd {WORK_DIR} && {{ {remote.ExitStatusTo(worker, "worker.rc")}; }}'


def RunAndCollectCommand(params) -> str:
  """WorkerCommand, then in the same command what Run reads back (pure).

  Makes the pushed config private first (it may hold credentials) and
  removes it after; then prints the worker's exit code, its output
  (ttfb.jsonl) and the tail of its stderr, which ParseCollected splits. The
  command fails only if the worker could not be started (no config, no
  work directory): the worker's own failures are in what it prints. The
  worker runs in a session of its own (leftovers.Tracked), so that a resumed
  attempt can end it if this one is killed.
  """
  w = WORK_DIR
  return (
      f'b=$PWD; chmod 600 {w}/worker.json && {WorkerCommand(params)}; s=$?;'
      f' cd "$b"; rm -f {w}/worker.json;'
      f' echo "{RC_MARK}$(cat {w}/worker.rc 2>/dev/null)";'
      f' cat {w}/ttfb.jsonl 2>/dev/null;'
      f" printf '\\n{STDERR_MARK}\\n'; tail -c 2000 {w}/worker.stderr"
      ' 2>/dev/null; exit $s'
  )


def ParseCollected(out: str) -> tuple[str, int, str]:
  """(worker output, exit code or -1, stderr tail) of RunAndCollectCommand's
  output (pure)."""
  _, _, rest = out.partition(RC_MARK)
  rc_text, _, rest = rest.partition('\n')
  text, _, stderr = rest.partition(f'\n{STDERR_MARK}\n')
  try:
    rc = int(rc_text.strip())
  except ValueError:
    rc = -1
  return text, rc, stderr.strip()


def Samples(
    text: str, rc: int, stderr: str, region: str = '', where: str = ''
) -> list:
  """Parses the worker's output into samples.

  If the worker stopped early, the samples of what it finished carry
  partial: true and a cloud_report_phase_error sample says why.

  Raises:
    ObjectStorageError: the output has no usable request.
  """
  where = where or 'object storage'
  try:
    result = ttfb.Parse(text)
  except ttfb.ParseError as e:
    logging.error('object_storage: worker stderr: %s', stderr[-2000:])
    reason = AbortReason(text)
    if not reason:
      tail = stderr.strip().splitlines()
      reason = tail[-1] if tail else str(e)
    raise ObjectStorageError(
        f'object storage {where}: worker exited {rc}, nothing measured: '
        + OneLine(reason)
    ) from e
  out = os_samples.FromResult(result)
  for s in out:
    s.metadata['bucket_region'] = region
  if rc or result.partial:
    why = '; '.join(result.problems) or f'worker exited {rc}'
    logging.error('object_storage: partial results: %s', why)
    out.append(
        samples_lib.Make(
            samples_lib.METRICS,
            'cloud_report_phase_error',
            1,
            {
                'error': f'worker exit {rc}: {why}'[:1000],
                'partial': True,
                'provider': result.header.provider,
            },
        )
    )
  return out


def AbortReason(text: str) -> str:
  """The worker's abort record's error, if its output has one."""
  for line in reversed(text.splitlines()):
    try:
      record = json.loads(line)
    except ValueError:
      continue
    if isinstance(record, dict) and record.get('kind') == 'abort':
      return str(record.get('error') or '')
  return ''


def OneLine(error: BaseException | str, limit: int = 300) -> str:
  """The first non-empty line of an error, shortened (pure)."""
  text = str(error)
  lines = [l.strip() for l in text.splitlines() if l.strip()]
  first = lines[0] if lines else ''
  if isinstance(error, BaseException):
    first = (
        f'{type(error).__name__}: {first}' if first else type(error).__name__
    )
  return first if len(first) <= limit else first[: limit - 3] + '...'
