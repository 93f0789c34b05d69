-- The report's 12 benchmarks, and which samples measure each: the ONE
-- mapping from the report's ranking table to metric names and metadata
-- filters. A renamed metric or a changed filter is one edit here.
--
-- Columns:
--   position          row of the report's ranking table, 1..12
--   benchmark, label  key and the report's wording
--   higher_is_better  the report's direction: lower latency and lower $/tpm
--                     win, higher wins everywhere else
--   source            'samples': per-run values from the filters below;
--                     'tpcc': from tpcc_results: the tpmC of the highest
--                     passing step (metric = the per-step tpmC sample) and
--                     $/tpm from it and machine_costs
--   metric, phase     the sample's metric and metadata.phase
--   mode, fio_job, direction, percentile, netperf_test, streams
--                     metadata filters; NULL matches anything
--   limit_kind        the machine limit (machine_limits) a value must not
--                     exceed: disk_iops, disk_mbps or network_mbps
--
-- Choices (the report's text does not name every statistic):
--   network throughput is one TCP_STREAM stream (multi-stream runs are
--   extra); network latency is TCP_RR p99, as the report's text compares
--   "99th percentile network latency"; storage latency is the mean completion
--   latency of the rd-latency / wr-latency jobs (queue depth 16).
SELECT
  1 AS position, 'cpu_1core' AS benchmark, '1 core CPU' AS label,
  'iterations/sec' AS unit, TRUE AS higher_is_better, 'samples' AS source,
  'coremark_score' AS metric, 'cpu' AS phase, 'single' AS mode,
  CAST(NULL AS STRING) AS fio_job, CAST(NULL AS STRING) AS direction,
  CAST(NULL AS FLOAT64) AS percentile, CAST(NULL AS STRING) AS netperf_test,
  CAST(NULL AS INT64) AS streams, CAST(NULL AS STRING) AS limit_kind
UNION ALL SELECT
  2, 'cpu_16core', '16 core CPU', 'iterations/sec', TRUE,
  'samples', 'coremark_score', 'cpu', 'all', NULL, NULL, NULL, NULL, NULL, NULL
UNION ALL SELECT
  3, 'net_throughput', 'Network Throughput', 'Mbit/s', TRUE,
  'samples', 'netperf_throughput', 'net', NULL, NULL, NULL, NULL,
  'TCP_STREAM', 1, 'network_mbps'
UNION ALL SELECT
  4, 'net_latency', 'Network Latency', 'us', FALSE,
  'samples', 'netperf_latency_p99', 'net', NULL, NULL, NULL, NULL, 'TCP_RR',
  NULL, NULL
UNION ALL SELECT
  5, 'read_iops', 'Storage I/O Read IOPS', 'ops/s', TRUE,
  'samples', 'fio_iops', 'io', NULL, 'rd-iops', 'read', NULL, NULL, NULL,
  'disk_iops'
UNION ALL SELECT
  6, 'write_iops', 'Storage I/O Write IOPS', 'ops/s', TRUE,
  'samples', 'fio_iops', 'io', NULL, 'wr-iops', 'write', NULL, NULL, NULL,
  'disk_iops'
UNION ALL SELECT
  7, 'read_throughput', 'Storage I/O Read Throughput', 'MB/s', TRUE,
  'samples', 'fio_bandwidth', 'io', NULL, 'rd-bw', 'read', NULL, NULL, NULL,
  'disk_mbps'
UNION ALL SELECT
  8, 'write_throughput', 'Storage I/O Write Throughput', 'MB/s', TRUE,
  'samples', 'fio_bandwidth', 'io', NULL, 'wr-bw', 'write', NULL, NULL, NULL,
  'disk_mbps'
UNION ALL SELECT
  9, 'read_latency', 'Storage I/O Read Latency', 'us', FALSE,
  'samples', 'fio_clat_mean', 'io', NULL, 'rd-latency', 'read', NULL, NULL,
  NULL, NULL
UNION ALL SELECT
  10, 'write_latency', 'Storage I/O Write Latency', 'us', FALSE,
  'samples', 'fio_clat_mean', 'io', NULL, 'wr-latency', 'write', NULL,
  NULL, NULL, NULL
UNION ALL SELECT
  11, 'max_tpm', 'Max. tpm', 'tpmC', TRUE,
  'tpcc', 'tpcc_tpmc', 'tpcc', NULL, NULL, NULL, NULL, NULL, NULL, NULL
UNION ALL SELECT
  12, 'usd_per_tpm', '$/tpm', 'USD/tpmC', FALSE,
  'tpcc', NULL, 'tpcc', NULL, NULL, NULL, NULL, NULL, NULL, NULL
