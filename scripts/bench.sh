#!/usr/bin/env bash
# Runs every package's benchmarks with fixed -benchtime/-count and writes BENCHMARKS.md
# (ratios computed by `go run ./internal/benchreport` from the output). Needs Go; when node,
# npm and redis-server are on PATH it also times the platform's engine (assignment-user-matcher,
# conformance/README.md "Timing the engine") on BenchmarkScale's workload right after the
# matcher, so the report sets the two side by side from the same run.
#
#   scripts/bench.sh                      # the standard run: about 3 minutes on 2 cores, +2-3 for the engine
#   scripts/bench.sh --with-1m            # also the 100k-worker / 1M-task matcher scale (+5 min, ~2 GiB)
#   scripts/bench.sh --quick              # short benchtimes, engine on 1k workers: checks the pipeline, rough numbers
#   scripts/bench.sh --no-engine          # skip the engine (the report says so)
#   scripts/bench.sh --engine-first-come  # also time the engine's first-come fairness (+2-3 min)
#   scripts/bench.sh --out FILE           # write somewhere other than BENCHMARKS.md
#
# BENCH_1M=1 in the environment is the same as --with-1m. The engine runs with best-match
# fairness, the mode the platform rules reproduce; it runs `npm ci` in conformance/ when
# conformance/node_modules is missing. Missing tools are not a failure: the engine is skipped,
# with the reason on stderr and in the report. The raw log is kept and its path printed. The
# exit status is 0 only when every command succeeded and every target that ran was met;
# BENCHMARKS.md is written either way.
set -uo pipefail
cd "$(dirname "$0")/.."

out=BENCHMARKS.md
with1m=${BENCH_1M:-0}
quick=0
engine=1
engine_fairness=(best-match)
while [ $# -gt 0 ]; do
	case "$1" in
	--with-1m) with1m=1 ;;
	--quick) quick=1 ;;
	--no-engine) engine=0 ;;
	--engine-first-come) engine_fairness+=(first-come) ;;
	--out) out=${2:?--out needs a file}; shift ;;
	-h | --help) sed -n '2,20p' "$0"; exit 0 ;;
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
# The engine on BenchmarkScale's 10k-workers-100k-tasks workload (loading it takes 1-2 minutes).
engine_workers=10000; engine_tasks=100000; engine_probes=9
if [ "$quick" = 1 ]; then
	client_bt=100ms; client_count=2
	webhook_bt=100ms; webhook_count=2
	match_bt=2000x; match_count=1
	mock_bt=3x; mock_count=2
	bulk_count=1
	# A smaller workload than the matcher's: the report shows it without a ratio.
	engine_workers=1000; engine_tasks=10000; engine_probes=5
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

# engine_skipped records why the engine is not timed, for the report (### ENGINE-SKIPPED) and
# the reader of stderr.
engine_skipped() {
	echo "### ENGINE-SKIPPED $1" >>"$log"
	echo "bench.sh: the platform's engine is not timed: $1" >&2
}
if [ "$engine" = 0 ]; then
	engine_skipped "skipped with --no-engine"
else
	missing=()
	for tool in node npm redis-server; do
		command -v "$tool" >/dev/null || missing+=("$tool")
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		engine_skipped "not on PATH: ${missing[*]}"
	elif [ ! -d conformance/node_modules ] && ! (cd conformance && npm ci --no-audit --no-fund --loglevel=error) >&2; then
		engine_skipped "npm ci in conformance/ failed"
	else
		engine_start=$SECONDS
		for fairness in "${engine_fairness[@]}"; do
			bench go run ./internal/conformance/cmd/conform -bench-engine -bench-workers "$engine_workers" \
				-bench-tasks "$engine_tasks" -bench-probes "$engine_probes" -bench-fairness "$fairness"
		done
		echo "bench.sh: timing the engine took $((SECONDS - engine_start)) s" >&2
	fi
fi
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
