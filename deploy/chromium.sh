#!/usr/bin/env bash
# Headless Chromium for the test that looks at report.html (tests/integration/test_report_page.py).
# Installs Debian's `chromium` once when it is missing (needs root and apt); does nothing when it is there.
set -euo pipefail
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null; then exit 0; fi
done
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "chromium.sh: no chromium on PATH; install Debian's chromium (apt-get install chromium) as root" >&2
  exit 1
fi
echo "chromium.sh: installing Debian's chromium (once)..." >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
