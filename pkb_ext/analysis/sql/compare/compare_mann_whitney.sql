-- The Mann-Whitney U test per match key and benchmark over the two sides'
-- repetitions (benchmark_values), two-sided: average ranks for ties, and the
-- normal approximation with tie and continuity correction (as
-- scipy.stats.mannwhitneyu with method='asymptotic'); the normal tail is
-- Abramowitz & Stegun 26.2.17 (error < 7.5e-8). u_a is U of side A.
WITH keyed AS (
  SELECT match_key, side, benchmark, value FROM ${dataset}.compare_runs
),
ranked AS (
  SELECT
    *,
    RANK() OVER (PARTITION BY match_key, benchmark ORDER BY value)
    + (COUNT(*) OVER (PARTITION BY match_key, benchmark, value) - 1) / 2
      AS avg_rank
  FROM keyed
),
ties AS (
  SELECT match_key, benchmark, SUM(POW(t, 3) - t) AS tie_sum
  FROM (
    SELECT match_key, benchmark, value, COUNT(*) AS t
    FROM keyed
    GROUP BY match_key, benchmark, value
  )
  GROUP BY match_key, benchmark
),
u AS (
  SELECT
    match_key,
    benchmark,
    COUNTIF(side = 'A') AS n_a,
    COUNTIF(side = 'B') AS n_b,
    SUM(IF(side = 'A', avg_rank, 0)) AS rank_sum_a
  FROM ranked
  GROUP BY match_key, benchmark
),
z AS (
  SELECT
    u.match_key,
    u.benchmark,
    u.n_a,
    u.n_b,
    u.rank_sum_a - u.n_a * (u.n_a + 1) / 2 AS u_a,
    SAFE_DIVIDE(
      ABS(u.rank_sum_a - u.n_a * (u.n_a + 1) / 2 - u.n_a * u.n_b / 2) - 0.5,
      SQRT(
        u.n_a * u.n_b / 12
        * (
          u.n_a + u.n_b + 1
          - t.tie_sum / ((u.n_a + u.n_b) * (u.n_a + u.n_b - 1))
        )
      )
    ) AS z
  FROM u
  JOIN ties AS t USING (match_key, benchmark)
  WHERE u.n_a >= 1 AND u.n_b >= 1
),
tail AS (
  SELECT *, 1 / (1 + 0.2316419 * ABS(z)) AS k FROM z
),
upper AS (
  SELECT
    *,
    EXP(-z * z / 2) / SQRT(2 * ACOS(-1)) * k
    * (0.319381530 + k * (-0.356563782 + k * (1.781477937
      + k * (-1.821255978 + k * 1.330274429)))) AS q
  FROM tail
)
SELECT
  match_key,
  benchmark,
  n_a,
  n_b,
  u_a,
  z,
  -- All values tied: no evidence of a difference.
  IF(z IS NULL, 1.0, LEAST(1.0, 2 * IF(z >= 0, q, 1 - q))) AS p_value
FROM upper
