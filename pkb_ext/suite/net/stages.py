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
"""The net phase: netperf TCP_RR latency and TCP_STREAM throughput.

netperf is PKB's `netperf` package (vm.Install('netperf'): netperf 2.7.0
built from its tarball), run at PKB's NETPERF_PATH and NETSERVER_PATH.

As the report: netperf 2.6+ between two nodes of one zone over internal IPs,
one netperf process on the client VM against a netserver on the first db VM
(under the suite's overlap, the second: see phases), 60 s per iteration with
`-I 99,5`:

- TCP_RR with the report's output selectors (min, mean, P90, P99, max and
  stddev latency, transaction rate) plus P50 and the columns PKB's netperf
  parser reads;
- TCP_STREAM (an omni send test), one stream; optionally N concurrent
  netperf processes whose throughputs are summed.

With -I netperf repeats each test 3 to 10 times (-i 10,3, netperf's default
with -I) until the interval is met, so a 60 s test takes 3 to 10 minutes.
The output selectors also ask for netperf's confidence result, which only
netperf's classic tables would otherwise warn about. netperf prints them as
-o CSV, which PKB's netperf_benchmark.ParseNetperfOutput reads (see
net/parser.py). The report saw bimodal
throughput, so --cloud_report_netperf_repetitions repeats the tests and the
samples say whether the repetitions look bimodal.

netserver is started on --cloud_report_netperf_control_port, its PID kept in a
pidfile on the server, and it is stopped by that PID and no other (PKB's
netperf benchmark at the pin runs `killall netserver` in its cleanup, so its
PrepareServerVM and Cleanup are not used here until the series' patch
"Stop netperf's netservers by their PIDs" is in PKB; this phase never runs
killall).
"""

import dataclasses
import logging
import re

from absl import flags
from perfkitbenchmarker import errors
from perfkitbenchmarker.linux_packages import netperf as pkb_netperf

from benchmarks.cloud_report import parsers
from pkb_ext.suite import phase_table
from pkb_ext.suite import phases
from benchmarks.cloud_report import settings
from pkb_ext.suite.net import netserver
from pkb_ext.suite.net import parser as netperf_parser
from pkb_ext.suite.net import samples as net_samples

PHASE = phase_table.NET.sample
# The phase's parser and samples modules (phase_modules pairs them).
PARSER = netperf_parser
SAMPLES = net_samples
TESTS = ('TCP_RR', 'TCP_STREAM')
# The report's TCP_RR selectors, spelled as its script did, plus P50.
REPORT_RR_SELECTORS = (
    'min_latency', 'mean_latency', 'P50_LATENCY', 'P90_LATENCY',
    'P99_LATENCY', 'max_latency', 'stddev_latency', 'transaction_rate',
)  # fmt: skip
CONFIDENCE_SELECTORS = (
    'CONFIDENCE_LEVEL', 'CONFIDENCE_INTERVAL', 'CONFIDENCE_ITERATION',
    'THROUGHPUT_CONFID',
)  # fmt: skip
COMMON_SELECTORS = (
    'THROUGHPUT', 'THROUGHPUT_UNITS', 'ELAPSED_TIME', 'PROTOCOL', 'DIRECTION',
    'LOCAL_TRANSPORT_RETRANS', 'REMOTE_TRANSPORT_RETRANS',
)  # fmt: skip
SELECTORS = {
    'TCP_RR': (
        REPORT_RR_SELECTORS
        + CONFIDENCE_SELECTORS
        + COMMON_SELECTORS
        + ('REQUEST_SIZE', 'RESPONSE_SIZE', 'TRANSPORT_MSS')
    ),
    'TCP_STREAM': (
        CONFIDENCE_SELECTORS
        + COMMON_SELECTORS
        + ('LOCAL_SEND_SIZE', 'REMOTE_RECV_SIZE', 'TRANSPORT_MSS')
    ),
}
_BINARIES_ATTR = 'cloud_report_netperf_binaries'
PACKAGE = 'netperf'  # PKB's netperf package


@dataclasses.dataclass(frozen=True)
class Binaries:
  """Where netperf is on a VM, and its version."""

  netperf: str
  netserver: str
  version: str  # e.g. 2.7.0


def RequiredSelectors(test: str) -> list[str]:
  """The selectors the phase asks netperf for in `test`, upper case.

  The parser requires them all, so output cut at a line boundary fails.

  Raises:
    KeyError: `test` is not one of TESTS.
  """
  return [s.upper() for s in SELECTORS[test]]


def ArchivedRequiredSelectors(text: str) -> list[str]:
  """The selectors the phase would require of an archived netperf output.

  A cut -o output shows itself (a row or value missing); every selector
  the phase asks for in its test must be there, as in the phase's Run.

  Raises:
    parsers.ParseError: output of a test the phase does not run.
  """
  result = netperf_parser.Parse(text)
  if result.test not in TESTS:
    raise parsers.ParseError(
        f'netperf test {result.test!r} is not one the net phase runs'
        f' ({", ".join(TESTS)}): its PROTOCOL/DIRECTION or banner say'
        ' another'
    )
  return RequiredSelectors(result.test)


_CONFIDENCE = re.compile(r'^(95|99),(\d+(?:\.\d+)?)$')
_ITERATIONS = re.compile(r'^(\d+),(\d+)$')


def _CheckConfidence(value: str) -> bool:
  if value not in ('off', '') and not _CONFIDENCE.match(value):
    raise flags.ValidationError(
        f'--cloud_report_netperf_confidence: got {value!r}; give LEVEL,WIDTH'
        ' with LEVEL 95 or 99 (e.g. 99,5) or "off"'
    )
  if _CONFIDENCE.match(value) and float(value.split(',')[1]) <= 0:
    raise flags.ValidationError(
        '--cloud_report_netperf_confidence: the width must be > 0'
    )
  return True


def _CheckIterations(value: str) -> bool:
  m = _ITERATIONS.match(value)
  if not m or not 3 <= int(m.group(2)) <= int(m.group(1)) <= 30:
    raise flags.ValidationError(
        f'--cloud_report_netperf_confidence_iterations: got {value!r}; give'
        ' MAX,MIN with 3 <= MIN <= MAX <= 30 (netperf caps and floors them)'
    )
  return True


def _CheckTests(values) -> bool:
  if not values or set(values) - set(TESTS) or len(set(values)) != len(values):
    raise flags.ValidationError(
        f'--cloud_report_netperf_tests: got {",".join(values) or "none"};'
        f' give one or both of {",".join(TESTS)}, each once'
    )
  return True


def _CheckStreams(values) -> bool:
  if not values or not all(v.isdigit() and int(v) >= 1 for v in values):
    raise flags.ValidationError(
        f'--cloud_report_netperf_streams: got {",".join(values) or "none"};'
        ' give positive integers'
    )
  return True


def _CheckPorts(values) -> bool:
  control = values['cloud_report_netperf_control_port']
  first = values['cloud_report_netperf_data_port']
  streams = values['cloud_report_netperf_streams']
  last = first + max((int(s) for s in streams if s.isdigit()), default=1) - 1
  if last > 65535 or first <= control <= last:
    raise flags.ValidationError(
        f'--cloud_report_netperf_data_port: data ports {first}..{last} must'
        ' stay below 65536 and not include --cloud_report_netperf_control_port'
        f' {control}'
    )
  return True


@settings.Define
@dataclasses.dataclass(frozen=True)
class Params:
  """The net phase's settings; each default is its flag's (the report's)."""

  duration_s: int = settings.Integer(
      'cloud_report_netperf_duration_s',
      60,
      'Seconds per netperf iteration (netperf -l); the report used 60.',
      lower_bound=1,
  )
  # netperf -I; 'off' (or an empty flag) for none
  confidence: str = settings.String(
      'cloud_report_netperf_confidence',
      '99,5',
      'netperf -I LEVEL,WIDTH: LEVEL 95 or 99 %, WIDTH the full interval'
      " width in % (99,5 = 99% confident within +/-2.5%, the report's);"
      ' "off" runs one iteration without confidence intervals.',
      convert=lambda value: value or 'off',
      validator=_CheckConfidence,
  )
  # netperf -i MAX,MIN
  confidence_iterations: str = settings.String(
      'cloud_report_netperf_confidence_iterations',
      '10,3',
      'netperf -i MAX,MIN iterations with confidence intervals; 10,3 is what'
      ' netperf uses for -I alone. 3 <= MIN <= MAX <= 30.',
      validator=_CheckIterations,
  )
  repetitions: int = settings.Integer(
      'cloud_report_netperf_repetitions',
      1,
      'Times to repeat every netperf test (the report re-ran suspicious'
      " machines 10 times). Samples carry bimodal (Sarle's coefficient >"
      ' 5/9) from 4 repetitions; an even split of two modes is only flagged'
      ' from about 10.',
      lower_bound=1,
  )
  # Run in TESTS' order, whatever the flag's.
  tests: tuple[str, ...] = settings.List(
      'cloud_report_netperf_tests',
      list(TESTS),
      f'netperf tests to run, from {",".join(TESTS)}.',
      convert=settings.InOrderOf(TESTS),
      validator=_CheckTests,
  )
  streams: tuple[int, ...] = settings.List(
      'cloud_report_netperf_streams',
      ['1'],
      'Concurrent TCP_STREAM netperf processes, one run per value (e.g.'
      ' 1,8); their throughputs are summed. The report ran 1.',
      convert=settings.TupleOf(int),
      validator=_CheckStreams,
  )
  control_port: int = settings.Integer(
      'cloud_report_netperf_control_port',
      20000,
      "Port of the phase's own netserver (netserver -p, netperf -p).",
      lower_bound=1,
      upper_bound=65535,
  )
  data_port: int = settings.Integer(
      'cloud_report_netperf_data_port',
      20001,
      'Remote data port of the first stream (netperf -P ,PORT); stream i'
      ' uses PORT + i.',
      lower_bound=1,
      upper_bound=65535,
  )

  @classmethod
  def FromFlags(cls) -> 'Params':
    return settings.FromFlags(cls)

  @property
  def max_iterations(self) -> int:
    if self.confidence == 'off':
      return 1
    return int(self.confidence_iterations.split(',', maxsplit=1)[0])

  def Timeout(self, test: str) -> int:
    """Seconds one netperf run may take: every iteration plus slack."""
    del test
    return self.duration_s * self.max_iterations + 300

  def RunsOf(self, test: str) -> tuple[int, ...]:
    """The stream counts a test runs with (TCP_RR is one process)."""
    return self.streams if test == 'TCP_STREAM' else (1,)


flags.register_multi_flags_validator(
    [
        'cloud_report_netperf_control_port',
        'cloud_report_netperf_data_port',
        'cloud_report_netperf_streams',
    ],
    _CheckPorts,
)

# --- Commands (pure). ---


def NetperfCommand(
    netperf: str, server_ip: str, test: str, params: Params, stream: int = 0
) -> str:
  """One netperf run of `test` against the phase's netserver."""
  if test not in TESTS:
    raise ValueError(f'unknown netperf test {test!r}; expected {TESTS}')
  parts = [
      netperf,
      f'-H {server_ip}',
      f'-p {params.control_port}',
      f'-t {test}',
      f'-l {params.duration_s}',
  ]
  if params.confidence != 'off':
    parts += [f'-I {params.confidence}', f'-i {params.confidence_iterations}']
  if test == 'TCP_STREAM':
    parts.append('-f m')  # 10^6 bits/s
  parts += [
      '--',
      f'-P ,{params.data_port + stream}',
      '-o',  # CSV, the output PKB's ParseNetperfOutput reads
      ','.join(SELECTORS[test]),
  ]
  return ' '.join(parts)


def StartNetserver(vm, binaries: Binaries, port: int) -> int:
  """Starts the phase's netserver on `vm`; returns its PID."""
  stdout, _ = vm.RemoteCommand(
      netserver.StartNetserverCommand(binaries.netserver, port)
  )
  pid = int(stdout.split()[-1])
  logging.info('cloud_report net: netserver on %s port %d: PID %d', vm.name,
               port, pid)  # fmt: skip
  return pid


def StopNetserver(vm, port: int, remove_work_dir: bool = False) -> str:
  """Stops the phase's netserver by its recorded PID; returns what it did.

  With remove_work_dir the same command then removes netserver.WORK_DIR.
  """
  command = netserver.StopNetserverCommand(port)
  if remove_work_dir:
    command += f'; rm -rf {netserver.WORK_DIR}'
  stdout, _ = vm.RemoteCommand(command, ignore_failure=True)
  logging.info('cloud_report net: netserver on %s port %d: %s', vm.name, port,
               stdout.strip() or 'none recorded')  # fmt: skip
  return stdout.strip()


def _Metadata(client, server, binaries, params, test, streams, command):
  return {
      'netperf_test': test,
      'netperf_version': binaries.version,
      'netperf_command': command,
      'streams': streams,
      'duration_s': params.duration_s,
      'confidence': params.confidence,
      'confidence_iterations_requested': (
          params.confidence_iterations if params.confidence != 'off' else '1'
      ),
      'repetitions': params.repetitions,
      'sending_vm': client.name,
      'receiving_vm': server.name,
      'sending_machine_type': str(client.machine_type),
      'receiving_machine_type': str(server.machine_type),
      'server_ip': server.internal_ip,
      'control_port': params.control_port,
      'data_port': params.data_port,
  }


def RunTest(client, server, binaries, params, test, streams, iteration):
  """Runs one test (with `streams` concurrent processes); returns samples."""
  commands = [
      NetperfCommand(binaries.netperf, server.internal_ip, test, params, i)
      for i in range(streams)
  ]
  required = RequiredSelectors(test)
  md = _Metadata(client, server, binaries, params, test, streams, commands[0])
  timeout = params.Timeout(test)
  if streams == 1:
    stdout, _ = client.RemoteCommand(commands[0], timeout=timeout)
    outputs = [(0, stdout)]
  else:
    stdout, _ = client.RemoteCommand(
        netserver.ConcurrentCommand(commands), timeout=timeout
    )
    outputs = netserver.SplitConcurrent(stdout, streams)
  results = []
  for i, (rc, out) in enumerate(outputs):
    try:
      if rc:
        raise netperf_parser.ParseError(f'exit code {rc}')
      results.append(netperf_parser.Parse(out, required=required))
    except netperf_parser.ParseError as e:
      raise errors.Benchmarks.RunError(
          f'netperf {test} stream {i} from {client.name} to {server.name}'
          f' failed: {e}; output: {out[:1000]!r}'
      ) from e
  for r in results:
    if r.warnings:
      logging.warning('cloud_report net: netperf warned: %s', r.warnings)
  return net_samples.FromStreams(results, md, iteration)


def Locate(vm) -> Binaries:
  """PKB's netperf and netserver on `vm`, with netperf's version.

  Raises:
    errors.Setup.InvalidSetupError: either is missing, or `netperf -V` names
      no version.
  """
  netperf, netserver_path = pkb_netperf.NETPERF_PATH, pkb_netperf.NETSERVER_PATH
  stdout, _ = vm.RemoteCommand(
      f'test -x {netserver_path} && {netperf} -V', ignore_failure=True
  )
  version = netperf_parser.ParseVersion(stdout)
  if version is None:
    raise errors.Setup.InvalidSetupError(
        f'no netperf at {netperf} or no netserver at {netserver_path} on'
        f" {vm.name} (`netperf -V` said {stdout.strip()[:200]!r}): PKB's"
        ' netperf package installs them; was the net phase prepared?'
    )
  return Binaries(netperf, netserver_path, '.'.join(map(str, version)))


def _Binaries(vm) -> Binaries:
  """The netperf Prepare found on vm (kept on the VM), else Locate's."""
  found = getattr(vm, _BINARIES_ATTR, None)
  if isinstance(found, Binaries):
    return found
  return Locate(vm)


def RunPair(client, server, params: Params) -> list:
  """Runs every test and repetition from `client` to `server`'s netserver."""
  client_bin = _Binaries(client)
  server_bin = _Binaries(server)
  StartNetserver(server, server_bin, params.control_port)
  out = []
  try:
    for iteration in range(1, params.repetitions + 1):
      for test in params.tests:
        for streams in params.RunsOf(test):
          logging.info(
              'cloud_report net: %s x%d, repetition %d/%d', test, streams,
              iteration, params.repetitions,
          )  # fmt: skip
          out.extend(
              RunTest(
                  client, server, client_bin, params, test, streams, iteration
              )
          )
  finally:
    StopNetserver(server, params.control_port)
  net_samples.FlagBimodality(out)
  return out


def Install(topology: phases.Topology) -> None:
  """Installs PKB's netperf on the phase's db VM and the client.

  No netserver runs until Run. vm.Install() does nothing on a host whose
  install_packages is False: netperf must be at PKB's paths already.
  """
  client = topology.RequireClient(PHASE)
  for vm in (topology.DbFor(PHASE), client):
    vm.Install(PACKAGE)
    binaries = Locate(vm)
    setattr(vm, _BINARIES_ATTR, binaries)  # Run needs no second probe
    logging.info('cloud_report net: %s: netperf %s at %s', vm.name,
                 binaries.version, binaries.netperf)  # fmt: skip


def Run(topology: phases.Topology) -> list:
  return RunPair(
      topology.RequireClient(PHASE), topology.DbFor(PHASE), Params.FromFlags()
  )


def Cleanup(topology: phases.Topology) -> None:
  """Stops a netserver a failed Run left (by PID) and removes our files."""
  server = topology.DbFor(PHASE)
  StopNetserver(server, Params.FromFlags().control_port, remove_work_dir=True)
