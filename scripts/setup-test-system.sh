#!/usr/bin/env bash
# The system components the test suite starts itself, installed when missing. Run by `npm test`
# (pretest) and by .ci/run, so the README's two commands are all the set-up a machine needs.
#
#   chromium    the dashboard's browser tests (test/helpers/browser.ts): $SVC_TEST_CHROMIUM, else /usr/bin/chromium
#   postgresql  the PostgreSQL store's tests (test/support/postgres.ts): initdb under /usr/lib/postgresql/*/bin or on PATH
#   bubblewrap  the sandbox tests: bwrap on PATH
#   socat       the sandbox tests: socat on PATH
#   ripgrep     the bash sandbox's tests: rg on PATH (the sandbox runtime needs it)
#   curl        the sandbox tests: a request through the sandbox's proxy
#   zsh, fish   the shell completion tests: the real shells calling svc __complete
#
# Everything present: nothing printed, no apt-get, exit 0. Something missing: with apt-get and
# root (or sudo that asks for no password), one `apt-get update` and one `apt-get install` of the
# missing Debian packages, then exit 0 if they are all there now. Otherwise it prints what to
# install and exits 1, so `npm test` stops with that message instead of a screen of failing tests.
#
# SVC_TEST_SETUP=check  never install: report what is missing and exit 1 when anything is.
# SVC_TEST_SETUP=skip   never install: report what is missing and that the tests needing it will
#                       fail (they are never skipped), and exit 0 so the suite runs anyway.
# Nothing here prompts (sudo -n, DEBIAN_FRONTEND=noninteractive): fine with CI=true and no terminal.
# Plain bash 3.2 (macOS's): no associative arrays, no mapfile.
set -uo pipefail

say() { printf 'setup-test-system: %s\n' "$*" >&2; }

mode="${SVC_TEST_SETUP:-install}"
case "$mode" in
  install | check | skip) ;;
  *)
    say "SVC_TEST_SETUP=$mode is not one of install (the default), check, skip"
    exit 2
    ;;
esac

chromium_path="${SVC_TEST_CHROMIUM:-/usr/bin/chromium}"

# Each component is also the name of its Debian package. A check succeeds, silently, when it is there.
components="chromium postgresql bubblewrap socat ripgrep curl zsh fish"
has() {
  case "$1" in
    chromium) [ -x "$chromium_path" ] ;;
    postgresql) command -v initdb >/dev/null 2>&1 || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null ;;
    bubblewrap) command -v bwrap >/dev/null 2>&1 ;;
    socat) command -v socat >/dev/null 2>&1 ;;
    ripgrep) command -v rg >/dev/null 2>&1 ;;
    curl) command -v curl >/dev/null 2>&1 ;;
    zsh) command -v zsh >/dev/null 2>&1 ;;
    fish) command -v fish >/dev/null 2>&1 ;;
  esac
}
needed_by() {
  case "$1" in
    chromium) echo 'the dashboard tests (test/web)' ;;
    postgresql) echo 'the PostgreSQL store tests (initdb, pg_ctl)' ;;
    bubblewrap) echo 'the sandbox tests (bwrap)' ;;
    socat) echo 'the sandbox tests' ;;
    ripgrep) echo 'the bash sandbox tests (the sandbox runtime scans with rg)' ;;
    curl) echo 'the sandbox tests (requests through the sandbox proxy)' ;;
    zsh | fish) echo 'the shell completion tests (test/cli/completion-values.test.ts)' ;;
  esac
}
# The component by its generic name, for systems without Debian's packages.
described() {
  case "$1" in
    chromium) echo 'Chromium (at /usr/bin/chromium, or set SVC_TEST_CHROMIUM to its path)' ;;
    postgresql) echo 'the PostgreSQL server (initdb on PATH)' ;;
    bubblewrap) echo 'bubblewrap (bwrap on PATH)' ;;
    socat) echo 'socat (on PATH)' ;;
    ripgrep) echo 'ripgrep (rg on PATH)' ;;
    curl) echo 'curl (on PATH)' ;;
    zsh) echo 'zsh (on PATH)' ;;
    fish) echo 'fish (on PATH)' ;;
  esac
}
# Installed along with a package: --no-install-recommends would leave out the metric-compatible
# fonts chromium recommends, which the dashboard's layout tests have always run with.
along_with() {
  case "$1" in
    chromium) echo 'fonts-liberation' ;;
  esac
}
missing_now() {
  local c out=""
  for c in $components; do has "$c" || out="$out $c"; done
  echo "${out# }"
}

missing=$(missing_now)
[ -z "$missing" ] && exit 0

# A chromium the tests cannot find that installing Debian's would not fix: SVC_TEST_CHROMIUM names
# a path that is not there, or a Chromium elsewhere on PATH wants SVC_TEST_CHROMIUM pointed at it.
chromium_hint=""
if ! has chromium; then
  if [ -n "${SVC_TEST_CHROMIUM:-}" ]; then
    chromium_hint="SVC_TEST_CHROMIUM=$SVC_TEST_CHROMIUM is not an executable: point it at a Chromium, or unset it for /usr/bin/chromium"
  else
    for name in chromium chromium-browser; do
      found=$(command -v "$name" 2>/dev/null) || continue
      chromium_hint="a Chromium is at $found, but the tests look for /usr/bin/chromium: run them with SVC_TEST_CHROMIUM=$found"
      break
    done
  fi
fi
# The missing Debian packages to install (chromium not, when the hint above applies).
installable=""
for c in $missing; do
  [ "$c" = chromium ] && [ -n "$chromium_hint" ] && continue
  installable="$installable $c"
done
installable="${installable# }"

# What a person must do by hand, for what is still missing.
instructions() {
  local c
  for c in $missing; do say "  $c: needed by $(needed_by "$c")"; done
  [ -n "$chromium_hint" ] && say "  chromium: $chromium_hint"
  if [ -n "$installable" ]; then
    say "install on Debian or Ubuntu with:"
    say "  sudo apt-get install $installable"
    local names=""
    for c in $installable; do names="$names, $(described "$c")"; done
    say "elsewhere, with your package manager: ${names#, }"
  fi
  [ "$mode" = skip ] || say "then run npm test again; SVC_TEST_SETUP=skip npm test runs the suite anyway, those tests failing"
}

case "$mode" in
  skip)
    say "SVC_TEST_SETUP=skip: not installing; the tests that need these fail (they are never skipped):"
    instructions
    exit 0
    ;;
  check)
    say "SVC_TEST_SETUP=check: missing $missing:"
    instructions
    exit 1
    ;;
esac

if [ -n "$installable" ]; then
  # Installing takes apt-get and root, or sudo that asks for no password (there may be no terminal).
  sudo=""
  why_not=""
  if ! command -v apt-get >/dev/null 2>&1; then
    why_not="there is no apt-get to install them with"
  elif [ "$(id -u)" -eq 0 ]; then
    :
  elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
    sudo="sudo -n"
  else
    why_not="installing needs root or sudo without a password"
  fi
  if [ -n "$why_not" ]; then
    say "missing $missing, and $why_not:"
    instructions
    exit 1
  fi

  packages=""
  for c in $installable; do packages="$packages $c $(along_with "$c")"; done
  packages=$(echo $packages)
  log=$(mktemp "${TMPDIR:-/tmp}/svc-setup-test-system-XXXXXX")
  apt() { $sudo env DEBIAN_FRONTEND=noninteractive apt-get -qq "$@" >>"$log" 2>&1; }
  say "installing $packages with apt-get, for the tests"
  # shellcheck disable=SC2086 # package names are words
  if ! apt update || ! apt install -y --no-install-recommends $packages; then
    say "apt-get failed; its last lines:"
    tail -n 15 "$log" >&2
    rm -f "$log"
    instructions
    exit 1
  fi
  rm -f "$log"
  still=""
  for c in $installable; do has "$c" || still="$still $c"; done
  if [ -n "$still" ]; then
    missing="${still# }"
    installable="$missing"
    say "apt-get installed $packages, yet $missing still missing:"
    instructions
    exit 1
  fi
  say "installed $packages"
fi

if [ -n "$chromium_hint" ]; then
  missing=chromium
  installable=""
  say "missing chromium where the tests look for it:"
  instructions
  exit 1
fi
