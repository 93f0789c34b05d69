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
"""A CoreMark run's output through PKB's coremark parser.

PKB's coremark_benchmark._ParseOutputForSamples reads the score (the phase
takes the sample PKB's RunCoremark returns: FromPkb); this module reads
only what PKB's sample lacks (CoreMark's context count and method), and what
PKB's parser refuses (Refused): it says which line is missing, as one
ParseError line, and keeps a performance run shorter than CoreMark's 10 s
run rule (a fixed iteration count, or a calibrated run on a machine whose
load fell after CoreMark's one-second calibration), which CoreMark does not
validate and PKB's parser therefore refuses: its score is CoreMark's
Iterations/Sec line, its metadata has the keys of PKB's sample, and it is
marked valid_for_reporting False. Parse is
both for output read from a file: PKB's parser once, then one of them.
"""

import dataclasses
import re
from typing import Any

from perfkitbenchmarker import errors
from perfkitbenchmarker import regex_util
from perfkitbenchmarker.linux_benchmarks import coremark_benchmark

from benchmarks.cloud_report.parsers import ParseError

MIN_SECONDS = 10.0  # EEMBC run rule: a reportable run lasts this long
SHORT_RUN = 'ERROR! Must execute for at least 10 secs for a valid result!'
VALIDATED = 'Correct operation validated'
# The seeds of the performance run (make's run1.log), the one with a score.
PERFORMANCE_RUN = '2K performance run parameters for coremark.'
# The lines PKB's parser reads, in its order; the score line is printed only
# for a validated performance run.
_NEEDED = {
    'Correct operation validated': VALIDATED,
    'CoreMark 1.0 :': r'CoreMark 1.0 : [0-9]*\.[0-9]*',
    'CoreMark Size': r'CoreMark Size\s*:\s*[0-9]',
    'Total ticks': r'Total ticks\s*:\s*[0-9]',
    'Total time (secs)': r'Total time \(secs\)\s*:\s*[0-9]*\.[0-9]',
    'Iterations': r'Iterations\s*:\s*[0-9]',
}
_PARALLEL = re.compile(r'^Parallel (\S+)\s*:\s*(\d+)\s*$', re.M)
# More contexts than any machine runs: a larger count is garbled output.
MAX_CONTEXTS = 1 << 16
# Integers a sample's metadata may hold (BigQuery's INT64).
_MAX_INT = (1 << 63) - 1
# CoreMark's printed name of each parallelism method -> the report's word.
PARALLEL_METHODS = {'PThreads': 'pthread', 'Fork': 'fork', 'Sockets': 'socket'}
_SCORE = re.compile(r'^Iterations/Sec\s*:\s*(\d+\.\d+)\s*$', re.M)
_ERROR = re.compile(r'ERROR', re.M)


@dataclasses.dataclass(frozen=True)
class Result:
  """One CoreMark run: PKB's sample value and metadata, and its validity."""

  score: float
  threads: int  # contexts CoreMark ran
  parallelism: str | None  # pthread, fork, socket; None for one context
  metadata: dict[str, Any]  # PKB's sample metadata
  valid_for_reporting: bool = True
  invalid_reason: str = ''


def Contexts(text: str) -> tuple[int, str | None]:
  """CoreMark's "Parallel <method> : N" line: (N, method), else (1, None)."""
  m = _PARALLEL.search(text)
  if not m:
    return 1, None
  if m.group(1) not in PARALLEL_METHODS:
    raise ParseError(f'unknown CoreMark parallelism {m.group(1)!r}')
  count = m.group(2)
  if len(count) > 6 or not 1 <= int(count) <= MAX_CONTEXTS:
    raise ParseError(
        f'"Parallel {m.group(1)}" says {count} contexts; expected 1 to'
        f' {MAX_CONTEXTS}'
    )
  return int(count), PARALLEL_METHODS[m.group(1)]


def _CheckNumbers(result: 'Result') -> 'Result':
  """Refuses numbers no run prints (garbled output), before they are kept."""
  for key, value in result.metadata.items():
    if isinstance(value, int) and not 0 <= value <= _MAX_INT:
      raise ParseError(
          f'garbled CoreMark {key}: {len(str(value))} digits, out of range'
      )
  return result


def _Missing(text: str) -> list[str]:
  return [name for name, regex in _NEEDED.items() if not re.search(regex, text)]


def _PkbKeys(text: str, threads: int) -> dict[str, Any] | None:
  """The metadata PKB's parser gives a validated run, read from a short one.

  A short run's sample has the keys of every other coremark_score sample,
  so one column set holds them all; None if a line is missing.
  """
  try:
    return {
        'summary': text.splitlines()[-1],
        'size': regex_util.ExtractInt(r'CoreMark Size\s*:\s*([0-9]*)', text),
        'total_ticks': regex_util.ExtractInt(
            r'Total ticks\s*:\s*([0-9]*)', text
        ),
        'total_time_sec': regex_util.ExtractFloat(
            r'Total time \(secs\)\s*:\s*([0-9]*\.[0-9]*)', text
        ),
        'iterations': regex_util.ExtractInt(r'Iterations\s*:\s*([0-9]*)', text),
        'iterations_per_cpu': coremark_benchmark.ITERATIONS_PER_CPU,
        'parallelism_method': (
            coremark_benchmark.FLAGS.coremark_parallelism_method
        ),
        'thread_count': threads,
    }
  except regex_util.NoMatchError:
    return None


def _ShortRun(text: str, threads: int, method: str | None) -> Result | None:
  """A performance run whose only error is the 10 s rule, kept as not
  reportable."""
  if PERFORMANCE_RUN not in text.splitlines() or VALIDATED in text:
    return None
  if SHORT_RUN not in text or len(_ERROR.findall(text)) != 1:
    return None
  keys = _PkbKeys(text, threads)
  m = _SCORE.search(text)
  if not m or not keys or keys['total_time_sec'] >= MIN_SECONDS:
    return None
  return Result(
      score=float(m.group(1)),
      threads=threads,
      parallelism=method,
      metadata=keys,
      valid_for_reporting=False,
      invalid_reason=(
          f'total time {keys["total_time_sec"]:g} s < {MIN_SECONDS:g} s'
          ' (EEMBC run rule)'
      ),
  )


def _Contexts(text: str, threads: int | None) -> tuple[int, str | None]:
  """CoreMark's contexts and method, checked against the contexts built."""
  if not text or not text.strip():
    raise ParseError('empty CoreMark output')
  contexts, method = Contexts(text)
  if threads is not None and threads != contexts:
    raise ParseError(
        f'CoreMark ran {contexts} context(s), built for {threads}: wrong'
        ' build or garbled output'
    )
  return contexts, method


def _FromPkb(pkb_samples, contexts: int, method: str | None) -> Result:
  (pkb_sample,) = pkb_samples
  return _CheckNumbers(
      Result(pkb_sample.value, contexts, method, dict(pkb_sample.metadata))
  )


def _Refused(
    text: str, contexts: int, method: str | None, error: Exception
) -> Result:
  short = _ShortRun(text, contexts, method)
  if short:
    return _CheckNumbers(short)
  missing = _Missing(text)
  raise ParseError(
      f'CoreMark output has no {" / ".join(repr(m) for m in missing)}'
      ' line: truncated, or CoreMark reported errors'
      if missing
      else f"PKB's coremark parser refused the output: {error}"
  ) from error


def FromPkb(pkb_samples, text: str, threads: int | None = None) -> Result:
  """The Result of the sample PKB's coremark parser made of text.

  Args:
    pkb_samples: what PKB's RunCoremark (its _ParseOutputForSamples)
      returned for text: one sample.
    text: the output it parsed, for CoreMark's context count and method.
    threads: the contexts it was built for (checked against CoreMark's own
      count); None takes CoreMark's.

  Raises:
    ParseError: empty or garbled output, or another context count.
  """
  contexts, method = _Contexts(text, threads)
  return _FromPkb(pkb_samples, contexts, method)


def Refused(text: str, threads: int | None, error: Exception) -> Result:
  """What the phase makes of output PKB's coremark parser refused.

  Args:
    text: the output.
    threads: as FromPkb's.
    error: PKB's parser's error.

  Returns:
    A performance run shorter than 10 s, marked not valid for reporting.

  Raises:
    ParseError: anything else; the message names the missing line.
  """
  contexts, method = _Contexts(text, threads)
  return _Refused(text, contexts, method, error)


def Parse(text: str, threads: int | None = None) -> Result:
  """Parses one CoreMark run's output (its run1.log) with PKB's parser.

  Args:
    text: what CoreMark printed.
    threads: the contexts it was built for (checked against CoreMark's own
      count); None takes CoreMark's.

  Raises:
    ParseError: empty, truncated or failed output; the message names the
      missing line.
  """
  contexts, method = _Contexts(text, threads)
  try:
    pkb_samples = coremark_benchmark._ParseOutputForSamples(  # pylint: disable=protected-access
        text, contexts
    )
  except (errors.Benchmarks.RunError, regex_util.NoMatchError) as e:
    return _Refused(text, contexts, method, e)
  return _FromPkb(pkb_samples, contexts, method)
