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
"""The small fixes of PKB's own modules that open the series.

Each fix is one patch, after the PackageCleanup fix and before the modules
the series adds: a change of a PKB module and of its PKB test file, kept as
a diff against PKB at the pin in edits/<name>.diff.txt (applied with git
apply, which refuses it if PKB's lines moved), the captured outputs its test
reads, and one CHANGES.next.md line. Each touches files no other patch
touches, so each can be merged alone; its tests fail on PKB at the pin
(tests/pkb/test_upstream.py checks that).
"""

import dataclasses
import re

from pkb_ext.upstream import edits

CHANGES_FEATURES = '### New features:'
CHANGES_FIXES = '### Bug fixes and maintenance updates:'


@dataclasses.dataclass(frozen=True)
class Fix:
  """One fix of PKB's own files, as one patch."""

  name: str  # edits/<name>.diff.txt holds its diff
  subject: str
  summary: str  # the commit message's body
  changes: str  # its CHANGES.next.md line
  section: str  # the CHANGES.next.md section of that line
  module: str  # the PKB module it fixes
  test_file: str  # that module's PKB test file, which gains the tests
  tests: tuple[str, ...]  # the new tests (unittest names)
  # PKB path -> path in this repository of a file it adds: a captured output
  # its tests read, or a script the module runs on its VMs and its test
  added: tuple[tuple[str, str], ...] = ()
  # PKB scripts the module runs on its VMs that the diff changes too
  scripts: tuple[str, ...] = ()
  # Other PKB modules the diff moves onto what the fix adds to `module`
  callers: tuple[str, ...] = ()

  def Diff(self) -> str:
    return edits.Read(f'{self.name}.diff.txt')

  def Files(self) -> tuple[str, ...]:
    """The PKB files its diff changes."""
    return tuple(re.findall(r'^diff --git a/(\S+) b/', self.Diff(), re.M))


_FIO_TEST = 'tests.linux_packages.fio_test.FioTestCase'
_NETPERF_TEST = 'tests.linux_packages.netperf_test.NetserverTestCase'
_COREMARK_TEST = (
    'tests.linux_benchmarks.coremark_benchmark_test.CoremarkBenchmarkTest'
)

FIO_PERCENTILES = Fix(
    name='fio_default_percentiles',
    subject='Let fio.ParseResults parse jobs without every latency percentile.',
    summary=(
        'ParseResults indexed 19 latency percentiles, so it raised KeyError'
        ' on the output of a job file without a percentile_list (fio'
        ' reports its default list, which lacks 25 and 75) and of a job'
        ' whose latencies fio did not sample (no "percentile" section). It'
        ' now skips the percentiles fio did not report; output of job files'
        ' that list them all parses as before. The test reads fio 3.33'
        ' output of a random-read job on a loop device.'
    ),
    changes=(
        'Fix fio.ParseResults KeyError (fio, block_storage_workload,'
        ' gluster_fio).'
    ),
    section=CHANGES_FIXES,
    module='perfkitbenchmarker/linux_packages/fio.py',
    test_file='tests/linux_packages/fio_test.py',
    tests=(
        f'{_FIO_TEST}.testParseResultsWithFioDefaultPercentiles',
        f'{_FIO_TEST}.testParseResultsWithoutPercentiles',
    ),
    added=(
        (
            'tests/data/fio/fio-default-percentiles-result.json',
            'tests/data/fio/job_rd-latency.json',
        ),
    ),
)
NETPERF_PIDS = Fix(
    name='netperf_netserver_pids',
    subject='Stop netservers by their PIDs instead of killall netserver.',
    summary=(
        'netperf, netperf_aggregate and bidirectional_network ran `sudo'
        ' killall netserver` on cleanup, which also ended netservers they'
        ' did not start, such as those of another run on a static VM. The'
        ' netperf package now starts netservers (StartNetservers) with -D,'
        ' so each stays in the foreground and $! is its PID, and records'
        ' their PIDs in a file named after the run (NetserverPidFile);'
        ' StopNetservers kills those PIDs only. The three benchmarks start'
        ' and stop their netservers with them.'
    ),
    changes=(
        'netperf, netperf_aggregate, bidirectional_network: stop netservers'
        ' by PID.'
    ),
    section=CHANGES_FIXES,
    module='perfkitbenchmarker/linux_packages/netperf.py',
    test_file='tests/linux_packages/netperf_test.py',
    tests=(
        f'{_NETPERF_TEST}.testStopEndsOnlyTheNetserversOfItsRun',
        f'{_NETPERF_TEST}.testBenchmarksStartAndStopTheirNetserversByPid',
    ),
    callers=(
        'perfkitbenchmarker/linux_benchmarks/netperf_benchmark.py',
        'perfkitbenchmarker/linux_benchmarks/netperf_aggregate_benchmark.py',
        'perfkitbenchmarker/linux_benchmarks/bidirectional_network_benchmark.py',
    ),
)
COREMARK_ITERATIONS = Fix(
    name='coremark_iterations',
    subject='Add a Coremark iteration count flag.',
    summary=(
        '--coremark_iterations_per_cpu sets the ITERATIONS Coremark is built'
        ' with (default 1,000,000, the count PKB used so far; 0 lets'
        ' Coremark pick a count that runs at least 10 seconds, the shortest'
        ' run Coremark reports as valid), and each sample records it. The'
        ' default runs as before. Repeated runs need no flag of their own:'
        ' --run_stage_iterations repeats the Run stage and numbers the'
        ' samples (run_number).'
    ),
    changes="Add --coremark_iterations_per_cpu to set Coremark's iterations.",
    section=CHANGES_FEATURES,
    module='perfkitbenchmarker/linux_benchmarks/coremark_benchmark.py',
    test_file='tests/linux_benchmarks/coremark_benchmark_test.py',
    tests=(
        f'{_COREMARK_TEST}.testIterationsPerCpu',
        f'{_COREMARK_TEST}.testIterationsPerCpuZeroLetsCoremarkPick',
    ),
)
_OBJECT_STORAGE_SCRIPTS = (
    'perfkitbenchmarker/scripts/object_storage_api_test_scripts'
)
_OBJECT_STORAGE_TEST = (
    'tests.linux_benchmarks.object_storage_service_benchmark_test'
    '.TestTimeToFirstByte'
)
OBJECT_STORAGE_TTFB = Fix(
    name='object_storage_ttfb',
    subject='Add a time to first byte scenario to object_storage_service.',
    summary=(
        '--object_storage_scenario=api_ttfb runs the API test script with'
        ' --scenario=TimeToFirstByte: ttfb.py, beside the provider'
        ' interfaces, times PUTs and GETs made through them to the first'
        " byte of the response's body (GET) or to the response (PUT), and"
        ' to completion, on new and on reused connections, and the'
        ' throughput of concurrent ones; it writes one JSON line per'
        ' request. The benchmark turns them into percentile samples (time'
        ' to first byte and total time per direction, connection kind and'
        ' object size; concurrent throughput per concurrency). ttfb.py'
        ' observes the first byte through http.client, which the SDKs of'
        ' all three interfaces use, so no interface changes. Its test times'
        ' requests to a local HTTP server that holds back the first byte'
        ' for known delays.'
    ),
    changes=(
        'Add an api_ttfb object_storage_scenario: time to first byte of'
        ' requests.'
    ),
    section=CHANGES_FEATURES,
    module='perfkitbenchmarker/linux_benchmarks/object_storage_service_benchmark.py',
    test_file='tests/linux_benchmarks/object_storage_service_benchmark_test.py',
    scripts=(f'{_OBJECT_STORAGE_SCRIPTS}/object_storage_api_tests.py',),
    tests=(
        f'{_OBJECT_STORAGE_TEST}.testTimeToFirstByteSamples',
        f'{_OBJECT_STORAGE_TEST}.testTimeToFirstByteAbortRaises',
        f'{_OBJECT_STORAGE_TEST}.testTimeToFirstByteWithoutSuccessRaises',
    ),
    # Where layout maps them (layout.ScriptPaths, layout.ScriptTestPaths).
    added=(
        (
            f'{_OBJECT_STORAGE_SCRIPTS}/ttfb.py',
            'configs/object_storage_api_test_scripts/ttfb.py',
        ),
        (
            'tests/scripts/object_storage_ttfb_test.py',
            'tests/upstream/scripts/object_storage_ttfb_test.py',
        ),
    ),
)
# In series order, after the PackageCleanup fix.
FIXES = (
    FIO_PERCENTILES,
    NETPERF_PIDS,
    COREMARK_ITERATIONS,
    OBJECT_STORAGE_TTFB,
)
# The PKB files they change and add.
MODIFIED = tuple(f for fix in FIXES for f in fix.Files())
ADDED = tuple(dest for fix in FIXES for dest, _ in fix.added)
