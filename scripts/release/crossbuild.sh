#!/usr/bin/env bash
# Cross-compiles the release binaries, the targets .goreleaser.yaml builds, without goreleaser:
# mockserver and taskrouter-migrate for linux, darwin and windows on amd64 and arm64, static
# (CGO_ENABLED=0), -trimpath, the version of VERSION stamped in (-version prints it), and a
# SHA-256 checksums file.
#
#   scripts/release/crossbuild.sh [OUT_DIR]     # default dist/
#
# RELEASE_SNAPSHOT=1 runs goreleaser's snapshot build (pinned below) instead, the same targets
# packaged as archives; it needs the goreleaser module from the module proxy.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
out=${1:-dist}
version=$(tr -d ' \n' < VERSION)
GORELEASER_VERSION=v2.15.1

if [ "${RELEASE_SNAPSHOT:-}" = 1 ]; then
  exec go run "github.com/goreleaser/goreleaser/v2@${GORELEASER_VERSION}" release --snapshot --clean
fi

rm -rf "$out"
mkdir -p "$out"
for os in linux darwin windows; do
  for arch in amd64 arm64; do
    ext=""; [ "$os" = windows ] && ext=.exe
    for cmd in mockserver:./mockserver/cmd/mockserver taskrouter-migrate:./cmd/taskrouter-migrate; do
      name=${cmd%%:*}; pkg=${cmd#*:}
      CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath \
        -ldflags "-s -w -X main.version=$version" -o "$out/${name}_${version}_${os}_${arch}${ext}" "$pkg"
    done
  done
done
(cd "$out" && sha256sum -- * > checksums.txt)
# The binary for this machine must say its version.
host="$out/mockserver_${version}_$(go env GOOS)_$(go env GOARCH)"
got=$("$host" -version)
if [ "$got" != "$version" ]; then echo "$host -version printed $got, not $version"; exit 1; fi
echo "built $(ls "$out" | grep -vc checksums.txt) binaries of $version in $out/ (checksums.txt)"
