-- The TPC-C step curve: per configuration, run and number of active
-- warehouses, the step's tpmC, p90 latency and pass/fail. The tpmC metric is
-- the max_tpm row of benchmarks.
WITH tpmc_metric AS (
  SELECT metric FROM ${dataset}.benchmarks WHERE benchmark = 'max_tpm'
)
SELECT
  s.config_id,
  s.cloud,
  s.machine_type,
  s.disk_type,
  s.run_uri,
  s.warehouses,
  AVG(IF(s.metric = m.metric, s.value, NULL)) AS tpmc,
  AVG(IF(s.metric = 'tpcc_latency' AND s.percentile = 90, s.value, NULL))
    AS p90_ms,
  LOGICAL_AND(s.passed) AS passed
FROM ${dataset}.samples_flat AS s
CROSS JOIN tpmc_metric AS m
WHERE s.phase = 'tpcc' AND s.warehouses IS NOT NULL
GROUP BY 1, 2, 3, 4, 5, 6
