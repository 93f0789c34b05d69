-- Every per-run value of the 12 benchmarks: the sample-based ones, plus the
-- TPC-C ones (max tpm and $/tpm per TPC-C run).
SELECT config_id, cloud, machine_type, disk_type, benchmark, run_uri,
  iteration, value
FROM ${dataset}.benchmark_runs
UNION ALL
SELECT config_id, cloud, machine_type, disk_type, 'max_tpm', run_uri, 1, tpmc
FROM ${dataset}.tpcc_runs
UNION ALL
SELECT config_id, cloud, machine_type, disk_type, 'usd_per_tpm', run_uri, 1,
  usd_per_tpm
FROM ${dataset}.tpcc_runs
WHERE usd_per_tpm IS NOT NULL
