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
"""Samples of the cpu phase (CoreMark 1.0).

One coremark_score sample per run, then summary samples per mode over the
runs valid for reporting (all runs if none is). The mode (single, all), the
thread count and the parallelism method are metadata, never part of a metric
name; a per-run sample's `iteration` is its run number, 1..N.
"""

import math
from typing import Any, Mapping, Sequence

from perfkitbenchmarker import sample

from pkb_ext.suite import samples as samples_lib
from pkb_ext.suite.cpu import parser as coremark_parser
from pkb_ext.suite import stats

SCORE_UNIT = 'iterations/sec'
METRICS = {
    'coremark_score': SCORE_UNIT,  # one run; metadata: mode, iteration
    'coremark_score_mean': SCORE_UNIT,
    'coremark_score_min': SCORE_UNIT,
    'coremark_score_max': SCORE_UNIT,
    'coremark_score_stddev': SCORE_UNIT,
    'coremark_score_ci95_half_width': SCORE_UNIT,  # Student t, n >= 2
    'coremark_score_cv': '%',
    'coremark_score_per_vcpu': 'iterations/sec/vCPU',  # all-core mean/threads
}
MODES = ('single', 'all')


def RunMetadata(
    result: coremark_parser.Result, mode: str, run: int
) -> dict[str, Any]:
  """The run's own keys of its sample's metadata."""
  if mode not in MODES:
    raise ValueError(f'unknown CoreMark mode {mode!r}; expected {MODES}')
  return {
      'mode': mode,
      'iteration': run,
      'threads': result.threads,
      'parallelism': result.parallelism or 'none',
      'valid_for_reporting': result.valid_for_reporting,
      'invalid_reason': result.invalid_reason,
  }


def FromResult(
    result: coremark_parser.Result,
    metadata: Mapping[str, Any] | None = None,
    mode: str | None = None,
    run: int = 1,
) -> list[sample.Sample]:
  """Returns the coremark_score sample of one parsed run.

  Args:
    result: a parsed CoreMark output.
    metadata: the phase's settings, over PKB's sample metadata.
    mode: single or all; by default inferred from CoreMark's context count.
    run: the run's number within its mode, 1-based.
  """
  mode = mode or ('all' if result.threads > 1 else 'single')
  md = (
      dict(result.metadata)
      | dict(metadata or {})
      | RunMetadata(result, mode, run)
  )
  return [samples_lib.Make(METRICS, 'coremark_score', result.score, md)]


def Summary(
    results: Sequence[coremark_parser.Result],
    mode: str,
    metadata: Mapping[str, Any] | None = None,
) -> list[sample.Sample]:
  """Returns the summary samples of one mode's runs.

  Statistics cover the runs valid for reporting; if none is, they cover all
  runs and say valid_for_reporting False. The CI95 half-width needs two runs
  and the CV a non-zero mean; they are left out otherwise (no NaN values).

  Args:
    results: the mode's parsed runs, in order.
    mode: single or all.
    metadata: extra metadata (the phase's settings).
  """
  if not results:
    raise ValueError(f'no CoreMark runs to summarize for mode {mode}')
  if mode not in MODES:
    raise ValueError(f'unknown CoreMark mode {mode!r}; expected {MODES}')
  threads = {r.threads for r in results}
  if len(threads) != 1:
    raise ValueError(f'{mode} runs used different thread counts {threads}')
  valid = [r for r in results if r.valid_for_reporting]
  used = valid or list(results)
  summary = stats.Summarize([r.score for r in used])
  md = dict(metadata or {}) | {
      'mode': mode,
      'threads': results[0].threads,
      'parallelism': results[0].parallelism or 'none',
      'runs': len(results),
      'runs_valid_for_reporting': len(valid),
      'n': summary.n,
      'valid_for_reporting': bool(valid),
      'summarized_runs': 'valid' if valid else 'all (none valid)',
  }
  values = {
      'coremark_score_mean': summary.mean,
      'coremark_score_min': summary.minimum,
      'coremark_score_max': summary.maximum,
      'coremark_score_stddev': summary.stddev,
      'coremark_score_ci95_half_width': summary.ci95_half_width,
      'coremark_score_cv': summary.cv_pct,
  }
  if mode == 'all':
    values['coremark_score_per_vcpu'] = summary.mean / results[0].threads
  return [
      samples_lib.Make(METRICS, metric, value, md)
      for metric, value in values.items()
      if math.isfinite(value)
  ]
