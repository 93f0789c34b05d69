# Debian packages, including netperf from the non-free component.
if [ "${PKB_EXT_SKIP_APT:-0}" = 1 ]; then
  log "skipping Debian packages (PKB_EXT_SKIP_APT=1)"
else
  mapfile -t _pkgs < <(grep -v '^\s*#' "$ROOT/scripts/apt-packages.txt" | grep -v '^\s*$')
  _missing=()
  for p in "${_pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
      || _missing+=("$p")
  done
  if [ ${#_missing[@]} -eq 0 ]; then
    log "Debian packages present (${#_pkgs[@]})"
  else
    command -v apt-get >/dev/null || die "need apt-get to install: ${_missing[*]}"
    _nonfree=/etc/apt/sources.list.d/pkb-ext-non-free.sources
    if [ ! -f "$_nonfree" ] && ! grep -rqs 'non-free' /etc/apt/sources.list /etc/apt/sources.list.d/; then
      _codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
      log "adding Debian non-free ($_codename) for netperf: $_nonfree"
      as_root tee "$_nonfree" >/dev/null <<SOURCES
Types: deb
URIs: http://deb.debian.org/debian
Suites: $_codename
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
    fi
    log "installing Debian packages: ${_missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends "${_missing[@]}" >/dev/null
  fi
fi
