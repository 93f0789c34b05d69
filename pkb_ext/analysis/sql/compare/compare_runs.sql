-- Every repetition behind compare_sides: the per-run values
-- (benchmark_values) of side A and side B with their match key.
WITH runs AS (
  SELECT 'A' AS side, config_id, benchmark, run_uri, iteration, value
  FROM ${a}.benchmark_values
  WHERE value IS NOT NULL
  UNION ALL
  SELECT 'B' AS side, config_id, benchmark, run_uri, iteration, value
  FROM ${b}.benchmark_values
  WHERE value IS NOT NULL
)
SELECT k.match_key, r.*
FROM runs AS r
JOIN (
  SELECT DISTINCT side, config_id, benchmark, match_key
  FROM ${dataset}.compare_sides
) AS k
  USING (side, config_id, benchmark)
