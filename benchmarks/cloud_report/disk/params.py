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
"""The io phase's flags (cloud_report_fio_*), read once into Params.

Each default is the report's job file's (the CRL repository's fio.cfg where
it and the report's text differ), stated once in its flag; Params' defaults
are the flags' defaults.
"""

import dataclasses
import re

from absl import flags

from benchmarks.cloud_report import topology as topology_lib

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


_RUNTIME_S = flags.DEFINE_integer(
    'cloud_report_fio_runtime_s',
    120,
    'Runtime of each timed fio job, seconds (runtime=).',
    lower_bound=1,
)
_RAMP_TIME_S = flags.DEFINE_integer(
    'cloud_report_fio_ramp_time_s',
    2,
    'Ramp time of each fio job, seconds (ramp_time=).',
    lower_bound=0,
)
_IODEPTH_BW = flags.DEFINE_integer(
    'cloud_report_fio_iodepth_bw',
    64,
    'Queue depth of the 1M bandwidth jobs (before x16).',
    lower_bound=1,
)
_IODEPTH_IOPS = flags.DEFINE_integer(
    'cloud_report_fio_iodepth_iops',
    512,
    'Queue depth of the 4k IOPS jobs (before x16).',
    lower_bound=1,
)
_IODEPTH_LATENCY = flags.DEFINE_integer(
    'cloud_report_fio_iodepth_latency',
    16,
    'Queue depth of the 4k latency jobs (before x16).',
    lower_bound=1,
)
_LOCAL_SSD = flags.DEFINE_boolean(
    'cloud_report_fio_local_ssd',
    False,
    'The data disk is a local SSD: multiply queue depths and use'
    ' the local SSD latency target, as fio.sh -s did.',
)
_LOCAL_SSD_DEPTH_MULTIPLIER = flags.DEFINE_integer(
    'cloud_report_fio_local_ssd_depth_multiplier',
    16,
    'Queue depth multiplier for local SSD.',
    lower_bound=1,
)
_LATENCY_TARGET_MS = flags.DEFINE_integer(
    'cloud_report_fio_latency_target_ms',
    1000,
    'latency_target of the target job, ms.',
    lower_bound=1,
)
_LATENCY_PERCENTILE = flags.DEFINE_float(
    'cloud_report_fio_latency_percentile',
    95.0,
    'latency_percentile of the target job.',
    lower_bound=0.001,
    upper_bound=100,
)
flags.register_validator(
    _LATENCY_PERCENTILE.name,
    topology_lib.FiniteValidator(_LATENCY_PERCENTILE.name),
)
_LOCAL_SSD_LATENCY_TARGET_MS = flags.DEFINE_integer(
    'cloud_report_fio_local_ssd_latency_target_ms',
    10,
    'latency_target for local SSD, ms.',
    lower_bound=1,
)
_LOCAL_SSD_LATENCY_PERCENTILE = flags.DEFINE_float(
    'cloud_report_fio_local_ssd_latency_percentile',
    99.0,
    'latency_percentile for local SSD.',
    lower_bound=0.001,
    upper_bound=100,
)
flags.register_validator(
    _LOCAL_SSD_LATENCY_PERCENTILE.name,
    topology_lib.FiniteValidator(_LOCAL_SSD_LATENCY_PERCENTILE.name),
)
_LATENCY_WINDOW_FACTOR = flags.DEFINE_integer(
    'cloud_report_fio_latency_window_factor',
    10,
    'latency_window = this x latency_target.',
    lower_bound=1,
)
_TARGET_IODEPTH = flags.DEFINE_integer(
    'cloud_report_fio_target_iodepth',
    8192,
    'Maximum queue depth of the latency target job.',
    lower_bound=1,
)
_BW_NUMJOBS = flags.DEFINE_integer(
    'cloud_report_fio_bw_numjobs',
    8,
    'numjobs of the bandwidth jobs; offset_increment is the'
    ' disk size divided by it.',
    lower_bound=1,
)
_RD_IOPS_NUMJOBS = flags.DEFINE_integer(
    'cloud_report_fio_rd_iops_numjobs',
    4,
    'numjobs of the rd-iops job.',
    lower_bound=1,
)
_BW_BLOCK_SIZE = flags.DEFINE_string(
    'cloud_report_fio_bw_block_size',
    '1M',
    'Block size of the bandwidth jobs.',
)
flags.register_validator(_BW_BLOCK_SIZE.name, _CheckSize('bw_block_size'))
_BLOCK_SIZE = flags.DEFINE_string(
    'cloud_report_fio_block_size',
    '4k',
    'Block size of the IOPS, latency and target jobs.',
)
flags.register_validator(_BLOCK_SIZE.name, _CheckSize('block_size'))
_FILL_BLOCK_SIZE = flags.DEFINE_string(
    'cloud_report_fio_fill_block_size',
    '128K',
    'Block size of the fill-disk precondition.',
)
flags.register_validator(_FILL_BLOCK_SIZE.name, _CheckSize('fill_block_size'))
_FILL_IODEPTH = flags.DEFINE_integer(
    'cloud_report_fio_fill_iodepth',
    256,
    'Queue depth of the fill-disk precondition.',
    lower_bound=1,
)
_SIZE = flags.DEFINE_string(
    'cloud_report_fio_size',
    '100%',
    'fio size= of every job (the fill writes this much).',
)
flags.register_validator(_SIZE.name, _CheckSize('size'))
_FILL = flags.DEFINE_boolean(
    'cloud_report_fio_fill',
    True,
    'Run the fill-disk precondition (never reported) first.',
)
_JOBS = flags.DEFINE_list(
    'cloud_report_fio_jobs',
    list(REPORTED_JOBS),
    'Reported jobs to run, from ' + ','.join(REPORTED_JOBS) + '.',
)
flags.register_validator(_JOBS.name, _CheckJobs)
_DEVICE = flags.DEFINE_string(
    'cloud_report_fio_device',
    None,
    "Target path; default: the first db VM's first data disk.",
)
_ALLOW_NON_BLOCK_DEVICE = flags.DEFINE_boolean(
    'cloud_report_fio_allow_non_block_device',
    False,
    'Accept a regular file as target (tests only);'
    ' the root device, mounted devices and devices holding mounted'
    ' partitions are always refused.',
)
_UNMOUNT = flags.DEFINE_boolean(
    'cloud_report_fio_unmount',
    True,
    'First unmount the data disk from the scratch mount point PKB'
    ' mounted it on, as fio.sh did.',
)
_RESTORE_FS = flags.DEFINE_boolean(
    'cloud_report_fio_restore_fs',
    True,
    'Afterwards make a file system on the disk and mount it'
    ' on its scratch mount point again, as fio.sh did.',
)
_MOUNT_POINT = flags.DEFINE_string(
    'cloud_report_fio_mount_point',
    None,
    'Where to mount the new file system afterwards; default the data'
    " disk's scratch mount point (static VMs' local_disks have none, so"
    ' their disk is only formatted). Later phases see the disk there.',
)
_INSTALL = flags.DEFINE_enum(
    'cloud_report_fio_install',
    'pkb',
    ['os', 'pkb'],
    "fio to use: pkb (PKB's fio package, built from git) or os (the"
    " distribution's fio, already on the VM or from its package).",
)
_TIMEOUT_MARGIN_S = flags.DEFINE_integer(
    'cloud_report_fio_timeout_margin_s',
    600,
    'Seconds a timed fio job may take beyond runtime +'
    ' ramp before it is ended on the VM.',
    lower_bound=0,
)
_FILL_TIMEOUT_S = flags.DEFINE_integer(
    'cloud_report_fio_fill_timeout_s',
    0,
    'Seconds the fill may take before it is ended on the VM; 0: its'
    ' expected time (the disk at the expected fill rate, or ramp +'
    ' runtime, which ends it first on a large disk) plus a margin.',
    lower_bound=0,
)


@dataclasses.dataclass(frozen=True)
class Params:
  """The io phase's settings; each default is its flag's (the report's)."""

  runtime_s: int = _RUNTIME_S.default
  ramp_time_s: int = _RAMP_TIME_S.default
  iodepth_bw: int = _IODEPTH_BW.default
  iodepth_iops: int = _IODEPTH_IOPS.default
  iodepth_latency: int = _IODEPTH_LATENCY.default
  local_ssd: bool = _LOCAL_SSD.default
  local_ssd_depth_multiplier: int = _LOCAL_SSD_DEPTH_MULTIPLIER.default
  latency_target_ms: int = _LATENCY_TARGET_MS.default
  latency_percentile: float = _LATENCY_PERCENTILE.default
  local_ssd_latency_target_ms: int = _LOCAL_SSD_LATENCY_TARGET_MS.default
  local_ssd_latency_percentile: float = _LOCAL_SSD_LATENCY_PERCENTILE.default
  latency_window_factor: int = _LATENCY_WINDOW_FACTOR.default
  target_iodepth: int = _TARGET_IODEPTH.default
  bw_numjobs: int = _BW_NUMJOBS.default
  rd_iops_numjobs: int = _RD_IOPS_NUMJOBS.default
  bw_block_size: str = _BW_BLOCK_SIZE.default
  block_size: str = _BLOCK_SIZE.default
  fill_block_size: str = _FILL_BLOCK_SIZE.default
  fill_iodepth: int = _FILL_IODEPTH.default
  size: str = _SIZE.default
  fill: bool = _FILL.default
  jobs: tuple[str, ...] = tuple(_JOBS.default)
  device: str | None = _DEVICE.default
  allow_non_block_device: bool = _ALLOW_NON_BLOCK_DEVICE.default
  unmount: bool = _UNMOUNT.default
  restore_fs: bool = _RESTORE_FS.default
  mount_point: str | None = _MOUNT_POINT.default
  install: str = _INSTALL.default
  timeout_margin_s: int = _TIMEOUT_MARGIN_S.default
  # 0: the expected fill time's bound
  fill_timeout_s: int = _FILL_TIMEOUT_S.default
  fs_type: str = 'ext4'  # PKB's --disk_fs_type
  fs_block_size: int | None = None  # PKB's --disk_block_size

  @classmethod
  def FromFlags(cls) -> 'Params':
    """Returns the settings the cloud_report_fio_* flags hold."""
    values = {}
    for name, pkb_flag in (('fs_type', 'disk_fs_type'),
                           ('fs_block_size', 'disk_block_size')):  # fmt: skip
      if pkb_flag in FLAGS and FLAGS[pkb_flag].value is not None:
        values[name] = FLAGS[pkb_flag].value
    return cls(
        runtime_s=_RUNTIME_S.value,
        ramp_time_s=_RAMP_TIME_S.value,
        iodepth_bw=_IODEPTH_BW.value,
        iodepth_iops=_IODEPTH_IOPS.value,
        iodepth_latency=_IODEPTH_LATENCY.value,
        local_ssd=_LOCAL_SSD.value,
        local_ssd_depth_multiplier=_LOCAL_SSD_DEPTH_MULTIPLIER.value,
        latency_target_ms=_LATENCY_TARGET_MS.value,
        latency_percentile=_LATENCY_PERCENTILE.value,
        local_ssd_latency_target_ms=_LOCAL_SSD_LATENCY_TARGET_MS.value,
        local_ssd_latency_percentile=_LOCAL_SSD_LATENCY_PERCENTILE.value,
        latency_window_factor=_LATENCY_WINDOW_FACTOR.value,
        target_iodepth=_TARGET_IODEPTH.value,
        bw_numjobs=_BW_NUMJOBS.value,
        rd_iops_numjobs=_RD_IOPS_NUMJOBS.value,
        bw_block_size=_BW_BLOCK_SIZE.value,
        block_size=_BLOCK_SIZE.value,
        fill_block_size=_FILL_BLOCK_SIZE.value,
        fill_iodepth=_FILL_IODEPTH.value,
        size=_SIZE.value,
        fill=_FILL.value,
        jobs=tuple(_JOBS.value),
        device=_DEVICE.value,
        allow_non_block_device=_ALLOW_NON_BLOCK_DEVICE.value,
        unmount=_UNMOUNT.value,
        restore_fs=_RESTORE_FS.value,
        mount_point=_MOUNT_POINT.value,
        install=_INSTALL.value,
        timeout_margin_s=_TIMEOUT_MARGIN_S.value,
        fill_timeout_s=_FILL_TIMEOUT_S.value,
        **values,
    )
