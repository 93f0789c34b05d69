# Copyright 2026 The pkb_ext Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#   http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""Analysis: the report's tables from published samples.

sql/*.sql (BigQuery standard SQL, one file per view) is the single source of
every table. runner.py runs them on BigQuery, or on DuckDB by transpiling
them with sqlglot; report.py renders report.html and report.md with charts
(templates/, jinja2); cli.py is `pkb-ext report`. compare.py and
sql/compare/*.sql compare two sets of samples (or a baseline of
configs/baselines and samples), compare_report.py renders the comparison,
compare_cli.py is `pkb-ext compare`; browser.py opens a rendered page in
headless Chromium.
"""
