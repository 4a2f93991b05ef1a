#!/usr/bin/env bash
# Runs every package's benchmarks with fixed -benchtime/-count and writes BENCHMARKS.md
# (ratios computed by `go run ./internal/benchreport` from the output). Needs only Go.
#
#   scripts/bench.sh              # the standard run, about 3 minutes on 2 cores
#   scripts/bench.sh --with-1m    # also the 100k-worker / 1M-task matcher scale (+5 min, ~2 GiB)
#   scripts/bench.sh --quick      # short benchtimes: checks the pipeline, numbers are rough
#   scripts/bench.sh --out FILE   # write somewhere other than BENCHMARKS.md
#
# BENCH_1M=1 in the environment is the same as --with-1m. The raw log is kept and its path
# printed. The exit status is 0 only when every command succeeded and every target that ran
# was met; BENCHMARKS.md is written either way.
set -uo pipefail
cd "$(dirname "$0")/.."

out=BENCHMARKS.md
with1m=${BENCH_1M:-0}
quick=0
while [ $# -gt 0 ]; do
	case "$1" in
	--with-1m) with1m=1 ;;
	--quick) quick=1 ;;
	--out) out=${2:?--out needs a file}; shift ;;
	-h | --help) sed -n '2,13p' "$0"; exit 0 ;;
	*) echo "bench.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done

# Fixed settings, so two runs of the script measure the same amount of work.
client_bt=1s; client_count=6
webhook_bt=500ms; webhook_count=10
match_bt=20000x; match_count=3
mock_bt=20x; mock_count=5
bulk_count=3
if [ "$quick" = 1 ]; then
	client_bt=100ms; client_count=2
	webhook_bt=100ms; webhook_count=2
	match_bt=2000x; match_count=1
	mock_bt=3x; mock_count=2
	bulk_count=1
fi

logdir=$(mktemp -d "${TMPDIR:-/tmp}/taskrouting-bench.XXXXXX")
log="$logdir/bench.log"
status=0

# bench runs one `go test -bench` command and appends its output to the log, after markers
# that the report reads: the load average when it started and the exact command.
bench() {
	local cmd="" arg
	for arg in "$@"; do
		# Quote what a shell would expand, so the report shows a command one can paste.
		if [[ "$arg" =~ ^[A-Za-z0-9_./=:-]+$ ]]; then cmd+="$arg "; else cmd+="'$arg' "; fi
	done
	echo "### LOAD $(cat /proc/loadavg 2>/dev/null || echo unknown)" >>"$log"
	echo "### CMD ${cmd% }" >>"$log"
	echo "== ${cmd% }" >&2
	if ! env "$@" 2>&1 | tee -a "$log" >&2; then
		echo "bench.sh: command failed: $*" >&2
		status=1
	fi
}

bench go test -run '^$' -bench '^(BenchmarkTasksCreate|BenchmarkWorkerAccept)$' -benchmem \
	-benchtime "$client_bt" -count "$client_count" .
bench go test -run '^$' -bench '^(BenchmarkVerifier|BenchmarkVerifyOneShot)$' -benchmem \
	-benchtime "$webhook_bt" -count "$webhook_count" ./webhook/
bench go test -run '^$' -bench '^BenchmarkScale$/^10k-workers-100k-tasks$' -benchtime "$match_bt" -count "$match_count" \
	-timeout 30m ./internal/match/
if [ "$with1m" = 1 ]; then
	bench TASKROUTING_LONG=1 go test -run '^$' -bench '^BenchmarkScale$/^100k-workers-1M-tasks$' -benchtime "$match_bt" -count 1 \
		-timeout 60m ./internal/match/
fi
bench go test -run '^$' -bench '^BenchmarkPostTasks$' -benchtime "$mock_bt" -count "$mock_count" ./mockserver/
bench go test -run '^$' -bench '^BenchmarkBulkBackfill$' -benchtime 1x -count "$bulk_count" -timeout 20m .

go run ./internal/benchreport -in "$log" -out "$out"
report=$?
echo "bench.sh: wrote $out; raw log: $log" >&2
if [ "$report" -ne 0 ]; then
	exit "$report"
fi
exit "$status"
