-- One value per machine configuration, benchmark and run (run_uri and
-- iteration) for the benchmarks measured directly by samples, selected by
-- the metric and metadata filters of benchmarks.
SELECT
  s.config_id,
  s.cloud,
  s.machine_type,
  s.disk_type,
  b.benchmark,
  s.run_uri,
  s.iteration,
  AVG(s.value) AS value
FROM ${dataset}.samples_flat AS s
JOIN ${dataset}.benchmarks AS b
  ON s.metric = b.metric
  AND (b.phase IS NULL OR s.phase = b.phase)
  AND (b.mode IS NULL OR s.mode = b.mode)
  AND (b.fio_job IS NULL OR s.fio_job = b.fio_job)
  AND (b.direction IS NULL OR s.direction = b.direction)
  AND (b.percentile IS NULL OR s.percentile = b.percentile)
  AND (b.netperf_test IS NULL OR s.netperf_test = b.netperf_test)
  AND (b.streams IS NULL OR s.streams = b.streams)
WHERE b.source = 'samples'
GROUP BY 1, 2, 3, 4, 5, 6, 7
