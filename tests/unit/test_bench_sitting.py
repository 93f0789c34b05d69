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
"""Tests for the bench's sitting: interval verdicts, interference, pairs.

The /proc readings and the CPU hog are real (a busy child of this process,
CpuHogs); the pairs' figures are constructed, so each verdict follows from
an interval the test knows.
"""

import math
import os
import random
import subprocess
import sys
import time
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized

from pkb_ext.local import system
from pkb_ext_dev import bench_fidelity
from pkb_ext_dev import bench_sitting as bs
from pkb_ext_dev import fidelity
from pkb_ext_dev import load

_BUSY = (
    'import time\nend = time.process_time() + {s}\nwhile time.process_time() <'
    ' end:\n  pass\n'
)


class IntervalVerdictTest(parameterized.TestCase):

  @parameterized.parameters(
      # (op, target, low, high, verdict): inside, outside, across.
      ('>=', 0.97, 0.98, 1.02, bs.PASS),
      ('>=', 0.97, 0.97, 0.99, bs.PASS),  # the end counts
      ('>=', 0.97, 0.90, 0.96, bs.MISS),
      ('>=', 0.97, 0.96, 1.01, bs.INCONCLUSIVE),
      ('<=', 1.0, 0.95, 0.99, bs.PASS),
      ('<=', 1.0, 1.01, 1.05, bs.MISS),
      ('<=', 1.0, 0.99, 1.01, bs.INCONCLUSIVE),
      ('in', (0.97, 1.03), 0.98, 1.02, bs.PASS),
      ('in', (0.97, 1.03), 1.04, 1.10, bs.MISS),
      ('in', (0.97, 1.03), 0.90, 0.96, bs.MISS),
      ('in', (0.97, 1.03), 1.00, 1.05, bs.INCONCLUSIVE),
      ('in', (0.97, 1.03), 0.96, 1.04, bs.INCONCLUSIVE),  # wider than band
      ('in', (0.97, 1.03), 0.713, 1.814, bs.INCONCLUSIVE),
  )
  def testVerdict(self, op, target, low, high, want):
    self.assertEqual(bs.IntervalVerdict(op, target, low, high), want)

  def testUnknownComparison(self):
    with self.assertRaisesRegex(ValueError, "unknown comparison '~'"):
      bs.IntervalVerdict('~', 1.0, 0.9, 1.1)


class EvidenceTest(absltest.TestCase):

  def testFlaggedPairsAreLeftOut(self):
    ratios = [1.0, 0.5, 1.01, 0.99, 1.0, 0.6, 1.0, 1.005]
    notes = [{}, {'flagged': True}, {'flagged': False}, {}, {},
             {'flagged': True}]  # then: no note  # fmt: skip
    got = bs.Evidence(ratios, notes)
    used = [1.0, 1.01, 0.99, 1.0, 1.0, 1.005]
    self.assertEqual(got['used'], used)
    self.assertEqual(got['flagged_pairs'], [2, 6])
    self.assertEqual(got['ci95'], bs.TrimmedInterval(used))
    self.assertEqual(bs.PairVerdict('in', (0.97, 1.03), got), bs.PASS)
    # With the two disturbed pairs kept, one is trimmed and one is not: the
    # same pairs say nothing.
    everything = bs.Evidence(ratios)
    self.assertEqual(
        bs.PairVerdict('in', (0.97, 1.03), everything), bs.INCONCLUSIVE
    )

  def testFewerThanSixUsedIsInconclusive(self):
    got = bs.Evidence([1.0] * 6, [{'flagged': True}])
    self.assertLen(got['used'], 5)
    self.assertIsNone(got['ci95'])
    self.assertEqual(bs.PairVerdict('>=', 0.97, got), bs.INCONCLUSIVE)
    self.assertEqual(
        bs.PairVerdict('>=', 0.97, bs.Evidence([1.0] * 6)), bs.PASS
    )


class TrimmedMeanTest(absltest.TestCase):

  def testYuensIntervalByHand(self):
    # 1..10: g = 2, kept 3..8 (mean 5.5); winsorized 3,3,3,4,5,6,7,8,8,8
    # (variance 42.5 / 9); se^2 = 9 x 42.5 / 9 / (6 x 5); t(5) = 2.571.
    values = [7.0, 2.0, 9.0, 1.0, 5.0, 10.0, 3.0, 8.0, 4.0, 6.0]
    self.assertEqual(bs.TrimmedMean(values), 5.5)
    low, high = bs.TrimmedInterval(values)
    half = 2.571 * (42.5 / 30) ** 0.5
    self.assertAlmostEqual(low, 5.5 - half)
    self.assertAlmostEqual(high, 5.5 + half)

  def testFewValuesAreTrimmedToTheirMedian(self):
    self.assertEqual(bs.TrimmedMean([1.0, 9.0, 2.0]), 2.0)
    self.assertEqual(bs.TrimmedMean([1.0, 9.0, 2.0, 3.0]), 2.5)
    self.assertEqual(bs.TrimmedMean([1.0, 2.0]), 1.5)
    self.assertEqual(bs.MIN_PAIRS, 6)
    self.assertIsNone(bs.TrimmedInterval([1.0, 9.0, 2.0, 3.0, 2.5]))
    self.assertIsNotNone(bs.TrimmedInterval([1.0, 9.0, 2.0, 3.0, 2.5, 2.0]))
    with self.assertRaisesRegex(ValueError, 'no values'):
      bs.TrimmedMean([])

  def testCoverageWithRareFarOffPairs(self):
    # Pair ratios around 1 with sd 1 %, and one pair in 20 from a spread 30
    # times wider (the far-off pairs of a shared machine): the interval
    # holds the true centre, 1, in about 95 % of 3000 sets of each size.
    # With the kept pairs' own variance in place of the winsorized one it
    # would hold it in 77 % to 89 %.
    rng = random.Random(20261127)
    for n in (6, 10, 30):
      hits = 0
      for _ in range(3000):
        values = [
            rng.gauss(1.0, 0.3 if rng.random() < 0.05 else 0.01)
            for _ in range(n)
        ]
        low, high = bs.TrimmedInterval(values)
        hits += low <= 1.0 <= high
      self.assertGreater(hits / 3000, 0.92, n)


def _FalseMisses(sittings: int, seed: int) -> float:
  """The share of short sittings of identical runs under load that MISS.

  Each sitting takes 4 pairs, then one more at a time up to 6 until its
  verdict is decided, as `--pairs 4 --max-pairs 6` does. Pair ratios of
  identical runs on a loaded machine: 70 % with 5 % spread, 30 % with 25 %.
  """
  rng = random.Random(seed)

  def Ratio():
    return math.exp(rng.gauss(0, 0.25 if rng.random() < 0.3 else 0.05))

  misses = 0
  for _ in range(sittings):
    ratios = [Ratio() for _ in range(4)]
    while True:
      verdict = bs.PairVerdict('in', (0.97, 1.03), bs.Evidence(ratios))
      if verdict != bs.INCONCLUSIVE or len(ratios) == 6:
        break
      ratios.append(Ratio())
    misses += verdict == bs.MISS
  return misses / sittings


class FalseMissTest(absltest.TestCase):

  def testIdenticalRunsUnderLoadRarelyMiss(self):
    # 0.3 % of 3000 sittings with six pairs the fewest; from four (two close
    # pairs kept by chance make a narrow interval) it was 2.2 %.
    self.assertLess(_FalseMisses(3000, seed=11), 0.01)
    with mock.patch.object(bs, 'MIN_PAIRS', 4):
      self.assertGreater(_FalseMisses(3000, seed=11), 0.015)


class FidelitySummaryVerdictTest(parameterized.TestCase):
  """Pair sets of the issue's sittings, judged by their intervals."""

  @parameterized.parameters(
      # vs_pkb CoreMark, busy machine: median 1.288 outside 0.97..1.03,
      # interval 0.713..1.814.
      ((1.472, 1.031, 1.288), 'in', (0.97, 1.03), bs.INCONCLUSIVE),
      # netperf vs_pkb, busy: 3.601, 0.950, 0.909.
      ((3.601, 0.950, 0.909), 'in', (0.97, 1.03), bs.INCONCLUSIVE),
      # A fidelity ratio whose interval reaches under its >= 0.97 target.
      ((0.975, 0.99, 1.0, 0.96, 0.985, 0.98), '>=', 0.97, bs.INCONCLUSIVE),
      ((0.99, 1.0, 1.01, 0.995, 1.005, 1.0), '>=', 0.97, bs.PASS),
      ((0.90, 0.91, 0.92, 0.905, 0.915, 0.9), '>=', 0.97, bs.MISS),
      # Five pairs, however tight, have no interval.
      ((0.90, 0.91, 0.92, 0.905, 0.915), '>=', 0.97, bs.INCONCLUSIVE),
  )
  def testVerdicts(self, ratios, op, target, want):
    got = bench_fidelity.Summary(
        [100 * r for r in ratios], [100.0] * len(ratios), 1.0, op=op,
        target=target,
    )  # fmt: skip
    self.assertEqual(got['verdict'], want)
    self.assertEqual(got['pairs_used'], len(ratios))

  def testARareFarOffPairMovesNeitherTheFigureNorItsInterval(self):
    # A quiet sitting's calibrate pairs: 28 within 1 % and two far off with
    # nothing seen in /proc. The mean's t interval (0.99..1.06) lies across
    # the band; the trimmed mean's lies inside it.
    ratios = (1.0, 1.004, 0.996, 1.008, 0.992, 1.002, 0.998) * 4 + (
        1.481,
        1.221,
    )
    got = bench_fidelity.Summary([100 * r for r in ratios], [100.0] * 30,
                                 1.0, op='in', target=(0.97, 1.03))  # fmt: skip
    self.assertEqual(got['verdict'], bs.PASS)
    self.assertAlmostEqual(got['ratio'], 1.0, places=3)
    self.assertEqual(
        bs.IntervalVerdict('in', (0.97, 1.03), *got['pair_ratio_mean_ci95']),
        bs.INCONCLUSIVE,
    )

  def testTheJsonIntervalIsTheVerdicts(self):
    # The interval's low end lies a hair under 0.97: rounded to 4 places it
    # would read 0.97 and pass.
    ratios = (0.97, 0.970004, 0.970002, 0.969999, 0.970001, 0.970003)
    got = bench_fidelity.Summary([100 * r for r in ratios], [100.0] * 6, 1.0)
    self.assertEqual(round(got['pair_ratio_ci95'][0], 4), 0.97)
    self.assertLess(got['pair_ratio_ci95'][0], 0.97)
    self.assertEqual(got['verdict'], bs.INCONCLUSIVE)
    self.assertEqual(
        bs.IntervalVerdict('>=', 0.97, *got['pair_ratio_ci95']), got['verdict']
    )


class MonitorTest(absltest.TestCase):

  def testMachineCpuTicks(self):
    got = system.MachineCpuTicks()
    self.assertEqual(set(got), {'busy', 'idle', 'irq', 'steal'})
    self.assertGreater(got['busy'], 0)
    bad = self.create_tempfile(content='intr 1 2\n').full_path
    with self.assertRaisesRegex(ValueError, 'no aggregate cpu line'):
      system.MachineCpuTicks(bad)

  def testOurBusyChildIsOurs(self):
    monitor = bs.Monitor()
    before = monitor.Take()
    subprocess.run([sys.executable, '-c', _BUSY.format(s=1.0)], check=True)
    note = monitor.Between(before, monitor.Take())
    self.assertGreaterEqual(note['ours_cpu_s'], 0.9)  # the reaped child's
    self.assertGreaterEqual(note['busy_cpu_s'], note['ours_cpu_s'] - 0.05)

  def testAHogIsOther(self):
    hogs = load.CpuHogs(1, seconds=30)
    monitor = bs.Monitor(exclude=lambda: hogs.pids, max_other_share=0.05)
    before = monitor.Take()
    hogs.Start()
    time.sleep(1.0)
    note = monitor.Between(before, monitor.Take())
    report = hogs.Stop(check=False)
    # Not ours, though our child: its CPU seconds are others'.
    self.assertLess(note['ours_cpu_s'], 0.5 * report.cpu_s[0])
    self.assertGreaterEqual(note['other_cpu_s'], 0.8 * report.cpu_s[0] - 0.05)
    self.assertTrue(note['flagged'])
    self.assertIn('others used', note['reasons'][0])

  def testKernelThreadsAreNeitherOursNorOthers(self):
    # /proc/PID/stat fields after the name: state, ppid, ..., flags at 6,
    # utime..cstime at 11..14, start time at 19.
    def Stat(ppid, ticks, flags=0, start=100):
      return ['S', str(ppid), '0', '0', '0', '0', str(flags), '0', '0', '0',
              '0', str(ticks), '0', '0', '0', '0', '0', '0', '0', str(start)]  # fmt: skip

    def Table(kworker, other, mine):
      return {
          2: Stat(0, 0),
          40: Stat(2, kworker),  # a kworker serving our loop device
          41: Stat(1, 0, flags=bs._PF_KTHREAD),
          50: Stat(1, other),  # someone else's process
          60: Stat(1, mine),  # ours
          61: Stat(60, mine),  # our child
      }

    with mock.patch.object(bs, '_ProcessTable', return_value=Table(0, 0, 0)):
      before = bs.Accounts([60])
    with mock.patch.object(
        bs, '_ProcessTable', return_value=Table(900, 20, 300)
    ):
      after = bs.Accounts([60])
    self.assertEqual(after['ours'] - before['ours'], 600)
    self.assertEqual(bs.GrowthTicks(before['kernel'], after['kernel']), 900)
    self.assertEqual(set(after['kernel']), {2, 40, 41})  # not 50, 60, 61

  def testGrowthTicksCountNewProcessesAndRecycledPids(self):
    before = {7: ('100', 50), 8: ('100', 10)}
    after = {7: ('100', 80), 8: ('555', 4), 9: ('600', 3)}  # 8 is recycled
    self.assertEqual(bs.GrowthTicks(before, after), 30 + 4 + 3)
    self.assertEqual(bs.GrowthTicks(after, {}), 0)

  def testAReapedLongJobIsNotOthersWorkOfOnePair(self):
    # A parent outside our trees reaps a child that ran for minutes: its
    # cutime jumps, but the machine's busy time between the snapshots says
    # what others really used.
    machine = iter([{'busy': 1000, 'idle': 0, 'irq': 0, 'steal': 0},
                    {'busy': 1400, 'idle': 0, 'irq': 0, 'steal': 0}])  # fmt: skip
    monitor = bs.Monitor(roots=lambda: [60], cpus=2, max_other_share=0.5)
    ticks = os.sysconf('SC_CLK_TCK')

    def Stat(ppid, ticks_, cticks=0):
      return ['S', str(ppid), '0', '0', '0', '0', '0', '0', '0', '0', '0',
              str(ticks_), '0', str(cticks), '0', '0', '0', '0', '0', '100']  # fmt: skip

    tables = iter([
        {60: Stat(1, 100), 70: Stat(1, 0), 71: Stat(70, 60000)},
        {60: Stat(1, 400), 70: Stat(1, 0, cticks=60000 + 100)},
    ])
    with mock.patch.object(
        bs, '_ProcessTable', side_effect=lambda: next(tables)
    ), mock.patch.object(
        system, 'MachineCpuTicks', side_effect=lambda: next(machine)
    ):  # fmt: skip
      before = monitor.Take()
      after = monitor.Take()
    note = monitor.Between(before, after)
    # busy grew 400 ticks, ours 300: others used 100, not the reaped 60,100.
    self.assertAlmostEqual(note['other_cpu_s'], (400 - 300) / ticks, places=2)

  def testADisturbanceOfOneRunFlagsThePair(self):
    """Others' 3.8 CPU s all in the second of two 10-s runs on 2 CPUs:
    9.5 % of the pair (under a 10 % threshold) but 19 % of that run. A
    quiet sitting's pair like this had a ratio of 2.9, its others' work
    on one side only."""
    monitor = bs.Monitor(max_other_share=0.10, cpus=2)
    tick = os.sysconf('SC_CLK_TCK')

    def Snap(at, busy, ours):
      return {
          'at': at,
          'machine': {'busy': busy * tick, 'steal': 0},
          'ours': ours * tick,
          'kernel': {},
          'loadavg_1m': 0.3,
      }

    before, mid, after = Snap(0, 0, 0), Snap(10, 4, 4), Snap(20, 11.8, 8)
    whole = monitor.Between(before, after)
    self.assertAlmostEqual(whole['other_share'], 0.095, places=3)
    self.assertFalse(whole['flagged'])
    note = monitor.Between(before, after, mid=mid)
    self.assertTrue(note['flagged'])
    self.assertEqual(
        note['reasons'],
        ['others used 19% of the CPU time during run 2 (threshold 10%)'],
    )
    self.assertEqual([r['other_share'] for r in note['runs']], [0.0, 0.19])
    self.assertAlmostEqual(note['other_share'], 0.095, places=3)

  def testDifferentPlacementsFlagThePair(self):
    monitor = bs.Monitor(max_other_share=1e9)
    snap = monitor.Take()
    self.assertFalse(monitor.Between(snap, snap, [[0, 1], [0, 1]])['flagged'])
    note = monitor.Between(snap, snap, [[0, 1], [1]])
    self.assertTrue(note['flagged'])
    self.assertEqual(note['reasons'], ['its runs had different CPU placements'])


class _FakeMonitor:
  """Monitor stand-in: flags the pairs (1-based) it is told to."""

  cpus = 2

  def __init__(self, flagged=()):
    self.flagged = set(flagged)
    self.pair = 0
    self.mids = []

  def Take(self):
    return {}

  def placement(self):
    return [0, 1]

  def Between(self, before, after, placements=(), mid=None):
    del before, after, placements
    self.mids.append(mid)
    self.pair += 1
    flagged = self.pair in self.flagged
    return {'flagged': flagged, 'reasons': ['told to'] if flagged else []}


# Six pairs below 0.97 around two that a hog disturbed (3 and 4), then
# quiet pairs near 1.
_LOW_THEN_QUIET = (
    [0.929, 0.951, 3.08, 2.10, 0.937, 0.94, 0.935, 0.945]
    + [1.0, 1.05, 1.06]
    + [1.0] * 30
)


class SittingTest(absltest.TestCase):

  def _Sitting(self, op='in', target=(0.97, 1.03), min_pairs=3, flagged=(),
               clock=None, **policy):  # fmt: skip
    sitting = bs.Sitting(
        op, target, min_pairs, bs.Policy(**policy),
        clock=clock or time.monotonic,
    )  # fmt: skip
    sitting.monitor = _FakeMonitor(flagged)
    return sitting

  def _Run(self, sitting, ratios, min_pairs=3):
    values = iter(ratios)
    current = {}

    def Phase(i):
      if i not in current:
        current[i] = next(values)
      return 100.0 * current[i]

    return fidelity.Abba(Phase, lambda _: 100.0, min_pairs, 'test', sitting)

  def testAddsPairsUntilDecided(self):
    # The first three lie across the band; tight pairs narrow it to PASS.
    ratios = [0.95, 1.05, 1.0] + [1.0, 1.001, 0.999] * 10
    sitting = self._Sitting()
    pairs = self._Run(sitting, ratios)
    self.assertEqual(sitting.stop_reason, 'decided')
    n = len(pairs.phase)
    self.assertGreater(n, 3)
    self.assertLess(n, len(ratios))
    evidence = bs.Evidence(pairs.pair_ratios, pairs.interference)
    self.assertEqual(bs.PairVerdict('in', (0.97, 1.03), evidence), bs.PASS)
    # One pair fewer was not yet decided.
    fewer = bs.Evidence(pairs.pair_ratios[:-1])
    self.assertEqual(bs.PairVerdict('in', (0.97, 1.03), fewer), bs.INCONCLUSIVE)

  def testStopsAtThePairCap(self):
    sitting = self._Sitting(max_pairs=6)
    pairs = self._Run(sitting, [0.9, 1.1] * 10)
    self.assertLen(pairs.phase, 6)
    self.assertEqual(sitting.stop_reason, 'pair cap (6)')

  def testStopsAtTheTimeCap(self):
    ticks = iter(range(0, 1000, 10))  # each look at the clock: 10 s later
    sitting = self._Sitting(time_cap_s=25, clock=lambda: next(ticks))
    pairs = self._Run(sitting, [0.9, 1.1] * 10)
    self.assertEqual(sitting.stop_reason, 'time cap (25 s)')
    self.assertLen(pairs.phase, 5)

  def testAMissNeedsNoMorePairs(self):
    sitting = self._Sitting()
    pairs = self._Run(sitting, [0.80, 0.81, 0.80, 0.79, 0.82, 0.8] + [1.0] * 9)
    self.assertLen(pairs.phase, 6)  # the fewest with an interval
    self.assertEqual(sitting.stop_reason, 'decided')

  def testFlaggedPairsDoNotCountTowardsTheVerdict(self):
    # Pair 2 was disturbed: it is left out and replaced, so six unflagged
    # pairs decide.
    sitting = self._Sitting(flagged=[2])
    pairs = self._Run(sitting, [1.0, 0.6, 1.001, 0.9995] + [1.0] * 10)
    self.assertLen(pairs.phase, 7)
    self.assertEqual(sitting.stop_reason, 'decided')
    self.assertEqual([n['flagged'] for n in pairs.interference],
                     [False, True] + [False] * 5)  # fmt: skip
    got = bench_fidelity.Summary(pairs.phase, pairs.raw, 1.0,
                                 interference=pairs.interference, op='in',
                                 target=(0.97, 1.03))  # fmt: skip
    self.assertEqual(got['verdict'], bs.PASS)
    self.assertEqual(got['flagged_pairs'], [2])
    self.assertAlmostEqual(got['ratio'], 1.0)

  def testTheUnflaggedPairsLeftMustMakeTheMinimum(self):
    """A sitting whose hog flagged two of its first eight pairs: the six
    others gave a narrow interval below the target (a MISS a quiet sitting
    would contradict). The flagged pairs are replaced before anything
    decides."""
    sitting = self._Sitting(op='>=', target=0.97, min_pairs=8, flagged=[3, 4])
    pairs = self._Run(sitting, _LOW_THEN_QUIET, min_pairs=8)
    # Pairs 1, 2 and 5 to 8 alone would decide: a MISS.
    first = bs.Evidence(pairs.pair_ratios[:8], pairs.interference[:8])
    self.assertLen(first['used'], 6)
    self.assertEqual(bs.PairVerdict('>=', 0.97, first), bs.MISS)
    self.assertGreater(len(pairs.phase), 8)
    evidence = bs.Evidence(pairs.pair_ratios, pairs.interference)
    self.assertNotEqual(bs.PairVerdict('>=', 0.97, evidence), bs.MISS)

  def testAtTheCapTooFewUnflaggedPairsAreInconclusive(self):
    """The same pairs when the pair cap ends the sitting at eight: the six
    unflagged ones are not enough for a verdict, whatever their interval."""
    sitting = self._Sitting(op='>=', target=0.97, min_pairs=8, flagged=[3, 4],
                            max_pairs=8)  # fmt: skip
    pairs = self._Run(sitting, _LOW_THEN_QUIET[:8], min_pairs=8)
    self.assertEqual(sitting.stop_reason, 'pair cap (8)')
    summary = dict(interference=pairs.interference, op='>=', target=0.97)
    need = bench_fidelity.MinPairs(sitting)
    got = bench_fidelity.Summary(
        pairs.phase, pairs.raw, 1.0, **summary, min_pairs=need
    )
    self.assertEqual(got['pairs_used'], 6)
    self.assertEqual(got['verdict'], bs.INCONCLUSIVE)
    # The same six pairs, with no minimum, would have been a MISS.
    alone = bench_fidelity.Summary(pairs.phase, pairs.raw, 1.0, **summary)
    self.assertEqual(alone['verdict'], bs.MISS)

  def testEachPairIsAlsoMeasuredBetweenItsRuns(self):
    sitting = self._Sitting()
    pairs = self._Run(sitting, [1.0] * 10)
    self.assertLen(sitting.monitor.mids, len(pairs.phase))
    self.assertTrue(all(m is not None for m in sitting.monitor.mids))

  def testRunOrderIsBalancedBlocksDrawnFromTheSeed(self):
    sitting = self._Sitting(max_pairs=12, order_seed=7)
    pairs = self._Run(sitting, [0.9, 1.1] * 10)
    order = [n['raw_first'] for n in pairs.interference]
    self.assertLen(order, 12)
    for block in range(0, 12, 2):  # one AB and one BA in every block
      self.assertNotEqual(order[block], order[block + 1])
    firsts = {order[b] for b in range(0, 12, 2)}
    self.assertEqual(firsts, {True, False})  # drawn, not alternating
    self.assertEqual(sitting.Details()['order_seed'], 7)
    again = self._Sitting(max_pairs=12, order_seed=7)
    self.assertEqual([again.RawFirst(i) for i in range(12)], order)

  def testAPeriodicSwingIsNoiseNotABias(self):
    """Identical runs on a machine whose speed swings fast, slow, slow, fast
    over four runs: alternating AB, BA gives one side the fast runs in
    every pair (a MISS of identical runs); drawn blocks do not."""

    def Machine():
      runs = []

      def Run(_):
        runs.append(None)
        return 100.0 * (1.3, 1.0, 1.0, 1.3)[(len(runs) - 1) % 4]

      return Run

    run = Machine()
    fixed = fidelity.Abba(run, run, 20, 'test')
    ratios = [p / r for p, r in zip(fixed.phase, fixed.raw)]
    self.assertEqual({round(r, 3) for r in ratios}, {1.3})
    alone = bench_fidelity.Summary(
        fixed.phase, fixed.raw, 1.0, op='in', target=(0.97, 1.03)
    )
    self.assertEqual(alone['verdict'], bs.MISS)
    for seed in range(5):
      run = Machine()
      sitting = self._Sitting(max_pairs=20, time_cap_s=1e9, order_seed=seed)
      drawn = fidelity.Abba(run, run, 20, 'test', sitting)
      got = bench_fidelity.Summary(
          drawn.phase,
          drawn.raw,
          1.0,
          interference=drawn.interference,
          op='in',
          target=(0.97, 1.03),
          min_pairs=20,
      )
      self.assertNotEqual(got['verdict'], bs.MISS, f'seed {seed}')

  def testHogStartsMidPairAndIsStoppedByPid(self):
    sitting = bs.Sitting(
        'in', (0.97, 1.03), 4,
        bs.Policy(max_pairs=4, hog_at_pair=2, hog_count=1, hog_seconds=0.5),
    )  # fmt: skip
    order = []

    def Run(side):
      def Do(i):
        order.append((i + 1, side, sitting.hog is not None))
        time.sleep(0.3)
        return 100.0

      return Do

    pairs = fidelity.Abba(Run('phase'), Run('raw'), 4, 'test', sitting)
    # The hog starts between pair 2's two runs, whichever runs first.
    first, second = (
        ('raw', 'phase') if sitting.RawFirst(1) else ('phase', 'raw')
    )
    self.assertEqual(order[2:4], [(2, first, False), (2, second, True)])
    hog = sitting.hog
    self.assertEqual(hog['started_in_pair'], 2)
    self.assertEqual(hog['stopped_after_pair'], 3)  # first boundary >= 0.5 s
    self.assertIsNone(system.StatFields(hog['pids'][0]))  # gone, reaped
    self.assertTrue(pairs.interference[1]['flagged'])
    self.assertGreater(pairs.interference[1]['other_cpu_s'], 0.1)
    self.assertIn('1 CPU hog(s)', hog['summary'])
    self.assertEqual(sitting.Details()['hog'], hog)

  def testAFailingLoopStopsTheHog(self):
    sitting = bs.Sitting(
        '>=', 0.97, 3, bs.Policy(hog_at_pair=1, hog_count=1, hog_seconds=60)
    )

    def Fails(i):
      if sitting.hog is not None:
        raise RuntimeError('tool failed')
      del i
      return 1.0

    started = time.monotonic()
    with self.assertRaisesRegex(RuntimeError, 'tool failed'):
      fidelity.Abba(lambda _: 1.0, Fails, 3, 'test', sitting)
    self.assertLess(time.monotonic() - started, 30)
    self.assertIsNone(system.StatFields(sitting.hog['pids'][0]))
    self.assertIn('summary', sitting.hog)


if __name__ == '__main__':
  absltest.main()
