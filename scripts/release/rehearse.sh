#!/usr/bin/env bash
# Release rehearsal: publish the working tree's three modules (the root, otel, dedupe/redis)
# at the version in VERSION to a file-based module proxy, then, in a fresh module outside the
# repository and with no workspace, `go get` all three at that version the way a user would,
# build and run a program that uses them. It fails when a module cannot be installed from what
# would be tagged: a go.mod with a replace, a separate module requiring the root at another
# version, a file missing from a zip.
#
#   scripts/release/rehearse.sh            # the version in VERSION
#   KEEP=1 scripts/release/rehearse.sh     # keep the temporary directory and print it
#   REHEARSE_GOTOOLCHAIN=go1.24.0 scripts/release/rehearse.sh   # as a user on the oldest Go
#
# It also installs both commands with `go install ...@VERSION`, as the README tells users of
# other languages to, and checks that -version prints VERSION.
#
# The file proxy comes first in GOPROXY; the machine's own GOPROXY (`go env GOPROXY`) follows
# it for every other module. GONOSUMDB names our modules, which the checksum database has never
# seen before they are tagged; every other module is checked against it as usual.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"

version=$(tr -d ' \n' < VERSION)
mod=github.com/taskrouting/taskrouting-go
fallback=$(go env GOPROXY)
echo "rehearsing $version (fallback GOPROXY: $fallback)"

# The version is said once in VERSION; every other place that says it must agree.
fail=0
for m in otel dedupe/redis; do
  got=$(awk -v p="$mod" '$1==p {print $2}' "$m/go.mod")
  if [ "$got" != "$version" ]; then
    echo "$m/go.mod requires $mod $got, not $version"; fail=1
  fi
done
if ! grep -q "^replace $mod $version => ./\$" go.work; then
  echo "go.work does not replace $mod $version with the working tree"; fail=1
fi
if ! grep -q "^## \[$version\]" CHANGELOG.md; then
  echo "CHANGELOG.md has no section ## [$version]"; fail=1
fi
[ "$fail" = 0 ] || exit 1

tmp=$(mktemp -d)
if [ "${KEEP:-}" = 1 ]; then echo "keeping $tmp"; else trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT; fi

# modproxy is a module of its own (golang.org/x/mod stays out of the SDK's go.mod files).
(cd scripts/release/modproxy && GOWORK=off go run . -version "$version" -out "$tmp/proxy" -repo "$repo" . otel dedupe/redis)

# A fresh module cache, so a zip of an earlier rehearsal at the same version is never reused;
# the machine's cache is read as a proxy after ours, so nothing already downloaded is fetched
# again.
cache=$(go env GOMODCACHE)
mkdir -p "$tmp/consumer"
cp scripts/release/consumer/main.go.txt "$tmp/consumer/main.go"
cd "$tmp/consumer"
export GOWORK=off GOFLAGS=-mod=mod GOTOOLCHAIN="${REHEARSE_GOTOOLCHAIN:-local}" GOMODCACHE="$tmp/modcache"
go version
export GOPROXY="file://$tmp/proxy,file://$cache/cache/download,$fallback"
export GONOSUMDB="$mod,$mod/*" GOPRIVATE= GONOPROXY=
go mod init example.com/consumer >/dev/null 2>&1
go get "$mod@$version" "$mod/otel@$version" "$mod/dedupe/redis@$version"

go list -m "$mod" "$mod/otel" "$mod/dedupe/redis"
# -trimpath: the build cache then keys packages by module@version, not by the temporary
# module cache path, so a second rehearsal on one machine compiles only what changed.
go build -trimpath -o consumer .
./consumer
GOFLAGS= GOBIN="$tmp/bin" go install -trimpath "$mod/mockserver/cmd/mockserver@$version" "$mod/cmd/taskrouter-migrate@$version"
for c in mockserver taskrouter-migrate; do
  got=$("$tmp/bin/$c" -version)
  if [ "$got" != "$version" ]; then echo "go install ...$c@$version: -version printed $got"; exit 1; fi
done
echo "go install ...@$version: mockserver and taskrouter-migrate print $version"
go clean -modcache
echo "rehearsal of $version passed"
