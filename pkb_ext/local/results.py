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
"""The samples of a local run: phase samples to NDJSON, and a summary.

Reads PKB's sample files: the pkb_ext spool (typed metadata) or PKB's own
--json_path output (metadata collapsed into `labels`, which reads back as
strings). Keeps the samples whose metadata names a phase, writes them one a
line as {metric, value, unit, metadata, timestamp, run_uri, sample_uri} and
PKB's test, official, owner and product_name where the input has them, the
timestamp in the spool's form (pkb_ext.timestamps.FORM), and prints a table
per phase and metric. publish, report and compare read the file as they
read the spool.
"""

import collections
import json
import statistics
from typing import Iterable, Sequence

from pkb_ext import errors
from pkb_ext import labels
from pkb_ext import timestamps

# PKB's sample columns kept as they are where the input has them.
_KEPT = ('sample_uri', 'test', 'official', 'owner', 'product_name')


class ResultsError(errors.Error, ValueError):
  """A sample file cannot be read, or a phase expected has no samples."""


def ReadSamples(paths: Sequence[str]) -> list[dict]:
  """Returns the phase samples of PKB sample files, without duplicates."""
  seen, out = set(), []
  for path in paths:
    try:
      f = open(path)
    except OSError as e:
      raise ResultsError(f'cannot read {path}: {e.strerror}') from e
    with f:
      for number, line in enumerate(f, 1):
        if not line.strip():
          continue
        try:
          row = json.loads(line)
        except ValueError as e:
          raise ResultsError(f'{path}:{number}: not JSON: {e}') from e
        metadata = row.get('metadata')
        if isinstance(metadata, str):
          metadata = json.loads(metadata)
        if not isinstance(metadata, dict):
          metadata = labels.Decode(row.get('labels', ''))
        if 'phase' not in metadata:
          continue
        key = row.get('sample_uri') or json.dumps(
            [row.get('metric'), row.get('value'), row.get('timestamp'),
             sorted(metadata.items(), key=str)], default=str
        )  # fmt: skip
        if key in seen:
          continue
        seen.add(key)
        where = f'{path}:{number}'
        sample = {
            'metric': row['metric'],
            'value': float(row['value']),
            'unit': row.get('unit', ''),
            'metadata': metadata,
            'timestamp': _Timestamp(row.get('timestamp'), where),
            'run_uri': row.get('run_uri'),
        }
        sample.update((k, row[k]) for k in _KEPT if row.get(k) is not None)
        out.append(sample)
  return out


def _Timestamp(value, where: str) -> str | None:
  """A sample's time in the one form pkb_ext writes; None if it has none."""
  if value is None:
    return None
  try:
    return timestamps.Format(value)
  except ValueError as e:
    raise ResultsError(
        f'{where}: timestamp {value!r:.60}: {e}; expected'
        f' {timestamps.READ_FORMS}'
    ) from e


def WriteNdjson(samples: Iterable[dict], path: str) -> None:
  with open(path, 'w') as f:
    for s in samples:
      f.write(json.dumps(s, sort_keys=True, default=str) + '\n')


def Summary(samples: Sequence[dict]) -> str:
  """A plain-text table: phase, metric, unit, n, mean, min, max."""
  groups = collections.defaultdict(list)
  for s in samples:
    groups[(s['metadata']['phase'], s['metric'], s['unit'])].append(s['value'])
  lines = [
      f'{"phase":15} {"metric":40} {"unit":10} {"n":>4} '
      f'{"mean":>12} {"min":>12} {"max":>12}'
  ]
  for (phase, metric, unit), values in sorted(groups.items()):
    lines.append(
        f'{phase:15} {metric[:40]:40} {unit[:10]:10} {len(values):4d} '
        f'{statistics.fmean(values):12.4g} {min(values):12.4g} '
        f'{max(values):12.4g}'
    )
  return '\n'.join(lines)


def Main(paths: Sequence[str], out: str, expect: Sequence[str] = ()) -> int:
  """Writes out and prints the summary; returns 0.

  Raises:
    ResultsError: a file cannot be read, or an expected phase has no sample
      (out is written all the same).
  """
  samples = ReadSamples(paths)
  WriteNdjson(samples, out)
  print(Summary(samples))
  counts = collections.Counter(s['metadata']['phase'] for s in samples)
  print(
      f'{len(samples)} phase samples in {out}: '
      + (', '.join(f'{p} {n}' for p, n in sorted(counts.items())) or 'none')
  )
  missing = [p for p in expect if not counts.get(p)]
  if missing:
    raise ResultsError(f'no samples from phase(s): {", ".join(missing)}')
  return 0
