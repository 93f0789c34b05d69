-- TPC-C per machine configuration: max passing warehouses, tpmC there and
-- $/tpm (means over runs when a configuration ran more than once; $/tpm is
-- the mean of the runs' $/tpm, as in machine_aggregates), with the
-- monthly and 3-year cost of one node.
SELECT
  config_id,
  ANY_VALUE(cloud) AS cloud,
  ANY_VALUE(machine_type) AS machine_type,
  ANY_VALUE(disk_type) AS disk_type,
  COUNT(*) AS runs,
  MAX(max_passing_warehouses) AS max_passing_warehouses,
  AVG(tpmc) AS tpmc,
  ANY_VALUE(usd_month) AS usd_month,
  ANY_VALUE(term_usd) AS term_usd,
  AVG(usd_per_tpm) AS usd_per_tpm
FROM ${dataset}.tpcc_runs
GROUP BY config_id
