#!/usr/bin/env bash
# Measures the mock server binary's create throughput and server CPU per create against a
# bare net/http JSON handler and stripe-mock, on this machine in the same minutes, with the
# load generator internal/createload (rounds alternate between the servers; CPU is each
# server process's own, from /proc, so other load on a shared machine does not count).
#
#   scripts/stripemock.sh                 # mock server (this tree) vs bare handler vs stripe-mock
#   scripts/stripemock.sh --base REF      # also the mock server built from git REF (e.g. main)
#   scripts/stripemock.sh --base REF --base-args "-log-level info -strict-responses=false"
#                                         # the base's flags (default -log-level info: a REF
#                                         # from before -strict-responses does not know it)
#   scripts/stripemock.sh --n 4000 --rounds 5 --conns 8
#   scripts/stripemock.sh --pin           # each server on CPU 0, the load generator on CPU 1
#
# Why --pin: unpinned, on a 2-core machine the load generator's 8 clients take about as much
# CPU per create as the server they load (creating, sending and reading an HTTP request is
# not cheaper than answering it), so a server's creates per second is what the scheduler
# leaves it, not what it can do: even the bare net/http handler, which does nothing but
# decode and answer, reached only about 3x stripe-mock's throughput, and a server cannot be
# shown to beat that ceiling. With --pin every server runs under `taskset -c 0` and the load
# generator under `taskset -c 1`: each server's creates per second is its capacity on one
# core (its CPU per create, inverted), while the load generator keeps a core of its own.
# Without taskset (util-linux) or with fewer than 2 CPUs, --pin is skipped with the reason
# and the run is unpinned. Other processes still share both cores; the server CPU column,
# counted per process, does not include theirs.
#
# stripe-mock is installed with `go install` at the pinned version below into a temporary
# GOBIN. When that fails (no network, no module proxy) the script says why and measures the
# rest without it; it exits 0 unless a measurement itself fails.
set -uo pipefail
cd "$(dirname "$0")/.."

STRIPE_MOCK_VERSION=v0.203.0
base=""
n=4000
rounds=5
conns=8
pin=0
baseArgs="-log-level info"
while [ $# -gt 0 ]; do
	case "$1" in
	--base) base=${2:?--base needs a git ref}; shift ;;
	--base-args) baseArgs=${2?}; shift ;;
	--n) n=${2:?}; shift ;;
	--rounds) rounds=${2:?}; shift ;;
	--conns) conns=${2:?}; shift ;;
	--pin) pin=1 ;;
	-h | --help) sed -n '2,29p' "$0"; exit 0 ;;
	*) echo "stripemock.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done

work=$(mktemp -d "${TMPDIR:-/tmp}/taskrouting-stripemock.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ ! -r /proc/self/stat ]; then
	echo "stripemock.sh: skipped: server CPU is read from /proc/PID/stat, which this system lacks" >&2
	exit 0
fi
go build -o "$work/mockserver" ./mockserver/cmd/mockserver || exit 1
go build -o "$work/createload" ./internal/createload || exit 1

args=(-mock "$work/mockserver" -n "$n" -rounds "$rounds" -conns "$conns"
	-mock-args "-log-level info -strict-responses=false")
if [ -n "$base" ]; then
	mkdir -p "$work/base"
	if git archive "$base" | tar -x -C "$work/base" && (cd "$work/base" && go build -o "$work/mockserver-base" ./mockserver/cmd/mockserver); then
		args+=(-base "$work/mockserver-base" -base-args "$baseArgs")
	else
		echo "stripemock.sh: the mock server at $base did not build; measuring without it" >&2
	fi
fi
if GOBIN="$work/bin" go install "github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION" 2>"$work/install.log"; then
	args+=(-stripe "$work/bin/stripe-mock")
else
	echo "stripemock.sh: stripe-mock skipped: go install github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION failed:" >&2
	sed 's/^/  /' "$work/install.log" >&2
fi
runner=()
if [ "$pin" = 1 ]; then
	if ! command -v taskset >/dev/null; then
		echo "stripemock.sh: --pin skipped: taskset (util-linux) is not installed; the run is unpinned" >&2
	elif ! taskset -c 0 true 2>/dev/null || ! taskset -c 1 true 2>/dev/null; then
		echo "stripemock.sh: --pin skipped: this process may not run on both CPU 0 and CPU 1 ($(nproc) CPUs allowed); the run is unpinned" >&2
	else
		runner=(taskset -c 1)
		args+=(-server-cpu 0)
	fi
fi
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start" >&2
"${runner[@]}" "$work/createload" "${args[@]}"
status=$?
echo "machine: load average $(cut -d' ' -f1-3 /proc/loadavg) at end" >&2
exit $status
