-- The report versions of either side's samples (see report_versions).
SELECT 'A' AS side, report_version, samples FROM ${a}.report_versions
UNION ALL
SELECT 'B' AS side, report_version, samples FROM ${b}.report_versions
