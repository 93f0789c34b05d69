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
  spool file with fsync, as the publisher does before any network call, per
  second of wall time (the best of SITTINGS sittings, each in a new file;
  details also give each sitting's CPU-time rate, the load average and the
  encoder);
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
from pkb_ext.publish import spool
from pkb_ext_dev import synthetic

SAMPLES = 100_000
SITTINGS = 3


def _Spool(
    directory: str, samples: list[dict], run_uri: str = 'bench'
) -> tuple[str, float, float]:
  """Spools samples as the publisher does; returns (path, wall s, CPU s)."""
  path = spool.SpoolPath(directory, run_uri)
  started, cpu = time.perf_counter(), time.process_time()
  spool.AppendSamples(path, samples, spool.DEFAULT_BATCH_SIZE)
  return path, time.perf_counter() - started, time.process_time() - cpu


def NdjsonSpool(n: int = SAMPLES, sittings: int = SITTINGS) -> dict:
  """Spools n samples `sittings` times; returns the rates (samples/s)."""
  samples = synthetic.MakeSamples(n, run_uri='bench')
  directory = tempfile.mkdtemp(prefix='pkb-ext-bench-')
  wall, cpu = [], []
  try:
    for i in range(sittings):
      _, wall_s, cpu_s = _Spool(directory, samples, f'bench-{i}')
      wall.append(n / wall_s)
      cpu.append(n / cpu_s)
  finally:
    shutil.rmtree(directory)
  return {
      'ndjson_samples_per_s': max(wall),
      'ndjson_wall_per_s': [round(r) for r in wall],
      'ndjson_cpu_per_s': [round(r) for r in cpu],
      'ndjson_encoder': spool.Encoder(),
      'loadavg_1m': os.getloadavg()[0],
  }


def NdjsonSamplesPerSecond(n: int = SAMPLES) -> float:
  """Returns samples/s converted and appended (fsync'd) to a spool."""
  return NdjsonSpool(n)['ndjson_samples_per_s']


def BigQueryPublishSeconds(n: int = SAMPLES) -> tuple[float, float]:
  """Returns (publish, re-publish) seconds of n samples on the emulator."""
  from pkb_ext_dev import bq_emulator  # pylint: disable=g-import-not-at-top

  directory = tempfile.mkdtemp(prefix='pkb-ext-bench-')
  try:
    path, _, _ = _Spool(directory, synthetic.MakeSamples(n, run_uri='bench'))
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
  ndjson = NdjsonSpool(n)
  per_s = ndjson['ndjson_samples_per_s']
  print(
      f'NDJSON spool: {per_s:,.0f} samples/s ({n:,} samples, best of'
      f' {len(ndjson["ndjson_wall_per_s"])} sittings:'
      f' {", ".join(f"{r:,}" for r in ndjson["ndjson_wall_per_s"])}; per CPU'
      f' second {", ".join(f"{r:,}" for r in ndjson["ndjson_cpu_per_s"])};'
      f' {ndjson["ndjson_encoder"]}; load average'
      f' {ndjson["loadavg_1m"]:.1f} on {os.cpu_count()} CPUs)',
      file=out,
  )
  publish_s, republish_s = BigQueryPublishSeconds(n)
  print(
      f'BigQuery (emulator) publish of {n:,} samples: {publish_s:.1f} s;'
      f' re-publish (0 rows loaded): {republish_s:.1f} s',
      file=out,
  )
  return ndjson | {
      'samples': n,
      'bq_publish_100k_s': publish_s,
      'bq_republish_100k_s': republish_s,
      'cpus': os.cpu_count(),
  }


if __name__ == '__main__':
  Run(n=int(sys.argv[1]) if len(sys.argv) > 1 else SAMPLES)
