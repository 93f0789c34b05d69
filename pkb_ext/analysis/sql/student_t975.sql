-- Student's t quantile t(0.975; df) for every df from 1 to 100,000: the
-- table of student_t up to df 30, the Cornish-Fisher series beyond (error
-- < 1e-7 there), for CI95 half-widths over repetitions (more than 100,001
-- repetitions get none).
WITH dfs AS (
  SELECT df FROM UNNEST(GENERATE_ARRAY(1, 100000)) AS df
)
SELECT
  d.df,
  COALESCE(
    t.t975,
    1.959963984540054
    + (POW(1.959963984540054, 3) + 1.959963984540054) / (4 * d.df)
    + (5 * POW(1.959963984540054, 5) + 16 * POW(1.959963984540054, 3)
      + 3 * 1.959963984540054) / (96 * POW(d.df, 2))
    + (3 * POW(1.959963984540054, 7) + 19 * POW(1.959963984540054, 5)
      + 17 * POW(1.959963984540054, 3) - 15 * 1.959963984540054)
      / (384 * POW(d.df, 3))
  ) AS t975
FROM dfs AS d
LEFT JOIN ${dataset}.student_t AS t USING (df)
