# Copyright 2026 The pkb_ext Authors. Licensed under the Apache License 2.0.
#
# The BigQuery emulator of the emulator test tier: PyPI's local-bigquery 0.3.2
# in its own Python 3.13 venv ($CACHE/bq-emulator-venv), every package pinned.
# DuckDB 1.5.5 would download the extensions the emulator loads (icu for
# TimeZone, ducklake for storage, spatial for GEOGRAPHY) from its own server at
# run time; here they come from PyPI wheels (duckdb-extension-*) and are
# installed into the venv's DuckDB home, so the emulator then runs with no
# network. tests/pkb_ext_dev/bq_emulator.py starts it with HOME set to that home.
BQEMU_VENV=$CACHE/bq-emulator-venv
BQEMU_HOME=$BQEMU_VENV/duckdb-home
_BQEMU_EXTENSIONS="icu ducklake spatial"
_BQEMU_PINS="local-bigquery==0.3.2
duckdb==1.5.5
duckdb-extensions==1.5.5
duckdb-extension-icu==1.5.5
duckdb-extension-ducklake==1.5.5
duckdb-extension-spatial==1.5.5
annotated-doc==0.0.7
annotated-types==0.8.0
anyio==4.16.0
certifi==2026.10.18
cffi==2.1.1
charset-normalizer==3.5.2
click==8.5.1
cryptography==50.0.2
fastapi==0.165.0
fastavro==1.13.1
google-api-core==2.44.0
google-auth==2.62.2
google-cloud-bigquery-storage==2.43.0
googleapis-common-protos==1.76.0
grpcio==1.85.1
grpcio-status==1.85.1
h11==0.16.0
idna==3.20
mini-racer==0.14.1
numpy==2.5.5
opentelemetry-api==1.45.2
prompt_toolkit==3.0.53
proto-plus==1.29.0
protobuf==7.36.2
pyarrow==26.0.1
pyasn1==0.6.5
pyasn1_modules==0.4.2
pycparser==3.12
pydantic==2.14.3
pydantic-settings==2.16.3
pydantic_core==2.50.4
Pygments==2.21.0
python-dotenv==1.2.4
requests==2.34.2
sqlglot==30.30.0
starlette==1.10.0
typing-inspection==0.4.5
typing_extensions==4.16.0
urllib3==2.8.0
uvicorn==0.54.0
wcwidth==0.9.4"
_bqemu_stamp=$(printf '%s\n%s' "$_BQEMU_PINS" "$_BQEMU_EXTENSIONS" | sha256sum | cut -c1-16)

# Loads every extension with autoinstall off: succeeds only with no download.
_bqemu_check() {
  HOME=$BQEMU_HOME "$BQEMU_VENV/bin/python" - "$_BQEMU_EXTENSIONS" <<'EOF'
import sys
import duckdb
import local_bigquery  # noqa: F401
con = duckdb.connect(config={
    'autoinstall_known_extensions': False, 'allow_community_extensions': False})
for name in sys.argv[1].split():
    con.execute(f'LOAD {name}')
con.execute("SET TimeZone = 'UTC'")
assert duckdb.__version__ == '1.5.5', duckdb.__version__
EOF
}

_bqemu_python() {
  local c
  for c in ${PKB_EXT_PYTHON313:-} python3.13 \
      "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13*/bin/python3.13; do
    c=$(command -v "$c" 2>/dev/null) || continue
    if "$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13))' 2>/dev/null; then
      echo "$c"; return 0
    fi
  done
  return 1
}

if [ "$(cat "$BQEMU_VENV/.pkb-ext-ready" 2>/dev/null)" = "$_bqemu_stamp" ] \
    && _bqemu_check 2>/dev/null; then
  log "BigQuery emulator present: $BQEMU_VENV"
else
  _py313=$(_bqemu_python) \
    || die "the BigQuery emulator needs Python 3.13; set PKB_EXT_PYTHON313=/path/to/python3.13"
  log "creating $BQEMU_VENV with $_py313 (local-bigquery 0.3.2, DuckDB 1.5.5)"
  rm -rf "$BQEMU_VENV"
  "$_py313" -m venv "$BQEMU_VENV"
  printf '%s\n' "$_BQEMU_PINS" > "$BQEMU_VENV/requirements.txt"
  "$BQEMU_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
      --only-binary=:all: -r "$BQEMU_VENV/requirements.txt" \
      -c "$BQEMU_VENV/requirements.txt" \
    || die "cannot install the BigQuery emulator's packages"
  mkdir -p "$BQEMU_HOME"
  HOME=$BQEMU_HOME "$BQEMU_VENV/bin/python" - $_BQEMU_EXTENSIONS <<'EOF' \
    || die "cannot install the DuckDB extensions from their wheels"
import sys
import duckdb
from duckdb_extensions import import_extension
con = duckdb.connect()
for name in sys.argv[1:]:
    import_extension(name, force_install=True, con=con)
EOF
  _bqemu_check || die "the BigQuery emulator's DuckDB cannot load its extensions offline"
  echo "$_bqemu_stamp" > "$BQEMU_VENV/.pkb-ext-ready"
  log "BigQuery emulator ready: $BQEMU_VENV"
fi
