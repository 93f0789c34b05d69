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
"""configs/pricing's files -> a Catalog: parsing and checking the tables.

method.yaml gives the method (hours per month, the 3-year term, flag
thresholds); each other <cloud>.yaml is one cloud's dated table, hourly
rates turned into monthly ones at the method's hours per month. Every
number is checked (finite, >= 0) and every key known. A table's
`regions:` maps each other region to its own dated prices (see
_ParseRegion); its optional `rates:` gives measured rates of the cloud's
machines that plan's estimates use in place of their defaults (see
_ParseRates).
"""

import dataclasses
import importlib.resources
import math
import os
from typing import Any, Mapping

import yaml

from pkb_ext.pricing import catalog as catalog_lib
from pkb_ext.pricing import model

_METHOD_FILE = 'method.yaml'
_SIZE_TIER_KEYS = {'name', 'up_to_gb', 'usd_month', 'mbps'}
_REGION_KEYS = {'as_of', 'sources', 'machines', 'disks'}
_RATES_KEYS = {'as_of', 'source', 'values'}
_RATES_OPTIONAL = {'machines'}


def _Number(value: Any, where: str) -> float:
  if isinstance(value, bool) or not isinstance(value, (int, float)):
    raise model.PricingError(f'{where}: expected a number, got {value!r}')
  if not math.isfinite(value):
    raise model.PricingError(f'{where}: must be finite, got {value}')
  if value < 0:
    raise model.PricingError(f'{where}: must be >= 0, got {value}')
  return float(value)


def _Optional(d: Mapping[str, Any], key: str, where: str) -> float | None:
  return None if d.get(key) is None else _Number(d[key], f'{where}.{key}')


def _ParseDisk(name: str, d: Mapping[str, Any], hours: float, where: str):
  where = f'{where}: disks.{name}'
  known = {
      'usd_per_gb_month',
      'usd_per_gb_hour',
      'usd_per_iops_month',
      'usd_per_iops_hour',
      'usd_per_mbps_month',
      'usd_per_mbps_hour',
      'free_iops',
      'free_mbps',
      'report_name',
      'billed_tiers',
      'max_mbps',
      'mbps_per_gb',
      'mbps_per_iops',
      'volume_gb',
  }
  unknown = set(d) - known
  if unknown:
    raise model.PricingError(f'{where}: unknown keys {sorted(unknown)}')

  def Monthly(base: str) -> float | None:
    monthly, hourly = d.get(f'{base}_month'), d.get(f'{base}_hour')
    if monthly is not None and hourly is not None:
      raise model.PricingError(
          f'{where}: give {base}_month or {base}_hour, not both'
      )
    if hourly is not None:
      return _Number(hourly, f'{where}.{base}_hour') * hours
    if monthly is None or isinstance(monthly, list):
      return None
    return _Number(monthly, f'{where}.{base}_month')

  gb = Monthly('usd_per_gb')
  if gb is None:
    raise model.PricingError(
        f'{where}: needs usd_per_gb_month or usd_per_gb_hour'
    )
  tiers = []
  raw_tiers = d.get('usd_per_iops_month')
  if isinstance(raw_tiers, list):
    for i, t in enumerate(raw_tiers):
      tiers.append(
          model.Tier(
              _Number(t.get('up_to'), f'{where}.usd_per_iops_month[{i}].up_to'),
              _Number(t.get('usd'), f'{where}.usd_per_iops_month[{i}].usd'),
          )
      )
    if [t.up_to for t in tiers] != sorted({t.up_to for t in tiers}):
      raise model.PricingError(f'{where}: IOPS tiers must increase strictly')
  else:
    flat = Monthly('usd_per_iops')
    if flat is not None:
      tiers.append(model.Tier(float('inf'), flat))
  return model.Disk(
      disk_type=name,
      usd_per_gb_month=gb,
      iops_tiers=tuple(tiers),
      free_iops=_Optional(d, 'free_iops', where) or 0,
      usd_per_mbps_month=Monthly('usd_per_mbps') or 0,
      free_mbps=_Optional(d, 'free_mbps', where) or 0,
      report_name=d.get('report_name'),
      billed_tiers=_ParseSizeTiers(d.get('billed_tiers') or [], where),
      max_mbps=_Optional(d, 'max_mbps', where),
      mbps_per_gb=_Optional(d, 'mbps_per_gb', where),
      mbps_per_iops=_Optional(d, 'mbps_per_iops', where),
      volume_gb=_Optional(d, 'volume_gb', where),
  )


def _ParseSizeTiers(raw: Any, where: str) -> tuple[model.SizeTier, ...]:
  if not isinstance(raw, list):
    raise model.PricingError(f'{where}.billed_tiers: expected a list')
  tiers = []
  for i, t in enumerate(raw):
    w = f'{where}.billed_tiers[{i}]'
    if not isinstance(t, dict) or set(t) - _SIZE_TIER_KEYS:
      raise model.PricingError(f'{w}: expected name, up_to_gb, usd_month, mbps')
    tiers.append(
        model.SizeTier(
            name=str(t.get('name') or f'tier {i}'),
            up_to_gb=_Number(t.get('up_to_gb'), f'{w}.up_to_gb'),
            usd_month=_Optional(t, 'usd_month', w),
            mbps=_Optional(t, 'mbps', w),
        )
    )
  if [t.up_to_gb for t in tiers] != sorted({t.up_to_gb for t in tiers}):
    raise model.PricingError(f'{where}: billed tiers must increase strictly')
  return tuple(tiers)


def _ParseTable(
    d: Mapping[str, Any], hours: float, where: str
) -> model.PriceTable:
  if not isinstance(d, dict):
    raise model.PricingError(
        f'{where}: expected a mapping of cloud, region, ...'
    )
  for key in (
      'cloud',
      'region',
      'currency',
      'as_of',
      'sources',
      'machines',
      'disks',
  ):
    if key not in d:
      raise model.PricingError(f'{where}: missing key {key!r}')
  if d['currency'] != 'USD':
    raise model.PricingError(
        f'{where}: only USD is supported, got {d["currency"]}'
    )
  for key in ('machines', 'disks'):
    if not isinstance(d[key], dict):
      raise model.PricingError(f'{where}: {key} must be a mapping')
  machines = {}
  for name, m in d['machines'].items():
    w = f'{where}: machines.{name}'
    if not isinstance(m, dict):
      raise model.PricingError(f'{w}: must be a mapping')
    unknown = set(m) - {'usd_per_hour', 'limits', 'local_volume_gb', 'vcpus'}
    if unknown:
      raise model.PricingError(f'{w}: unknown keys {sorted(unknown)}')
    lim = m.get('limits') or {}
    unknown = set(lim) - {'disk_iops', 'disk_mbps', 'network_gbps'}
    if unknown:
      raise model.PricingError(f'{w}.limits: unknown keys {sorted(unknown)}')
    machines[name] = model.Machine(
        machine_type=name,
        usd_per_hour=_Number(m.get('usd_per_hour'), f'{w}.usd_per_hour'),
        limits=model.Limits(
            **{k: _Optional(lim, k, f'{w}.limits') for k in lim}
        ),
        local_volume_gb=_Optional(m, 'local_volume_gb', w),
        vcpus=_Vcpus(m.get('vcpus'), f'{w}.vcpus'),
    )
  disks = {
      name: _ParseDisk(name, disk, hours, where)
      for name, disk in d['disks'].items()
  }
  table = model.PriceTable(
      cloud=str(d['cloud']),
      region=str(d['region']),
      currency='USD',
      as_of=str(d['as_of']),
      sources=dict(d['sources']),
      machines=machines,
      disks=disks,
  )
  regions = d.get('regions') or {}
  if not isinstance(regions, dict):
    raise model.PricingError(f'{where}: regions must be a mapping')
  return dataclasses.replace(
      table,
      rates=_ParseRates(d.get('rates'), where),
      regions={
          str(name): _ParseRegion(d, str(name), r, hours, where)
          for name, r in regions.items()
      },
  )


def _ParseRates(raw: Any, where: str) -> model.Rates | None:
  """A table's `rates:` entry: as_of, source (the run that measured them),
  values (name: number) and optionally machines (machine type: its own
  values); None without one."""
  if raw is None:
    return None
  w = f'{where}: rates'
  if not isinstance(raw, dict):
    raise model.PricingError(f'{w}: must be a mapping')
  unknown = set(raw) - _RATES_KEYS - _RATES_OPTIONAL
  missing = _RATES_KEYS - set(raw)
  if unknown or missing:
    raise model.PricingError(
        f'{w}: expected as_of, source, values (and machines)'
        + (f'; unknown keys {sorted(unknown)}' if unknown else '')
        + (f'; missing {sorted(missing)}' if missing else '')
    )

  def Values(values: Any, at: str) -> dict[str, float]:
    if not isinstance(values, dict) or not values:
      raise model.PricingError(f'{at}: must be a mapping of numbers')
    return {str(k): _Number(v, f'{at}.{k}') for k, v in values.items()}

  machines = raw.get('machines') or {}
  if not isinstance(machines, dict):
    raise model.PricingError(f'{w}.machines: must be a mapping')
  return model.Rates(
      as_of=str(raw['as_of']),
      source=' '.join(str(raw['source']).split()),
      values=Values(raw['values'], f'{w}.values'),
      machines={
          str(m): Values(v, f'{w}.machines.{m}') for m, v in machines.items()
      },
  )


def _Vcpus(value: Any, where: str) -> int | None:
  if value is None:
    return None
  if isinstance(value, bool) or not isinstance(value, int) or value < 1:
    raise model.PricingError(f'{where}: expected a whole number >= 1')
  return value


def _ParseRegion(
    home: Mapping[str, Any],
    name: str,
    r: Any,
    hours: float,
    where: str,
) -> model.PriceTable:
  """One entry of regions: that region's prices over the home table.

  A machine is `name: USD_PER_HOUR`; a disk is its price keys. Everything
  else (limits, vCPUs, throughput, tier sizes) is the home table's; a tier
  price of the home table is not carried over.
  """
  w = f'{where}: regions.{name}'
  if not isinstance(r, dict):
    raise model.PricingError(f'{w}: must be a mapping')
  unknown = set(r) - _REGION_KEYS
  if unknown:
    raise model.PricingError(f'{w}: unknown keys {sorted(unknown)}')
  for key in ('as_of', 'sources', 'machines'):
    if key not in r:
      raise model.PricingError(f'{w}: missing key {key!r}')
  for key in ('machines', 'disks', 'sources'):
    if not isinstance(r.get(key) or {}, dict):
      raise model.PricingError(f'{w}: {key} must be a mapping')
  machines = {}
  for machine, price in r['machines'].items():
    base = home['machines'].get(machine)
    if not isinstance(base, dict):
      raise model.PricingError(
          f'{w}: machine {machine} is not in the home table'
      )
    machines[machine] = {**base, 'usd_per_hour': price}
  disks = {}
  for disk, prices in (r.get('disks') or {}).items():
    base = home['disks'].get(disk)
    if not isinstance(base, dict) or not isinstance(prices, dict):
      raise model.PricingError(
          f'{w}: disk {disk} must be a mapping of a disk in the home table'
      )
    kept = {k: v for k, v in base.items() if not k.startswith('usd_per_')}
    if isinstance(kept.get('billed_tiers'), list):
      kept['billed_tiers'] = [
          {k: v for k, v in t.items() if k != 'usd_month'}
          if isinstance(t, dict)
          else t
          for t in kept['billed_tiers']
      ]
    disks[disk] = {**kept, **prices}
  raw = {
      'cloud': home['cloud'],
      'region': name,
      'currency': home['currency'],
      'as_of': r['as_of'],
      'sources': r['sources'],
      'machines': machines,
      'disks': disks,
  }
  return _ParseTable(raw, hours, w)


def DefaultDirectory() -> str:
  """Returns configs/pricing of the installed pkb_ext.configs package."""
  return str(importlib.resources.files('pkb_ext.configs') / 'pricing')


def ParseTable(text: str, where: str, method: model.Method) -> model.PriceTable:
  """Parses the text of one <cloud>.yaml price table.

  Args:
    text: the file's YAML.
    where: the file's name, for messages.
    method: whose hours_per_month turn hourly rates into monthly ones.

  Raises:
    model.PricingError: not YAML, or not a price table.
  """
  try:
    raw = yaml.safe_load(text)
  except yaml.YAMLError as e:
    mark = getattr(e, 'problem_mark', None)
    line = f' line {mark.line + 1}' if mark else ''
    problem = getattr(e, 'problem', None) or type(e).__name__
    raise model.PricingError(f'{where}{line}: not YAML ({problem})') from e
  except RecursionError as e:
    raise model.PricingError(f'{where}: nested too deeply') from e
  return _ParseTable(raw or {}, method.hours_per_month, where)


def Load(directory: str | None = None) -> catalog_lib.Catalog:
  """Loads method.yaml and every <cloud>.yaml of a pricing directory.

  Args:
    directory: default configs/pricing of the installed package.

  Raises:
    model.PricingError: a file is malformed, or a cloud is defined twice.
  """
  directory = directory or DefaultDirectory()
  path = os.path.join(directory, _METHOD_FILE)
  try:
    with open(path, encoding='utf-8') as f:
      raw = (yaml.safe_load(f) or {}).get('method') or {}
  except OSError as e:
    raise model.PricingError(f'cannot read {path}: {e}') from e
  try:
    method = model.Method(
        hours_per_month=_Number(raw['hours_per_month'], 'hours_per_month'),
        term_months=int(_Number(raw['term_months'], 'term_months')),
        over_limit_tolerance_pct=_Number(
            raw['over_limit_tolerance_pct'], 'over_limit_tolerance_pct'
        ),
        bimodality_threshold=_Number(
            raw['bimodality_threshold'], 'bimodality_threshold'
        ),
        bimodality_min_runs=int(
            _Number(raw['bimodality_min_runs'], 'bimodality_min_runs')
        ),
    )
  except KeyError as e:
    raise model.PricingError(f'{path}: method is missing {e}') from e
  tables = {}
  for name in sorted(os.listdir(directory)):
    if not name.endswith('.yaml') or name == _METHOD_FILE:
      continue
    path = os.path.join(directory, name)
    with open(path, encoding='utf-8') as f:
      table = ParseTable(f.read(), path, method)
    key = table.cloud.lower()
    if key in tables:
      raise model.PricingError(f'{path}: cloud {table.cloud} is defined twice')
    tables[key] = table
  return catalog_lib.Catalog(method=method, tables=tables)
