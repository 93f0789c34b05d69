-- The report's headline table: one row per benchmark (1-core CPU ... $/tpm)
-- with the cloud that came 1st, 2nd and 3rd, and each one's best machine
-- (of one cloud's samples: its machines that came 1st, 2nd and 3rd), with
-- the mean and its CI95 half width.
SELECT
  position,
  benchmark,
  label,
  ANY_VALUE(unit) AS unit,
  ANY_VALUE(higher_is_better) AS higher_is_better,
  MAX(IF(cloud_rank = 1, cloud, NULL)) AS first_cloud,
  MAX(IF(cloud_rank = 1, machine_type, NULL)) AS first_machine,
  MAX(IF(cloud_rank = 1, disk_type, NULL)) AS first_disk,
  MAX(IF(cloud_rank = 1, mean, NULL)) AS first_value,
  MAX(IF(cloud_rank = 1, ci95_half_width, NULL)) AS first_ci95,
  MAX(IF(cloud_rank = 2, cloud, NULL)) AS second_cloud,
  MAX(IF(cloud_rank = 2, machine_type, NULL)) AS second_machine,
  MAX(IF(cloud_rank = 2, disk_type, NULL)) AS second_disk,
  MAX(IF(cloud_rank = 2, mean, NULL)) AS second_value,
  MAX(IF(cloud_rank = 2, ci95_half_width, NULL)) AS second_ci95,
  MAX(IF(cloud_rank = 3, cloud, NULL)) AS third_cloud,
  MAX(IF(cloud_rank = 3, machine_type, NULL)) AS third_machine,
  MAX(IF(cloud_rank = 3, disk_type, NULL)) AS third_disk,
  MAX(IF(cloud_rank = 3, mean, NULL)) AS third_value,
  MAX(IF(cloud_rank = 3, ci95_half_width, NULL)) AS third_ci95
FROM ${dataset}.ranking
GROUP BY position, benchmark, label
