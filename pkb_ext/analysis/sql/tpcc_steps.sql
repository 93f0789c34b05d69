-- The TPC-C step curve: per configuration, run and step (the step's
-- `iteration`; a bisect search may run one level twice to confirm it), the
-- active warehouses, tpmC, p90 latency of newOrder and pass/fail as the
-- phase's pass rule decided it. The tpmC metric is the max_tpm row of
-- benchmarks; summary samples (no `passed`) are not steps.
WITH tpmc_metric AS (
  SELECT metric FROM ${dataset}.benchmarks WHERE benchmark = 'max_tpm'
)
SELECT
  s.config_id,
  s.cloud,
  s.machine_type,
  s.disk_type,
  s.run_uri,
  s.iteration AS step,
  MAX(s.warehouses) AS warehouses,
  AVG(IF(s.metric = m.metric, s.value, NULL)) AS tpmc,
  AVG(IF(s.metric = 'tpcc_latency' AND s.stat = 'p90', s.value, NULL))
    AS p90_ms,
  LOGICAL_AND(s.passed) AS passed
FROM ${dataset}.samples_flat AS s
CROSS JOIN tpmc_metric AS m
WHERE s.phase = 'tpcc' AND s.warehouses IS NOT NULL AND s.passed IS NOT NULL
GROUP BY 1, 2, 3, 4, 5, 6
