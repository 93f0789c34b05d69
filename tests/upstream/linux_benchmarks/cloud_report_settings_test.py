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
"""Tests of settings: Params fields that define their own flags."""

import dataclasses

from absl import flags
from absl.testing import absltest

from benchmarks.cloud_report import errors
from benchmarks.cloud_report import settings


def _CheckEven(value) -> bool:
  if value % 2:
    raise flags.ValidationError(f'--test_even={value}: not even')
  return True


def _Sizes(values):
  """A converter that refuses anything but digits."""
  out = []
  for v in values:
    if not v.isdigit():
      raise ValueError(f'{v!r} is not a number')
    out.append(int(v))
  return tuple(out)


def _DefineParams(flag_values):
  """A Params class with one field of every kind, its flags on flag_values."""

  @dataclasses.dataclass(frozen=True)
  class Params:
    """One field of every kind."""

    count: int = settings.Integer(
        'test_count', 3, 'How many.', lower_bound=1, upper_bound=9
    )
    ratio: float = settings.Float('test_ratio', 0.5, 'A ratio.', lower_bound=0)
    name: str | None = settings.String('test_name', None, 'A name.')
    on: bool = settings.Boolean('test_on', True, 'Switched on.')
    mode: str = settings.Enum('test_mode', 'a', ('a', 'b'), 'A mode.')
    items: tuple[str, ...] = settings.List('test_items', ['x', 'y'], 'Items.')
    sizes: tuple[int, ...] = settings.List(
        'test_sizes', ['1', '2'], 'Sizes.', convert=_Sizes
    )
    levels: tuple[int, ...] = settings.List(
        'test_levels', ['4'], 'Levels.', convert=settings.TupleOf(int)
    )
    steps: tuple[str, ...] = settings.List(
        'test_steps', ['b', 'a'], 'Steps.', convert=settings.InOrderOf('abc')
    )
    even: int = settings.Integer(
        'test_even', 2, 'An even number.', validator=_CheckEven
    )
    extra: str = 'plain'  # a field without a flag

  return settings.Define(Params, flag_values)


class DefineTest(absltest.TestCase):
  """Define: each field's flag, as its spec says."""

  def setUp(self):
    """Params whose flags live on a FlagValues of the test's own."""
    super().setUp()
    self.flag_values = flags.FlagValues()
    self.params = _DefineParams(self.flag_values)

  def testDefinesEachFlagWithItsSpec(self):
    """Each field's flag: its name, kind, default, help and bounds."""
    fv = self.flag_values
    self.assertCountEqual(
        list(fv),
        [
            'test_count', 'test_ratio', 'test_name', 'test_on', 'test_mode',
            'test_items', 'test_sizes', 'test_levels', 'test_steps',
            'test_even',
        ],
    )  # fmt: skip
    self.assertEqual(fv['test_count'].default, 3)
    self.assertEqual(fv['test_count'].help, 'How many.')
    self.assertEqual(fv['test_count'].parser.lower_bound, 1)
    self.assertEqual(fv['test_count'].parser.upper_bound, 9)
    self.assertEqual(fv['test_mode'].parser.enum_values, ['a', 'b'])
    self.assertEqual(fv['test_items'].default, ['x', 'y'])
    self.assertEqual(type(fv['test_on']).__name__, 'BooleanFlag')
    self.assertIsNone(fv['test_name'].default)

  def testFlagsAreTheParamsModules(self):
    self.assertEqual(
        self.flag_values.find_module_defining_flag('test_count'), __name__
    )
    self.assertIn(__name__, self.flag_values.flags_by_module_dict())

  def testDefaultsAreTheConvertedFlagDefaults(self):
    self.assertEqual(
        self.params(),
        self.params(
            count=3, ratio=0.5, name=None, on=True, mode='a',
            items=('x', 'y'), sizes=(1, 2), levels=(4,), steps=('a', 'b'),
            even=2, extra='plain',
        ),
    )  # fmt: skip

  def testBoundsEnumAndValidatorRefuseAtParse(self):
    for arg in (
        '--test_count=0',
        '--test_count=10',
        '--test_ratio=-1',
        '--test_mode=c',
        '--test_even=3',
    ):
      with self.subTest(arg=arg):
        with self.assertRaises(flags.IllegalFlagValueError):
          self.flag_values(['prog', arg])

  def testValidatorMessage(self):
    with self.assertRaisesRegex(flags.IllegalFlagValueError, 'not even'):
      self.flag_values(['prog', '--test_even=5'])

  def testAClassWithoutFlagsIsRefused(self):
    @dataclasses.dataclass(frozen=True)
    class NoFlags:
      x: int = 1

    with self.assertRaisesRegex(TypeError, 'no field with a flag'):
      settings.Define(NoFlags, flags.FlagValues())

  def testADuplicateFlagIsRefused(self):
    with self.assertRaises(flags.DuplicateFlagError):
      _DefineParams(self.flag_values)

  def testABadDefaultIsRefusedAtTheField(self):
    with self.assertRaisesRegex(settings.ConversionError, 'test_bad'):
      settings.List('test_bad', ['x'], 'Bad.', convert=_Sizes)


class FromFlagsTest(absltest.TestCase):
  """FromFlags: each flag read once, converted by its field."""

  def setUp(self):
    """Params whose flags live on a FlagValues of the test's own."""
    super().setUp()
    self.flag_values = flags.FlagValues()
    self.params = _DefineParams(self.flag_values)

  def testReadsParsedValues(self):
    self.flag_values([
        'prog', '--test_count=7', '--test_name=n', '--notest_on',
        '--test_mode=b', '--test_items=q', '--test_sizes=8,9',
        '--test_levels=', '--test_steps=c,x,a,c', '--test_even=4',
    ])  # fmt: skip
    self.assertEqual(
        settings.FromFlags(self.params),
        self.params(
            count=7, ratio=0.5, name='n', on=False, mode='b', items=('q',),
            sizes=(8, 9), levels=(), steps=('a', 'c'), even=4,
        ),
    )  # fmt: skip

  def testAtDefaultFlagsIsTheDefaultParams(self):
    self.flag_values(['prog'])
    self.assertEqual(settings.FromFlags(self.params), self.params())

  def testAFieldWithoutAFlagTakesAKeyword(self):
    self.flag_values(['prog'])
    self.assertEqual(
        settings.FromFlags(self.params, extra='given').extra, 'given'
    )

  def testAKeywordForAFlagsFieldIsRefused(self):
    self.flag_values(['prog'])
    with self.assertRaisesRegex(TypeError, 'count'):
      settings.FromFlags(self.params, count=5)

  def testAConverterRefusalNamesTheFlag(self):
    self.flag_values(['prog', '--test_sizes=1,x'])
    with self.assertRaises(settings.ConversionError) as raised:
      settings.FromFlags(self.params)
    self.assertEqual(
        str(raised.exception),
        "--test_sizes=['1', 'x']: 'x' is not a number",
    )
    self.assertIsInstance(raised.exception, errors.Error)
    self.assertIsInstance(raised.exception, ValueError)

  def testUnparsedFlagsAreNotRead(self):
    with self.assertRaises(flags.UnparsedFlagAccessError):
      settings.FromFlags(self.params)

  def testHolderReadsTheFlag(self):
    self.flag_values(['prog', '--test_count=5'])
    holder = settings.Holder(self.params, 'count')
    self.assertEqual(holder.name, 'test_count')
    self.assertEqual(holder.value, 5)

  def testHolderOfAFieldWithoutAFlag(self):
    with self.assertRaisesRegex(KeyError, 'extra has no flag'):
      settings.Holder(self.params, 'extra')

  def testAClassNotDefinedHasNoHolders(self):
    @dataclasses.dataclass(frozen=True)
    class Undefined:
      x: int = settings.Integer('test_x', 1, 'X.')

    with self.assertRaisesRegex(TypeError, 'not defined'):
      settings.FromFlags(Undefined)


if __name__ == '__main__':
  absltest.main()
