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
"""Settings written once: a Params field that is the source of its flag.

A field states its flag's name, default, help and bounds (or enum values),
an optional single-flag validator, and how the flag's value converts to the
field's type; the field's default is the converted flag default:

  @settings.Define
  @dataclasses.dataclass(frozen=True)
  class Params:
    runs: int = settings.Integer(
        'cloud_report_coremark_runs', 10, 'Runs per mode.', lower_bound=1
    )
    modes: tuple[str, ...] = settings.List(
        'cloud_report_coremark_modes', ['single', 'all'], 'Modes to run.'
    )

    @classmethod
    def FromFlags(cls) -> 'Params':
      return settings.FromFlags(cls)

Define defines the absl flags (as the Params' module's, so --helpmatch
lists them under it); FromFlags reads each flag once and converts it.
Holder gives the flag's FlagHolder to code that reads it elsewhere. A field
without a flag keeps its own default; FromFlags takes its value as a
keyword.
"""

import dataclasses
from typing import Any, Callable

from absl import flags

from benchmarks.cloud_report import errors

_METADATA_KEY = 'cloud_report_flag'
# Params class -> {field name: FlagHolder}, filled by Define.
_HOLDERS: dict[type, dict[str, flags.FlagHolder]] = {}


class ConversionError(errors.Error, ValueError):
  """A flag's value that its field's converter refuses."""


@dataclasses.dataclass(frozen=True)
class Spec:
  """One field's flag: how to define it and convert its value."""

  define: Callable[..., flags.FlagHolder]  # flags.DEFINE_*
  name: str
  default: Any
  help: str
  options: tuple[tuple[str, Any], ...] = ()  # DEFINE_* keyword arguments
  convert: Callable[[Any], Any] | None = None
  validator: Callable[[Any], bool] | None = None

  def Convert(self, value):
    """Returns the field's value for the flag's `value`.

    Raises:
      ConversionError: the converter refuses the value.
    """
    if self.convert is None:
      return value
    try:
      return self.convert(value)
    except (ValueError, TypeError) as e:
      raise ConversionError(f'--{self.name}={value!r}: {e}') from e


def _Field(
    define, name, default, help_text, convert=None, validator=None, **options
):
  """A dataclass field whose default is the converted flag default."""
  spec = Spec(
      define=define,
      name=name,
      default=default,
      help=help_text,
      options=tuple(options.items()),
      convert=convert,
      validator=validator,
  )
  # Called in a dataclass's body, through the constructors below.
  return dataclasses.field(  # pylint: disable=invalid-field-call
      default=spec.Convert(default), metadata={_METADATA_KEY: spec}
  )


def Integer(
    name, default, help_text, lower_bound=None, upper_bound=None, **kwargs
):
  """A field fed by flags.DEFINE_integer; kwargs: convert, validator."""
  return _Field(
      flags.DEFINE_integer,
      name,
      default,
      help_text,
      lower_bound=lower_bound,
      upper_bound=upper_bound,
      **kwargs,
  )


def Float(
    name, default, help_text, lower_bound=None, upper_bound=None, **kwargs
):
  """A field fed by flags.DEFINE_float; kwargs: convert, validator."""
  return _Field(
      flags.DEFINE_float,
      name,
      default,
      help_text,
      lower_bound=lower_bound,
      upper_bound=upper_bound,
      **kwargs,
  )


def String(name, default, help_text, **kwargs):
  """A field fed by flags.DEFINE_string; kwargs: convert, validator."""
  return _Field(flags.DEFINE_string, name, default, help_text, **kwargs)


def Boolean(name, default, help_text, **kwargs):
  """A field fed by flags.DEFINE_boolean; kwargs: convert, validator."""
  return _Field(flags.DEFINE_boolean, name, default, help_text, **kwargs)


def Enum(name, default, enum_values, help_text, **kwargs):
  """A field fed by flags.DEFINE_enum; kwargs: convert, validator."""
  return _Field(
      flags.DEFINE_enum,
      name,
      default,
      help_text,
      enum_values=list(enum_values),
      **kwargs,
  )


def List(name, default, help_text, convert=tuple, **kwargs):
  """A field fed by flags.DEFINE_list; its value a tuple unless converted."""
  return _Field(
      flags.DEFINE_list, name, default, help_text, convert=convert, **kwargs
  )


def TupleOf(convert_item):
  """A converter of a list flag's value (None: empty) to a tuple of items."""
  return lambda values: tuple(convert_item(v) for v in values or ())


def InOrderOf(choices):
  """A converter to the chosen items in `choices`' order, not the flag's."""
  return lambda values: tuple(c for c in choices if c in (values or ()))


def Define(cls: type, flag_values=flags.FLAGS) -> type:
  """Defines the flags of a Params dataclass's fields; returns the class.

  Each flag is defined as the class's module's, and its validator (if any)
  registered right after it.
  """
  holders = {}
  for field in dataclasses.fields(cls):
    spec = field.metadata.get(_METADATA_KEY)
    if spec is None:
      continue
    holders[field.name] = spec.define(
        spec.name,
        spec.default,
        help=spec.help,
        flag_values=flag_values,
        module_name=cls.__module__,
        **dict(spec.options),
    )
    if spec.validator is not None:
      flags.register_validator(
          spec.name, spec.validator, flag_values=flag_values
      )
  if not holders:
    raise TypeError(f'{cls.__name__} has no field with a flag')
  _HOLDERS[cls] = holders
  return cls


def Holders(cls: type) -> dict[str, flags.FlagHolder]:
  """{field name: FlagHolder} of a class given to Define."""
  if cls not in _HOLDERS:
    raise TypeError(f'{cls.__name__}: its flags are not defined (Define)')
  return dict(_HOLDERS[cls])


def Holder(cls: type, field_name: str) -> flags.FlagHolder:
  """The FlagHolder of one field of a class given to Define."""
  holders = Holders(cls)
  if field_name not in holders:
    raise KeyError(f'{cls.__name__}.{field_name} has no flag')
  return holders[field_name]


def FromFlags(cls: type, **values):
  """Returns cls built from its flags' values, each read once and converted.

  Args:
    cls: a class given to Define.
    **values: values of the fields that have no flag.

  Raises:
    ConversionError: a converter refuses a flag's value.
    TypeError: `values` names a field that has a flag.
  """
  holders = Holders(cls)
  fed = sorted(set(values) & set(holders))
  if fed:
    raise TypeError(f'{cls.__name__}: {fed} come from their flags')
  specs = {
      f.name: f.metadata[_METADATA_KEY]
      for f in dataclasses.fields(cls)
      if f.name in holders
  }
  for name, holder in holders.items():
    values[name] = specs[name].Convert(holder.value)
  return cls(**values)
