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
"""The object storage phase's flags, read once into Params."""

import dataclasses
import re

from absl import flags
from perfkitbenchmarker import flags as pkb_flags  # pylint: disable=unused-import

from benchmarks.cloud_report import settings

# The study's object sizes: powers of two from 16 KiB to 32 MiB.
DEFAULT_SIZES = [f'{2**k}KiB' for k in range(4, 10)] + [
    f'{2**k}MiB' for k in range(0, 6)
]
_UNITS = {'': 1, 'b': 1, 'kib': 1 << 10, 'mib': 1 << 20, 'gib': 1 << 30}
_SIZE = re.compile(r'^\s*(\d+)\s*([a-zA-Z]*)\s*$')


def ParseSize(text: str) -> int:
  """Returns the bytes of '16KiB', '32MiB', '1GiB' or '4096'."""
  m = _SIZE.match(str(text))
  if not m or m.group(2).lower() not in _UNITS:
    raise ValueError(
        f'bad object size {text!r}: use bytes or a KiB, MiB or GiB suffix'
    )
  size = int(m.group(1)) * _UNITS[m.group(2).lower()]
  if size < 1:
    raise ValueError(f'object size {text!r} must be at least 1 byte')
  return size


@settings.Define
@dataclasses.dataclass(frozen=True)
class Params:
  """The phase's flags, read once; each default is its flag's (the study's)."""

  latency_requests: int = settings.Integer(
      'cloud_report_object_storage_latency_requests',
      1000,
      'TTFB requests per operation (PUT, GET) and per connection kind (new, '
      'reused); 0 skips the latency workload.',
      lower_bound=0,
  )
  latency_object_bytes: int = settings.Integer(
      'cloud_report_object_storage_latency_object_bytes',
      1,
      "Object size of the TTFB requests (the study used PKB's one-byte "
      'read/write test).',
      lower_bound=1,
  )
  sizes: tuple[int, ...] = settings.List(
      'cloud_report_object_storage_sizes',
      DEFAULT_SIZES,
      'Object sizes of the single-stream throughput workload, as bytes or '
      'with a KiB/MiB/GiB suffix; empty skips it.',
      convert=settings.TupleOf(ParseSize),
  )
  downloads_per_size: int = settings.Integer(
      'cloud_report_object_storage_downloads_per_size',
      100,
      'Uploads, then downloads, per object size (each object read once); 0 '
      'skips the throughput workload.',
      lower_bound=0,
  )
  concurrency: tuple[int, ...] = settings.List(
      'cloud_report_object_storage_concurrency',
      ['1', '5', '10', '20'],
      'Simultaneous transfers for the aggregate throughput workload; empty '
      'skips it.',
      convert=settings.TupleOf(int),
  )
  concurrency_rounds: int = settings.Integer(
      'cloud_report_object_storage_concurrency_rounds',
      20,
      'Rounds (replicates) per concurrency level.',
      lower_bound=1,
  )
  concurrency_object_bytes: int = settings.String(
      'cloud_report_object_storage_concurrency_object_size',
      '32MiB',
      'Object size of the concurrency workload.',
      convert=ParseSize,
  )
  prefix: str = settings.String(
      'cloud_report_object_storage_prefix',
      'cloud-report-2021/',
      'Prefix of every object name the worker writes.',
  )
  python: str = settings.String(
      'cloud_report_object_storage_python',
      'python3',
      'Python interpreter on the client VM that runs the worker.',
  )

  @classmethod
  def FromFlags(cls) -> 'Params':
    return settings.FromFlags(cls)


def Validator(name, check):
  """A validator of flag `name` from check(value), which raises ValueError."""

  def Check(value):
    try:
      check(value)
    except ValueError as e:
      raise flags.ValidationError(f'--{name}: {e}') from e
    return True

  return Check


def _CheckLevels(values):
  for v in values or ():
    if not str(v).isdigit() or int(v) < 1:
      raise ValueError(f'concurrency levels are integers >= 1, got {v!r}')


def _CheckPrefix(prefix):
  if prefix.startswith('/') or '..' in prefix.split('/') or len(prefix) > 512:
    raise ValueError(f'{prefix!r} is not a relative object name prefix')


for _field, _check in (
    ('sizes', lambda v: [ParseSize(s) for s in v or ()]),
    ('concurrency', _CheckLevels),
    ('concurrency_object_bytes', ParseSize),
    ('prefix', _CheckPrefix),
):
  _name = settings.Holder(Params, _field).name
  flags.register_validator(_name, Validator(_name, _check))
