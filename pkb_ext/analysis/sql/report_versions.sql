-- The report versions (metadata.report_version) the samples were taken for,
-- and how many samples each: two sets of samples compare only within one
-- version, as a version fixes what each benchmark measures.
SELECT report_version, COUNT(*) AS samples
FROM ${dataset}.samples_flat
GROUP BY report_version
