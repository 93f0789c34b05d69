-- Every cloud report sample (one with metadata.phase; PKB's own samples
-- such as lscpu are not) with the report's metadata as typed columns.
--
-- ${samples} is the samples table: PKB's columns plus a JSON `metadata`
-- column and a top-level `cloud` (see pkb_ext/publish). config_id names one
-- machine configuration of the report: cloud, machine type and data disk.
WITH s AS (
  SELECT
    metric,
    value,
    unit,
    -- One run: PKB's run_uri, and with --run_stage_iterations each Run
    -- stage's run_number (run_uri/N), so the repeated Runs of one pkb.py
    -- are repetitions, as separate runs are.
    CASE
      WHEN JSON_VALUE(metadata, '$.run_number') IS NULL THEN run_uri
      ELSE CONCAT(run_uri, '/', JSON_VALUE(metadata, '$.run_number'))
    END AS run_uri,
    COALESCE(cloud, JSON_VALUE(metadata, '$.cloud')) AS cloud,
    JSON_VALUE(metadata, '$.region') AS region,
    JSON_VALUE(metadata, '$.zone') AS zone,
    JSON_VALUE(metadata, '$.machine_type') AS machine_type,
    SAFE_CAST(JSON_VALUE(metadata, '$.vcpus') AS INT64) AS vcpus,
    JSON_VALUE(metadata, '$.cpu_platform') AS cpu_platform,
    JSON_VALUE(metadata, '$.disk_type') AS disk_type,
    SAFE_CAST(JSON_VALUE(metadata, '$.disk_size_gb') AS INT64) AS disk_size_gb,
    SAFE_CAST(JSON_VALUE(metadata, '$.provisioned_iops') AS INT64)
      AS provisioned_iops,
    SAFE_CAST(JSON_VALUE(metadata, '$.provisioned_mbps') AS INT64)
      AS provisioned_mbps,
    JSON_VALUE(metadata, '$.report_version') AS report_version,
    JSON_VALUE(metadata, '$.phase') AS phase,
    COALESCE(SAFE_CAST(JSON_VALUE(metadata, '$.iteration') AS INT64), 1)
      AS iteration,
    -- Dimensions of the phases' metrics.
    JSON_VALUE(metadata, '$.mode') AS mode,
    JSON_VALUE(metadata, '$.fio_job') AS fio_job,
    JSON_VALUE(metadata, '$.direction') AS direction,
    SAFE_CAST(JSON_VALUE(metadata, '$.percentile') AS FLOAT64) AS percentile,
    JSON_VALUE(metadata, '$.netperf_test') AS netperf_test,
    SAFE_CAST(JSON_VALUE(metadata, '$.streams') AS INT64) AS streams,
    JSON_VALUE(metadata, '$.stat') AS stat,
    SAFE_CAST(JSON_VALUE(metadata, '$.active_warehouses') AS INT64)
      AS warehouses,
    JSON_VALUE(metadata, '$.passed') AS passed_text,
    -- Object storage: a statistic of one group of requests or rounds.
    JSON_VALUE(metadata, '$.provider') AS provider,
    JSON_VALUE(metadata, '$.op') AS op,
    JSON_VALUE(metadata, '$.workload') AS workload,
    JSON_VALUE(metadata, '$.connection') AS connection,
    SAFE_CAST(JSON_VALUE(metadata, '$.object_size_bytes') AS INT64)
      AS object_size_bytes,
    SAFE_CAST(JSON_VALUE(metadata, '$.concurrency') AS INT64) AS concurrency,
    JSON_VALUE(metadata, '$.statistic') AS statistic,
    SAFE_CAST(JSON_VALUE(metadata, '$.n') AS INT64) AS statistic_n
  FROM ${samples}
  WHERE JSON_VALUE(metadata, '$.phase') IS NOT NULL
)
SELECT
  * EXCEPT (passed_text),
  CASE LOWER(passed_text)
    WHEN 'true' THEN TRUE
    WHEN '1' THEN TRUE
    WHEN 'false' THEN FALSE
    WHEN '0' THEN FALSE
  END AS passed,
  CONCAT(
    COALESCE(cloud, '?'), '/', COALESCE(machine_type, '?'), '/',
    COALESCE(disk_type, '?'), '/',
    COALESCE(CAST(disk_size_gb AS STRING), '-'), 'GB/',
    COALESCE(CAST(provisioned_iops AS STRING), '-'), 'iops/',
    COALESCE(CAST(provisioned_mbps AS STRING), '-'), 'mbps'
  ) AS config_id
FROM s
