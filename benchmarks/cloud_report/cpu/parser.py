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
"""Parses what CoreMark 1.0 (v1.01 and later) prints on stdout (pure).

Why not PKB's parser (coremark_benchmark._ParseOutputForSamples): it reads
the score from the "CoreMark 1.0 :" line, which CoreMark prints only for a
validated 2K performance run, so it cannot keep a short run; it takes the
thread count from its caller rather than from CoreMark, and it accepts output
whose seeds CoreMark could not check.

CoreMark's own rules, which this parser follows:
- It checks its CRCs only for known seed sets, announced by a first line such
  as "2K performance run parameters for coremark."; with unknown seeds it
  checks nothing. Output without that line is rejected.
- It counts a run shorter than 10 s ("ERROR! Must execute for at least 10 secs
  for a valid result!") as an error, so such a run prints "Errors detected"
  instead of "Correct operation validated". A run whose only error is that
  rule is kept, with valid_for_reporting False and the reason; any other
  error (a CRC mismatch, a data type check) is rejected. Otherwise output
  without "Correct operation validated" is rejected.
- Only the 2K performance run (seeds 0, 0, 0x66; what `make` writes to
  run1.log) gives a reportable score.

v1.01 says "Correct operation validated. See readme.txt for run and
reporting rules."; later versions name README.md instead. Both are accepted.
Numbers are bounded (at most 18 digits, contexts at most MAX_CONTEXTS) so
that garbled output is a ParseError, never an overflow.
"""

import dataclasses
import math
import re

from benchmarks.cloud_report.parsers import ParseError

# EEMBC run rule: a reportable run lasts at least this long.
MIN_SECONDS = 10.0
REPORTABLE_RUN_TYPE = '2K performance'

_RUN_TYPE = re.compile(
    r'^(?P<type>2K performance|2K validation|6k performance|6k validation'
    r'|Profile generation) run parameters for coremark\.$'
)
_KEY_VALUE = re.compile(r'^(?P<key>[A-Za-z\[][^:]*?)\s*:(?P<value>.*)$')
_CRC_KEY = re.compile(
    r'^\[(?P<ctx>\d{1,9})\](?P<name>crclist|crcmatrix|crcstate|crcfinal)$'
)
_PARALLEL_KEY = re.compile(r'^Parallel (?P<method>\S+)$')
_INT = re.compile(r'^\d{1,18}$')
_FLOAT = re.compile(r'^\d{1,18}(?:\.\d{1,18})?$')
_HEX = re.compile(r'^0x[0-9a-f]{4}$')
_VALIDATED = re.compile(
    r'^Correct operation validated\. See (?:readme\.txt|README\.md) for run'
    r' and reporting rules\.$'
)
# More contexts than any machine runs: a larger count is garbled output.
MAX_CONTEXTS = 1 << 16
_ERRORS_DETECTED = 'Errors detected'
_SHORT_RUN = 'ERROR! Must execute for at least 10 secs for a valid result!'
_CANNOT_VALIDATE = 'Cannot validate operation for these seed values'
_SUMMARY_KEY = 'CoreMark 1.0'
# Printed name of each CoreMark parallelism method -> our flag value.
PARALLEL_METHODS = {'PThreads': 'pthread', 'Fork': 'fork', 'Sockets': 'socket'}
_SINGLE_KEYS = (
    'CoreMark Size',
    'Total ticks',
    'Total time (secs)',
    'Iterations/Sec',
    'Iterations',
    'Compiler version',
    'Compiler flags',
    'Memory location',
    'seedcrc',
)


@dataclasses.dataclass(frozen=True)
class Result:
  """One CoreMark run, as CoreMark reported it."""

  score: float  # Iterations/Sec, the value printed
  score_text: str  # the Iterations/Sec value exactly as printed
  iterations: int  # all contexts together
  total_ticks: int
  total_time_sec: float
  coremark_size: int  # data size per algorithm (666 for the 2K runs)
  run_type: str  # e.g. '2K performance', from the seed set CoreMark saw
  compiler_version: str
  compiler_flags: str
  memory_location: str
  threads: int  # contexts run in parallel (1 without a Parallel line)
  parallelism: str | None  # pthread, fork, socket; None for one context
  seedcrc: str
  crcfinal: tuple[str, ...]  # one per context, e.g. ('0xcc42',)
  validated: bool  # CoreMark printed "Correct operation validated"
  summary_line: str | None  # the "CoreMark 1.0 : ..." line, if printed

  @property
  def iterations_per_thread(self) -> int:
    return self.iterations // self.threads

  @property
  def invalid_reasons(self) -> tuple[str, ...]:
    """Why the score may not be reported under EEMBC's rules (empty if ok)."""
    reasons = []
    if self.total_time_sec < MIN_SECONDS:
      reasons.append(
          f'total time {self.total_time_sec:g} s < {MIN_SECONDS:g} s'
          ' (EEMBC run rule)'
      )
    if self.run_type != REPORTABLE_RUN_TYPE:
      reasons.append(
          f'{self.run_type} run parameters, not the {REPORTABLE_RUN_TYPE} run'
      )
    return tuple(reasons)

  @property
  def valid_for_reporting(self) -> bool:
    return not self.invalid_reasons


def _Lines(text: str) -> list[tuple[str, str | None, str]]:
  """Returns (line, key, value) per line; continuation lines join the key's."""
  out = []
  for raw in text.replace('\r\n', '\n').split('\n'):
    if not raw.strip():
      continue
    if raw[0] in ' \t' and out and out[-1][1] is not None:
      line, key, value = out[-1]
      out[-1] = (line + '\n' + raw, key, f'{value} {raw.strip()}'.strip())
      continue
    line = raw.rstrip()
    m = _KEY_VALUE.match(line)
    if m:
      out.append((line, m.group('key'), m.group('value').strip()))
    else:
      out.append((line, None, line.strip()))
  return out


def _Number(fields, key, pattern, convert):
  value = fields.get(key)
  if value is None:
    raise ParseError(f'no "{key}" line: truncated CoreMark output?')
  if not pattern.match(value):
    raise ParseError(f'garbled "{key}" value {value!r}')
  return convert(value)


def _Contexts(crcs: dict[str, dict[int, str]], threads: int) -> tuple[str, ...]:
  finals = crcs.get('crcfinal', {})
  if not finals:
    raise ParseError('no "[0]crcfinal" line: truncated CoreMark output?')
  for name, by_ctx in crcs.items():
    if len(by_ctx) != threads or sorted(by_ctx) != list(range(threads)):
      raise ParseError(
          f'expected [0]..[{threads - 1}]{name} lines for {threads}'
          f' context(s), got contexts {sorted(by_ctx)}: truncated or garbled'
      )
  return tuple(finals[i] for i in range(threads))


def _CheckStatus(plain: list[str], run_type, total_time: float) -> bool:
  """Applies CoreMark's validation rules; returns the validated flag."""
  crc_errors = [l for l in plain if re.match(r'^\[\d+\]ERROR!', l)]
  if crc_errors:
    raise ParseError('CoreMark CRC check failed: ' + '; '.join(crc_errors))
  short_lines = plain.count(_SHORT_RUN)
  other_errors = [l for l in plain if 'ERROR' in l and l != _SHORT_RUN]
  if other_errors:
    raise ParseError('CoreMark reported errors: ' + '; '.join(other_errors))
  if run_type is None:
    why = (
        ' (it printed "Cannot validate operation for these seed values")'
        if any(l.startswith(_CANNOT_VALIDATE) for l in plain)
        else ''
    )
    raise ParseError(
        'no "... run parameters for coremark." line: the output is truncated'
        ' or the seeds are not a known CoreMark set, so CoreMark checked no'
        f' CRCs{why}'
    )
  if short_lines > 1:
    raise ParseError('the 10 s rule line appears twice: concatenated outputs?')
  if (total_time < MIN_SECONDS) != bool(short_lines):
    raise ParseError(
        f'total time {total_time:g} s disagrees with the presence of'
        f' "{_SHORT_RUN}": garbled output'
    )
  validated = sum(1 for l in plain if _VALIDATED.match(l))
  detected = plain.count(_ERRORS_DETECTED)
  if validated > 1:
    raise ParseError(
        '"Correct operation validated" appears twice: concatenated outputs?'
    )
  if validated and detected:
    raise ParseError(
        'CoreMark printed both "Correct operation validated" and'
        ' "Errors detected": garbled output'
    )
  if validated:
    return True
  if detected and short_lines:
    return False  # the only error is the 10 s rule: kept, not reportable
  raise ParseError(
      'no "Correct operation validated" line: CoreMark did not validate the'
      ' run, or the output is truncated'
  )


def Parse(text: str) -> Result:
  """Parses one CoreMark run's stdout.

  Args:
    text: what the coremark binary printed.

  Returns:
    A Result.

  Raises:
    ParseError: empty, truncated, garbled or failed output (the message says
      which).
  """
  if not text or not text.strip():
    raise ParseError('empty CoreMark output')
  lines = _Lines(text)
  fields, crcs, parallel, plain = {}, {}, [], []
  summary = None
  for line, key, value in lines:
    if key is None:
      plain.append(value)
      continue
    crc = _CRC_KEY.match(key)
    par = _PARALLEL_KEY.match(key)
    if crc:
      by_ctx = crcs.setdefault(crc.group('name'), {})
      ctx = int(crc.group('ctx'))
      if ctx in by_ctx:
        raise ParseError(f'"{key}" appears twice: concatenated outputs?')
      if not _HEX.match(value):
        raise ParseError(f'garbled "{key}" value {value!r}')
      by_ctx[ctx] = value
    elif par:
      parallel.append((par.group('method'), value))
    elif key == _SUMMARY_KEY:
      summary = line
    elif key in _SINGLE_KEYS:
      if key in fields:
        raise ParseError(f'"{key}" appears twice: concatenated outputs?')
      fields[key] = value
    else:
      plain.append(line.strip())
  run_types = [m.group('type') for m in map(_RUN_TYPE.match, plain) if m]
  if len(run_types) > 1:
    raise ParseError('two run-parameter lines: concatenated outputs?')
  run_type = run_types[0] if run_types else None

  score_text = fields.get('Iterations/Sec')
  score = _Number(fields, 'Iterations/Sec', _FLOAT, float)
  total_time = _Number(fields, 'Total time (secs)', _FLOAT, float)
  iterations = _Number(fields, 'Iterations', _INT, int)
  ticks = _Number(fields, 'Total ticks', _INT, int)
  size = _Number(fields, 'CoreMark Size', _INT, int)
  for key in ('Compiler version', 'Compiler flags', 'Memory location'):
    if key not in fields:
      raise ParseError(f'no "{key}" line: truncated CoreMark output?')
  seedcrc = fields.get('seedcrc')
  if seedcrc is None or not _HEX.match(seedcrc):
    raise ParseError(f'missing or garbled "seedcrc" value {seedcrc!r}')

  if len(parallel) > 1:
    raise ParseError('two "Parallel ..." lines: concatenated outputs?')
  threads, parallelism = 1, None
  if parallel:
    method, count = parallel[0]
    if method not in PARALLEL_METHODS or not _INT.match(count):
      raise ParseError(f'garbled "Parallel {method} : {count}" line')
    threads, parallelism = int(count), PARALLEL_METHODS[method]
    if not 1 <= threads <= MAX_CONTEXTS:
      raise ParseError(
          f'"Parallel {method}" says {threads} contexts; expected 1 to'
          f' {MAX_CONTEXTS}'
      )
  crcfinal = _Contexts(crcs, threads)

  if not all(map(math.isfinite, (total_time, score))):
    raise ParseError(f'time {total_time} or score {score} is not finite')
  if total_time <= 0 or score <= 0 or iterations <= 0:
    raise ParseError(
        f'non-positive time {total_time}, score {score} or iterations'
        f' {iterations}: garbled output'
    )
  if iterations % threads:
    raise ParseError(
        f'{iterations} iterations do not divide among {threads} contexts'
    )
  if not math.isclose(score, iterations / total_time, rel_tol=1e-4):
    raise ParseError(
        f'Iterations/Sec {score_text} != Iterations {iterations} / total time'
        f' {total_time}: garbled output'
    )
  validated = _CheckStatus(plain, run_type, total_time)
  if summary is not None:
    summary_score = summary.split(':', 1)[1].split('/', 1)[0].strip()
    if summary_score != score_text:
      raise ParseError(
          f'"CoreMark 1.0 : {summary_score}" disagrees with Iterations/Sec'
          f' {score_text}: garbled output'
      )
  return Result(
      score=score,
      score_text=score_text,
      iterations=iterations,
      total_ticks=ticks,
      total_time_sec=total_time,
      coremark_size=size,
      run_type=run_type,
      compiler_version=fields['Compiler version'],
      compiler_flags=fields['Compiler flags'],
      memory_location=fields['Memory location'],
      threads=threads,
      parallelism=parallelism,
      seedcrc=seedcrc,
      crcfinal=crcfinal,
      validated=validated,
      summary_line=summary,
  )
