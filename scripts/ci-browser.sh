#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests and Debian's PgBouncer for the pooler tests when
# they are missing (never a downloaded binary).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
updated=no
apt_install() {
  if [ "$updated" = no ]; then
    apt-get update -qq
    updated=yes
  fi
  apt-get install -y -qq "$@" >/dev/null
}
if [ ! -x /usr/bin/chromium ]; then
  echo "ci: installing chromium"
  apt_install chromium
fi
if [ ! -x /usr/sbin/pgbouncer ]; then
  echo "ci: installing pgbouncer"
  apt_install pgbouncer
  # The package may start a system PgBouncer on 6432; the tests start their own on a free port,
  # so stop it rather than leave a second pooler running beside them.
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet pgbouncer 2>/dev/null; then
    systemctl stop pgbouncer
    systemctl disable --quiet pgbouncer || true
  elif command -v service >/dev/null 2>&1; then
    service pgbouncer stop >/dev/null 2>&1 || true
  fi
fi
/usr/bin/chromium --version
/usr/sbin/pgbouncer --version | head -n 1
