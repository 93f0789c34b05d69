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
"""Whether this host can provision on a cloud: its CLI and credentials.

PKB runs each cloud's CLI on this host (aws, gcloud, az); without it, or
without credentials, a run fails after its first provisioning call. These
checks run before provisioning (preflight): the CLI on PATH (or in this
interpreter's bin directory, with a hint to activate it), and the
credentials it would use. A CLI's output is parsed only, never logged, and
each call is bounded (CLI_TIMEOUT_S), its process group killed on timeout.
"""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from typing import Callable, Sequence


from benchmarks.cloud_report import errors as report_errors
from benchmarks.cloud_report import remote
from benchmarks.cloud_report import topology as topology_lib

# The CLI PKB runs on this host for each cloud, and where it comes from.
CLOUD_CLIS = {
    'AWS': ('aws', 'the AWS CLI (PyPI: awscli)'),
    'GCP': (
        'gcloud',
        (
            'the Google Cloud CLI (on no package registry; see'
            ' https://cloud.google.com/sdk/docs/install)'
        ),
    ),
    'Azure': ('az', 'the Azure CLI (PyPI: azure-cli)'),
}
# Seconds a CLI's credentials query may take.
CLI_TIMEOUT_S = 60


class CliError(report_errors.Error):
  """A cloud's CLI could not be run, or did not answer in time."""


def RunCli(
    argv: Sequence[str], timeout: float | None = None
) -> tuple[int, str]:
  """Runs a CLI found on PATH; returns its exit status and stdout.

  Its output is for parsing only: neither stdout nor stderr (dropped) is
  logged. On a timeout the CLI's whole process group is killed.

  Raises:
    CliError: it could not be started or did not end in time.
  """
  timeout = CLI_TIMEOUT_S if timeout is None else timeout
  try:
    with subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    ) as proc:
      try:
        out, _ = proc.communicate(timeout=timeout)
      except subprocess.TimeoutExpired as e:
        with contextlib.suppress(ProcessLookupError):
          os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise CliError(
            f'`{" ".join(argv)}` did not answer in {timeout:g} s'
        ) from e
  except OSError as e:
    raise CliError(f'cannot run `{argv[0]}`: {e.strerror}') from e
  return proc.returncode, out


def CliProblem(cloud: str) -> str | None:
  """The cloud's CLI missing from PATH, where PKB runs it from."""
  cli, what = CLOUD_CLIS[cloud]
  if shutil.which(cli):
    return None
  bin_dir = os.path.dirname(sys.executable)
  if os.access(os.path.join(bin_dir, cli), os.X_OK):
    return (
        f'{cloud}: PKB runs `{cli}` from PATH, which lacks {bin_dir} where'
        ' it is installed; put that directory on PATH (e.g. `source'
        f' {bin_dir}/activate`)'
    )
  return f'{cloud}: PKB runs `{cli}`, which is not on PATH; install {what}'


def _AwsProblems() -> list[str]:
  """Whether `aws` runs, and botocore (its library) finds credentials."""
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  try:
    rc, _ = RunCli(['aws', '--version'])
  except CliError as e:
    return [f'AWS: {e}']
  if rc:
    return [
        f'AWS: `aws --version` failed (exit status {rc}): the aws on PATH,'
        f' {shutil.which("aws")}, does not run; put a working AWS CLI (PyPI:'
        ' awscli) first on PATH'
    ]
  try:
    from botocore import exceptions as botocore_exceptions
    from botocore import session as botocore_session
  except ImportError:
    return ['AWS: botocore (installed with the AWS CLI) cannot be imported']
  try:
    found = botocore_session.Session().get_credentials()
  except (botocore_exceptions.BotoCoreError, OSError, ValueError) as e:
    return [f'AWS: cannot read the AWS credentials: {remote.OneLine(e)}']
  if found is None:
    return [
        'AWS: no AWS credentials found (environment, shared credentials and'
        ' config files, instance metadata); run `aws configure`, or set'
        ' AWS_PROFILE'
    ]
  return []


def _GcpProblems() -> list[str]:
  """gcloud's account and project (or --project)."""
  argv = ['gcloud', 'config', 'list', '--format=json']
  try:
    rc, out = RunCli(argv)
  except CliError as e:
    return [f'GCP: {e}']
  try:
    core = None if rc else json.loads(out or '{}').get('core') or {}
  except (AttributeError, ValueError):
    core = None
  if not isinstance(core, dict):
    return [f'GCP: `{" ".join(argv)}` failed; check the Google Cloud CLI']
  problems = []
  if not core.get('account'):
    problems.append(
        'GCP: gcloud has no account; run `gcloud auth login` (or `gcloud'
        ' auth activate-service-account`)'
    )
  if not core.get('project') and not topology_lib.FlagValue('project'):
    problems.append(
        'GCP: no project; set --project, or run `gcloud config set project'
        ' PROJECT`'
    )
  return problems


def _AzureProblems() -> list[str]:
  """Whether the Azure CLI has a logged-in account."""
  try:
    rc, _ = RunCli(['az', 'account', 'show', '--output', 'none'])
  except CliError as e:
    return [f'Azure: {e}']
  if rc:
    return [
        'Azure: the Azure CLI has no logged-in account (`az account show`'
        ' failed); run `az login`'
    ]
  return []


# What each cloud's CLI lacks, once it is on PATH.
_CLI_PROBLEMS: dict[str, Callable[[], list[str]]] = {
    'AWS': _AwsProblems,
    'GCP': _GcpProblems,
    'Azure': _AzureProblems,
}


def CloudProblems(cloud: str) -> list[str]:
  """The cloud's CLI missing from PATH, or without credentials."""
  missing = CliProblem(cloud)
  return [missing] if missing else _CLI_PROBLEMS[cloud]()
