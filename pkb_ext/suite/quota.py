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
"""vCPUs of a machine type, the cloud quotas they count against, the peak.

Pure except for the flag: a machine type's vCPUs from the cloud's exact
naming rule, whether a name is one the cloud could have, the vCPU quotas a
VM counts against in its region (named as each cloud names them), the peak
vCPUs of a matrix run --run_processes at a time, and the check of that peak
against --cloud_report_vcpu_quota.

The quota names (each a vCPU count per region):
  - AWS On-Demand instance quotas, one per group of instance families
    ("Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances",
    "... F instances", "... G and VT instances", "... P instances", "... X
    instances", "... Inf instances", "... DL instances"); the family groups
    are the ones AWS lists for its vCPU limits
    (https://docs.aws.amazon.com/whitepapers/latest/cost-optimization-
    leveraging-ec2-spot-instances/spot-request-limits.html lists the same
    groups for Spot; https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/
    ec2-resource-limits.html for On-Demand);
  - GCP's regional metrics of the Compute API's Quota.Metric (CPUS, N2_CPUS,
    N2D_CPUS, C2_CPUS, T2A_CPUS, ...;
    https://cloud.google.com/compute/docs/reference/rest/v1/regions): a
    family's <FAMILY>_CPUS, and CPUS, which N1 (and E2, F1, G1) count
    against;
  - Azure's two tiers per region: "Total Regional vCPUs" and the VM size
    family's "Standard <FAMILY> Family vCPUs" (the Resource SKU API's
    family standardDSv3Family is shown as "Standard DSv3 Family vCPUs";
    https://learn.microsoft.com/azure/virtual-machines/quotas).

pkb.py builds every configuration's spec, and runs preflight on it, before
it runs any, but one configuration at a time: preflight checks each
configuration's own vCPUs against the flag. The peak of a whole matrix
with --run_processes=N (Peak) needs every configuration at once: a
planning tool that builds them all computes it.
"""

import dataclasses
import re
from typing import Iterable, Mapping, Sequence

from absl import flags

from pkb_ext import errors

# Short keys of --cloud_report_vcpu_quota that name every region's quota.
ANY = '*'

_AWS = re.compile(
    r'^(?P<family>[a-z][a-z0-9-]*)\.'
    r'(?P<size>nano|micro|small|medium|large|(?P<n>\d*)xlarge|metal(-\d+xl)?)$'
)
_AWS_GROUPS = (
    # (family prefixes, short key, quota name), longest prefixes first.
    (('inf',), 'inf', 'Running On-Demand Inf instances'),
    (('dl',), 'dl', 'Running On-Demand DL instances'),
    (('trn',), 'trn', 'Running On-Demand Trn instances'),
    (('vt', 'g'), 'g', 'Running On-Demand G and VT instances'),
    (('f',), 'f', 'Running On-Demand F instances'),
    (('p',), 'p', 'Running On-Demand P instances'),
    (('x',), 'x', 'Running On-Demand X instances'),
    (
        tuple('acdhimrtz'),
        'standard',
        'Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances',
    ),
)
_GCP = re.compile(r'^(?P<family>[a-z][a-z0-9]*)-(?P<type>[a-z]+)-(?P<n>\d+)$')
_GCP_CUSTOM = re.compile(
    r'^((?P<family>[a-z][a-z0-9]*)-)?custom-(?P<n>\d+)-\d+(-ext)?$'
)
_GCP_SHARED = re.compile(r'^(?P<family>[a-z][a-z0-9]*)-(micro|small|medium)$')
_GCP_CPUS_ONLY = ('n1', 'f1', 'g1')
_AZURE = re.compile(
    r'^(Standard|Basic)_(?P<letters>[A-Z]+)(?P<n>\d+)(-\d+)?'
    r'(?P<suffix>[a-z]*)(_(?P<extra>[A-Za-z0-9]+))*?(_v(?P<v>\d+))?$'
)

VCPU_QUOTA = flags.DEFINE_string(
    'cloud_report_vcpu_quota',
    '',
    'vCPU quotas to check the run against before anything is provisioned:'
    ' N (every quota of every region), or KEY=N,... or REGION:KEY=N,...'
    " where KEY is a quota's short key"
    ' (standard, x, n2, cpus, ddsv4, total, ...). Empty: no check.',
)


class QuotaFlagError(errors.Error, ValueError):
  """--cloud_report_vcpu_quota cannot be read (the message says why)."""


@dataclasses.dataclass(frozen=True, order=True)
class Quota:
  """One vCPU quota of one region."""

  cloud: str
  region: str
  key: str  # short, for --cloud_report_vcpu_quota
  name: str  # as the cloud names it

  def Describe(self) -> str:
    return f'{self.region} {self.name} [{self.key}]'


def Vcpus(cloud: str, machine_type: str | None) -> int | None:
  """The vCPUs of machine_type from the cloud's naming rule; None: unknown.

  AWS <family>.<N>xlarge: 4N (.xlarge 4); GCP <family>-<type>-<N> and
  <family>-custom-<N>-<MB>: N; Azure Standard_<F><N>...: N.
  """
  if not machine_type:
    return None
  cloud = cloud.upper()
  if cloud == 'AWS':
    m = _AWS.match(machine_type)
    if m and m.group('n') is not None:
      return 4 * int(m.group('n') or 1)
    return None
  if cloud == 'GCP':
    m = _GCP.match(machine_type) or _GCP_CUSTOM.match(machine_type)
    return int(m.group('n')) if m else None
  if cloud == 'AZURE':
    m = _AZURE.match(machine_type)
    return int(m.group('n')) if m else None
  return None


def Impossible(cloud: str, machine_type: str | None) -> str | None:
  """Why machine_type is no name the cloud could have; None: it could be.

  Only AWS, GCP and Azure names are checked, by their naming patterns.
  """
  if not machine_type:
    return None
  patterns = {
      'AWS': ((_AWS,), '<family>.<size>, e.g. m5.4xlarge'),
      'GCP': (
          (_GCP, _GCP_CUSTOM, _GCP_SHARED),
          '<family>-<type>-<vCPUs>, e.g. n2-standard-16',
      ),
      'AZURE': (
          (_AZURE,),
          'Standard_<series><vCPUs>..., e.g. Standard_D16s_v3',
      ),
  }.get(cloud.upper())
  if patterns is None:
    return None
  regexes, form = patterns
  if any(r.match(machine_type) for r in regexes):
    return None
  return f'{machine_type!r} is no machine type name {cloud} could have ({form})'


def Quotas(cloud: str, region: str, machine_type: str | None) -> list[Quota]:
  """The vCPU quotas a VM of machine_type counts against in region."""
  cloud_key = cloud.upper()
  name = machine_type or ''
  if cloud_key == 'AWS':
    m = _AWS.match(name)
    if not m:
      return []
    family = m.group('family')
    for prefixes, key, quota in _AWS_GROUPS:
      if family.startswith(prefixes):
        return [Quota(cloud, region, key, quota)]
    return []
  if cloud_key == 'GCP':
    m = _GCP.match(name) or _GCP_CUSTOM.match(name) or _GCP_SHARED.match(name)
    family = (m.group('family') if m else None) or 'n1'
    out = [Quota(cloud, region, 'cpus', 'CPUS')]
    if family not in _GCP_CPUS_ONLY:
      key = family.lower()
      out.insert(0, Quota(cloud, region, key, f'{family.upper()}_CPUS'))
    return out
  if cloud_key == 'AZURE':
    m = _AZURE.match(name)
    out = [Quota(cloud, region, 'total', 'Total Regional vCPUs')]
    if m:
      letters, suffix = m.group('letters'), m.group('suffix')
      if letters == 'M' and suffix.startswith('m'):
        suffix = suffix[1:]  # Standard_M16ms is in the MS family
      family = (
          letters
          + suffix.upper()
          + (f'v{m.group("v")}' if m.group('v') else '')
      )
      out.insert(
          0,
          Quota(
              cloud, region, family.lower(), f'Standard {family} Family vCPUs'
          ),
      )
    return out
  return []


@dataclasses.dataclass(frozen=True)
class Need:
  """What one configuration holds at once: vCPUs per quota."""

  vcpus: Mapping[Quota, int]
  unknown: tuple[str, ...] = ()  # machine types whose vCPUs are unknown


def NeedOf(
    vms: Iterable[tuple[str, str, str | None, int, int | None]],
) -> Need:
  """One configuration's vCPUs per quota.

  Args:
    vms: (cloud, region, machine type, VM count, vCPUs per VM or None for
      the naming rule's) of each of its vm_groups.
  """
  need, unknown = {}, []
  for cloud, region, machine_type, count, vcpus in vms:
    vcpus = vcpus or Vcpus(cloud, machine_type)
    if vcpus is None:
      unknown.append(str(machine_type))
      continue
    for q in Quotas(cloud, region, machine_type):
      need[q] = need.get(q, 0) + vcpus * count
  return Need(need, tuple(sorted(set(unknown))))


def Peak(needs: Sequence[Need], processes: int | None) -> dict[Quota, int]:
  """The most vCPUs per quota that configurations hold at once.

  An upper bound: for each quota, the sum of the `processes` largest
  configurations' needs (pkb.py runs that many at a time, in an order
  this does not model).
  """
  at_once = max(1, processes or 1)
  out = {}
  for q in sorted({q for n in needs for q in n.vcpus}):
    values = sorted((n.vcpus.get(q, 0) for n in needs), reverse=True)
    out[q] = sum(values[:at_once])
  return out


def ParseLimits(text: str) -> dict[tuple[str, str], int]:
  """--cloud_report_vcpu_quota as {(region or ANY, key or ANY): vCPUs}.

  Raises:
    QuotaFlagError: an entry is not N, KEY=N or REGION:KEY=N.
  """
  out = {}
  for entry in filter(None, (e.strip() for e in (text or '').split(','))):
    where, _, value = entry.rpartition('=')
    region, _, key = where.rpartition(':')
    if not value.strip().isdigit() or ('=' in entry and not key.strip()):
      raise QuotaFlagError(
          f'--cloud_report_vcpu_quota: {entry!r} is not N, KEY=N or'
          ' REGION:KEY=N (N a whole number of vCPUs)'
      )
    out[(region.strip() or ANY, key.strip().lower() or ANY)] = int(value)
  return out


def _FlagIsReadable(text: str) -> bool:
  try:
    ParseLimits(text)
  except QuotaFlagError as e:
    raise flags.ValidationError(str(e)) from e
  return True


flags.register_validator(VCPU_QUOTA, _FlagIsReadable)


def Limit(limits: Mapping[tuple[str, str], int], q: Quota) -> int | None:
  """The vCPUs the user allows for q (the most specific entry); None."""
  for where in ((q.region, q.key), (ANY, q.key), (q.region, ANY), (ANY, ANY)):
    if where in limits:
      return limits[where]
  return None


def OverQuota(
    peak: Mapping[Quota, int], limits: Mapping[tuple[str, str], int], what: str
) -> list[str]:
  """One line per quota the peak is above, naming the quota and the peak.

  Args:
    peak: vCPUs per quota.
    limits: ParseLimits' answer.
    what: what holds the peak, e.g. 'this configuration'.
  """
  out = []
  for q, vcpus in sorted(peak.items()):
    limit = Limit(limits, q)
    if limit is not None and vcpus > limit:
      out.append(
          f'{what} needs {vcpus} vCPUs of {q.Describe()}, above the'
          f' {limit} of --cloud_report_vcpu_quota: raise that quota (or the'
          ' flag, if the quota is higher) or run fewer VMs at once'
      )
  return out
