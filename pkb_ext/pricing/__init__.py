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
"""Dated on-demand price tables -> $/month per machine and $/tpm.

The tables are configs/pricing/<cloud>.yaml (VM $/hour, disk $/GB-month,
$/provisioned IOPS-month in tiers, $/provisioned MB/s-month, the machines'
published limits and instance-store volume sizes, the size tiers a disk
bills at, the disks' throughput ceilings) and configs/pricing/method.yaml
(hours per month, the 3-year term, flag thresholds). This package is the one
place that does the money arithmetic; the analysis SQL receives its results
as a table. $/tpm keeps the report's method ($/GB-month); `pkb-ext plan`
prices a run's disks at their billed tiers (MonthlyCost(tiered=True)).

The report's definition (seed 000, "Overall Conclusions"): $/tpm is the
"3-Year Total Cost Per Machine / tpm": one node's on-demand VM + data disk
cost over 36 months, divided by the cluster's tpmC.

Its modules, each importing only those listed before it:
  model    PricingError, and a table's parts (Machine, Disk, PriceTable,
           Method, Cost) with one disk's arithmetic;
  catalog  Catalog: every cloud's table, one node's monthly cost, $/tpm;
  load     configs/pricing's files parsed and checked into a Catalog.

The names below are the package's interface; callers use `pricing.NAME`.
"""

from pkb_ext.pricing import catalog
from pkb_ext.pricing import load
from pkb_ext.pricing import model

Catalog = catalog.Catalog
Cost = model.Cost
DefaultDirectory = load.DefaultDirectory
Disk = model.Disk
Limits = model.Limits
Load = load.Load
Machine = model.Machine
Method = model.Method
ParseTable = load.ParseTable
PriceTable = model.PriceTable
PricingError = model.PricingError
Rates = model.Rates
SizeTier = model.SizeTier
Tier = model.Tier
