-- Which configurations each match key holds on either side. A key must name
-- one configuration per side: 'ambiguous' means a side has several (e.g. gp2
-- and io2 of one machine type compared by machine type alone), 'only A' and
-- 'only B' that the other side has none.
WITH configs AS (
  SELECT DISTINCT match_key, side, config_id
  FROM ${dataset}.compare_sides
),
counted AS (
  SELECT
    match_key,
    COUNTIF(side = 'A') AS configs_a,
    COUNTIF(side = 'B') AS configs_b,
    STRING_AGG(IF(side = 'A', config_id, NULL), ', ' ORDER BY config_id)
      AS config_ids_a,
    STRING_AGG(IF(side = 'B', config_id, NULL), ', ' ORDER BY config_id)
      AS config_ids_b
  FROM configs
  GROUP BY match_key
)
SELECT
  *,
  CASE
    WHEN configs_a > 1 OR configs_b > 1 THEN 'ambiguous'
    WHEN configs_b = 0 THEN 'only A'
    WHEN configs_a = 0 THEN 'only B'
    ELSE 'matched'
  END AS status
FROM counted
