-- The object storage figures: time to first byte and throughput at the
-- percentiles object-storage studies publish (p50, p90, p99, p99.9), each a
-- benchmark of compare (positions after the report's 12 benchmarks).
--
-- A throughput's tail is its low values, so its pX is the throughput X %
-- of requests reach or beat (see object_storage_runs), and its p99.9 is the
-- worst: lower percentiles of TTFB and higher of throughput are better.
SELECT
  13 AS position, 'object_storage_ttfb_p50' AS benchmark, 'ttfb' AS figure,
  'p50' AS percentile, 1 AS percentile_rank,
  'Object storage TTFB p50' AS label, 'ms' AS unit,
  FALSE AS higher_is_better
UNION ALL SELECT
  14, 'object_storage_ttfb_p90', 'ttfb', 'p90', 2, 'Object storage TTFB p90',
  'ms', FALSE
UNION ALL SELECT
  15, 'object_storage_ttfb_p99', 'ttfb', 'p99', 3, 'Object storage TTFB p99',
  'ms', FALSE
UNION ALL SELECT
  16, 'object_storage_ttfb_p99_9', 'ttfb', 'p99.9', 4,
  'Object storage TTFB p99.9', 'ms', FALSE
UNION ALL SELECT
  17, 'object_storage_throughput_p50', 'throughput', 'p50', 1,
  'Object storage throughput p50', 'MB/s', TRUE
UNION ALL SELECT
  18, 'object_storage_throughput_p90', 'throughput', 'p90', 2,
  'Object storage throughput p90', 'MB/s', TRUE
UNION ALL SELECT
  19, 'object_storage_throughput_p99', 'throughput', 'p99', 3,
  'Object storage throughput p99', 'MB/s', TRUE
UNION ALL SELECT
  20, 'object_storage_throughput_p99_9', 'throughput', 'p99.9', 4,
  'Object storage throughput p99.9', 'MB/s', TRUE
