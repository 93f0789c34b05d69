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
"""TPC-C on CockroachDB, stepped up to the latency limit.

Three CockroachDB nodes, each storing its data on its data disk, and a
client VM running `cockroach workload`. Prepare installs CockroachDB on
every VM, starts the cluster and loads --cloud_report_tpcc_max_warehouses
warehouses (imported, or restored from fixtures with
--cloud_report_tpcc_fixtures=auto). Run steps: from
--cloud_report_tpcc_start_warehouses active warehouses by
--cloud_report_tpcc_step, each step a --cloud_report_tpcc_duration run after
a --cloud_report_tpcc_ramp ramp, until a step fails its pass rule
(--cloud_report_tpcc_pass_rule; the default is the Cockroach Labs 2021 Cloud
Report's: newOrder p90 under 5 s). --cloud_report_tpcc_strategy=probe finds
the edge with short probes first. The result is the largest passing warehouse
count and its tpmC, with every step's samples.

The defaults are the report's: 16-vCPU machines with 2,500 GB network disks,
2,500 to 3,500 warehouses by 250, 30-minute steps after a 1-minute ramp.

Example:
  pkb.py --benchmarks=cloud_report_tpcc --cloud=GCP \
      --cloud_report_cockroachdb_sha256=amd64=<sha256 of the release>
"""

import logging

from perfkitbenchmarker import configs
from perfkitbenchmarker import errors

from benchmarks.cloud_report.tpcc import engines
from benchmarks.cloud_report.tpcc import params as tpcc_params
from benchmarks.cloud_report.tpcc import runs

BENCHMARK_NAME = 'cloud_report_tpcc'
BENCHMARK_CONFIG = """
cloud_report_tpcc:
  description: >
    TPC-C stepped to the latency limit on 3 CockroachDB nodes and a client,
    as in the Cockroach Labs 2021 Cloud Report.
  vm_groups:
    db:
      vm_count: 3
      vm_spec: &report_machine
        AWS:
          machine_type: c5a.4xlarge
          zone: us-east-1a
        GCP:
          machine_type: n2-standard-16
          zone: us-east1-b
        Azure:
          machine_type: Standard_D16as_v4
          zone: eastus-1
      disk_spec:
        AWS:
          disk_type: gp2
          disk_size: 2500
          mount_point: /scratch
        GCP:
          disk_type: pd-ssd
          disk_size: 2500
          mount_point: /scratch
        Azure:
          disk_type: Premium_LRS
          disk_size: 2500
          mount_point: /scratch
    client:
      vm_count: 1
      vm_spec: *report_machine
"""


def GetConfig(user_config):
  return configs.LoadConfig(BENCHMARK_CONFIG, user_config, BENCHMARK_NAME)


def CheckPrerequisites(benchmark_config) -> None:
  """Refuses, before provisioning, vm_groups with no release to install.

  Raises:
    errors.Setup.InvalidConfigurationError: a vm_group's architecture has
      no CockroachDB release, or its tarball no sha256 to check.
  """
  problems = runs.ReleaseProblems(benchmark_config)
  if problems:
    raise errors.Setup.InvalidConfigurationError('; '.join(problems))


def _Cluster(spec) -> engines.Cluster:
  return engines.Cluster(
      tuple(spec.vm_groups['db']), spec.vm_groups['client'][0]
  )


def Prepare(spec) -> None:
  """Installs CockroachDB, starts the cluster and loads the warehouses."""
  cluster = _Cluster(spec)
  engine = engines.CockroachEngine(tpcc_params.Params.FromFlags())
  engine.Install(cluster)
  engine.Setup(cluster)


def Run(spec) -> list:
  """Runs the stepping search; returns every step's and the summary samples.

  A search whose lowest level gave no result after its retries returns its
  steps' samples too (search_end=no_result, each step's step_error).
  """
  params = tpcc_params.Params.FromFlags()
  cluster = _Cluster(spec)
  engine = engines.CockroachEngine(params)
  probe_engine = engines.CockroachEngine(runs.ProbeParams(params))
  result = runs.Search(params, engine, probe_engine, cluster)
  if result.failed_without_result:
    edge = result.edge_step
    logging.error(
        'tpcc: no result at %d active warehouses, the lowest level run: %s',
        edge.level,
        edge.reason,
    )
  else:
    logging.info(
        'tpcc: %s warehouses passed at most, after %d steps',
        result.max_passing,
        result.steps_used,
    )
  return runs.ToSamples(params, engine, result, engine.SampleMetadata(cluster))


def Cleanup(spec) -> None:
  """Stops the cluster and removes its stores."""
  engine = engines.CockroachEngine(tpcc_params.Params.FromFlags())
  engine.Cleanup(_Cluster(spec))
