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
"""Benchmark: the NDJSON spool's throughput and a 100k-sample BigQuery publish.

- ndjson_samples_per_s: PKB sample dicts converted to rows and appended to a
  spool file with fsync, as the publisher does before any network call;
- bq_publish_100k_s: `pkb-ext publish` of a 100,000-sample spool into a new
  table of the BigQuery emulator (local-bigquery, started here on loopback):
  reading the spool, creating the table, ten 10,000-row load jobs; the row
  count is checked to be exact;
- bq_republish_100k_s: the same publish again, which loads nothing.

Sample generation and the emulator's start are not timed.

  python -m pkb_ext_dev.bench_publish [N]
"""

import os
import shutil
import sys
import tempfile
import time

from pkb_ext.publish import bigquery
from pkb_ext.publish import ids
from pkb_ext.publish import schema
from pkb_ext.publish import spool
from pkb_ext.publish import synthetic

SAMPLES = 100_000


def _Spool(directory: str, samples: list[dict]) -> tuple[str, float]:
  """Spools samples as the publisher does; returns (path, seconds)."""
  path = spool.SpoolPath(directory, 'bench')
  started = time.perf_counter()
  rows = [schema.RowFromSample(s) for s in samples]
  spool.Append(path, rows, spool.DEFAULT_BATCH_SIZE)
  return path, time.perf_counter() - started


def NdjsonSamplesPerSecond(n: int = SAMPLES) -> float:
  """Returns samples/s converted and appended (fsync'd) to a spool."""
  samples = synthetic.MakeSamples(n, run_uri='bench')
  directory = tempfile.mkdtemp(prefix='pkb-ext-bench-')
  try:
    _, seconds = _Spool(directory, samples)
  finally:
    shutil.rmtree(directory)
  return n / seconds


def BigQueryPublishSeconds(n: int = SAMPLES) -> tuple[float, float]:
  """Returns (publish, re-publish) seconds of n samples on the emulator."""
  from pkb_ext_dev import bq_emulator  # pylint: disable=g-import-not-at-top

  directory = tempfile.mkdtemp(prefix='pkb-ext-bench-')
  try:
    path, _ = _Spool(directory, synthetic.MakeSamples(n, run_uri='bench'))
    with bq_emulator.Emulator() as emulator:
      target = bigquery.Target(
          ids.ParseTableId(f'{emulator.project}.bench.samples'),
          endpoint=emulator.endpoint,
      )
      times = []
      for _ in range(2):
        started = time.perf_counter()
        _, result = bigquery.PublishFiles(target, [path])
        times.append(time.perf_counter() - started)
        if result.Rows('loaded') + result.Rows('skipped') != n:
          raise AssertionError(f'published {result.outcomes}, expected {n}')
      query = f'SELECT COUNT(*) AS n FROM `{target.table}`'
      (row,) = list(emulator.Client().query_and_wait(query))
      if row.n != n:
        raise AssertionError(f'{target.table} has {row.n} rows, expected {n}')
  finally:
    shutil.rmtree(directory)
  return times[0], times[1]


def Run(out=sys.stdout, n: int = SAMPLES) -> dict:
  """Prints the figures; returns ndjson_samples_per_s, bq_publish_100k_s."""
  per_s = NdjsonSamplesPerSecond(n)
  print(f'NDJSON spool: {per_s:,.0f} samples/s ({n:,} samples)', file=out)
  publish_s, republish_s = BigQueryPublishSeconds(n)
  print(
      f'BigQuery (emulator) publish of {n:,} samples: {publish_s:.1f} s;'
      f' re-publish (0 rows loaded): {republish_s:.1f} s',
      file=out,
  )
  return {
      'samples': n,
      'ndjson_samples_per_s': per_s,
      'bq_publish_100k_s': publish_s,
      'bq_republish_100k_s': republish_s,
      'cpus': os.cpu_count(),
  }


if __name__ == '__main__':
  Run(n=int(sys.argv[1]) if len(sys.argv) > 1 else SAMPLES)
