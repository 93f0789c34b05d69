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
"""pkb-ext plan on real PKB flag parsing, matrices and price tables."""

import contextlib
import dataclasses
import datetime
import io
import itertools
import os
import re
import shlex
import subprocess
import sys
import tempfile
from unittest import mock

from absl import flags
from absl.testing import flagsaver
from absl.testing import parameterized

from benchmarks.cloud_report import timeouts
from benchmarks.cloud_report.tpcc import stepping
from linux_packages import cloud_report_cockroachdb as cockroachdb
from pkb_ext import errors
from pkb_ext import paths
from pkb_ext.plan import cli as plan_cli
from pkb_ext.plan import configurations
from pkb_ext.plan import errors as plan_errors
from pkb_ext.plan import estimates
from pkb_ext.plan import model
from pkb_ext.plan import pkb_config
from pkb_ext.plan import render
from pkb_ext.plan.phase_estimates import cpu as cpu_estimate
from pkb_ext.plan.phase_estimates import tpcc as tpcc_estimate
from pkb_ext import pricing
from pkb_ext_dev import pkb_tests

pkb_common_test_case = pkb_tests.Import('pkb_common_test_case')

FLAGS = flags.FLAGS
ROOT = paths.RepoRoot()
AWS_GP2 = [
    '--benchmark_config_file=configs/machines/aws.yaml',
    '--flag_matrix=gp2',
]
_CONFIG = re.compile(r'^configuration (\d+)/(\d+): cloud_report_2021 (.*)$')
_TOTAL = re.compile(
    r'^  total   (\d+)h(\d\d)m wall .*, (\d+) VMs, ([\d.]+) VM-hours,'
    r' \$([\d,.]+) \(us-east-1 prices as of 2020-11-15\)$'
)
_GRAND = re.compile(
    r'^TOTAL   (\d+) configuration\(s\), (\d+) VMs, ([\d.]+) VM-hours,'
    r' \$([\d,.]+) \(us-east-1 prices as of 2020-11-15\), .* wall in series$'
)


def _Dollars(text):
  return float(text.replace(',', ''))


def _Matrix(cloud, matrix):
  return [
      '--benchmark_config_file='
      + os.path.join(ROOT, 'configs', 'machines', f'{cloud}.yaml'),
      f'--flag_matrix={matrix}',
  ]


def _RunMain(argv):
  """plan_cli.Main in this process: (exit status, stdout, stderr)."""
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    status = plan_cli.Main(argv)
  return status, out.getvalue(), err.getvalue()


def _RunCommand(args, cwd=ROOT, timeout=120):
  return subprocess.run(
      [sys.executable, '-m', 'pkb_ext.cli', 'plan'] + args,
      cwd=cwd,
      capture_output=True,
      text=True,
      timeout=timeout,
      check=False,
  )


class PlanCommandTest(pkb_common_test_case.PkbCommonTestCase):

  def testAwsGp2MatrixPrintsTwelveConfigurationsAndTheTotal(self):
    proc = subprocess.run(
        [sys.executable, '-m', 'pkb_ext.cli', 'plan'] + AWS_GP2,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = proc.stdout.splitlines()
    headers = [m for m in map(_CONFIG.match, lines) if m]
    self.assertEqual(
        [(int(m.group(1)), int(m.group(2))) for m in headers],
        [(i, 12) for i in range(1, 13)],
        proc.stdout + proc.stderr[-2000:],
    )
    totals = [m for m in map(_TOTAL.match, lines) if m]
    self.assertLen(totals, 12)
    (grand,) = [m for m in map(_GRAND.match, lines) if m]
    self.assertEqual(int(grand.group(1)), 12)
    self.assertEqual(int(grand.group(2)), 48)
    self.assertAlmostEqual(
        float(grand.group(3)),
        sum(float(m.group(4)) for m in totals),
        delta=0.05 * 12,  # each printed to 0.1
    )
    self.assertAlmostEqual(
        _Dollars(grand.group(4)),
        sum(_Dollars(m.group(5)) for m in totals),
        delta=0.05,
    )
    # No --aws_ec2_instance_profile: the plan says preflight would refuse.
    self.assertIn('12 configuration(s) would be REFUSED by preflight.', lines)
    self.assertEqual(proc.returncode, 1)

  def testBadFlagsAreAUsageError(self):
    proc = subprocess.run(
        [sys.executable, '-m', 'pkb_ext.cli', 'plan', '--no_such_flag=1'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    self.assertEqual(proc.returncode, 2)
    self.assertIn('pkb-ext plan:', proc.stderr)
    self.assertIn('no_such_flag', proc.stderr)


class PlanFiguresTest(pkb_common_test_case.PkbCommonTestCase):

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver())
    self.catalog = pricing.Load()

  def testOneConfigurationFromThePriceFileAndTheFlags(self):
    (c,) = configurations.Configurations([
        '--cloud=AWS',
        '--machine_type=c5a.4xlarge',
        '--aws_ec2_instance_profile=p',
    ])
    self.assertEqual(c.problems, ())
    by_name = {p.name: p.seconds for p in c.phases}
    self.assertEqual(
        list(by_name),
        ['cpu', 'io', 'net', 'object_storage', 'tpcc_import', 'tpcc'],
    )
    # Each of the 20 runs is PKB's make: a build, then CoreMark's
    # performance and validation runs.
    self.assertEqual(
        by_name['cpu'],
        cpu_estimate.BUILD_S + 20 * (cpu_estimate.MAKE_S + 2 * 19),
    )
    # 2,500 GB at 250 MB/s would take 10,000 s, but the job file's ramp +
    # runtime (122 s) ends the fill first, as it ends each of the 7 jobs.
    self.assertEqual(by_name['io'], 122 + 7 * 122)
    (io_how,) = [p.how for p in c.phases if p.name == 'io']
    self.assertIn("would take 167 min, but the job file's runtime", io_how)
    self.assertEqual(by_name['net'], 2 * 10 * 60)
    self.assertEqual(by_name['tpcc'], 5 * 31 * 60)  # 2,500..3,500 by 250
    # 4 x c5a.4xlarge + 3 x 2,500 GB gp2, from configs/pricing/aws.yaml.
    hourly = 4 * 0.616 + 3 * 2500 * 0.10 / 720
    self.assertAlmostEqual(c.usd_per_hour, hourly)
    self.assertAlmostEqual(c.usd, hourly * c.seconds / 3600)
    self.assertEqual(c.vms, 4)
    self.assertAlmostEqual(c.vm_hours, 4 * c.seconds / 3600)

  def testIo2PricesTheProvisionedIops(self):
    configs = configurations.Configurations([
        '--benchmark_config_file='
        + os.path.join(ROOT, 'configs', 'machines', 'aws.yaml'),
        '--flag_matrix=io2',
    ])
    c5 = next(c for c in configs if c.flags['machine_type'] == 'c5.4xlarge')
    hourly = 4 * 0.68 + 3 * (2500 * 0.125 + 5400 * 0.065) / 720
    self.assertAlmostEqual(c5.usd_per_hour, hourly)

  def testPhaseFlagsChangeTheEstimates(self):
    (c,) = configurations.Configurations([
        '--cloud=GCP',
        '--machine_type=n2-standard-16',
        '--cloud_report_phases=net,tpcc',
        '--cloud_report_netperf_duration_s=30',
        '--cloud_report_netperf_confidence=off',
        '--cloud_report_tpcc_duration=10m',
        '--cloud_report_tpcc_ramp=0s',
        '--cloud_report_tpcc_strategy=bisect',
    ])
    by_name = {p.name: p for p in c.phases}
    self.assertEqual(list(by_name), ['net', 'tpcc_import', 'tpcc'])
    self.assertEqual(by_name['net'].seconds, 2 * 1 * 30)
    fewest, most = tpcc_estimate.SearchSteps(
        stepping.Plan('bisect', 2500, 250, 3500)
    )
    self.assertLess(most, 5 + 2)
    self.assertEqual(by_name['tpcc'].seconds, most * 600)
    self.assertIn(f'{fewest} to {most} steps', by_name['tpcc'].how)

  def _StaticVmFile(self):
    return self.create_tempfile(
        content=(
            '[{"ip_address": "192.0.2.1", "user_name": "u",'
            ' "keyfile_path": "/dev/null", "zone": "local-1"}]'
        )
    ).full_path

  def testStaticVmsHaveNoPrice(self):
    static = self._StaticVmFile()
    (c,) = configurations.Configurations([
        '--benchmarks=cloud_report_coremark',
        f'--static_vm_file={static}',
    ])
    self.assertIsNone(c.usd)
    self.assertIn('no machine type to price', c.price_problem)
    text = render.Format([c])
    self.assertIn('price unknown', text)

  def testStaticVmsDiskIsNotGuessedItsFillPlannedAtTheRuntime(self):
    static = self._StaticVmFile()
    (c,) = configurations.Configurations([
        f'--static_vm_file={static}',
        '--cloud_report_phases=io',
    ])
    (io_phase,) = c.phases
    # fio ends the fill at the job file's runtime + ramp, whatever the size.
    self.assertEqual(io_phase.seconds, 7 * 122 + 122)
    self.assertIn(
        "fill the static VMs' disk: its size is unknown, planned at the job"
        " file's runtime, 122 s",
        io_phase.how,
    )


class PlanTellsTheTruthTest(
    pkb_common_test_case.PkbCommonTestCase, parameterized.TestCase
):

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver())

  @parameterized.parameters(
      ('aws', 'gp2'), ('azure', 'premium'), ('gcp', 'pd_ssd')
  )
  def testEveryCloudsMatrixPlansTheTpccImport(self, cloud, matrix):
    configs = configurations.Configurations(_Matrix(cloud, matrix))
    self.assertNotEmpty(configs)
    for c in configs:
      (load,) = [p for p in c.phases if p.name == 'tpcc_import']
      # 3,500 warehouses on 3 db nodes: 3,500 / (1,333.3 x 3) h.
      self.assertAlmostEqual(load.seconds, 3500 / (20000 / 2.5 / 6 * 3) * 3600)
      self.assertIn('20,000 warehouses in 2.5 h on 6 nodes', load.how)

  def testImportFollowsTheWarehouses(self):
    (c,) = configurations.Configurations([
        '--cloud=AWS',
        '--machine_type=c5a.4xlarge',
        '--cloud_report_tpcc_start_warehouses=100',
        '--cloud_report_tpcc_max_warehouses=8000',
    ])
    (load,) = [p for p in c.phases if p.name == 'tpcc_import']
    self.assertEqual(load.seconds, timeouts.ImportSeconds(8000, 3))
    # 8,000 / (1,333.3 warehouses per node-hour x 3 nodes) = 2 h.
    self.assertAlmostEqual(load.seconds, 2 * 3600)

  def testAzurePremium2500GbIsPricedAtP50BesideTheReportsMethod(self):
    configs = configurations.Configurations(_Matrix('azure', 'premium'))
    d16as = next(
        c for c in configs if c.flags['machine_type'] == 'Standard_D16as_v4'
    )
    # configs/pricing/azure.yaml: D16as_v4 $0.768/h; P50 $495.57/month.
    self.assertAlmostEqual(d16as.usd_per_hour, 4 * 0.768 + 3 * 495.57 / 720)
    (note,) = d16as.price_notes
    self.assertIn('bills as P50, $495.57/month', note)
    self.assertIn('$323.81/month', note)  # P40 x 2,500 / 2,000

  @parameterized.parameters(
      ('m5d.4xlarge', 300, '1 of 2 x 300 GB'),
      ('c5d.4xlarge', 400, '1 of 1 x 400 GB'),
      ('i3en.6xlarge', 7500, '1 of 2 x 7500 GB'),
  )
  def testLocalMatrixFillsTheInstanceStoreItHas(self, machine, gb, what):
    configs = configurations.Configurations(_Matrix('aws', 'local'))
    c = next(c for c in configs if c.flags['machine_type'] == machine)
    io_phase = next(p for p in c.phases if p.name == 'io')
    self.assertEqual(io_phase.seconds, min(gb * 1e3 / 250, 122) + 7 * 122)
    self.assertIn(what, io_phase.how)

  def testStripedLocalVolumesFillTogether(self):
    (c,) = configurations.Configurations([
        '--cloud=AWS',
        '--machine_type=i3.4xlarge',
        '--data_disk_type=local',
        '--num_striped_disks=2',
    ])
    io_phase = next(p for p in c.phases if p.name == 'io')
    self.assertIn('3800 GB', io_phase.how)
    self.assertEqual(io_phase.seconds, 122 + 7 * 122)

  def testGcpLocalSsdsArePricedAsTheVolumesAttached(self):
    (c,) = configurations.Configurations([
        '--cloud=GCP',
        '--machine_type=n2-standard-16',
        '--data_disk_type=local',
        '--gce_num_local_ssds=2',
    ])
    # configs/pricing/gcp.yaml: n2-standard-16 $0.776944/h; each db VM has
    # 2 local SSDs of 375 GB at $0.08/GB-month (not --data_disk_size).
    self.assertAlmostEqual(
        c.usd_per_hour, 4 * 0.776944 + 3 * 2 * 375 * 0.08 / 720
    )

  def testFillRunsAtTheMachinesEbsCap(self):
    long_jobs = ['--cloud_report_fio_runtime_s=20000']  # the disk ends it
    configs = configurations.Configurations(_Matrix('aws', 'io2') + long_jobs)
    c5 = next(c for c in configs if c.flags['machine_type'] == 'c5.4xlarge')
    io_phase = next(p for p in c5.phases if p.name == 'io')
    # io2 allows 1,000 MB/s; c5.4xlarge's EBS bandwidth is 593.75 MB/s.
    self.assertEqual(io_phase.seconds, 2500e3 / 593.75 + 7 * 20002)
    self.assertIn('c5.4xlarge disk cap', io_phase.how)
    self.assertIn(': 70 min +', io_phase.how)

  def testOverlapSavesTheSidePhasesOnTheAwsGp2Matrix(self):
    configs = configurations.Configurations(AWS_GP2)
    self.assertLen(configs, 12)
    for c in configs:
      by_name = {p.name: p.seconds - p.once_s for p in c.phases}
      load_s = {p.name: p.once_s for p in c.phases}['tpcc_import']
      # cpu runs on the third db VM beside net (on the client and the
      # second db VM), beside io on the first: the longest of the three
      # threads counts; object_storage (on the client, which cockroach's
      # load leaves idle) runs beside tpcc's load, which is longer.
      self.assertEqual(c.schedule.lanes, (('cpu',), ('net',)))
      self.assertEqual(c.schedule.beside_load, ('object_storage',))
      threads = (by_name['io'], by_name['cpu'], by_name['net'])
      self.assertGreater(load_s, by_name['object_storage'])
      self.assertAlmostEqual(
          c.series_seconds - c.overlap_seconds,
          sum(threads) - max(threads) + by_name['object_storage'],
      )
      self.assertEqual(c.seconds, c.overlap_seconds)  # overlap is the default
      self.assertAlmostEqual(c.vm_hours, 4 * c.overlap_seconds / 3600)
    text = render.Format(configs)
    lines = text.splitlines()
    overlap = [l for l in lines if l.startswith('  overlap ')]
    self.assertLen(overlap, 12)
    self.assertTrue(
        all(
            "cpu | net beside io; object_storage beside tpcc's load" in l
            for l in overlap
        ),
        overlap,
    )
    (total,) = [l for l in lines if l.startswith('OVERLAP ')]
    saved_h = sum(c.VmHours(c.series_seconds - c.overlap_seconds)
                  for c in configs)  # fmt: skip
    self.assertIn(f'overlap saves', total)
    self.assertIn(f'{saved_h:.1f} VM-hours', total)

  def testAnEngineThatLoadsOnTheClientKeepsObjectStorageBesideIo(self):
    # go-tpc's prepare makes the rows on the client: object_storage stays
    # in net's lane beside io.
    (c,) = configurations.Configurations(
        ['--cloud=AWS', '--machine_type=c5a.4xlarge',
         '--cloud_report_tpcc_engine=postgres']
    )  # fmt: skip
    by_name = {p.name: p.seconds - p.once_s for p in c.phases}
    self.assertEqual(c.schedule.lanes, (('cpu',), ('net', 'object_storage')))
    self.assertEqual(c.schedule.beside_load, ())
    threads = (
        by_name['io'],
        by_name['cpu'],
        by_name['net'] + by_name['object_storage'],
    )
    self.assertAlmostEqual(
        c.series_seconds - c.overlap_seconds, sum(threads) - max(threads)
    )
    self.assertIn('cpu | net,object_storage beside io:', render.Format([c]))

  def testOverlapOffPlansTheRunInSeriesAndStillShowsTheSaving(self):
    (on,) = configurations.Configurations(
        ['--cloud=AWS', '--machine_type=c5a.4xlarge']
    )
    (off,) = configurations.Configurations(
        ['--cloud=AWS', '--machine_type=c5a.4xlarge',
         '--cloud_report_overlap=false']
    )  # fmt: skip
    self.assertEqual(off.seconds, off.series_seconds)
    self.assertEqual(on.seconds, on.overlap_seconds)
    self.assertLess(on.seconds, off.seconds)
    self.assertEqual(off.overlap_seconds, on.overlap_seconds)
    self.assertIn(
        'this run: --cloud_report_overlap=false', render.Format([off])
    )

  def testWithoutIoThePlanSaysOverlapDoesNotApply(self):
    (c,) = configurations.Configurations(
        ['--cloud=AWS', '--machine_type=c5a.4xlarge',
         '--cloud_report_phases=cpu,net']
    )  # fmt: skip
    self.assertEqual(c.seconds, c.series_seconds)
    self.assertIn(
        'overlap none: overlap does not apply: the io phase is not selected',
        render.Format([c]),
    )

  def testCpuAndNetPlanOneDbVmWithoutADiskAndTheClient(self):
    args = ['--cloud=AWS', '--machine_type=c5a.4xlarge']
    (full,) = configurations.Configurations(args)
    (c,) = configurations.Configurations(
        args + ['--cloud_report_phases=cpu,net']
    )
    self.assertEqual(
        [(g.name, g.vm_count, g.disk_type) for g in c.groups],
        [('client', 1, None), ('db', 1, None)],
    )
    self.assertEqual(c.vms, 2)
    self.assertAlmostEqual(c.usd_per_hour, 2 * 0.616)  # no disk is priced
    self.assertLess(c.usd_per_hour, full.usd_per_hour)
    lines = render.Format([c]).splitlines()
    self.assertIn('  vms     db: 1 x c5a.4xlarge', lines)
    self.assertIn('  vms     client: 1 x c5a.4xlarge', lines)
    self.assertNotIn('data disk', render.Format([c]))
    (total,) = [l for l in lines if l.startswith('  total ')]
    self.assertIn(f', 2 VMs, {c.vm_hours:.1f} VM-hours, ${c.usd:,.2f}', total)
    self.assertAlmostEqual(c.vm_hours, 2 * c.seconds / 3600)

  def testOverlapsSecondDbVmIsPricedOnlyWithOverlap(self):
    args = [
        '--cloud=AWS', '--machine_type=c5a.4xlarge',
        '--cloud_report_phases=cpu,io,net',
    ]  # fmt: skip
    (on,) = configurations.Configurations(args)
    # The variants were built with the flag set; it is restored.
    self.assertTrue(FLAGS.cloud_report_overlap)
    (off,) = configurations.Configurations(
        args + ['--cloud_report_overlap=false']
    )
    # With overlap net runs on the second db VM and cpu on a third.
    self.assertEqual((on.vms, off.vms), (4, 2))
    disk = 2500 * 0.10 / 720  # gp2 at $0.10/GB-month
    self.assertAlmostEqual(on.usd_per_hour, 4 * 0.616 + 3 * disk)
    self.assertAlmostEqual(off.usd_per_hour, 2 * 0.616 + disk)
    for c in (on, off):
      self.assertEqual(c.schedule.lanes, (('cpu',), ('net',)))
      self.assertEqual((c.VariantOf(True).vms, c.VariantOf(False).vms), (4, 2))
      self.assertAlmostEqual(c.VmHoursOf(True), 4 * c.overlap_seconds / 3600)
      self.assertAlmostEqual(c.VmHoursOf(False), 2 * c.series_seconds / 3600)
      self.assertAlmostEqual(c.UsdOf(True), on.usd)
      self.assertAlmostEqual(c.UsdOf(False), off.usd)
      line = render.OverlapLine(c)
      self.assertIn(
          f'{estimates.Hms(c.overlap_seconds)} wall, 4 VMs,'
          f' {c.VmHoursOf(True):.1f} VM-hours; without overlap'
          f' {estimates.Hms(c.series_seconds)}, 2 VMs,'
          f' {c.VmHoursOf(False):.1f} VM-hours',
          line,
      )
    # The io fill here is shorter than cpu and net: the second and third db
    # VMs cost more than the wall time they save, and the line says so.
    self.assertGreater(on.usd, off.usd)
    self.assertIn(
        f'costs {on.VmHoursOf(True) - on.VmHoursOf(False):.1f} VM-hours'
        f' (${on.usd - off.usd:,.2f}) more',
        render.OverlapLine(on),
    )

  def testSearchCostIsShownBesideLinears(self):
    args = ['--cloud=AWS', '--machine_type=c5a.4xlarge']
    (linear,) = configurations.Configurations(args)
    (bisect,) = configurations.Configurations(
        args + ['--cloud_report_tpcc_strategy=bisect']
    )
    self.assertIsNone(linear.linear_seconds)
    self.assertEqual(bisect.linear_seconds, linear.seconds)
    self.assertLess(bisect.seconds, linear.seconds)
    text = render.Format([bisect])
    self.assertIn(
        f'with a linear TPC-C search {estimates.Hms(linear.seconds)},'
        f' ${linear.usd:,.2f}',
        text,
    )

  def testProbeStepsArePlannedAtTheProbeDuration(self):
    search = tpcc_estimate.SearchBounds(
        stepping.Plan('probe', 2500, 250, 3500), 1800, 360
    )
    full_only = tpcc_estimate.SearchBounds(
        stepping.Plan('probe', 2500, 250, 3500), 1800, 1800
    )
    self.assertLess(search.longest_s, full_only.longest_s)
    self.assertEqual(full_only.longest_s, full_only.most * 1800)

  def testPricesNoteSaysTheDateAndAge(self):
    (c,) = configurations.Configurations(
        ['--cloud=AWS', '--machine_type=c5a.4xlarge']
    )
    note = render.PricesNote([c], datetime.date(2026, 11, 15))
    self.assertIn('as of 2020-11-15 (6.0 years before 2026-11-15)', note)
    self.assertIn('--prices=FILE', note)

  def testANewerPriceFilePricesTheRun(self):
    with open(
        os.path.join(ROOT, 'configs', 'pricing', 'aws.yaml'), encoding='utf-8'
    ) as f:
      text = f.read()
    text = text.replace("as_of: '2020-11-15'", "as_of: '2026-10-01'")
    text = text.replace('c5a.4xlarge:  {usd_per_hour: 0.616', 'c5a.4xlarge: '
                        ' {usd_per_hour: 0.70')  # fmt: skip
    newer = self.create_tempfile(content=text).full_path
    status, out, err = _RunMain([
        f'--prices={newer}',
        '--cloud=AWS',
        '--machine_type=c5a.4xlarge',
        '--aws_ec2_instance_profile=p',
    ])
    self.assertEqual((status, err), (0, ''))
    self.assertIn('(us-east-1 prices as of 2026-10-01)', out)
    self.assertIn(f'from {newer} for its cloud', out)
    self.assertIn('stay the basis of $/tpm', out)
    (c,) = configurations.Configurations(
        ['--cloud=AWS', '--machine_type=c5a.4xlarge']
    )
    self.assertAlmostEqual(c.usd_per_hour, 4 * 0.616 + 3 * 250 / 720)
    newer_catalog = plan_cli.LoadCatalog(newer)
    (c,) = configurations.Configurations(
        ['--cloud=AWS', '--machine_type=c5a.4xlarge'], newer_catalog
    )
    self.assertAlmostEqual(c.usd_per_hour, 4 * 0.70 + 3 * 250 / 720)


class PlanLoadRunsAndRatesTest(
    pkb_common_test_case.PkbCommonTestCase, parameterized.TestCase
):
  """The TPC-C data's two loads, Run stages, static VMs, measured rates."""

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver())

  def _FlagValues(self, value=None):
    fv = flags.FlagValues()
    if value is not None:
      flags.DEFINE_enum(
          configurations.FIXTURES_FLAG, 'off', ['auto', 'off'], 'x',
          flag_values=fv,
      )  # fmt: skip
      fv.mark_as_parsed()
      fv[configurations.FIXTURES_FLAG].parse(value)
    else:
      fv.mark_as_parsed()
    return fv

  def testTheFixturesFlagIsReadByNameAndOffWithoutIt(self):
    self.assertTrue(configurations.Fixtures(self._FlagValues('auto')))
    self.assertFalse(configurations.Fixtures(self._FlagValues('off')))
    self.assertFalse(configurations.Fixtures(self._FlagValues()))

  def testAFixtureLoadIsPricedWithGenerationBesideIt(self):
    args = ['--cloud=AWS', '--machine_type=m5.4xlarge']
    (generated,) = configurations.Configurations(args, fixtures=False)
    (fixture,) = configurations.Configurations(args, fixtures=True)
    load_g = next(p for p in generated.phases if p.name == 'tpcc_import')
    load_f = next(p for p in fixture.phases if p.name == 'tpcc_import')
    # 3,500 warehouses on 3 nodes at 1,428.6 (fixture) and 1,333.3
    # (generation) warehouses per node-hour.
    self.assertAlmostEqual(load_f.seconds, 3500 / (1428.5714 * 3) * 3600, 0)
    self.assertAlmostEqual(load_g.seconds, 3500 / (1333.3333 * 3) * 3600, 0)
    self.assertEqual(load_f.generate_s, load_g.seconds)
    self.assertIsNone(load_g.generate_s)
    self.assertIn('loaded from a fixture in the bucket at 1,429', load_f.how)
    self.assertIn(
        f'without a matching fixture {estimates.Hms(load_g.seconds)}',
        load_f.how,
    )
    self.assertAlmostEqual(
        fixture.seconds, generated.seconds - load_g.seconds + load_f.seconds
    )
    self.assertEqual(fixture.report_seconds, generated.seconds)
    self.assertIn(
        "the report's way (data generated in the run)"
        f' {estimates.Hms(generated.seconds)},'
        f' {generated.vm_hours:.1f} VM-hours',
        render.Format([fixture]),
    )

  def testTheProbeLineStatesItsRangeAndPlansItsTop(self):
    (c,) = configurations.Configurations([
        '--cloud=AWS', '--machine_type=m5.4xlarge',
        '--cloud_report_tpcc_strategy=probe',
    ])  # fmt: skip
    tpcc = next(p for p in c.phases if p.name == 'tpcc')
    search = tpcc_estimate.SearchBounds(
        stepping.Plan('probe', 2500, 250, 3500), 31 * 60, 6 * 60
    )
    low, high = estimates.Hms(search.shortest_s), estimates.Hms(tpcc.seconds)
    self.assertEqual(search.longest_s, tpcc.seconds)
    self.assertIn(
        f'{search.fewest} to {search.most} steps (probes of 6 min, full steps'
        f' of 31 min), {low} (2 probes + 1 full step) to {high} (3 probes + 2'
        f' full steps); planned at the longest, {high}',
        tpcc.how,
    )
    # Each end's probes and full steps add up to its time.
    self.assertEqual(search.shortest_mix, (2, 1))
    self.assertEqual(search.longest_mix, (3, 2))
    for (probes, full), seconds in (
        (search.shortest_mix, search.shortest_s),
        (search.longest_mix, search.longest_s),
    ):
      self.assertEqual(probes * 6 * 60 + full * 31 * 60, seconds)
    self.assertEqual(sum(search.longest_mix), search.most)
    # No step count beside a step length it cannot multiply to the plan.
    self.assertNotIn('5 steps of 31 min', tpcc.how)

  def testRunStagesRepeatTheRunsNotTheInstalls(self):
    args = ['--cloud=AWS', '--machine_type=m5.4xlarge',
            '--cloud_report_phases=cpu,net,tpcc']  # fmt: skip
    (one,) = configurations.Configurations(args)
    (three,) = configurations.Configurations(
        args + ['--run_stage_iterations=3']
    )
    once = one.once_seconds
    self.assertEqual(three.iterations, 3)
    self.assertAlmostEqual(three.seconds - once, 3 * (one.seconds - once))
    by_name = {p.name: p for p in one.phases}
    self.assertEqual(by_name['cpu'].once_s, cpu_estimate.BUILD_S)
    self.assertEqual(
        by_name['tpcc_import'].once_s, by_name['tpcc_import'].seconds
    )
    self.assertIn('3 Run stages', render.Format([three]))

  def testTheLocalMatrixIsPricedAtTheStaticTable(self):
    configs = configurations.Configurations(
        _Matrix('local', 'types') + ['--cloud_report_phases=cpu,io,net']
    )
    prices = {'local-s': 0.05, 'local-m': 0.10, 'local-l': 0.20}
    for c in configs:
      self.assertIsNone(c.price_problem)
      self.assertAlmostEqual(
          c.usd_per_hour, c.vms * prices[c.flags['machine_type']]
      )
      self.assertEqual(c.price_region, 'local-1')

  def testTheShippedStaticRatesAreKnownAndCoverEveryLocalType(self):
    from pkb_ext.local import machine_types  # pylint: disable=g-import-not-at-top

    table = pricing.Load(os.path.join(ROOT, 'configs', 'pricing')).Table(
        'Static'
    )
    model.CheckRates(table.rates, 'static.yaml')
    self.assertEqual(set(table.rates.machines), set(machine_types.NAMES))
    self.assertIn('tests/matrix/test_local_matrix.py', table.rates.source)

  def testAStaticTablesRatesReplaceTheDefaultsAndSayWhere(self):
    catalog = pricing.Load()
    table = catalog.Table('Static')
    rates = pricing.Rates(
        '2026-01-02', 'a measured run', {'provision_s': 42, 'cpu_run_s': 7},
        {'local-s': {'cpu_run_s': 9}},
    )  # fmt: skip
    catalog = catalog.WithTable(dataclasses.replace(table, rates=rates))
    configs = configurations.Configurations(
        _Matrix('local', 'types') + ['--cloud_report_phases=cpu'], catalog
    )
    for c in configs:
      run_s = 9 if c.flags['machine_type'] == 'local-s' else 7
      (cpu,) = c.phases
      self.assertEqual(c.provision_s, 42)
      self.assertEqual(
          cpu.seconds, cpu.once_s + 2 * 10 * (cpu_estimate.MAKE_S + 2 * run_s)
      )
      self.assertIn('(measured)', cpu.how)
    self.assertIn(
        'Rates marked (measured) are from the Static table (configs/pricing),'
        ' 2026-01-02: a measured run.',
        render.Format(configs),
    )
    bad = dataclasses.replace(rates, values={'provison_s': 1}, machines={})
    with self.assertRaisesRegex(plan_errors.PlanError, 'provison_s'):
      configurations.Configurations(
          _Matrix('local', 'types'),
          catalog.WithTable(dataclasses.replace(table, rates=bad)),
      )


class PlanRegionsAndQuotasTest(
    pkb_common_test_case.PkbCommonTestCase, parameterized.TestCase
):
  """Prices of the zone's region, unknown prices, vCPUs and quota peaks."""

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver())
    # This checkout's tables (an installed pkb_ext may read another's).
    tables = os.path.join(ROOT, 'configs', 'pricing')
    self.enter_context(
        mock.patch.object(pricing.load, 'DefaultDirectory', lambda: tables)
    )

  def testAnEuZoneIsPricedAtItsRegionsPricesAndNamesIt(self):
    runs = {}
    for zone in ('us-east-1a', 'eu-central-1a'):
      with flagsaver.flagsaver():  # --zone is a list flag: one per run
        status, runs[zone], err = _RunMain(
            ['--cloud=AWS', f'--zone={zone}', '--machine_type=c5a.4xlarge']
        )
      self.assertEqual(err, '')
    us, eu = runs['us-east-1a'], runs['eu-central-1a']
    dollars = lambda out, region: _Dollars(
        re.search(
            r'^  total .* \$([\d,.]+) \(%s prices as of ([\d-]+)\)$' % region,
            out,
            re.M,
        ).group(1)
    )
    us_usd, eu_usd = dollars(us, 'us-east-1'), dollars(eu, 'eu-central-1')
    self.assertGreater(eu_usd, us_usd)
    self.assertRegex(
        eu, r'(?m)^TOTAL .* \(eu-central-1 prices as of 2021-07-14\), '
    )
    self.assertIn('PEAK    AWS eu-central-1 Running On-Demand Standard', eu)

  @parameterized.parameters(
      ('GCP', 'asia-northeast1-a', 'n2-standard-16', 'asia-northeast1'),
      ('GCP', 'europe-west4-a', 'n2-standard-16', 'europe-west4'),
  )
  def testOtherCloudsRegions(self, cloud, zone, machine, region):
    (c,) = configurations.Configurations(
        [f'--cloud={cloud}', f'--zone={zone}', f'--machine_type={machine}']
    )
    self.assertEqual(c.price_region, region)
    self.assertIsNone(c.price_problem)

  def testANewMachineTypeGetsHoursAndPriceUnknown(self):
    status, out, err = _RunMain(['--cloud=AWS', '--machine_type=m7i.4xlarge'])
    self.assertEqual(err, '')
    self.assertEqual(status, 1)  # preflight: no instance profile, as ever
    (total,) = [l for l in out.splitlines() if l.startswith('  total ')]
    self.assertRegex(
        total,
        r'4 VMs, [\d.]+ VM-hours, price unknown \(no price for m7i.4xlarge'
        r' in us-east-1\)',
    )
    self.assertRegex(out, r'(?m)^  phase   tpcc ')
    self.assertIn('  vcpus   client 1 x 16, db 3 x 16 = 64 vCPUs', out)

  def testANameNoCloudCouldHaveIsRefused(self):
    status, out, err = _RunMain(['--cloud=AWS', '--machine_type=m7i_4xlarge'])
    self.assertEqual((status, out), (1, ''))
    self.assertIn("'m7i_4xlarge' is no machine type name AWS could have", err)

  def testGp2MatrixShowsVcpusAndThePeakWithRunProcesses(self):
    status, out, err = _RunMain(
        _Matrix('aws', 'gp2')
        + ['--aws_ec2_instance_profile=P', '--run_processes=4']
    )
    self.assertEqual((status, err), (0, ''))
    self.assertLen(
        [l for l in out.splitlines() if l.startswith('  vcpus ')], 12
    )
    self.assertIn('an upper bound: the 4 largest configurations', out)
    # 11 Standard machines of 16 vCPUs x 4 VMs; x1e is the X quota's.
    self.assertIn(
        'PEAK    AWS us-east-1 Running On-Demand Standard (A, C, D, H, I, M,'
        ' R, T, Z) instances [standard]: 256 vCPUs',
        out.splitlines(),
    )
    self.assertIn(
        'PEAK    AWS us-east-1 Running On-Demand X instances [x]: 64 vCPUs',
        out.splitlines(),
    )

  def testAQuotaBelowThePeakIsRefusedByPlan(self):
    status, out, err = _RunMain(
        _Matrix('aws', 'gp2')
        + [
            '--aws_ec2_instance_profile=P',
            '--run_processes=4',
            '--cloud_report_vcpu_quota=standard=128',
        ]
    )
    self.assertEqual((status, err), (1, ''))
    (line,) = [l for l in out.splitlines() if l.startswith('REFUSED quota')]
    self.assertIn('the matrix needs 256 vCPUs of us-east-1 Running', line)
    self.assertIn('above the 128 of --cloud_report_vcpu_quota', line)

  def testPreflightChecksEachConfigurationsVcpus(self):
    (c,) = configurations.Configurations([
        '--cloud=AWS',
        '--machine_type=c5a.4xlarge',
        '--aws_ec2_instance_profile=P',
        '--cloud_report_vcpu_quota=us-east-1:standard=32',
    ])
    (problem,) = c.problems
    self.assertIn('this configuration needs 64 vCPUs of us-east-1', problem)

  def testAnUnreadableQuotaFlagIsAUsageError(self):
    status, out, err = _RunMain(
        ['--cloud=AWS', '--cloud_report_vcpu_quota=lots']
    )
    self.assertEqual((status, out), (2, ''))
    self.assertIn('is not N, KEY=N or REGION:KEY=N', err)


class PlanRefusesTest(
    pkb_common_test_case.PkbCommonTestCase, parameterized.TestCase
):
  """Input that makes no plan: one line on stderr, exit 1 (2: usage)."""

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver())

  def _AssertRefused(self, argv, status, *fragments):
    got, out, err = _RunMain(argv)
    self.assertEqual(got, status, out + err)
    self.assertEqual(out, '')
    self.assertLen(err.splitlines(), 1, err)
    self.assertTrue(err.startswith('pkb-ext plan: '), err)
    for fragment in fragments:
      self.assertIn(fragment, err)

  @parameterized.parameters(
      ('--data_disk_size=-1', 2, '--data_disk_size=-1'),
      ('--data_disk_size=0', 2, '--data_disk_size=0'),
      ('--provisioned_iops=-5', 2, '--provisioned_iops=-5'),
      ('--provisioned_throughput=-1', 2, '--provisioned_throughput=-1'),
      ('--machine_type=zz9.nope', 1, "'zz9.nope' is no machine type name"),
      ('--run_processes=0', 2, 'run_processes'),
      ('--cloud_report_tpcc_gotpc_threads_per_warehouse=nan', 2, 'nan'),
      ('--flag_matrix=nope', 1, 'No flag_matrix with name nope'),
      ('--benchmarks=nosuch', 1, 'nosuch is not found'),
      ('--helpmatch=(', 2, 'not a regular expression'),
      ('--prices', 2, '--prices=FILE'),
  )
  def testImpossibleValue(self, arg, status, fragment):
    self._AssertRefused(
        ['--cloud=AWS', '--machine_type=c5a.4xlarge', arg], status, fragment
    )

  def testImpossibleValueInAConfigFile(self):
    config = self.create_tempfile(
        content=(
            'cloud_report_2021:\n  flags: {cloud: AWS, machine_type:'
            ' c5a.4xlarge, data_disk_size: -1}\n'
        )
    ).full_path
    self._AssertRefused(
        [f'--benchmark_config_file={config}'],
        1,
        'vm_group db: data disk size -1 GB must be > 0',
    )

  @parameterized.named_parameters(
      ('missing', None, 'no such config file'),
      ('directory', 'DIR', 'not a regular file'),
      ('binary', b'\x00\xff\xfe' * 100, 'not UTF-8'),
      ('bad', 'a: [1\nb: }\n', 'line 2: not YAML'),
      ('deep', '[' * 5000 + ']' * 5000, 'nested too deeply'),
      ('not_a_mapping', '- 1\n', 'line 1: a benchmark config must be a'),
      (
          'matrix_not_a_mapping',
          'cloud_report_2021:\n  flag_matrix: x\n  flag_matrix_defs: {x: 5}\n',
          'line 3: cloud_report_2021.flag_matrix_defs.x must be a mapping',
      ),
      ('device', '/dev/zero', 'not a regular file'),
  )
  def testUnusableConfigFile(self, content, message):
    if content is None:
      path = os.path.join(self.create_tempdir().full_path, 'nope.yaml')
    elif content == 'DIR':
      path = self.create_tempdir().full_path
    elif content == '/dev/zero':
      path = content
    else:
      mode = 'wb' if isinstance(content, bytes) else 'w'
      path = self.create_tempfile(content=content, mode=mode).full_path
    self._AssertRefused([f'--benchmark_config_file={path}'], 1, path, message)

  def testConfigFileLargerThanTheCap(self):
    config = self.create_tempfile(content='a: 1\n' * 100).full_path
    self.enter_context(mock.patch.object(pkb_config, 'MAX_INPUT_BYTES', 64))
    self._AssertRefused(
        [f'--benchmark_config_file={config}'],
        1,
        config,
        '500 bytes, larger than the 64',
    )

  def testUnusablePriceFile(self):
    bad = self.create_tempfile(content='cloud: AWS\nmachines: [\n').full_path
    self._AssertRefused([f'--prices={bad}'], 1, bad, 'not YAML')

  def testHugeRunProcessesIsNotAMemoryError(self):
    status, out, err = _RunMain([
        '--cloud=AWS',
        '--machine_type=c5a.4xlarge',
        '--aws_ec2_instance_profile=p',
        '--run_processes=100000000000',
    ])
    self.assertEqual((status, err), (0, ''))
    self.assertIn('with --run_processes=100000000000', out)

  def testErrorsAreOnPkbExtsBases(self):
    self.assertTrue(issubclass(plan_errors.PlanError, errors.Error))
    self.assertTrue(issubclass(plan_errors.PlanUsageError, errors.UsageError))
    self.assertTrue(
        issubclass(plan_errors.PlanUsageError, plan_errors.PlanError)
    )
    self.assertEqual(plan_errors.PlanError.exit_status, 1)
    self.assertEqual(plan_errors.PlanUsageError.exit_status, 2)

  @parameterized.parameters('--help', '-h')
  def testHelp(self, arg):
    status, out, err = _RunMain([arg])
    self.assertEqual((status, err), (0, ''))
    self.assertTrue(out.startswith('usage: pkb-ext plan'), out)

  def testHelpmatchPrintsHelpNotAPlan(self):
    status, out, err = _RunMain(['--helpmatch=cloud_report'])
    self.assertEqual((status, err), (0, ''))
    self.assertIn('--cloud_report_tpcc_strategy', out)
    self.assertNotIn('configuration 1/', out)


class PlanCommandInputTest(pkb_common_test_case.PkbCommonTestCase):
  """The command itself: no hang, no warning, paths from elsewhere."""

  def testFifoConfigIsRefusedNotWaitedOn(self):
    fifo = os.path.join(self.create_tempdir().full_path, 'fifo')
    os.mkfifo(fifo)
    proc = _RunCommand([f'--benchmark_config_file={fifo}'], timeout=60)
    self.assertEqual(proc.returncode, 1, proc.stderr)
    self.assertEqual(
        proc.stderr,
        f'pkb-ext plan: {fifo}: not a regular file (a FIFO, device or'
        ' directory)\n',
    )

  def testRelativeConfigPathFromAnotherDirectory(self):
    with tempfile.TemporaryDirectory() as elsewhere:
      proc = _RunCommand(
          ['--benchmark_config_file=configs/machines/aws.yaml'], cwd=elsewhere
      )
    self.assertEqual(proc.returncode, 1, proc.stderr)
    self.assertLen(proc.stderr.splitlines(), 1, proc.stderr)
    self.assertIn(
        'configs/machines/aws.yaml: no such config file (a relative path is'
        f' looked up from {os.path.realpath(elsewhere)}',
        proc.stderr,
    )

  def testACleanPlanPrintsNoWarning(self):
    proc = _RunCommand([
        '--cloud=AWS',
        '--machine_type=c5a.4xlarge',
        '--aws_ec2_instance_profile=p',
    ])
    self.assertEqual(proc.returncode, 0, proc.stderr)
    self.assertEqual(proc.stderr, '')
    self.assertIn('configuration 1/1', proc.stdout)


class SearchStepsTest(pkb_common_test_case.PkbCommonTestCase):

  def testLinearRunsOneToEveryLevel(self):
    self.assertEqual(
        tpcc_estimate.SearchSteps(stepping.Plan('linear', 2500, 250, 3500)),
        (1, 5),
    )

  def testLinearBoundsAreTheSimulatedOnes(self):
    for start, step, maximum in ((2500, 250, 3500), (1, 1, 1), (10, 3, 40)):
      grid = stepping.Plan('linear', start, step, maximum)
      self.assertEqual(
          tpcc_estimate.SearchBounds(grid, 7, 1),
          tpcc_estimate.SimulatedSearchBounds(grid, 7, 1),
      )

  def testHugeGridsAreRefusedOrQuick(self):
    huge = stepping.Plan('linear', 1, 1, 10**8)
    self.assertEqual(
        tpcc_estimate.SearchBounds(huge, 2, 1).longest_s, 2 * 10**8
    )
    with self.assertRaisesRegex(estimates.EstimateError, '100,000,000 levels'):
      tpcc_estimate.SearchBounds(stepping.Plan('bisect', 1, 1, 10**8), 2, 1)

  def testMakespan(self):
    self.assertEqual(model.Makespan([3, 3, 3, 3], None), 12)
    self.assertEqual(model.Makespan([3, 3, 3, 3], 3), 6)
    self.assertEqual(model.Makespan([3, 3, 3, 3], 10**11), 3)


def UsageFlags(path):
  """The flags of the pkb.py usage line in a matrix file's header comment."""
  with open(path, encoding='utf-8') as f:
    header = [l[1:].strip() for l in itertools.takewhile(
        lambda l: l.startswith('#'), f)]  # fmt: skip
  start = next(i for i, l in enumerate(header) if l.startswith('pkb.py'))
  command = [header[start]]
  while command[-1].endswith('\\'):
    command.append(header[start + len(command)])
  words = shlex.split(' '.join(c.rstrip('\\') for c in command))
  return [w.replace('PATH_OF_THIS_FILE', path) for w in words[1:]]


def _Blocks(out):
  """{machine_type: its configuration's lines} of a plan's output."""
  blocks, current = {}, None
  for line in out.splitlines():
    m = _CONFIG.match(line)
    if m:
      current = blocks.setdefault(
          re.search(r'machine_type=(\S+?),', line).group(1), []
      )
    elif line.startswith('TOTAL'):
      current = None
    if current is not None:
      current.append(line)
  return blocks


class ShippedMatricesTest(
    pkb_common_test_case.PkbCommonTestCase, parameterized.TestCase
):
  """Every shipped matrix plans with only its usage line's flags."""

  # The account-specific flags a usage line may name, by file.
  ACCOUNT_FLAGS = {
      'aws.yaml': {'--aws_ec2_instance_profile'},
      'gcp.yaml': {'--project'},
      'azure.yaml': set(),
  }

  def setUp(self):
    super().setUp()
    self.enter_context(flagsaver.flagsaver())

  def _Plan(self, name, matrix, *more):
    path = os.path.join(ROOT, 'configs', 'machines', name)
    argv = [
        f'--flag_matrix={matrix}' if a.startswith('--flag_matrix=') else a
        for a in UsageFlags(path)
    ]
    return _RunMain(argv + list(more)), argv

  @parameterized.parameters(
      ('aws.yaml', 'gp2', 12),
      ('aws.yaml', 'io2', 12),
      ('aws.yaml', 'local', 12),
      ('gcp.yaml', 'pd_ssd', 7),
      ('azure.yaml', 'premium', None),
      ('azure.yaml', 'ultra', None),
  )
  def testPlansEveryConfigurationArm64TpccWithItsReason(
      self, name, matrix, count
  ):
    (status, out, err), argv = self._Plan(name, matrix)
    given = {a.partition('=')[0] for a in argv} - {
        '--benchmarks',
        '--benchmark_config_file',
        '--flag_matrix',
    }
    self.assertEqual(given, self.ACCOUNT_FLAGS[name])
    self.assertEqual((status, err), (0, ''), out)
    self.assertNotIn('REFUSED', out)
    blocks = _Blocks(out)
    if count:
      self.assertLen(blocks, count)
    cloud = {'aws.yaml': 'AWS', 'gcp.yaml': 'GCP', 'azure.yaml': 'Azure'}
    for machine, lines in blocks.items():
      text = '\n'.join(lines)
      with self.subTest(machine=machine):
        if cockroachdb.ArchOfMachineType(cloud[name], machine) != 'arm64':
          self.assertIn('  phase   tpcc ', text)
          self.assertNotIn('SKIPPED', text)
          self.assertNotIn('note    tpcc', text)
          continue
        # The shipped AWS file opts in to the vendor's checksum: it runs.
        self.assertIn('  phase   tpcc ', text)
        self.assertIn(
            '  note    tpcc: vm_groups client, db (arm64) run CockroachDB'
            " v22.2.19 (amd64: v20.2.7), its sha256 from the vendor's"
            ' .sha256sum over HTTPS; samples comparable_with_report=false',
            text,
        )

  def testWithoutTheChecksumArm64TpccIsSkippedTheRestPlanned(self):
    (status, out, err), _ = self._Plan(
        'aws.yaml', 'gp2', '--cloud_report_cockroachdb_vendor_checksum=false'
    )
    self.assertEqual((status, err), (0, ''), out)
    blocks = _Blocks(out)
    for machine in ('m6g.4xlarge', 'c6g.4xlarge'):
      text = '\n'.join(blocks.pop(machine))
      self.assertNotIn('  phase   tpcc ', text)
      self.assertIn('  phase   cpu ', text)
      self.assertRegex(
          text,
          r'  SKIPPED tpcc: vm_groups client, db \(AWS \S+, arm64\): no'
          r' sha256 pinned for cockroach-v22\.2\.19\.linux-arm64\.tgz\..*'
          r'--cloud_report_cockroachdb_vendor_checksum\n',
      )
    for machine, lines in blocks.items():
      self.assertIn('  phase   tpcc ', '\n'.join(lines), machine)
    self.assertIn(
        '2 configuration(s) SKIP a phase they cannot run (the rest run);'
        ' --cloud_report_skip_unrunnable_phases=false refuses them.',
        out,
    )

  def testAllOrNothingRefuses(self):
    (status, out, _), _ = self._Plan(
        'aws.yaml',
        'gp2',
        '--cloud_report_cockroachdb_vendor_checksum=false',
        '--cloud_report_skip_unrunnable_phases=false',
    )
    self.assertEqual(status, 1)
    self.assertNotIn('SKIPPED', out)
    self.assertEqual(out.count('  REFUSED tpcc: vm_groups client, db'), 2)
    self.assertIn('2 configuration(s) would be REFUSED by preflight.', out)


if __name__ == '__main__':
  pkb_common_test_case.absltest.main()
