-- Per machine configuration and benchmark: n runs, mean, stddev, min, max,
-- CI95 half-width (Student t), CV, Sarle's bimodality coefficient, and the
-- flags: bimodal repetitions, and a mean over the machine's published limit
-- (machine_limits, plus the tolerance in settings).
--
-- Matches pkb_ext.stats: stddev is the sample stddev (0 for one run); the
-- CI95 half-width is NULL for one run; skewness and kurtosis are the
-- bias-corrected estimators of scipy (bias=False).
WITH v AS (
  SELECT * FROM ${dataset}.benchmark_values WHERE value IS NOT NULL
),
means AS (
  SELECT config_id, benchmark, AVG(value) AS mean, COUNT(*) AS n
  FROM v
  GROUP BY config_id, benchmark
),
moments AS (
  SELECT
    v.config_id,
    v.benchmark,
    ANY_VALUE(v.cloud) AS cloud,
    ANY_VALUE(v.machine_type) AS machine_type,
    ANY_VALUE(v.disk_type) AS disk_type,
    ANY_VALUE(m.n) AS n,
    ANY_VALUE(m.mean) AS mean,
    MIN(v.value) AS min_value,
    MAX(v.value) AS max_value,
    COALESCE(STDDEV_SAMP(v.value), 0) AS stddev,
    AVG(POW(v.value - m.mean, 2)) AS m2,
    AVG(POW(v.value - m.mean, 3)) AS m3,
    AVG(POW(v.value - m.mean, 4)) AS m4
  FROM v
  JOIN means AS m USING (config_id, benchmark)
  GROUP BY v.config_id, v.benchmark
),
stats AS (
  SELECT
    mo.*,
    -- t(0.975; n - 1); none for one run.
    t.t975,
    IF(
      mo.n >= 4 AND mo.m2 > 0,
      (
        POW(SQRT(mo.n * (mo.n - 1)) / (mo.n - 2) * mo.m3 / POW(mo.m2, 1.5), 2)
        + 1
      )
      / (
        ((mo.n * mo.n - 1) * mo.m4 / POW(mo.m2, 2) - 3 * POW(mo.n - 1, 2))
        / ((mo.n - 2) * (mo.n - 3))
        + 3 * POW(mo.n - 1, 2) / ((mo.n - 2) * (mo.n - 3))
      ),
      NULL
    ) AS bimodality_coefficient
  FROM moments AS mo
  LEFT JOIN ${dataset}.student_t975 AS t ON t.df = mo.n - 1
)
SELECT
  s.config_id,
  s.cloud,
  s.machine_type,
  s.disk_type,
  b.position,
  s.benchmark,
  b.label,
  b.unit,
  b.higher_is_better,
  s.n,
  s.mean,
  s.stddev,
  s.min_value,
  s.max_value,
  s.t975 * s.stddev / SQRT(s.n) AS ci95_half_width,
  IF(s.mean = 0, NULL, s.stddev / ABS(s.mean) * 100) AS cv_pct,
  s.bimodality_coefficient,
  COALESCE(
    s.n >= st.bimodality_min_runs
    AND s.bimodality_coefficient > st.bimodality_threshold,
    FALSE
  ) AS bimodal,
  CASE b.limit_kind
    WHEN 'disk_iops' THEN l.disk_iops
    WHEN 'disk_mbps' THEN l.disk_mbps
    WHEN 'network_mbps' THEN l.network_mbps
  END AS published_limit,
  COALESCE(
    s.mean > (1 + st.over_limit_tolerance_pct / 100) * CASE b.limit_kind
      WHEN 'disk_iops' THEN l.disk_iops
      WHEN 'disk_mbps' THEN l.disk_mbps
      WHEN 'network_mbps' THEN l.network_mbps
    END,
    FALSE
  ) AS over_limit
FROM stats AS s
JOIN ${dataset}.benchmarks AS b USING (benchmark)
CROSS JOIN ${dataset}.settings AS st
LEFT JOIN ${dataset}.machine_limits AS l
  ON l.cloud = s.cloud AND l.machine_type = s.machine_type
