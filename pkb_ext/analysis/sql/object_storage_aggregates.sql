-- Object storage TTFB and throughput percentiles (object_storage_runs) per
-- configuration, provider, op, workload, connection, object size,
-- concurrency and percentile, over the repetitions (run_uri and
-- iteration): n, mean, stddev, min, max, CI95 half-width (Student t, NULL
-- for one run) and CV, as machine_aggregates has them per benchmark.
--
-- Compare matches object storage figures by configuration and `detail`
-- (object_storage_runs).
WITH stats AS (
  SELECT
    config_id,
    ANY_VALUE(cloud) AS cloud,
    ANY_VALUE(machine_type) AS machine_type,
    ANY_VALUE(disk_type) AS disk_type,
    benchmark,
    ANY_VALUE(position) AS position,
    ANY_VALUE(label) AS label,
    ANY_VALUE(unit) AS unit,
    ANY_VALUE(higher_is_better) AS higher_is_better,
    ANY_VALUE(figure) AS figure,
    ANY_VALUE(percentile) AS percentile,
    ANY_VALUE(percentile_rank) AS percentile_rank,
    provider,
    op,
    workload,
    connection,
    object_size_bytes,
    concurrency,
    ANY_VALUE(size_text) AS size_text,
    ANY_VALUE(detail) AS detail,
    MAX(requests) AS requests,
    COUNT(*) AS n,
    AVG(value) AS mean,
    COALESCE(STDDEV_SAMP(value), 0) AS stddev,
    MIN(value) AS min_value,
    MAX(value) AS max_value
  FROM ${dataset}.object_storage_runs
  GROUP BY
    config_id, benchmark, provider, op, workload, connection,
    object_size_bytes, concurrency
)
SELECT
  s.config_id,
  s.cloud,
  s.machine_type,
  s.disk_type,
  s.position,
  s.benchmark,
  s.label,
  s.unit,
  s.higher_is_better,
  s.figure,
  s.percentile,
  s.percentile_rank,
  s.provider,
  s.op,
  s.workload,
  s.connection,
  s.object_size_bytes,
  s.size_text,
  s.concurrency,
  s.requests,
  s.detail,
  s.n,
  s.mean,
  s.stddev,
  s.min_value,
  s.max_value,
  t.t975 * s.stddev / SQRT(s.n) AS ci95_half_width,
  IF(s.mean = 0, NULL, s.stddev / ABS(s.mean) * 100) AS cv_pct
FROM stats AS s
LEFT JOIN ${dataset}.student_t975 AS t ON t.df = s.n - 1
