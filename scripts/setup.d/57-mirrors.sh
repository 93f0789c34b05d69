# Copyright 2026 The pkb_ext Authors. Licensed under the Apache License 2.0.
#
# The local cloud's PyPI caching index: PyPI's proxpi 1.3.1 in its own venv
# ($CACHE/proxpi-venv), every package pinned; `pkb-ext local up` runs it on
# the bridge address as the pip index of the hosts' OS images
# (pkb_ext/local/mirrors.py). Its apt counterpart, apt-cacher-ng, and the
# image builder, mmdebstrap, are Debian packages (scripts/apt-packages.txt).
#   PKB_EXT_SKIP_MIRRORS=1  skip this step (then only `up --image=host` runs)
PROXPI_VENV=$CACHE/proxpi-venv
_PROXPI_PINS="proxpi==1.3.1
blinker==1.9.0
certifi==2026.10.19.post1
charset-normalizer==3.5.3
click==8.5.1
Flask==3.1.3
idna==3.20
itsdangerous==2.2.0
Jinja2==3.1.6
lxml==6.1.3
MarkupSafe==3.0.4
requests==2.34.2
urllib3==2.8.0
Werkzeug==3.1.9"
_proxpi_stamp=$(printf '%s' "$_PROXPI_PINS" | sha256sum | cut -c1-16)

if [ "${PKB_EXT_SKIP_MIRRORS:-0}" = 1 ]; then
  log "skipping proxpi (PKB_EXT_SKIP_MIRRORS=1)"
elif [ "$(cat "$PROXPI_VENV/.pkb-ext-ready" 2>/dev/null)" = "$_proxpi_stamp" ] \
    && "$PROXPI_VENV/bin/python" -c 'import proxpi.server' 2>/dev/null; then
  log "proxpi present: $PROXPI_VENV"
else
  log "creating $PROXPI_VENV (proxpi 1.3.1)"
  rm -rf "$PROXPI_VENV"
  "$VENV/bin/python" -m venv "$PROXPI_VENV"
  printf '%s\n' "$_PROXPI_PINS" > "$PROXPI_VENV/requirements.txt"
  "$PROXPI_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
      -r "$PROXPI_VENV/requirements.txt" || die "proxpi install failed"
  echo "$_proxpi_stamp" > "$PROXPI_VENV/.pkb-ext-ready"
fi
