-- The comparison: per match key and benchmark of the report (or object
-- storage figure, object_storage_figures), value A, value B, the change in
-- % ((B - A) / |A|), the direction, each side's repetition statistics and
-- flags (bimodal, over its published limit), and a verdict.
--
-- The verdict's test (column `test`): with at least min_repetitions
-- repetitions on both sides, the test named in compare_settings (welch_t or
-- mann_whitney_u), significant when p < alpha; otherwise 'ci_overlap' when
-- a side has a CI95 (two or more repetitions), significant when the two
-- CI95 intervals are disjoint (a side without one is its point value); and
-- 'none' when neither side has repetitions. A significant change of at
-- least min_change_pct is 'better' or 'worse' in the benchmark's direction,
-- anything else 'no significant change'; 'unknown' without a test, and
-- 'only A' / 'only B' where one side has no value.
WITH a AS (
  SELECT * FROM ${dataset}.compare_sides WHERE side = 'A'
),
b AS (
  SELECT * FROM ${dataset}.compare_sides WHERE side = 'B'
),
pairs AS (
  SELECT
    COALESCE(a.match_key, b.match_key) AS match_key,
    COALESCE(a.benchmark, b.benchmark) AS benchmark,
    a.config_id AS config_a,
    b.config_id AS config_b,
    COALESCE(b.cloud, a.cloud) AS cloud,
    COALESCE(b.machine_type, a.machine_type) AS machine_type,
    COALESCE(b.disk_type, a.disk_type) AS disk_type,
    a.mean AS value_a,
    b.mean AS value_b,
    a.n AS n_a,
    b.n AS n_b,
    a.stddev AS stddev_a,
    b.stddev AS stddev_b,
    a.ci95_half_width AS ci95_a,
    b.ci95_half_width AS ci95_b,
    a.cv_pct AS cv_pct_a,
    b.cv_pct AS cv_pct_b,
    a.min_value AS min_a,
    b.min_value AS min_b,
    a.max_value AS max_a,
    b.max_value AS max_b,
    a.bimodal AS bimodal_a,
    b.bimodal AS bimodal_b,
    a.over_limit AS over_limit_a,
    b.over_limit AS over_limit_b
  FROM a
  FULL OUTER JOIN b
    ON a.match_key = b.match_key AND a.benchmark = b.benchmark
),
tested AS (
  SELECT
    p.*,
    bm.position,
    bm.label,
    bm.unit,
    bm.higher_is_better,
    SAFE_DIVIDE(p.value_b - p.value_a, ABS(p.value_a)) * 100 AS change_pct,
    w.p_value AS p_welch_t,
    m.p_value AS p_mann_whitney_u,
    CASE
      WHEN p.value_a IS NULL OR p.value_b IS NULL THEN NULL
      WHEN
        COALESCE(p.n_a, 0) >= st.min_repetitions
        AND COALESCE(p.n_b, 0) >= st.min_repetitions
        THEN st.test
      WHEN COALESCE(p.n_a, 0) >= 2 OR COALESCE(p.n_b, 0) >= 2
        THEN 'ci_overlap'
      ELSE 'none'
    END AS test,
    st.alpha,
    st.min_change_pct
  FROM pairs AS p
  JOIN (
    SELECT position, benchmark, label, unit, higher_is_better
    FROM ${dataset}.benchmarks
    UNION ALL
    SELECT position, benchmark, label, unit, higher_is_better
    FROM ${dataset}.object_storage_figures
  ) AS bm
    USING (benchmark)
  CROSS JOIN ${dataset}.compare_settings AS st
  LEFT JOIN ${dataset}.compare_welch AS w USING (match_key, benchmark)
  LEFT JOIN ${dataset}.compare_mann_whitney AS m USING (match_key, benchmark)
),
judged AS (
  SELECT
    *,
    CASE test
      WHEN 'welch_t' THEN p_welch_t
      WHEN 'mann_whitney_u' THEN p_mann_whitney_u
    END AS p_value,
    CASE test
      WHEN 'welch_t' THEN COALESCE(p_welch_t < alpha, FALSE)
      WHEN 'mann_whitney_u' THEN COALESCE(p_mann_whitney_u < alpha, FALSE)
      WHEN 'ci_overlap' THEN
        value_b - COALESCE(ci95_b, 0) > value_a + COALESCE(ci95_a, 0)
        OR value_b + COALESCE(ci95_b, 0) < value_a - COALESCE(ci95_a, 0)
      ELSE FALSE
    END AS significant
  FROM tested
)
SELECT
  position,
  benchmark,
  label,
  unit,
  higher_is_better,
  match_key,
  cloud,
  machine_type,
  disk_type,
  config_a,
  config_b,
  value_a,
  value_b,
  change_pct,
  n_a,
  n_b,
  stddev_a,
  stddev_b,
  ci95_a,
  ci95_b,
  cv_pct_a,
  cv_pct_b,
  min_a,
  min_b,
  max_a,
  max_b,
  COALESCE(bimodal_a, FALSE) AS bimodal_a,
  COALESCE(bimodal_b, FALSE) AS bimodal_b,
  COALESCE(over_limit_a, FALSE) AS over_limit_a,
  COALESCE(over_limit_b, FALSE) AS over_limit_b,
  test,
  p_value,
  p_welch_t,
  p_mann_whitney_u,
  significant,
  CASE
    WHEN value_a IS NULL THEN 'only B'
    WHEN value_b IS NULL THEN 'only A'
    WHEN test = 'none' THEN 'unknown'
    WHEN significant AND ABS(change_pct) >= min_change_pct
      THEN IF((change_pct > 0) = higher_is_better, 'better', 'worse')
    ELSE 'no significant change'
  END AS verdict
FROM judged
