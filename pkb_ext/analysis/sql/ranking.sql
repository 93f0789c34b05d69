-- The report's ranking, long form: per benchmark, each cloud's best machine
-- configuration and the clouds' places (1st, 2nd, 3rd) in the report's
-- direction. Samples of one cloud only (a single cloud's matrix, the local
-- cloud's machine types) rank its machine configurations instead: each is
-- its own entry. Results over a machine's published limit are left out, as
-- the report left out its x1e.4xlarge at 53,427 IOPS (10,000 IOPS limit).
WITH candidates AS (
  SELECT
    *,
    IF(higher_is_better, -mean, mean) AS sort_key
  FROM ${dataset}.machine_aggregates
  WHERE NOT over_limit AND mean IS NOT NULL
),
clouds AS (
  SELECT COUNT(DISTINCT cloud) AS n FROM candidates
),
best AS (
  SELECT c.*
  FROM candidates AS c
  CROSS JOIN clouds
  QUALIFY ROW_NUMBER() OVER (
    PARTITION BY c.benchmark, IF(clouds.n > 1, c.cloud, c.config_id)
    ORDER BY c.sort_key, c.config_id) = 1
)
SELECT
  position,
  benchmark,
  label,
  unit,
  higher_is_better,
  ROW_NUMBER() OVER (
    PARTITION BY benchmark ORDER BY sort_key, cloud, config_id) AS cloud_rank,
  cloud,
  machine_type,
  disk_type,
  config_id,
  mean,
  ci95_half_width,
  n
FROM best
