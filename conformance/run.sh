#!/usr/bin/env bash
# Runs the conformance suite: installs the pinned engine (npm ci), then plays every family's
# seeded scenarios through the engine on a private redis-server and through the reference
# matcher and the mock server (go run ./internal/conformance/cmd/conform), and exits non-zero
# on any divergence. Then it plays a few families again on a redis-server with Redis's own
# hash limits (-redis-defaults), where ties follow hash order and each divergence must be a
# tie the mock disclosed. Needs go, node/npm and redis-server on PATH. Bounded: each family
# stops starting new scenarios after CONFORMANCE_BUDGET, and the shrinker gets 30 s per
# failing family.
#
#   conformance/run.sh                               # every family, and the defaults run
#   CONFORMANCE_FAMILIES=tags-only,vetoes conformance/run.sh
#   CONFORMANCE_REDIS_DEFAULTS_FAMILIES= conformance/run.sh   # no defaults run
set -euo pipefail
cd "$(dirname "$0")/.."

families=${CONFORMANCE_FAMILIES:-all}
n=${CONFORMANCE_N:-40}
seed=${CONFORMANCE_SEED:-1}
budget=${CONFORMANCE_BUDGET:-20s}
# The families with ties the hash order decides, and over-512 (beyond the listpack's 512
# entries); empty: skip the defaults run.
defaults=${CONFORMANCE_REDIS_DEFAULTS_FAMILIES-int-weights,fairness-first-come,fairness-best-match,dropped-weights,over-512}

for tool in node npm redis-server; do
  if ! command -v "$tool" >/dev/null; then
    echo "conformance: $tool is not on PATH" >&2
    exit 2
  fi
done

(cd conformance && npm ci --no-audit --no-fund --loglevel=error)
go build -o "${TMPDIR:-/tmp}/conform.$$" ./internal/conformance/cmd/conform
conform="${TMPDIR:-/tmp}/conform.$$"
trap 'rm -f "$conform"' EXIT

status=0
"$conform" -families "$families" -n "$n" -seed "$seed" -budget "$budget" || status=$?
if [[ -n "$defaults" ]]; then
  echo "== Redis defaults: $defaults"
  code=0
  "$conform" -redis-defaults -families "$defaults" -n "$n" -seed "$seed" -budget "$budget" || code=$?
  # 2 (cannot run) outranks 1 (a divergence).
  if ((code > status)); then status=$code; fi
fi
exit "$status"
