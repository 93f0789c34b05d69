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
"""pkb-ext plan [--prices=FILE] [PKB FLAGS]: what a pkb.py run would do.

PKB's flags are parsed and expanded into benchmark configurations exactly as
pkb.py does (benchmark sets, --benchmark_config_file, --flag_matrix), with
no VM, no network and no temp directory. For each configuration it prints
the VMs and disks, their vCPUs, the phases with an expected wall time, the
VM-hours and the expected on-demand cost from the dated price tables
(configs/pricing) of the zone's region, naming the region and date (a
machine type or region without a price: "price unknown", the hours still
planned), and what pkb_ext's preflight would refuse; then the totals, the
peak vCPUs per region and cloud quota with --run_processes (quota; checked
against --cloud_report_vcpu_quota), and the date of the prices. --prices=FILE (a <cloud>.yaml table of the same form, dated)
prices the run at that table instead of configs/pricing's for its cloud;
the report's tables, which $/tpm uses, stay as they are.

Values that make no plan are refused with a one-line error and exit 1: a
data disk size <= 0, negative provisioned IOPS or MB/s, a machine type name
its cloud could not have (quota.Impossible), a non-finite number, a config file
that is missing, not a regular file, too large, not YAML or not a mapping,
an unknown benchmark or flag matrix. Flags pkb.py would not parse, and
unusable --run_processes or --prices, are usage errors (exit 2).

The expected times are the phases' own: each phase has an estimate module
(phase_estimates, e.g. phase_estimates.cpu) that computes its wall time
from its flags (their defaults are the report's), the estimates module's
rates (with the import and fill rates the run's own timeouts use) and the
assumptions its docstring states; the plan gives it the io phase's data disk (the fill:
its size, and the lowest known throughput ceiling of the disk and the
machine from configs/pricing), the db VM count, and the measured rates of
the `rates:` entry of the price table of the configuration's cloud (Static
for static VMs; a machine type's own over the table's), which replace the
defaults and are marked (measured), their source named once. Provisioning
is the rates' provision_s, else model.PROVISION_S (create, boot, teardown).
A configuration's wall time is its provisioning, what runs once (installs,
the TPC-C data's load), then --run_stage_iterations Run stages. The TPC-C
data is planned loaded from a prebuilt fixture, generation's time beside
it, where --cloud_report_tpcc_fixtures is defined and `auto`; a row that
loads a fixture or searches other than linearly shows the report's way
(linear, data generated) beside it.

The suite's wall time follows --cloud_report_overlap (default true): the
phases phases.MakeSchedule runs beside io (cpu, net, object_storage, where
the topology has the VMs for them) count once, as the longest of io and
each lane's sum (phases.Schedule.lanes: cpu on the third db VM beside net
then object_storage), and object_storage, where the TPC-C engine's load
leaves the client idle (cockroach), runs beside that load instead, counting
only what the load does not cover; every VM is billed for the whole wall
time. Each
configuration and the totals show the wall time and VM-hours with and
without overlap, each with its own VMs: the suite provisions only what its
phases use, and a second (and third) db VM only where overlap runs cpu or
net beside io.

Its modules, each importing only those listed before it (an import-linter
contract):
  errors          PlanError (exit 1) and PlanUsageError (exit 2);
  estimates       what the phases' estimates share: RATES, Context, Phase,
                  Fill, Hms (pure);
  phase_estimates each phase's estimate module, by phase (pure);
  model           Group, Config, the phases' estimates, the makespan (pure);
  cost            the io phase's fill, $/hour in the zone's region, the
                  machine name check;
  pkb_config      PKB's flags and configurations, through pkb_ext.pkb_door;
  configurations  each configuration planned (groups, estimates, preflight,
                  cost, schedule);
  render          the plan as text;
  cli             the command line (--prices, --helpmatch, Main).
"""
