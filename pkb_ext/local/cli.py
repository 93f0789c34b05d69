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
"""pkb-ext local up|down|status: the local cloud (see docs/local_cloud.md)."""

import argparse
import json
import logging
import sys

from pkb_ext.local import cloud
from pkb_ext.local import layout
from pkb_ext.local import system


def BuildParser() -> argparse.ArgumentParser:
  parser = argparse.ArgumentParser(
      prog='pkb-ext local',
      description=(
          'The report topology (db1, db2, db3, client) as network namespaces'
          ' on this machine, for stock pkb.py --static_vm_file. Needs root.'
      ),
  )
  parser.add_argument(
      '--state-dir',
      default=layout.DefaultStateDir(),
      help=(
          'where the state file, keys, host directories, disk images and the'
          f' static VM file go (default ${layout.STATE_DIR_ENV} or'
          ' $PKB_EXT_CACHE/local)'
      ),
  )
  parser.add_argument('-v', '--verbose', action='store_true')
  sub = parser.add_subparsers(dest='command', required=True)
  up = sub.add_parser('up', help='build or repair the local cloud')
  up.add_argument(
      '--disk-size',
      type=float,
      default=layout.DEFAULT_DISK_GIB,
      help='data disk size of each db host, GiB (default %(default)s)',
  )
  up.add_argument('--subnet', default=layout.DEFAULT_SUBNET)
  up.add_argument('--ssh-port', type=int, default=layout.DEFAULT_SSH_PORT)
  up.add_argument(
      '--print-static-vm-file',
      action='store_true',
      help='print only the static VM file path on stdout',
  )
  sub.add_parser('down', help='remove everything up made')
  status = sub.add_parser('status', help='show what runs')
  status.add_argument('--json', action='store_true')
  return parser


def _PrintStatus(report: dict) -> None:
  print(
      f'state dir: {report["state_dir"]} ({"up" if report["up"] else "down"})'
  )
  print(
      f'bridge {layout.BRIDGE}: {"present" if report["bridge"] else "absent"}'
  )
  if report['static_vm_file']:
    print(f'static VM file: {report["static_vm_file"]}')
  for h in report['hosts']:
    sshd = (
        f'sshd {h["sshd_pid"]} '
        + ('alive' if h['sshd_alive'] else 'NOT RUNNING')
        if h['sshd_pid']
        else 'no sshd'
    )
    disk = ''
    if h['disk']:
      disk = f', disk {h["disk"]}' + (
          ' (direct-io)' if h['disk_direct_io'] else ' (NO direct-io)'
      )
      if not h['disk_ok']:
        disk += ' MISSING'
    print(
        f'{h["name"]:7} {h["ip"]:15} netns '
        f'{"yes" if h["netns"] else "no"}, {sshd}{disk}'
    )
    for p in h['processes']:
      if p['pid'] != h['sshd_pid']:
        print(f'          {p["pid"]:>7} {p["comm"]:15} {p["cmdline"]}')


def Main(argv: list[str]) -> int:
  args = BuildParser().parse_args(argv)
  logging.basicConfig(
      level=logging.DEBUG if args.verbose else logging.INFO,
      format='[local] %(message)s',
      stream=sys.stderr,
  )
  try:
    if args.command == 'status':
      plan = layout.Plan(state_dir=args.state_dir)
      report = cloud.Status(plan)
      if args.json:
        print(json.dumps(report, indent=1))
      else:
        _PrintStatus(report)
      return 0
    if args.command == 'down':
      cloud.Down(layout.Plan(state_dir=args.state_dir), log=_Log)
      return 0
    plan = layout.Plan(
        state_dir=args.state_dir,
        subnet=args.subnet,
        ssh_port=args.ssh_port,
        disk_gib=args.disk_size,
    )
    log = _Log if args.print_static_vm_file else print
    state = cloud.Up(plan, log=log)
    if args.print_static_vm_file:
      print(state['static_vm_file'])
    return 0
  except (system.LocalCloudError, ValueError) as e:
    print(f'pkb-ext local {args.command}: {e}', file=sys.stderr)
    return 1


def _Log(line: str) -> None:
  print(line, file=sys.stderr)
