-- The vCPUs of each machine configuration (metadata.vcpus): the report's
-- "16 core CPU" benchmark runs CoreMark on all of a machine's vCPUs, which
-- is 16 only on the report's machines.
SELECT config_id, MAX(vcpus) AS vcpus
FROM ${dataset}.samples_flat
GROUP BY config_id
