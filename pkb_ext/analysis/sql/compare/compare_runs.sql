-- Every repetition behind compare_sides: the per-run values
-- (benchmark_values, object_storage_runs) of side A and side B with their
-- match key.
WITH runs AS (
  SELECT
    'A' AS side, config_id, benchmark, '' AS detail, run_uri, iteration,
    value
  FROM ${a}.benchmark_values
  WHERE value IS NOT NULL
  UNION ALL
  SELECT 'A', config_id, benchmark, detail, run_uri, iteration, value
  FROM ${a}.object_storage_runs
  UNION ALL
  SELECT
    'B' AS side, config_id, benchmark, '' AS detail, run_uri, iteration,
    value
  FROM ${b}.benchmark_values
  WHERE value IS NOT NULL
  UNION ALL
  SELECT 'B', config_id, benchmark, detail, run_uri, iteration, value
  FROM ${b}.object_storage_runs
)
SELECT k.match_key, r.*
FROM runs AS r
JOIN (
  SELECT DISTINCT side, config_id, benchmark, detail, match_key
  FROM ${dataset}.compare_sides
) AS k
  USING (side, config_id, benchmark, detail)
