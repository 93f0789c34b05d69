-- Object storage time to first byte and throughput per configuration, run
-- (run_uri and iteration), provider, op, workload, connection, object size
-- and concurrency, at p50, p90, p99 and p99.9 (object_storage_figures).
--
-- The values are the phase's own percentile samples (metadata.statistic,
-- over each group's requests or concurrency rounds, linearly interpolated),
-- not computed here: the phase writes no per-request samples.
--   TTFB (object_storage_ttfb, ms): pX is the statistic pX.
--   Throughput (object_storage_throughput per request of the throughput
--   workload, object_storage_aggregate_throughput per round of the
--   concurrency workload; MB/s): its tail is its low values, so pX is the
--   throughput X % of requests reach or beat, the statistic p(100 - X):
--   p90 is p10, p99 is p1, and p99.9 is p0.1 where the phase wrote it.
--   Otherwise p99.9 is derived from min and p1, exactly for a group of at
--   most 101 values (both then lie between the two lowest values, p0.1 a
--   tenth of p1's way from min), and is left out for larger groups.
-- The latency and throughput workloads send one request at a time:
-- concurrency 1. `requests` is how many values each statistic is over;
-- `detail` names the group in one line ("s3 GET 16 KiB", "gcs PUT new
-- connection", "azure GET 32 MiB x5": concurrency after the x).
WITH s AS (
  SELECT
    *,
    IF(metric = 'object_storage_ttfb', 'ttfb', 'throughput') AS figure
  FROM ${dataset}.samples_flat
  WHERE
    phase = 'object_storage'
    AND metric IN (
      'object_storage_ttfb',
      'object_storage_throughput',
      'object_storage_aggregate_throughput'
    )
),
grouped AS (
  SELECT
    config_id,
    ANY_VALUE(cloud) AS cloud,
    ANY_VALUE(machine_type) AS machine_type,
    ANY_VALUE(disk_type) AS disk_type,
    run_uri,
    iteration,
    figure,
    provider,
    op,
    workload,
    connection,
    object_size_bytes,
    COALESCE(concurrency, 1) AS concurrency,
    MAX(statistic_n) AS requests,
    AVG(IF(statistic = 'min', value, NULL)) AS v_min,
    AVG(IF(statistic = 'p0.1', value, NULL)) AS v_p0_1,
    AVG(IF(statistic = 'p1', value, NULL)) AS v_p1,
    AVG(IF(statistic = 'p10', value, NULL)) AS v_p10,
    AVG(IF(statistic = 'p50', value, NULL)) AS v_p50,
    AVG(IF(statistic = 'p90', value, NULL)) AS v_p90,
    AVG(IF(statistic = 'p99', value, NULL)) AS v_p99,
    AVG(IF(statistic = 'p99.9', value, NULL)) AS v_p99_9
  FROM s
  GROUP BY
    config_id, run_uri, iteration, figure, provider, op, workload,
    connection, object_size_bytes, COALESCE(concurrency, 1)
),
valued AS (
  SELECT
    g.*,
    f.position,
    f.benchmark,
    f.percentile,
    f.percentile_rank,
    f.label,
    f.unit,
    f.higher_is_better,
    CASE
      WHEN g.figure = 'ttfb' THEN
        CASE f.percentile
          WHEN 'p50' THEN g.v_p50
          WHEN 'p90' THEN g.v_p90
          WHEN 'p99' THEN g.v_p99
          WHEN 'p99.9' THEN g.v_p99_9
        END
      ELSE
        CASE f.percentile
          WHEN 'p50' THEN g.v_p50
          WHEN 'p90' THEN g.v_p10
          WHEN 'p99' THEN g.v_p1
          WHEN 'p99.9' THEN
            COALESCE(
              g.v_p0_1,
              IF(g.requests <= 101, g.v_min + (g.v_p1 - g.v_min) / 10, NULL)
            )
        END
    END AS value,
    CASE
      WHEN g.object_size_bytes IS NULL THEN NULL
      WHEN MOD(g.object_size_bytes, 1048576) = 0
        THEN CONCAT(CAST(DIV(g.object_size_bytes, 1048576) AS STRING), ' MiB')
      WHEN MOD(g.object_size_bytes, 1024) = 0
        THEN CONCAT(CAST(DIV(g.object_size_bytes, 1024) AS STRING), ' KiB')
      ELSE CONCAT(CAST(g.object_size_bytes AS STRING), ' B')
    END AS size_text
  FROM grouped AS g
  JOIN ${dataset}.object_storage_figures AS f USING (figure)
)
SELECT
  config_id,
  cloud,
  machine_type,
  disk_type,
  run_uri,
  iteration,
  position,
  benchmark,
  label,
  unit,
  higher_is_better,
  figure,
  percentile,
  percentile_rank,
  provider,
  op,
  workload,
  connection,
  object_size_bytes,
  concurrency,
  size_text,
  CONCAT(
    COALESCE(provider, '?'), ' ', UPPER(COALESCE(op, '?')), ' ',
    CASE workload
      WHEN 'latency' THEN CONCAT(COALESCE(connection, '?'), ' connection')
      WHEN 'concurrency'
        THEN CONCAT(COALESCE(size_text, '?'), ' x', CAST(concurrency AS STRING))
      ELSE COALESCE(size_text, '?')
    END
  ) AS detail,
  requests,
  value
FROM valued
WHERE value IS NOT NULL
