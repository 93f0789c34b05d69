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
"""The io phase: the report's fio job file on the first db node's raw disk.

As the report's scripts/gen/fio.sh did, Run
  1. unmounts the data disk from the scratch mount point PKB mounted it on
     (only that device at that mount point; --cloud_report_fio_unmount);
  2. refuses unsafe targets (io_guard: root/boot device, mounted, holds a
     mounted partition, not a block device);
  3. renders the data file fio/cloud_report_2021.fio.j2 with the disk's size and
     the cloud_report_fio_* flags, and runs the fill-disk-ignore
     precondition (checked for errors, never reported), then wr-bw, wr-iops,
     wr-latency, rd-bw, rd-iops, rd-latency and target;
  4. re-creates the file system and mounts it again, as PKB formats and
     mounts a scratch disk (--cloud_report_fio_restore_fs), even if a job
     failed, but never when the guard refused.

Each job is its own fio invocation of the same job file (--section=JOB)
rather than one invocation of all stonewalled sections. Stonewall already
runs the sections one at a time with nothing shared between them, so fio
does the same I/O either way; separate invocations add a per-job timeout
(the fill job's: its expected time, FillSeconds, plus a margin,
timeouts.Bound; the timed jobs' runtime + ramp + margin, each enforced on
the VM by `timeout`),
keep the fill job's output out of the reported results by construction, and
let a failed job name itself instead of losing the whole run's JSON.
fio runs through RobustRemoteCommand (each job runs minutes)
and writes its JSON to cloud_report_fio_<job>.json on the VM (--output, as
fio.sh did); the same command then prints that file, so the JSON comes back
as the command's output, with no second round trip. Cleanup removes those
files.
"""

import logging
import os
import shlex
import tempfile

import jinja2
from perfkitbenchmarker import data
from perfkitbenchmarker import errors
from perfkitbenchmarker.linux_packages import fio as pkb_fio

from pkb_ext.suite.disk import commands
from pkb_ext.suite.disk import guard as io_guard
from pkb_ext.suite import leftovers
from pkb_ext.suite import phase_table
from benchmarks.cloud_report import remote
from benchmarks.cloud_report import timeouts
from pkb_ext.suite import topology as topology_lib
from pkb_ext.suite.disk import params as params_lib
from pkb_ext.suite.disk import parser as fio_parser
from pkb_ext.suite.disk import samples as io_samples

PHASE = phase_table.IO.sample
# The phase's parser and samples modules (phase_modules pairs them).
PARSER = fio_parser
SAMPLES = io_samples
FILL_JOB = 'fill-disk-ignore'
REPORTED_JOBS = params_lib.REPORTED_JOBS
JOB_FILE_TEMPLATE = 'fio/cloud_report_2021.fio.j2'
REMOTE_JOB_FILE = 'cloud_report_2021.fio'
OS_FIO = 'fio'
PKB_FIO = pkb_fio.FIO_PATH  # where PKB's fio package builds fio


Params = params_lib.Params


def JobFileContext(params: Params, disk_bytes: int) -> dict:
  """The template's variables, computed as the report's fio.sh did (pure)."""
  multiplier = params.local_ssd_depth_multiplier if params.local_ssd else 1
  if params.local_ssd:
    target_ms = params.local_ssd_latency_target_ms
    percentile = params.local_ssd_latency_percentile
  else:
    target_ms, percentile = params.latency_target_ms, params.latency_percentile
  return {
      'runtime_s': params.runtime_s,
      'ramp_time_s': params.ramp_time_s,
      'size': params.size,
      'fill_bs': params.fill_block_size,
      'fill_iodepth': params.fill_iodepth,
      'bw_bs': params.bw_block_size,
      'small_bs': params.block_size,
      'iodepth_bw': params.iodepth_bw * multiplier,
      'iodepth_iops': params.iodepth_iops * multiplier,
      'iodepth_latency': params.iodepth_latency * multiplier,
      'bw_numjobs': params.bw_numjobs,
      'rd_iops_numjobs': params.rd_iops_numjobs,
      # fio.sh: int(size / 2^23) M, i.e. an eighth of the disk in MiB.
      'offset_increment': f'{disk_bytes // params.bw_numjobs // 2**20}M',
      'target_iodepth': params.target_iodepth,
      'latency_target_ms': target_ms,
      'latency_window_ms': target_ms * params.latency_window_factor,
      'latency_percentile': f'{percentile:g}',
      'percentile_list': fio_parser.PERCENTILE_LIST,
  }


def RenderJobFile(context: dict) -> str:
  with open(data.ResourcePath(JOB_FILE_TEMPLATE), encoding='utf-8') as f:
    template = f.read()
  env = jinja2.Environment(undefined=jinja2.StrictUndefined)
  return env.from_string(template).render(**context)


def FillSeconds(params: Params, disk_bytes: int) -> float:
  """The fill's expected seconds: the disk at the expected rate, or the job
  file's ramp + runtime, which ends the fill first on a large disk."""
  return timeouts.FillSeconds(
      disk_bytes / 1e9, limit_s=params.ramp_time_s + params.runtime_s
  )


def FillTimeout(params: Params, disk_bytes: int) -> int:
  """Seconds the fill job may take: --..._fill_timeout_s, else the bound
  of its expected time (FillSeconds, timeouts.Bound)."""
  if params.fill_timeout_s:
    return params.fill_timeout_s
  return timeouts.Bound(FillSeconds(params, disk_bytes))


def FioPath(params: Params, vm) -> str:
  del vm  # the same path on every VM
  return OS_FIO if params.install == 'os' else PKB_FIO


def Target(params: Params, vm) -> tuple[str, str | None, str]:
  """Returns (target path, its mount point or None, mount options).

  The mount point is --cloud_report_fio_mount_point, else the data disk's
  scratch mount point (none for a --cloud_report_fio_device target).
  """
  disk = topology_lib.DataDisk(vm)
  disk_path = topology_lib.DevicePath(disk) if disk else None
  path = params.device or disk_path
  if not path:
    raise ValueError(
        f'io phase: {vm.name} has no data disk; give the db vm_group a'
        ' disk_spec or set --cloud_report_fio_device'
    )
  if disk is None or path != disk_path:
    return path, params.mount_point, 'discard'
  options = getattr(disk, 'mount_options', None) or 'discard'
  mount_point = params.mount_point or getattr(disk, 'mount_point', None)
  return path, mount_point, options


def Install(topology) -> None:
  """Installs fio on the first db VM: the OS's or PKB's (see --..._install).

  The data disk is left as it is until Run measures it.
  """
  params = Params.FromFlags()
  vm = topology.first_db
  if FioPath(params, vm) == PKB_FIO:
    vm.Install('fio')
    return
  _, _, rc = vm.RemoteCommandWithReturnCode(
      f'{OS_FIO} --version', ignore_failure=True
  )
  if rc:
    vm.InstallPackages('fio')


def _RunJob(vm, params, fio, target, job, disk_bytes) -> fio_parser.Result:
  """Runs one fio job of the rendered job file; returns its parsed result."""
  if job == FILL_JOB:
    timeout = FillTimeout(params, disk_bytes)
    logging.info(
        'io phase: filling %s:%s (%.0f GB), for at most %d s', vm.name,
        target, disk_bytes / 1e9, timeout,
    )  # fmt: skip
  else:
    timeout = params.runtime_s + params.ramp_time_s + params.timeout_margin_s
    logging.info('io phase: fio job %s on %s:%s', job, vm.name, target)
  try:
    stdout, _ = vm.RobustRemoteCommand(
        commands.FioCommand(fio, target, REMOTE_JOB_FILE, job, timeout),
        timeout=timeout + remote.SSH_MARGIN_S,
    )
  except errors.VirtualMachine.RemoteCommandError as e:
    message = commands.FioFailure(job, f'{vm.name}:{target}', str(e))
    if commands.ExitStatus(str(e)) in remote.TIMED_OUT:
      message += (
          f'; it did not end within {timeout} s and was ended on the VM'
          + (' (--cloud_report_fio_fill_timeout_s)' if job == FILL_JOB
             else ' (runtime + ramp + --cloud_report_fio_timeout_margin_s)')
      )  # fmt: skip
    raise errors.Benchmarks.RunError(message) from e
  return fio_parser.Parse(stdout)


def RunJobs(vm, params: Params, target: str, fio: str) -> list:
  """Renders the job file, runs the fill and reported jobs, returns samples.

  The caller has checked the target with io_guard.
  """
  size_cmd = f'sudo blockdev --getsize64 {shlex.quote(target)}'
  disk_bytes = int(vm.RemoteCommand(size_cmd)[0].strip())
  job_file = RenderJobFile(JobFileContext(params, disk_bytes))
  with tempfile.TemporaryDirectory(prefix='cloud-report-fio-') as tmp:
    local = os.path.join(tmp, REMOTE_JOB_FILE)
    with open(local, 'w', encoding='utf-8') as f:
      f.write(job_file)
    vm.PushFile(local, REMOTE_JOB_FILE)
  metadata = {
      'fio_target': target,
      'fio_disk_bytes': disk_bytes,
      'fio_local_ssd': params.local_ssd,
      'fio_runtime_s': params.runtime_s,
      'fio_ramp_time_s': params.ramp_time_s,
      'fio_fill': params.fill,
      'fio_binary': fio,
  }
  if params.fill:
    _RunJob(vm, params, fio, target, FILL_JOB, disk_bytes)  # never reported
  samples = []
  for job in (j for j in REPORTED_JOBS if j in params.jobs):
    result = _RunJob(vm, params, fio, target, job, disk_bytes)
    samples.extend(io_samples.FromResult(result, metadata))
  return samples


def RunOnVm(vm, params: Params) -> list:
  """The whole phase on one VM: unmount, guard, jobs, restore.

  First ends any fio an earlier attempt of the run left on the VM (a PKB
  killed mid-phase leaves its detached fio writing to the disk).
  """
  leftovers.EndLeftovers([vm], commands.TAG_PREFIX, 'io phase')
  target, mount_point, mount_options = Target(params, vm)
  if params.unmount and mount_point:
    vm.RemoteCommand(commands.UnmountCommand(target, mount_point))
  io_guard.Check(vm, target)
  try:
    return RunJobs(vm, params, target, FioPath(params, vm))
  finally:
    if not params.restore_fs:
      if mount_point:
        logging.warning('io phase: %s left unformatted', target)
    else:
      vm.RemoteCommand(
          commands.MkfsCommand(target, params.fs_type, params.fs_block_size)
      )
      if mount_point:
        vm.RemoteCommand(
            commands.MountCommand(target, mount_point, mount_options)
        )
        disk = topology_lib.DataDisk(vm)
        if disk is not None and topology_lib.DevicePath(disk) == target:
          # Later phases find the database's directory here (as PKB's fio
          # utils.MountDisk does).
          disk.mount_point = mount_point


def Run(topology) -> list:
  return RunOnVm(topology.first_db, Params.FromFlags())


def Cleanup(topology) -> None:
  outputs = ' '.join(
      commands.OutputFile(j) for j in (FILL_JOB,) + REPORTED_JOBS
  )
  topology.first_db.RemoteCommand(
      f'sudo rm -f {REMOTE_JOB_FILE} {outputs}', ignore_failure=True
  )
