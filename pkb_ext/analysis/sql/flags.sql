-- Results to look at before trusting them: bimodal repetitions (e.g. the
-- report's network-optimized AWS machines at ~5 vs ~10 Gbps) and means over
-- a machine's published limit (left out of the ranking).
SELECT
  config_id, cloud, machine_type, disk_type, position, benchmark, label,
  'over_limit' AS flag, n, mean, min_value, max_value, published_limit,
  bimodality_coefficient
FROM ${dataset}.machine_aggregates
WHERE over_limit
UNION ALL
SELECT
  config_id, cloud, machine_type, disk_type, position, benchmark, label,
  'bimodal', n, mean, min_value, max_value, published_limit,
  bimodality_coefficient
FROM ${dataset}.machine_aggregates
WHERE bimodal
