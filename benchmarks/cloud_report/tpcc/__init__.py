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
"""The tpcc phase: TPC-C stepped up to the latency limit.

Its modules:
  params         the flags, read once into Params;
  stepping       which warehouse count to run next (the search strategies);
  pass_rules     whether one step passed (pure);
  stepping_state the search's saved history, for a resumed run;
  engines        the engines behind one interface, their registry, and
                 the cockroach engine;
  cockroach      a CockroachDB cluster on the db VMs;
  fixtures       the warehouses loaded from a prebuilt fixture (cockroach);
  parser         the workload's output -> one step's measurement (pure);
  samples        the metric catalog and the samples of a step and a search;
  stages         the phase's functions (see phases.py).
"""
