-- The machine configurations present in the samples: what pkb_ext.pricing
-- prices into the machine_costs table (see pkb_ext/analysis/runner.py).
SELECT DISTINCT
  config_id,
  cloud,
  machine_type,
  disk_type,
  disk_size_gb,
  provisioned_iops,
  provisioned_mbps
FROM ${dataset}.samples_flat
