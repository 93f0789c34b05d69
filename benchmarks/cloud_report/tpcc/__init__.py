# Copyright 2026 PerfKitBenchmarker Authors. All rights reserved.
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
"""TPC-C stepped up to the latency limit: cloud_report_tpcc's pieces.

Its modules:
  params      the flags, read once into Params;
  stepping    which warehouse count to run next (the search strategies);
  pass_rules  whether one step passed (pure);
  engines     the cockroach engine (the engine interface), and the
              judging of a step's output every engine shares;
  cockroach   a CockroachDB cluster on the db VMs;
  fixtures    the warehouses loaded from a prebuilt fixture (cockroach);
  parser      the workload's output -> one step's measurement (pure);
  samples     the metric catalog and the samples of a step and a search;
  runs        the search run with an engine, and its samples.
"""
