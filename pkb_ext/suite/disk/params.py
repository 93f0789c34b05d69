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
"""The io phase's flags (cloud_report_fio_*), read once into Params.

Each default is the report's job file's (the CRL repository's fio.cfg where
it and the report's text differ), stated once in its Params field, which
defines the flag.
"""

import dataclasses
import re

from absl import flags

from benchmarks.cloud_report import settings
from pkb_ext.suite import topology as topology_lib

REPORTED_JOBS = (
    'wr-bw', 'wr-iops', 'wr-latency', 'rd-bw', 'rd-iops', 'rd-latency',
    'target',
)  # fmt: skip
_SIZE_RE = re.compile(r'^\d+[kKmMgGtT]?[iI]?[bB]?$')
FLAGS = flags.FLAGS


def _CheckJobs(jobs) -> bool:
  unknown = sorted(set(jobs) - set(REPORTED_JOBS))
  if unknown or not jobs:
    raise flags.ValidationError(
        f'--cloud_report_fio_jobs: unknown or no job(s) {unknown}; choose'
        f' from {",".join(REPORTED_JOBS)}'
    )
  return True


def _CheckSize(name):
  """Returns a flag validator of a fio size (e.g. 2500G; size may be N%)."""

  def Check(value) -> bool:
    ok = bool(_SIZE_RE.match(value)) or (
        name == 'size' and re.match(r'^\d{1,3}%$', value)
    )
    if not ok:
      raise flags.ValidationError(
          f'--cloud_report_fio_{name}={value!r}: expected a fio size such as'
          ' 4k, 128K or 1M'
          + (' or a percentage' if name == 'size' else '')
      )
    return True

  return Check


@settings.Define
@dataclasses.dataclass(frozen=True)
class Params:
  """The io phase's settings; each default is its flag's (the report's)."""

  runtime_s: int = settings.Integer(
      'cloud_report_fio_runtime_s',
      120,
      'Runtime of each timed fio job, seconds (runtime=).',
      lower_bound=1,
  )
  ramp_time_s: int = settings.Integer(
      'cloud_report_fio_ramp_time_s',
      2,
      'Ramp time of each fio job, seconds (ramp_time=).',
      lower_bound=0,
  )
  iodepth_bw: int = settings.Integer(
      'cloud_report_fio_iodepth_bw',
      64,
      'Queue depth of the 1M bandwidth jobs (before x16).',
      lower_bound=1,
  )
  iodepth_iops: int = settings.Integer(
      'cloud_report_fio_iodepth_iops',
      512,
      'Queue depth of the 4k IOPS jobs (before x16).',
      lower_bound=1,
  )
  iodepth_latency: int = settings.Integer(
      'cloud_report_fio_iodepth_latency',
      16,
      'Queue depth of the 4k latency jobs (before x16).',
      lower_bound=1,
  )
  local_ssd: bool = settings.Boolean(
      'cloud_report_fio_local_ssd',
      False,
      'The data disk is a local SSD: multiply queue depths and use'
      ' the local SSD latency target, as fio.sh -s did.',
  )
  local_ssd_depth_multiplier: int = settings.Integer(
      'cloud_report_fio_local_ssd_depth_multiplier',
      16,
      'Queue depth multiplier for local SSD.',
      lower_bound=1,
  )
  latency_target_ms: int = settings.Integer(
      'cloud_report_fio_latency_target_ms',
      1000,
      'latency_target of the target job, ms.',
      lower_bound=1,
  )
  latency_percentile: float = settings.Float(
      'cloud_report_fio_latency_percentile',
      95.0,
      'latency_percentile of the target job.',
      lower_bound=0.001,
      upper_bound=100,
      validator=topology_lib.FiniteValidator(
          'cloud_report_fio_latency_percentile'
      ),
  )
  local_ssd_latency_target_ms: int = settings.Integer(
      'cloud_report_fio_local_ssd_latency_target_ms',
      10,
      'latency_target for local SSD, ms.',
      lower_bound=1,
  )
  local_ssd_latency_percentile: float = settings.Float(
      'cloud_report_fio_local_ssd_latency_percentile',
      99.0,
      'latency_percentile for local SSD.',
      lower_bound=0.001,
      upper_bound=100,
      validator=topology_lib.FiniteValidator(
          'cloud_report_fio_local_ssd_latency_percentile'
      ),
  )
  latency_window_factor: int = settings.Integer(
      'cloud_report_fio_latency_window_factor',
      10,
      'latency_window = this x latency_target.',
      lower_bound=1,
  )
  target_iodepth: int = settings.Integer(
      'cloud_report_fio_target_iodepth',
      8192,
      'Maximum queue depth of the latency target job.',
      lower_bound=1,
  )
  bw_numjobs: int = settings.Integer(
      'cloud_report_fio_bw_numjobs',
      8,
      'numjobs of the bandwidth jobs; offset_increment is the'
      ' disk size divided by it.',
      lower_bound=1,
  )
  rd_iops_numjobs: int = settings.Integer(
      'cloud_report_fio_rd_iops_numjobs',
      4,
      'numjobs of the rd-iops job.',
      lower_bound=1,
  )
  bw_block_size: str = settings.String(
      'cloud_report_fio_bw_block_size',
      '1M',
      'Block size of the bandwidth jobs.',
      validator=_CheckSize('bw_block_size'),
  )
  block_size: str = settings.String(
      'cloud_report_fio_block_size',
      '4k',
      'Block size of the IOPS, latency and target jobs.',
      validator=_CheckSize('block_size'),
  )
  fill_block_size: str = settings.String(
      'cloud_report_fio_fill_block_size',
      '128K',
      'Block size of the fill-disk precondition.',
      validator=_CheckSize('fill_block_size'),
  )
  fill_iodepth: int = settings.Integer(
      'cloud_report_fio_fill_iodepth',
      256,
      'Queue depth of the fill-disk precondition.',
      lower_bound=1,
  )
  size: str = settings.String(
      'cloud_report_fio_size',
      '100%',
      'fio size= of every job (the fill writes this much).',
      validator=_CheckSize('size'),
  )
  fill: bool = settings.Boolean(
      'cloud_report_fio_fill',
      True,
      'Run the fill-disk precondition (never reported) first.',
  )
  jobs: tuple[str, ...] = settings.List(
      'cloud_report_fio_jobs',
      list(REPORTED_JOBS),
      'Reported jobs to run, from ' + ','.join(REPORTED_JOBS) + '.',
      validator=_CheckJobs,
  )
  device: str | None = settings.String(
      'cloud_report_fio_device',
      None,
      "Target path; default: the first db VM's first data disk.",
  )
  unmount: bool = settings.Boolean(
      'cloud_report_fio_unmount',
      True,
      'First unmount the data disk from the scratch mount point PKB'
      ' mounted it on, as fio.sh did.',
  )
  restore_fs: bool = settings.Boolean(
      'cloud_report_fio_restore_fs',
      True,
      'Afterwards make a file system on the disk and mount it'
      ' on its scratch mount point again, as fio.sh did.',
  )
  mount_point: str | None = settings.String(
      'cloud_report_fio_mount_point',
      None,
      'Where to mount the new file system afterwards; default the data'
      " disk's scratch mount point (static VMs' local_disks have none, so"
      ' their disk is only formatted). Later phases see the disk there.',
  )
  install: str = settings.Enum(
      'cloud_report_fio_install',
      'pkb',
      ('os', 'pkb'),
      "fio to use: pkb (PKB's fio package, built from git) or os (the"
      " distribution's fio, already on the VM or from its package).",
  )
  timeout_margin_s: int = settings.Integer(
      'cloud_report_fio_timeout_margin_s',
      600,
      'Seconds a timed fio job may take beyond runtime +'
      ' ramp before it is ended on the VM.',
      lower_bound=0,
  )
  # 0: the expected fill time's bound
  fill_timeout_s: int = settings.Integer(
      'cloud_report_fio_fill_timeout_s',
      0,
      'Seconds the fill may take before it is ended on the VM; 0: its'
      ' expected time (the disk at the expected fill rate, or ramp +'
      ' runtime, which ends it first on a large disk) plus a margin.',
      lower_bound=0,
  )
  fs_type: str = 'ext4'  # PKB's --disk_fs_type
  fs_block_size: int | None = None  # PKB's --disk_block_size

  @classmethod
  def FromFlags(cls) -> 'Params':
    """Returns the settings the cloud_report_fio_* flags hold (and the file
    system PKB's --disk_fs_type and --disk_block_size give)."""
    values = {}
    for name, pkb_flag in (('fs_type', 'disk_fs_type'),
                           ('fs_block_size', 'disk_block_size')):  # fmt: skip
      if pkb_flag in FLAGS and FLAGS[pkb_flag].value is not None:
        values[name] = FLAGS[pkb_flag].value
    return settings.FromFlags(cls, **values)
