#!/usr/bin/env bash
# Set up a working checkout: a virtual environment, the package with its dev tools, and a Chromium.
# Safe to run again: each step checks first.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: installing webmcp-harness[dev] into .venv"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e '.[dev]'
  touch "$stamp"
fi

have_browser() { .venv/bin/python -c 'from webmcp_harness import find_browser; print(find_browser())' 2>/dev/null; }

if found=$(have_browser); then
  echo "setup: using Chromium at $found"
  exit 0
fi
echo "setup: no Chromium found; trying 'playwright install chromium'"
if .venv/bin/python -m playwright install chromium >/dev/null 2>&1 && found=$(have_browser); then
  echo "setup: using Chromium at $found"
  exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
  echo "setup: trying 'apt-get install chromium'"
  if $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
     && found=$(have_browser); then
    echo "setup: using Chromium at $found"
    exit 0
  fi
fi
cat >&2 <<'MSG'
setup: could not get a Chromium. Do one of these, then run the command again:
  - .venv/bin/python -m playwright install chromium      (needs internet access)
  - sudo apt-get install chromium                         (Debian/Ubuntu)
  - export WEBMCP_BROWSER_PATH=/path/to/chromium          (Chromium 146 or newer)
MSG
exit 1
