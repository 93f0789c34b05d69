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
"""Repetition statistics, pure: mean, spread, CI95, CV and bimodality."""

import dataclasses
import math
import statistics
from typing import Sequence


@dataclasses.dataclass(frozen=True)
class Summary:
  """Statistics of n repeated measurements of one quantity."""

  n: int
  mean: float
  minimum: float
  maximum: float
  stddev: float  # sample standard deviation (n - 1); 0 when n == 1
  ci95_half_width: float  # Student t; nan when n == 1
  cv_pct: float  # stddev / mean * 100; nan when mean == 0


def Summarize(values: Sequence[float]) -> Summary:
  """Summarizes repeated measurements.

  Args:
    values: at least one finite number.

  Returns:
    A Summary.

  Raises:
    ValueError: no values, or a value that is not finite.
  """
  values = [float(v) for v in values]
  if not values:
    raise ValueError('no values to summarize')
  bad = [v for v in values if not math.isfinite(v)]
  if bad:
    raise ValueError(f'values must be finite, got {bad}')
  n = len(values)
  mean = statistics.fmean(values)
  stddev = statistics.stdev(values) if n > 1 else 0.0
  if n > 1:
    # Imported here: scipy.stats takes about a second to import, and most
    # importers of this module (every phase's samples) never summarize.
    # pylint: disable=g-import-not-at-top,import-outside-toplevel
    from scipy import stats as scipy_stats

    half = float(scipy_stats.t.ppf(0.975, n - 1)) * stddev / math.sqrt(n)
  else:
    half = math.nan
  return Summary(
      n=n,
      mean=mean,
      minimum=min(values),
      maximum=max(values),
      stddev=stddev,
      ci95_half_width=half,
      cv_pct=stddev / mean * 100 if mean else math.nan,
  )


def BimodalityCoefficient(values: Sequence[float]) -> float:
  """Sarle's bimodality coefficient; above 5/9 (~0.555) suggests two modes.

  Its small-sample correction is strong: two clean clusters of 4 values each
  score below 5/9, so ask for 15-20 repetitions before trusting a "no".

  Args:
    values: at least 4 measurements.

  Returns:
    (skewness^2 + 1) / (excess kurtosis + 3 (n-1)^2 / ((n-2)(n-3))).

  Raises:
    ValueError: fewer than 4 values, or all equal.
  """
  values = [float(v) for v in values]
  n = len(values)
  if n < 4:
    raise ValueError(f'bimodality needs at least 4 values, got {n}')
  if max(values) == min(values):
    raise ValueError('bimodality is undefined for identical values')
  # pylint: disable=g-import-not-at-top,import-outside-toplevel
  from scipy import stats as scipy_stats

  skew = float(scipy_stats.skew(values, bias=False))
  kurt = float(scipy_stats.kurtosis(values, bias=False))
  return (skew**2 + 1) / (kurt + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3)))


BIMODAL_THRESHOLD = 5 / 9


def LooksBimodal(values: Sequence[float]) -> bool:
  """True when the bimodality coefficient exceeds 5/9 (needs >= 4 values)."""
  return len(values) >= 4 and (
      max(values) != min(values)
      and BimodalityCoefficient(values) > BIMODAL_THRESHOLD
  )
