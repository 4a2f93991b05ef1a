#!/usr/bin/env bash
# Runs the conformance suite: installs the pinned engine (npm ci), then plays every family's
# seeded scenarios through the engine on a private redis-server and through the reference
# matcher (go run ./internal/conformance/cmd/conform), and exits non-zero on any divergence.
# Needs go, node/npm and redis-server on PATH. Bounded: each family stops starting new
# scenarios after CONFORMANCE_BUDGET, and the shrinker gets 30 s per failing family.
#
#   conformance/run.sh                               # every family
#   CONFORMANCE_FAMILIES=tags-only,vetoes conformance/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."

families=${CONFORMANCE_FAMILIES:-all}
n=${CONFORMANCE_N:-40}
seed=${CONFORMANCE_SEED:-1}
budget=${CONFORMANCE_BUDGET:-20s}

for tool in node npm redis-server; do
  if ! command -v "$tool" >/dev/null; then
    echo "conformance: $tool is not on PATH" >&2
    exit 2
  fi
done

(cd conformance && npm ci --no-audit --no-fund --loglevel=error)
go run ./internal/conformance/cmd/conform -families "$families" -n "$n" -seed "$seed" -budget "$budget"
