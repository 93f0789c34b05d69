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
"""The plan as text: each configuration, the totals, the prices' date.

Pure: from model.Configs (and today's date, for the prices' age). Each
configuration shows its vCPUs and the region and date it was priced at (or
why its price is unknown); after the totals, the peak vCPUs per region and
cloud quota.
"""

import datetime
from typing import Sequence

from pkb_ext.plan import cost
from pkb_ext.plan import estimates
from pkb_ext.plan import model
from pkb_ext.suite import quota


def _Minutes(seconds: float) -> str:
  """'10 min', or '20 s' under a minute."""
  if seconds < 60:
    return f'{seconds:.0f} s'
  return f'{seconds / 60:.0f} min'


def ReportWay(c: model.Config) -> str:
  """The configuration the report's way beside it: a linear TPC-C search
  (and the data generated, where this run loads a fixture); '' if it is
  planned that way."""
  seconds = c.report_seconds
  if seconds is None:
    return ''
  generated = any(p.generate_s is not None for p in c.phases)
  if not generated:
    return (
        f'; with a linear TPC-C search {estimates.Hms(seconds)},'
        f' {_Usd(c.UsdFor(seconds))}'
    )
  how = 'data generated in the run'
  if c.linear_seconds is not None:
    how = 'a linear TPC-C search, ' + how
  return (
      f"; the report's way ({how})"
      f' {estimates.Hms(seconds)}, {c.VmHours(seconds):.1f} VM-hours,'
      f' {_Usd(c.UsdFor(seconds))}'
  )


def _Usd(value: float | None) -> str:
  return 'price unknown' if value is None else f'${value:,.2f}'


def _PricedAt(c: model.Config) -> str:
  """' (REGION prices as of DATE)', or why the price is unknown."""
  if c.price_problem:
    return f' ({c.price_problem})'
  if c.price_as_of:
    return f' ({c.price_region} prices as of {c.price_as_of})'
  return ''


def VcpuLine(c: model.Config) -> str:
  """A configuration's vCPUs, per group and in total."""
  parts = []
  for g in c.groups:
    if g.static:
      parts.append(f'{g.name} static (not counted)')
    elif g.vcpus is None:
      parts.append(f'{g.name} {g.vm_count} x {g.machine_type}: vCPUs unknown')
    else:
      parts.append(f'{g.name} {g.vm_count} x {g.vcpus}')
  total = c.vcpus
  return (
      '  vcpus   '
      + ', '.join(parts)
      + (f' = {total} vCPUs' if total is not None else '; total unknown')
  )


def QuotaLines(
    configs: Sequence[model.Config],
    processes: int | None,
    limits_text: str = '',
) -> tuple[list[str], list[str]]:
  """The matrix's peak vCPUs per region and quota, and what is over.

  Returns:
    The lines to print, and one refusal per quota the peak is above
    (--cloud_report_vcpu_quota).
  """
  needs = [c.need for c in configs if c.need is not None]
  peak = quota.Peak(needs, processes)
  if not peak:
    return [], []
  at_once = max(1, processes or 1)
  how = (
      f'with --run_processes={at_once}, an upper bound: the {at_once}'
      ' largest configurations at once'
      if at_once > 1
      else 'one configuration at a time'
  )
  lines = [f'QUOTAS  the most vCPUs held at once per region and quota, {how}:']
  for q, vcpus in peak.items():
    lines.append(f'PEAK    {q.cloud} {q.Describe()}: {vcpus} vCPUs')
  unknown = sorted({m for n in needs for m in n.unknown})
  if unknown:
    lines.append(f'PEAK    not counted (vCPUs unknown): {", ".join(unknown)}')
  refused = quota.OverQuota(peak, quota.ParseLimits(limits_text), 'the matrix')
  return lines, refused


def PricesNote(
    configs: Sequence[model.Config],
    today: datetime.date,
    prices_file: str | None = None,
) -> str:
  """Says which dated prices the plan uses, and how old they are."""
  dates = sorted({d for c in configs if c.price_as_of
                  for d in c.price_as_of.split(', ')})  # fmt: skip
  if not dates:
    return 'Prices: none apply (no configuration has a price).'
  ages = []
  for d in dates:
    try:
      years = (today - datetime.date.fromisoformat(d)).days / 365.25
      ages.append(f'{d} ({years:.1f} years before {today.isoformat()})')
    except ValueError:
      ages.append(d)
  text = f'Prices: on-demand list prices as of {", ".join(ages)}'
  if prices_file:
    return (
        text
        + f", from {prices_file} for its cloud; the report's tables"
        ' (configs/pricing) stay the basis of $/tpm.'
    )
  return (
      text
      + " (configs/pricing, the report's); give a newer dated table"
      f' with {cost.PRICES_OPTION}=FILE to price the run at it.'
  )


def Format(
    configs: Sequence[model.Config],
    processes: int | None = None,
    prices_note: str | None = None,
    quota_lines: Sequence[str] = (),
) -> str:
  """The plan as text: each configuration, then the totals."""
  lines = []
  n = len(configs)
  for i, c in enumerate(configs, 1):
    varying = ', '.join(f'{k}={v}' for k, v in sorted(c.flags.items()))
    lines.append(f'configuration {i}/{n}: {c.benchmark} {varying}'.rstrip())
    for g in c.groups:
      lines.append(f'  vms     {g.Describe()}')
    lines.append(VcpuLine(c))
    for p in c.phases:
      lines.append(
          f'  phase   {p.name:<15} {estimates.Hms(p.seconds):>7}  {p.how}'
      )
    for phase, why in c.skipped:
      lines.append(f'  SKIPPED {phase}: {why}')
    for note in c.notes:
      lines.append(f'  note    {note}')
    for note in c.price_notes:
      lines.append(f'  price   {note}')
    lines.append(
        f'  total   {estimates.Hms(c.seconds)} wall (with'
        f' ~{_Minutes(c.provision_s)} provisioning'
        + (f', {c.iterations} Run stages' if c.iterations > 1 else '')
        + f'), {c.vms} VMs, {c.vm_hours:.1f} VM-hours, {_Usd(c.usd)}'
        + _PricedAt(c)
        + ReportWay(c)
    )
    line = OverlapLine(c)
    if line:
      lines.append(line)
    for problem in c.problems:
      lines.append(f'  REFUSED {problem}')
  priced = [c.usd for c in configs if c.usd is not None]
  wall = model.Makespan([c.seconds for c in configs], processes)
  where = sorted({
      f'{c.price_region} prices as of {c.price_as_of}'
      for c in configs
      if c.usd is not None and c.price_as_of
  })
  lines.append(
      f'TOTAL   {n} configuration(s), {sum(c.vms for c in configs)} VMs,'
      f' {sum(c.vm_hours for c in configs):.1f} VM-hours,'
      f' {_Usd(sum(priced)) if priced else "price unknown"}'
      + (f' ({"; ".join(where)})' if where else '')
      + (
          f' ({n - len(priced)} configuration(s) with the price unknown)'
          if len(priced) < n
          else ''
      )
      + f', {estimates.Hms(wall)} wall'
      + (
          f' with --run_processes={processes}'
          if processes and processes > 1
          else ' in series'
      )
  )
  if any(c.schedule is not None and c.schedule.side for c in configs):
    lines.append(_OverlapTotal(configs, processes))
  lines.extend(quota_lines)
  if prices_note:
    lines.append(prices_note)
  lines.append('Times are estimates from stated rates (see pkb_ext/plan/).')
  for source in sorted({c.rates_source for c in configs if c.rates_source}):
    lines.append(f'Rates marked (measured) are from {source}.')
  skipping = sum(1 for c in configs if c.skipped)
  if skipping:
    lines.append(
        f'{skipping} configuration(s) SKIP a phase they cannot run (the rest'
        ' run); --cloud_report_skip_unrunnable_phases=false refuses them.'
    )
  refused = sum(1 for c in configs if c.problems)
  if refused:
    lines.append(f'{refused} configuration(s) would be REFUSED by preflight.')
  return '\n'.join(lines)


def _Saving(hours: float, usd: float | None) -> str:
  """'and N VM-hours ($D)' saved, or what overlap costs more."""
  if hours < 0 or (usd is not None and usd < 0):
    dollars = f' ({_Usd(-usd)})' if usd is not None else ''
    return f' and costs {-hours:.1f} VM-hours{dollars} more'
  return f' and {hours:.1f} VM-hours' + (
      f' ({_Usd(usd)})' if usd is not None else ''
  )


def _Difference(c: model.Config) -> float | None:
  """The dollars of the run in series less those with overlap."""
  series, with_overlap = c.UsdOf(False), c.UsdOf(True)
  if series is None or with_overlap is None:
    return None
  return series - with_overlap


def _Overlapping(schedule) -> str:
  """'cpu | net beside io; object_storage beside tpcc's load'."""
  parts = []
  if schedule.side:
    lanes = ' | '.join(','.join(lane) for lane in schedule.lanes)
    parts.append(f'{lanes} beside {",".join(schedule.fill)}')
  if schedule.beside_load:
    parts.append(f"{','.join(schedule.beside_load)} beside tpcc's load")
  return '; '.join(parts)


def OverlapLine(c: model.Config) -> str | None:
  """A configuration's wall time and VM-hours with and without overlap."""
  if c.schedule is None:
    return None
  if not c.schedule.overlapped:
    why = '; '.join(c.schedule.notes) or 'no phase can run beside io'
    return f'  overlap none: {why}'
  with_s, series_s = c.overlap_seconds, c.series_seconds
  with_vms, series_vms = c.VariantOf(True).vms, c.VariantOf(False).vms
  vms = ('', '') if with_vms == series_vms else (
      f', {with_vms} VMs', f', {series_vms} VMs'
  )  # fmt: skip
  with_h, series_h = c.VmHoursOf(True), c.VmHoursOf(False)
  return (
      f'  overlap {_Overlapping(c.schedule)}: {estimates.Hms(with_s)}'
      f' wall{vms[0]},'
      f' {with_h:.1f} VM-hours; without overlap'
      f' {estimates.Hms(series_s)}{vms[1]}, {series_h:.1f} VM-hours; overlap'
      f' saves {estimates.Hms(series_s - with_s)}'
      + _Saving(series_h - with_h, _Difference(c))
      + ('' if c.overlap else '; this run: --cloud_report_overlap=false')
  )


def _OverlapTotal(
    configs: Sequence[model.Config], processes: int | None
) -> str:
  """The totals with and without overlap."""
  with_h = sum(c.VmHoursOf(True) for c in configs)
  series_h = sum(c.VmHoursOf(False) for c in configs)
  with_wall = model.Makespan([c.overlap_seconds for c in configs], processes)
  series_wall = model.Makespan([c.series_seconds for c in configs], processes)
  saved = [_Difference(c) for c in configs]
  priced = [usd for usd in saved if usd is not None]
  return (
      f'OVERLAP with overlap {estimates.Hms(with_wall)} wall, {with_h:.1f}'
      f' VM-hours; without overlap {estimates.Hms(series_wall)} wall,'
      f' {series_h:.1f} VM-hours; overlap saves'
      f' {estimates.Hms(series_wall - with_wall)} wall'
      + _Saving(series_h - with_h, sum(priced) if priced else None)
  )
