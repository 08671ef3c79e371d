#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests when it is missing (never a downloaded browser).
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  echo "ci: installing chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi
/usr/bin/chromium --version
