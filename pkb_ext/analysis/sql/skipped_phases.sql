-- Phases a machine configuration skipped because it could not run them
-- (cloud_report_phase_skipped samples), with the reason: the report's
-- tables of those phases leave that configuration out and say why.
SELECT DISTINCT
  COALESCE(cloud, JSON_VALUE(metadata, '$.cloud')) AS cloud,
  JSON_VALUE(metadata, '$.machine_type') AS machine_type,
  JSON_VALUE(metadata, '$.disk_type') AS disk_type,
  JSON_VALUE(metadata, '$.phase') AS phase,
  JSON_VALUE(metadata, '$.skip_reason') AS skip_reason
FROM ${samples}
WHERE metric = 'cloud_report_phase_skipped'
