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
"""Whether this host can provision on a cloud: its CLI and credentials.

PKB runs each cloud's CLI on this host (aws, gcloud, az); without it, or
with credentials the cloud does not accept, a run fails after its first
provisioning call and PKB's teardown retries for minutes. These checks run
before provisioning, the first of pkb_ext.suite.preflight's (its Check
calls Problems here first):

  - the CLI on PATH (or in this interpreter's bin directory, with a hint to
    activate it), whatever --ignore_package_requirements says;
  - the cloud asked who the caller is, with the credentials the CLI would
    use: AWS `aws sts get-caller-identity` (STS GetCallerIdentity, which
    needs no permission), GCP `gcloud auth print-access-token` (and a
    project from gcloud or --project), Azure `az account get-access-token`.

A refusal is one line naming the cloud, what failed (no credentials,
rejected, expired, unreachable, CLI missing) and the command that fixes it.
Each call is bounded (PROBE_TIMEOUT_S; its process group is killed on
timeout, and the AWS CLI makes one attempt with its own connect and read
timeouts). A CLI's output is read to classify the failure only: a token on
stdout is never read, nothing is logged, and the values of the credential
environment variables are cut from anything a message quotes.
"""

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from typing import Callable, Sequence

from pkb_ext import errors

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
# Seconds one probe (one CLI call) may take.
PROBE_TIMEOUT_S = 20
# The AWS CLI's own connect and read timeouts, within PROBE_TIMEOUT_S.
AWS_SOCKET_TIMEOUT_S = 8
# The region whose STS endpoint answers when the run names none.
AWS_DEFAULT_REGION = 'us-east-1'
# Environment variables whose values are never quoted.
SECRET_VARIABLES = (
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'AWS_SECURITY_TOKEN',
    'AZURE_CLIENT_SECRET',
    'CLOUDSDK_AUTH_ACCESS_TOKEN_FILE',
)

# AWS error codes, as `An error occurred (CODE)` names them.
AWS_REJECTED = frozenset({
    'InvalidClientTokenId',
    'SignatureDoesNotMatch',
    'UnrecognizedClientException',
    'AuthFailure',
    'InvalidAccessKeyId',
})
AWS_EXPIRED = frozenset({
    'ExpiredToken',
    'ExpiredTokenException',
    'RequestExpired',
    'TokenRefreshRequired',
})
# What a CLI prints when it cannot reach its service.
_UNREACHABLE = re.compile(
    r'Could not connect to the endpoint URL|Connect timeout|Read timeout'
    r'|Failed to establish a new connection|Max retries exceeded'
    r'|Name or service not known|Temporary failure in name resolution'
    r'|Failed to resolve|Unable to find the server|Connection refused'
    r'|timed out',
    re.IGNORECASE,
)
_AWS_CODE = re.compile(r'An error occurred \(([A-Za-z0-9.]+)\)')
_AWS_ENDPOINT = re.compile(r'endpoint URL: "([^"\s]+)"')
_AZURE_CODE = re.compile(r'\b(AADSTS\d+)\b')


class CliError(errors.Error):
  """A cloud's CLI could not be run, or did not answer in time."""


def Redact(text: str) -> str:
  """`text` with the value of each SECRET_VARIABLES variable cut out."""
  for name in SECRET_VARIABLES:
    value = os.environ.get(name)
    if value and len(value) >= 4:
      text = text.replace(value, f'<{name}>')
  return text


def _FirstLine(text: str) -> str:
  lines = [l.strip() for l in text.splitlines() if l.strip()]
  return Redact(lines[0][:200]) if lines else ''


def RunCli(
    argv: Sequence[str],
    timeout: float | None = None,
    env: dict[str, str] | None = None,
    read_stdout: bool = True,
) -> tuple[int, str, str]:
  """Runs a CLI found on PATH; returns its exit status, stdout and stderr.

  Its output is for classifying only, never logged; without read_stdout
  (a token) stdout goes to /dev/null. On a timeout the CLI's whole process
  group is killed.

  Raises:
    CliError: it could not be started or did not end in time.
  """
  timeout = PROBE_TIMEOUT_S if timeout is None else timeout
  try:
    with subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if read_stdout else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    ) as proc:
      try:
        out, err = proc.communicate(timeout=timeout)
      except subprocess.TimeoutExpired as e:
        with contextlib.suppress(ProcessLookupError):
          os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise CliError(
            f'`{" ".join(argv[:3])}` did not answer in {timeout:g} s'
        ) from e
  except OSError as e:
    raise CliError(f'cannot run `{argv[0]}`: {e.strerror}') from e
  return proc.returncode, out or '', err or ''


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


def _Unreachable(cloud: str, service: str, detail: str, fix: str) -> str:
  return f'{cloud}: {service} is unreachable from this host ({detail}); {fix}'


def AwsProblems(region: str | None = None) -> list[str]:
  """Whether `aws` runs, and STS accepts the credentials it finds."""
  region = region or AWS_DEFAULT_REGION
  try:
    rc, _, _ = RunCli(['aws', '--version'])
  except CliError as e:
    return [f'AWS: {e}']
  if rc:
    return [
        f'AWS: `aws --version` failed (exit status {rc}): the aws on PATH,'
        f' {shutil.which("aws")}, does not run; put a working AWS CLI (PyPI:'
        ' awscli) first on PATH'
    ]
  argv = [
      'aws', 'sts', 'get-caller-identity', '--output', 'json',
      '--region', region,
      '--cli-connect-timeout', str(AWS_SOCKET_TIMEOUT_S),
      '--cli-read-timeout', str(AWS_SOCKET_TIMEOUT_S),
  ]  # fmt: skip
  env = dict(os.environ, AWS_MAX_ATTEMPTS='1', AWS_PAGER='')
  network_fix = 'check the network and proxy (HTTPS_PROXY), then run again'
  try:
    rc, _, err = RunCli(argv, env=env)
  except CliError as e:
    return [_Unreachable('AWS', 'STS', str(e), network_fix)]
  if not rc:
    return []
  code = _AWS_CODE.search(err)
  if code and code.group(1) in AWS_REJECTED:
    return [
        f'AWS: STS rejected the AWS credentials ({code.group(1)}: a wrong,'
        ' deleted or inactive access key, or a wrong secret); run `aws'
        ' configure` with a valid key, or set AWS_PROFILE'
    ]
  if code and code.group(1) in AWS_EXPIRED:
    return [
        f'AWS: the AWS credentials have expired ({code.group(1)}: the'
        ' session token is past its expiry); get a new session (`aws sso'
        ' login`, or a new AWS_SESSION_TOKEN), or run `aws configure`'
    ]
  if 'Unable to locate credentials' in err:
    return [
        'AWS: no AWS credentials found (environment, shared credentials and'
        ' config files, instance metadata); run `aws configure`, or set'
        ' AWS_PROFILE'
    ]
  if code:
    return [
        f'AWS: STS GetCallerIdentity failed ({code.group(1)}); check the'
        ' credentials with `aws sts get-caller-identity`'
    ]
  if _UNREACHABLE.search(err):
    endpoint = _AWS_ENDPOINT.search(err)
    detail = f'no answer from {endpoint.group(1)}' if endpoint else (
        _FirstLine(err)
    )  # fmt: skip
    return [_Unreachable('AWS', 'STS', detail, network_fix)]
  return [
      'AWS: cannot use the AWS credentials (`aws sts get-caller-identity`,'
      f' exit status {rc}: {_FirstLine(err)}); run `aws configure`, or set'
      ' AWS_PROFILE'
  ]


def _GcpProject() -> list[str]:
  """A project in gcloud's config, or --project."""
  # pylint: disable-next=g-import-not-at-top
  from pkb_ext.suite import topology

  if topology.FlagValue('project'):
    return []
  argv = ['gcloud', 'config', 'list', '--format=json']
  try:
    rc, out, _ = RunCli(argv)
  except CliError as e:
    return [f'GCP: {e}']
  try:
    core = None if rc else json.loads(out or '{}').get('core') or {}
  except (AttributeError, ValueError):
    core = None
  if not isinstance(core, dict):
    return [f'GCP: `{" ".join(argv)}` failed; check the Google Cloud CLI']
  if core.get('project'):
    return []
  return [
      'GCP: no project; set --project, or run `gcloud config set project'
      ' PROJECT`'
  ]


def GcpProblems(region: str | None = None) -> list[str]:
  """Whether gcloud gets an access token, and a project is set."""
  del region  # an access token is not regional
  login = 'run `gcloud auth login` (or `gcloud auth activate-service-account`)'
  try:
    rc, _, err = RunCli(
        ['gcloud', 'auth', 'print-access-token'], read_stdout=False
    )
  except CliError as e:
    problems = [
        _Unreachable(
            'GCP', "Google's token service", str(e), 'check the network'
        )
    ]
  else:
    if not rc:
      problems = []
    elif 'do not currently have an active account' in err:
      problems = [f'GCP: gcloud has no active account; {login}']
    elif re.search(r'invalid_grant|reauth|refreshing your current auth', err,
                   re.IGNORECASE):  # fmt: skip
      problems = [
          'GCP: gcloud could not refresh its login (invalid_grant: expired'
          f' or revoked); {login}'
      ]
    elif _UNREACHABLE.search(err):
      problems = [
          _Unreachable(
              'GCP',
              "Google's token service",
              _FirstLine(err),
              'check the network and proxy, then run again',
          )
      ]
    else:
      problems = [
          'GCP: `gcloud auth print-access-token` failed (exit status'
          f' {rc}: {_FirstLine(err)}); {login}'
      ]
  return problems + _GcpProject()


def AzureProblems(region: str | None = None) -> list[str]:
  """Whether the Azure CLI gets an access token."""
  del region  # an access token is not regional
  argv = ['az', 'account', 'get-access-token', '--output', 'none']
  try:
    rc, _, err = RunCli(argv, read_stdout=False)
  except CliError as e:
    return [
        _Unreachable('Azure', 'Microsoft Entra ID', str(e), 'check the network')
    ]
  if not rc:
    return []
  code = _AZURE_CODE.search(err)
  if 'az login' in err and not code:
    return ['Azure: the Azure CLI has no logged-in account; run `az login`']
  if code or re.search(r'invalid_grant|expired', err, re.IGNORECASE):
    what = code.group(1) if code else 'invalid_grant'
    return [
        f'Azure: the Azure CLI login has expired or was revoked ({what});'
        ' run `az login`'
    ]
  if _UNREACHABLE.search(err):
    return [
        _Unreachable(
            'Azure',
            'Microsoft Entra ID',
            _FirstLine(err),
            'check the network and proxy, then run again',
        )
    ]
  return [
      f'Azure: `az account get-access-token` failed (exit status {rc}:'
      f' {_FirstLine(err)}); run `az login`'
  ]


# Whom each cloud's CLI is, once it is on PATH; each takes the run's region.
_PROBES: dict[str, Callable[[str | None], list[str]]] = {
    'AWS': AwsProblems,
    'GCP': GcpProblems,
    'Azure': AzureProblems,
}


def CloudProblems(cloud: str, region: str | None = None) -> list[str]:
  """The cloud's CLI missing from PATH, or credentials it cannot use."""
  missing = CliProblem(cloud)
  return [missing] if missing else _PROBES[cloud](region)


def _Region(cloud: str, zone: str | None) -> str | None:
  """The AWS region of a zone (us-east-1a -> us-east-1); None elsewhere."""
  if cloud != 'AWS' or not zone:
    return None
  return zone[:-1] if re.search(r'\d[a-z]$', zone) else zone


def Problems(benchmark_config, names: Sequence[str]) -> list[str]:
  """Preflight's access check: CloudProblems of each provisioning cloud.

  A cloud is checked once, for the region of its first vm_group (AWS).
  """
  # pylint: disable=g-import-not-at-top
  from pkb_ext.suite import topology
  from pkb_ext.suite import preflight

  del names  # every phase provisions
  zones = topology.FlagValue('zone') or []  # PKB's --zone wins over a spec's
  regions = {}
  for group in preflight.GroupsOf(benchmark_config):
    if group.static or group.cloud not in CLOUD_CLIS:
      continue
    vm_group = benchmark_config.vm_groups[group.name]
    zone = getattr(getattr(vm_group, 'vm_spec', None), 'zone', None)
    regions.setdefault(
        group.cloud, _Region(group.cloud, zones[:1] and zones[0] or zone)
    )
  return [
      p
      for cloud, region in sorted(regions.items())
      for p in CloudProblems(cloud, region)
  ]
