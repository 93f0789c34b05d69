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
"""PKB flags for running cloud_report_2021 on the local cloud.

Presets:
  report  the report's durations and counts (every flag at its default);
  smoke   a few minutes for the whole suite: each phase's timed parts cut
          to seconds, to show that everything runs end to end for real.

A flag is passed only if a phase defines it.
"""

from absl import flags

from pkb_ext.suite import phase_modules
from pkb_ext import coremark  # pylint: disable=unused-import
from pkb_ext import local
from pkb_ext import netperf
from pkb_ext import object_storage_endpoints  # pylint: disable=unused-import
from pkb_ext.local import images
from pkb_ext.publish import publisher  # pylint: disable=unused-import
from pkb_ext.tpcc_postgres import engine  # pylint: disable=unused-import

PRESETS = ('smoke', 'report')

# Flags of every phase, cut for the smoke preset. Values are strings as on
# the command line.
SMOKE = {
    # cpu: CoreMark (report: 10 runs single-core, 10 all-core)
    'cloud_report_coremark_runs': '1',
    # io: fio (report: 2 min per job, 2 s ramp)
    'cloud_report_fio_runtime_s': '5',
    'cloud_report_fio_ramp_time_s': '1',
    'cloud_report_fio_timeout_margin_s': '120',
    # net: netperf (report: 60 s per test)
    'cloud_report_netperf_duration_s': '5',
    'cloud_report_netperf_confidence_iterations': '3,3',
    # object_storage (report: 1,000 TTFB requests, 100 downloads per size)
    'cloud_report_object_storage_latency_requests': '20',
    'cloud_report_object_storage_downloads_per_size': '3',
    'cloud_report_object_storage_sizes': '16KiB,1MiB,32MiB',
    'cloud_report_object_storage_concurrency': '1,5',
    'cloud_report_object_storage_concurrency_rounds': '1',
    'cloud_report_object_storage_concurrency_object_size': '1MiB',
    # tpcc (report: 30 min per step, 1 min ramp, from 2,500 warehouses)
    'cloud_report_tpcc_start_warehouses': '1',
    'cloud_report_tpcc_step_warehouses': '1',
    'cloud_report_tpcc_max_warehouses': '3',  # 3 judged steps: 1, 2, 3
    'cloud_report_tpcc_gotpc_load_check': 'false',
    'cloud_report_tpcc_load_timeout': '15m',
    'cloud_report_tpcc_postgres_options': (
        'fsync=off,synchronous_commit=off,full_page_writes=off'
    ),
    'cloud_report_tpcc_duration': '20s',
    'cloud_report_tpcc_ramp': '2s',
    'cloud_report_tpcc_gotpc_threads_per_warehouse': '2',
    'cloud_report_tpcc_gotpc_interval': '5s',
}


def _Defined(values: dict[str, str]) -> list[str]:
  """--name=value of each; a name no imported module defines is an error
  (dropping it would run the phase at its cloud default)."""
  missing = sorted(k for k in values if k not in flags.FLAGS)
  if missing:
    raise ValueError(f'local cloud flags no module defines: {missing}')
  return [f'--{k}={v}' for k, v in values.items()]


def PresetFlags(preset: str) -> list[str]:
  """Returns --name=value for the preset's flags.

  Args:
    preset: one of PRESETS.

  Raises:
    ValueError: for an unknown preset.
  """
  if preset not in PRESETS:
    raise ValueError(f'--preset {preset!r}: choose from {", ".join(PRESETS)}')
  if preset == 'report':
    return []
  phase_modules.LoadAll()  # its import defined the phases' flags
  return _Defined(SMOKE)


def LocalCloudFlags(
    state: dict, provider: str = 's3', vms: bool = True
) -> list[str]:
  """Returns the flags that point PKB and the phases at the local cloud.

  Args:
    state: the local cloud's state.
    provider: the object storage emulator the phase uses: s3 (MinIO), gcs
      (fake-gcs-server) or azure (Azurite).
    vms: name the cloud's static VM file and machine type; False for a
      matrix file that sets them per configuration (on the command line
      they would win over the file's).

  Raises:
    ValueError: the local cloud does not run that provider's emulator.
  """
  from pkb_ext.local import services  # pylint: disable=g-import-not-at-top

  phase_modules.LoadAll()  # its import defined the phases' flags
  out = []
  machine_type = state.get('plan', {}).get('machine_type')
  if vms:
    out.append(f'--static_vm_file={state["static_vm_file"]}')
    if machine_type:  # PKB gives it to the static VMs; the samples name it
      out.append(f'--machine_type={machine_type}')
  # What differs from a cloud VM's installs (docs/local_cloud.md): the OS's
  # fio and netperf (PKB builds them from GitHub, which the hosts cannot
  # reach; CoreMark comes from the data path's tarball), and PostgreSQL
  # (CockroachDB cannot be installed here). On an
  # image, PKB pushes go-tpc from its data path; on this machine's software
  # the hosts run the setup cache's.
  tools = {
      'cloud_report_coremark_install': coremark.INSTALL_DATA,
      'cloud_report_fio_install': 'os',
      'cloud_report_netperf_install': netperf.INSTALL_DISTRO,
      'cloud_report_tpcc_engine': 'postgres',
  }
  if state.get('plan', {}).get('image', images.HOST_IMAGE) == images.HOST_IMAGE:
    tools['cloud_report_go_tpc_path'] = local.BinaryPath('go-tpc')
  out += _Defined(tools)
  running = state.get('services', {})
  if provider not in services.BY_PROVIDER:
    raise ValueError(f'unknown object storage provider {provider!r}')
  name = services.BY_PROVIDER[provider].name
  if running and name not in running:
    raise ValueError(
        f'the local cloud runs no {name} ({provider}): see `pkb-ext local'
        ' up` and scripts/setup.d/55-object-storage-emulators.sh'
    )
  object_storage = state.get('object_storage') or {}
  if name in running:
    # Keys stay in the credentials file: PKB logs every flag value.
    candidates = {
        'cloud_report_object_storage_provider': provider,
        'cloud_report_object_storage_endpoint': running[name]['endpoint'],
        'cloud_report_object_storage_credentials_file': object_storage.get(
            'credentials_file'
        ),
        'cloud_report_object_storage_python': object_storage.get('python'),
    }
    out += _Defined({k: v for k, v in candidates.items() if v})
  return out


def SpoolFlags(spool_dir: str) -> list[str]:
  """Spools samples, with typed metadata, into spool_dir."""
  return [f'--cloud_report_spool_dir={spool_dir}']
