-- Both sides of a comparison, one row per side, machine configuration and
-- benchmark: the report's machine_aggregates and object_storage_aggregates
-- of side A and of side B, with the key they are matched on. The key holds
-- the dimensions chosen in compare_settings (cloud, machine type, disk
-- type) and '*' for the others, so "gp2 against io2" is a comparison by
-- machine type alone; an object storage figure's key adds its `detail`
-- (provider, op, object size, concurrency), empty for the others.
WITH sides AS (
  SELECT
    'A' AS side, config_id, cloud, machine_type, disk_type, benchmark,
    '' AS detail, n, mean, stddev, min_value, max_value, ci95_half_width,
    cv_pct, bimodal, over_limit
  FROM ${a}.machine_aggregates
  UNION ALL
  SELECT
    'A', config_id, cloud, machine_type, disk_type, benchmark, detail, n,
    mean, stddev, min_value, max_value, ci95_half_width, cv_pct, FALSE, FALSE
  FROM ${a}.object_storage_aggregates
  UNION ALL
  SELECT
    'B' AS side, config_id, cloud, machine_type, disk_type, benchmark,
    '' AS detail, n, mean, stddev, min_value, max_value, ci95_half_width,
    cv_pct, bimodal, over_limit
  FROM ${b}.machine_aggregates
  UNION ALL
  SELECT
    'B', config_id, cloud, machine_type, disk_type, benchmark, detail, n,
    mean, stddev, min_value, max_value, ci95_half_width, cv_pct, FALSE, FALSE
  FROM ${b}.object_storage_aggregates
)
SELECT
  CONCAT(
    IF(st.by_cloud, COALESCE(s.cloud, '?'), '*'), ' / ',
    IF(st.by_machine_type, COALESCE(s.machine_type, '?'), '*'), ' / ',
    IF(st.by_disk_type, COALESCE(s.disk_type, '?'), '*'),
    IF(s.detail = '', '', CONCAT(' / ', s.detail))
  ) AS match_key,
  s.*
FROM sides AS s
CROSS JOIN ${dataset}.compare_settings AS st
WHERE s.mean IS NOT NULL
