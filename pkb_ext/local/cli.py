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
"""pkb-ext local: the local cloud (see docs/local_cloud.md).

  pkb-ext local [--machine-type local-s|local-m|local-l] up
                   [--image debian12|debian13|host] [--reset]
                   [--disk-size GiB] [--prefix P --subnet S --ssh-port N]
  pkb-ext local status [--json]
  pkb-ext local down
  pkb-ext local flags [--preset smoke|report]   PKB flags for this cloud
  pkb-ext local results PKB_JSON --out NDJSON   phase samples + a summary

up, down and status need root. --state-dir (or $PKB_EXT_LOCAL_STATE) picks
the cloud; two clouds need their own state dir, prefix and subnet.
--machine-type caps every host at a local machine type's limits
(pkb_ext/local/machine_types.py); each type's cloud has its own state dir,
prefix and subnet by default, so the types run side by side.
"""

import argparse
import json
import logging
import os
import sys
from typing import Sequence

from pkb_ext import command
from pkb_ext import errors
from pkb_ext.local import cloud
from pkb_ext.local import images
from pkb_ext.local import layout
from pkb_ext.local import machine_types
from pkb_ext.local import system

PROG = 'pkb-ext local'


def BuildParser() -> argparse.ArgumentParser:
  parser = command.ArgumentParser(
      prog=PROG,
      description=(
          'The report topology (db1, db2, db3, client) as network namespaces'
          ' on this machine, for stock pkb.py --static_vm_file.'
      ),
  )
  parser.add_argument(
      '--state-dir',
      help=(
          'where the state file, keys, host directories, disk images and the'
          f' static VM file go (default ${layout.STATE_DIR_ENV} or'
          ' $PKB_EXT_CACHE/local; with --machine-type T, that plus -s, -m'
          ' or -l)'
      ),
  )
  parser.add_argument(
      '--machine-type',
      choices=machine_types.NAMES,
      help=(
          "the cloud of a local machine type: its hosts' CPU time, data"
          " disk IOPS and MB/s, and network capped at the type's limits"
      ),
  )
  parser.add_argument('-v', '--verbose', action='store_true')
  sub = parser.add_subparsers(dest='command', required=True)
  up = sub.add_parser('up', help='build or repair the local cloud (root)')
  env = os.environ.get
  up.add_argument(
      '--disk-size',
      type=float,
      default=float(env('PKB_EXT_LOCAL_DISK_GIB') or layout.DEFAULT_DISK_GIB),
      help=(
          'data disk of each db host, GiB (default %(default)s, or'
          ' $PKB_EXT_LOCAL_DISK_GIB)'
      ),
  )
  up.add_argument(
      '--prefix',
      help=(
          f'names the bridge and namespaces (default {layout.DefaultPrefix()},'
          " or $PKB_EXT_LOCAL_PREFIX; a machine type's own with"
          ' --machine-type)'
      ),
  )
  up.add_argument(
      '--subnet',
      help=(
          'private IPv4 subnet of the hosts (default'
          f' {layout.DefaultSubnet()}, or $PKB_EXT_LOCAL_SUBNET; a machine'
          " type's own with --machine-type)"
      ),
  )
  up.add_argument(
      '--ssh-port',
      type=int,
      default=layout.DEFAULT_SSH_PORT,
      help="port of the hosts' sshd (default %(default)s)",
  )
  up.add_argument(
      '--image',
      default=images.DefaultImage(),
      choices=images.CHOICES,
      help=(
          "the hosts' OS image, built once with mmdebstrap (debian12,"
          " debian13), or host: this machine's software, installs off"
          ' (default %(default)s, or $PKB_EXT_LOCAL_IMAGE)'
      ),
  )
  up.add_argument(
      '--reset',
      action='store_true',
      help='restart every host; on an image, on a fresh layer of its own',
  )
  up.add_argument(
      '--no-minio',
      dest='minio',
      action='store_false',
      help=(
          'do not run the object storage emulators (MinIO, fake-gcs-server,'
          ' Azurite) on the client host'
      ),
  )
  sub.add_parser('down', help='remove everything up made (root)')
  status = sub.add_parser('status', help='show what runs')
  status.add_argument('--json', action='store_true')
  flag_cmd = sub.add_parser(
      'flags', help='print PKB flags (one a line) that run on this cloud'
  )
  flag_cmd.add_argument('--preset', default='smoke')
  flag_cmd.add_argument(
      '--object-storage',
      default='s3',
      choices=('s3', 'gcs', 'azure'),
      help=(
          'which emulator the object storage phase uses: s3 (MinIO), gcs'
          ' (fake-gcs-server) or azure (Azurite); default %(default)s'
      ),
  )
  flag_cmd.add_argument(
      '--spool-dir',
      help=(
          "spool samples here, not in PKB's run directory"
          ' (--cloud_report_spool_dir)'
      ),
  )
  flag_cmd.add_argument(
      '--for-matrix',
      action='store_true',
      help=(
          'leave out the static VM file and machine type, which a matrix'
          ' file (configs/machines/local.yaml) sets per configuration'
      ),
  )
  results = sub.add_parser(
      'results', help="turn PKB's --json_path output into phase NDJSON"
  )
  results.add_argument(
      'inputs', nargs='+', help="PKB's --json_path file or pkb_ext spools"
  )
  results.add_argument('--out', required=True, help='NDJSON to write')
  results.add_argument(
      '--expect',
      default='',
      help='comma-separated phases that must have samples',
  )
  return parser


def _PrintStatus(report: dict) -> None:
  print(
      f'state dir: {report["state_dir"]} ({"up" if report["up"] else "down"})'
  )
  print(f'bridge: {report["bridge"] or "absent"}')
  print(f'image: {report["image"]}')
  if report.get('machine_type'):
    print(f'machine type: {report["machine_type"]}')
  if report['static_vm_file']:
    print(f'static VM file: {report["static_vm_file"]}')
  for kind, address in (('services', 'endpoint'), ('mirrors', 'url')):
    for name, svc in report.get(kind, {}).items():
      alive = 'alive' if svc['alive'] else 'NOT RUNNING'
      print(f'{kind[:-1]} {name}: {svc[address]} (pid {svc["pid"]} {alive})')
  for h in report['hosts']:
    sshd = 'no sshd'
    if h['sshd_pid']:
      sshd = f'sshd {h["sshd_pid"]} ' + (
          'alive' if h['sshd_alive'] else 'NOT RUNNING'
      )
    disk = ''
    if h['disk']:
      disk = f', disk {h["disk"]}' + (
          ' (direct-io)' if h['disk_direct_io'] else ' (NO direct-io)'
      )
      if not h['disk_ok']:
        disk += ' NOT BACKED BY ITS IMAGE'
    print(
        f'{h["name"]:7} {h["ip"]:15} netns '
        f'{"yes" if h["netns"] else "no"}, {sshd}{disk}'
    )
    for name, value in sorted(h.get('limits', {}).items()):
      print(f'          limit {name}: {value}')
    for p in h['processes']:
      if p['pid'] != h['sshd_pid']:
        print(f'          {p["pid"]:>7} {p["comm"]:15} {p["cmdline"]}')


def _Flags(
    state_dir: str,
    preset: str,
    spool_dir: str | None,
    provider: str = 's3',
    vms: bool = True,
) -> int:
  from pkb_ext.local import presets  # pylint: disable=g-import-not-at-top

  plan = layout.Plan(state_dir=state_dir)
  if not os.path.exists(plan.state_file):
    raise system.LocalCloudError(
        f'no local cloud at {state_dir}: run `pkb-ext local up` first'
    )
  try:
    chosen = presets.PresetFlags(preset)
  except ValueError as e:
    raise errors.UsageError(str(e)) from e
  state = cloud.LoadState(plan)
  out = presets.LocalCloudFlags(state, provider, vms) + chosen
  if spool_dir:
    out += presets.SpoolFlags(spool_dir)
  for flag in out:
    print(flag)
  return 0


def _Resolve(args) -> None:
  """Fills the options a machine type gives defaults to."""
  mtype = machine_types.Get(args.machine_type) if args.machine_type else None
  if not args.state_dir:
    args.state_dir = (
        layout.MachineTypeStateDir(mtype.name)
        if mtype
        else layout.DefaultStateDir()
    )
  if args.command == 'up':
    args.prefix = args.prefix or (mtype.prefix if mtype else None)
    args.prefix = args.prefix or layout.DefaultPrefix()
    args.subnet = args.subnet or (mtype.subnet if mtype else None)
    args.subnet = args.subnet or layout.DefaultSubnet()


def _Command(args) -> int:
  """Runs the parsed subcommand."""
  _Resolve(args)
  if args.command == 'status':
    report = cloud.Status(cloud.PlanOf(args.state_dir))
    if args.json:
      print(json.dumps(report, indent=1))
    else:
      _PrintStatus(report)
    return 0
  if args.command == 'down':
    cloud.Down(cloud.PlanOf(args.state_dir))
    return 0
  if args.command == 'flags':
    return _Flags(
        args.state_dir,
        args.preset,
        args.spool_dir,
        args.object_storage,
        vms=not args.for_matrix,
    )
  if args.command == 'results':
    from pkb_ext.local import results  # pylint: disable=g-import-not-at-top

    return results.Main(
        args.inputs, args.out, [p for p in args.expect.split(',') if p]
    )
  try:
    plan = layout.Plan(
        state_dir=args.state_dir,
        prefix=args.prefix,
        subnet=args.subnet,
        ssh_port=args.ssh_port,
        disk_gib=args.disk_size,
        image=args.image,
        machine_type=args.machine_type or '',
    )
  except ValueError as e:  # an option's value the layout cannot use
    raise errors.UsageError(str(e)) from e
  cloud.Up(plan, minio=args.minio, reset=args.reset)
  return 0


def _Local(argv: Sequence[str]) -> int:
  args = BuildParser().parse_args(argv)
  logging.basicConfig(
      level=logging.DEBUG if args.verbose else logging.INFO,
      format='[local] %(message)s',
      stream=sys.stderr,
  )
  # What a subcommand refuses is reported as its own: pkb-ext local up.
  return command.Run(f'{PROG} {args.command}', lambda _: _Command(args), [])


def Main(argv: Sequence[str]) -> int:
  return command.Run(PROG, _Local, argv)
