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
"""Samples: metric catalog, typed run metadata and sample construction.

Each phase defines its metrics once, in the samples module of its package
(e.g. cloud_report.cpu.samples), as a METRICS dict of name -> unit, and
converts parsed results to samples there; phase_modules.Catalog joins them.
Dimensions such as the CoreMark mode, the fio job or the object size are
metadata, never part of a metric name.
"""

import dataclasses
from typing import Any, Mapping

from perfkitbenchmarker import sample

from pkb_ext import errors as pkb_ext_errors
from pkb_ext.suite import phase_table

# 1 per phase the configuration could not run; metadata skip_reason.
PHASE_SKIPPED = 'cloud_report_phase_skipped'
# Metrics shared by every phase.
METRICS = {
    'cloud_report_phase_error': 'count',
    PHASE_SKIPPED: 'count',
}


class UnknownMetricError(pkb_ext_errors.Error, KeyError):
  """A sample was made for a metric no catalog defines."""


def Make(
    metrics: Mapping[str, str],
    metric: str,
    value: float,
    metadata: Mapping[str, Any] | None = None,
) -> sample.Sample:
  """Makes a PKB sample whose unit comes from a metric catalog.

  Args:
    metrics: the catalog that defines `metric` (a phase's METRICS).
    metric: metric name.
    value: the value, in the catalog's unit.
    metadata: sample metadata.

  Returns:
    A sample.Sample.

  Raises:
    UnknownMetricError: if the catalog does not define the metric.
  """
  if metric not in metrics:
    raise UnknownMetricError(f'metric {metric!r} is not in the catalog')
  return sample.Sample(
      metric, float(value), metrics[metric], dict(metadata or {})
  )


def Skipped(phase: str, reason: str) -> sample.Sample:
  """The sample saying a phase was skipped on this configuration, and why."""
  return Make(
      METRICS, PHASE_SKIPPED, 1, {'phase': phase, 'skip_reason': reason}
  )


@dataclasses.dataclass(frozen=True)
class RunMetadata:
  """The metadata every cloud report sample carries."""

  cloud: str
  region: str
  zone: str
  machine_type: str
  vcpus: int
  cpu_platform: str
  disk_type: str
  disk_size_gb: int | None
  provisioned_iops: int | None
  provisioned_mbps: int | None
  report_version: str

  def ForSample(self, phase: str, iteration: int) -> dict[str, Any]:
    """Returns the metadata for one sample of `phase`."""
    if phase not in phase_table.ORDER:
      raise ValueError(
          f'unknown phase {phase!r}; expected one of {phase_table.ORDER}'
      )
    if iteration < 1:
      raise ValueError(f'iteration must be >= 1, got {iteration}')
    return dataclasses.asdict(self) | {'phase': phase, 'iteration': iteration}


def Stamp(
    samples: list[sample.Sample],
    run_metadata: RunMetadata,
    phase: str,
    placement: Mapping[str, Any],
) -> list[sample.Sample]:
  """Adds the common metadata to samples, keeping their own iteration.

  A sample's own metadata wins, except for `phase`, which must agree, and
  the placement's keys, which the scheduler alone knows.

  Args:
    samples: a phase's samples.
    run_metadata: the topology's metadata.
    phase: the phase that made the samples.
    placement: where the phase ran (phases.Topology.Placement: phase_vms,
      overlapped); every sample of the suite and of a standalone phase has
      these keys, so runs with and without overlap have one set of keys.

  Returns:
    The same samples, with metadata completed.
  """
  for s in samples:
    own_phase = s.metadata.get('phase', phase)
    if own_phase != phase:
      raise ValueError(
          f'sample {s.metric} says phase {own_phase!r}, made by {phase!r}'
      )
    common = run_metadata.ForSample(phase, int(s.metadata.get('iteration', 1)))
    s.metadata.update(common | s.metadata | dict(placement))
  return samples


def ToJsonDict(s: sample.Sample) -> dict[str, Any]:
  """Returns the {metric, value, unit, metadata} dict of a sample."""
  return {
      'metric': s.metric,
      'value': s.value,
      'unit': s.unit,
      'metadata': dict(s.metadata),
  }
