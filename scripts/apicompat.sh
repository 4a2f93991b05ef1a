#!/usr/bin/env bash
# API compatibility check: compares the exported API of every public package in the working
# tree with the API of the last release, kept in api/compat/ (one export file per package,
# written by golang.org/x/exp/cmd/apidiff, and RELEASE, the version they were made at).
#
#   scripts/apicompat.sh      # check; exit 1 on an incompatible change the version does not allow
#   scripts/apicompat.sh -w   # after tagging a release: record its API (and VERSION in RELEASE)
#
# An incompatible change (a removed or changed exported name) in a stable package fails unless
# VERSION says a new major version, or for v0.x a new minor version, over RELEASE
# (VERSIONING.md). Experimental packages are compared too and their incompatible changes are
# printed, without failing. Internal packages and commands have no Go API to keep.
set -euo pipefail
cd "$(dirname "$0")/.."

APIDIFF_VERSION=v0.0.0-20261113113407-e3970619a1a4 # golang.org/x/exp, pinned
mod=github.com/taskrouting/taskrouting-go
stable=("" webhook mockserver api dedupe/redis)
experimental=(otel migrate/taskrouter migrate/taskrouter/expr migrate/taskrouter/plan
  migrate/taskrouter/gen migrate/taskrouter/shadow)

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
GOBIN="$bin" GOWORK=off GOFLAGS= go install "golang.org/x/exp/cmd/apidiff@$APIDIFF_VERSION"
apidiff="$bin/apidiff"

pkgpath() { if [ -z "$1" ]; then echo "$mod"; else echo "$mod/$1"; fi; }
exportfile() { if [ -z "$1" ]; then echo api/compat/taskrouting.export; else echo "api/compat/${1//\//_}.export"; fi; }

if [ "${1:-}" = "-w" ]; then
  mkdir -p api/compat
  rm -f api/compat/*.export
  for p in "${stable[@]}" "${experimental[@]}"; do
    "$apidiff" -w "$(exportfile "$p")" "$(pkgpath "$p")"
  done
  tr -d ' \n' < VERSION > api/compat/RELEASE
  echo >> api/compat/RELEASE
  echo "recorded the API of $(cat api/compat/RELEASE) in api/compat/"
  exit 0
fi

last=$(tr -d ' \n' < api/compat/RELEASE)
cur=$(tr -d ' \n' < VERSION)
# allowed: VERSION is a new major over RELEASE, or, both being v0, a new minor.
major() { local v=${1#v}; echo "${v%%.*}"; }
minor() { local v=${1#v}; v=${v#*.}; echo "${v%%.*}"; }
allowed=0
if [ "$(major "$cur")" -gt "$(major "$last")" ]; then allowed=1
elif [ "$(major "$cur")" = 0 ] && [ "$(major "$last")" = 0 ] && [ "$(minor "$cur")" -gt "$(minor "$last")" ]; then allowed=1
fi

broken=0
check() { # kind pkg
  local out
  if [ ! -f "$(exportfile "$2")" ]; then echo "$(pkgpath "$2"): new since $last"; return; fi
  out=$("$apidiff" -incompatible "$(exportfile "$2")" "$(pkgpath "$2")")
  if [ -n "$out" ]; then
    echo "$(pkgpath "$2") ($1): incompatible with $last:"
    echo "$out" | sed 's/^/    /'
    if [ "$1" = stable ]; then broken=1; fi
  fi
}
for p in "${stable[@]}"; do check stable "$p"; done
for p in "${experimental[@]}"; do check experimental "$p"; done

if [ "$broken" = 1 ]; then
  if [ "$allowed" = 1 ]; then
    echo "apicompat: incompatible changes allowed: VERSION $cur is a new $( [ "$(major "$cur")" = 0 ] && echo minor || echo major ) version over $last"
    exit 0
  fi
  echo "apicompat: FAIL: a stable package changed incompatibly since $last, and VERSION ($cur) does not say"
  echo "a new $( [ "$(major "$last")" = 0 ] && echo "minor version (v0.N+1.0)" || echo "major version") (VERSIONING.md): keep the old name as a deprecated alias instead."
  exit 1
fi
echo "apicompat: every stable package is compatible with $last"
