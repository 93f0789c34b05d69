-- Welch's t-test per match key and benchmark: the two sides' means, sample
-- variances and repetition counts (compare_sides), two-sided.
--
-- t = (mean B - mean A) / sqrt(s_A^2/n_A + s_B^2/n_B), with the
-- Welch-Satterthwaite degrees of freedom. The p-value is Hill's (1970,
-- CACM algorithm 395) approximation of Student's t tail for real df, with
-- the normal tail of Abramowitz & Stegun 26.2.17: within 5e-4 of the exact
-- value for df >= 2 and 3e-5 for df >= 3. Two sides without any spread get
-- p = 1 for equal means and p = 0 otherwise.
WITH pairs AS (
  SELECT
    a.match_key,
    a.benchmark,
    a.n AS n_a,
    b.n AS n_b,
    b.mean - a.mean AS diff,
    POW(a.stddev, 2) / a.n AS se2_a,
    POW(b.stddev, 2) / b.n AS se2_b
  FROM ${dataset}.compare_sides AS a
  JOIN ${dataset}.compare_sides AS b
    ON a.match_key = b.match_key AND a.benchmark = b.benchmark
  WHERE a.side = 'A' AND b.side = 'B' AND a.n >= 2 AND b.n >= 2
),
t AS (
  SELECT
    *,
    SAFE_DIVIDE(diff, SQRT(se2_a + se2_b)) AS t_stat,
    SAFE_DIVIDE(
      POW(se2_a + se2_b, 2),
      POW(se2_a, 2) / (n_a - 1) + POW(se2_b, 2) / (n_b - 1)
    ) AS df
  FROM pairs
),
hill AS (
  SELECT
    *,
    (df - 0.5) * LN(1 + t_stat * t_stat / df) AS hy,
    48 * POW(df - 0.5, 2) AS hb
  FROM t
),
z AS (
  SELECT
    *,
    (
      ((((-0.4 * hy - 3.3) * hy - 24) * hy - 85.5) / (0.8 * hy * hy + 100 + hb)
        + hy + 3) / hb
      + 1
    ) * SQRT(hy) AS z
  FROM hill
),
tail AS (
  SELECT
    *,
    1 / (1 + 0.2316419 * z) AS k
  FROM z
)
SELECT
  match_key,
  benchmark,
  n_a,
  n_b,
  t_stat,
  df,
  CASE
    WHEN t_stat IS NULL THEN IF(diff = 0, 1.0, 0.0)
    ELSE LEAST(
      1.0,
      2 * EXP(-z * z / 2) / SQRT(2 * ACOS(-1)) * k
      * (0.319381530 + k * (-0.356563782 + k * (1.781477937
        + k * (-1.821255978 + k * 1.330274429))))
    )
  END AS p_value
FROM tail
