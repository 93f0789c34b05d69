-- Per configuration and TPC-C run: the highest passing step (the report:
-- "Max. tpm" is the tpmC there) and $/tpm = the 3-year on-demand cost of one
-- node (VM + data disk, machine_costs) / tpmC; of two passing runs at that
-- level, the later one. A run with no passing step
-- (the report: did not pass at 2,500 warehouses) has no result.
WITH best AS (
  SELECT *
  FROM ${dataset}.tpcc_steps
  WHERE passed AND tpmc IS NOT NULL
  QUALIFY ROW_NUMBER() OVER (
    PARTITION BY config_id, run_uri ORDER BY warehouses DESC, step DESC) = 1
)
SELECT
  b.config_id,
  b.cloud,
  b.machine_type,
  b.disk_type,
  b.run_uri,
  b.warehouses AS max_passing_warehouses,
  b.tpmc,
  c.usd_month,
  c.term_usd,
  SAFE_DIVIDE(c.term_usd, b.tpmc) AS usd_per_tpm
FROM best AS b
LEFT JOIN ${dataset}.machine_costs AS c USING (config_id)
