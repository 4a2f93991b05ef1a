#!/usr/bin/env bash
# Counts the instructions the mock server spends per create, in process, with valgrind's
# callgrind: repeatable on a loaded machine, where CPU time is not. BenchmarkCreateCPU/SUB
# (mockserver/cpu_bench_test.go) runs twice, with 500 and N creates (--n, default 8000);
# the difference of the two totals over N-500 is the cost of one create, without the
# binary's start and the contract's compile. With --base REF the same is measured on the code at git REF (the
# benchmark file of this tree is copied in when REF lacks it) and the ratio printed.
#
#   scripts/createinstr.sh                       # this tree, sub-benchmark "mock"
#   scripts/createinstr.sh --base bdd965d        # and the code at bdd965d, with the ratio
#   scripts/createinstr.sh --sub mock-strict     # another sub-benchmark (this tree only)
#
# The collector's cycles fall in or out of the window by chance: with N=2500 two runs of one
# binary differed by up to 13%; a larger N averages over more cycles.
#
# Go's runtime needs GODEBUG=asyncpreemptoff=1 (callgrind trips over the preemption signal)
# and cpu.rdtscp=off (callgrind does not emulate RDTSCP) under valgrind; both are set here.
set -euo pipefail
cd "$(dirname "$0")/.."

base=""
sub=mock
big=8000
while [ $# -gt 0 ]; do
	case "$1" in
	--base) base=${2:?--base needs a git ref}; shift ;;
	--sub) sub=${2:?}; shift ;;
	--n) big=${2:?}; shift ;;
	-h | --help) sed -n '2,17p' "$0"; exit 0 ;;
	*) echo "createinstr.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
command -v valgrind >/dev/null || { echo "createinstr.sh: valgrind is not installed" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# perCreate BIN: prints instructions per create and allocations per create.
perCreate() {
	local bin=$1 n total allocs
	local -a totals
	for n in 500 "$big"; do
		(cd mockserver && GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 \
			valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$bin" -test.run '^$' \
			-test.bench "^BenchmarkCreateCPU\$/^$sub\$" -test.benchtime "${n}x" -test.benchmem >"$tmp/log" 2>&1)
		total=$(awk '/^summary:/ {print $2}' "$tmp/cg.out")
		totals+=("$total")
		allocs=$(awk '/allocs\/op/ {print $(NF-1)}' "$tmp/log")
	done
	echo "$(( (totals[1] - totals[0]) / (big - 500) )) $allocs"
}

go test -c -o "$tmp/new.test" ./mockserver
read -r newI newA < <(perCreate "$tmp/new.test")
echo "this tree   $sub: $newI instructions per create, $newA allocations per create"
if [ -n "$base" ]; then
	git worktree add -q --detach "$tmp/base" "$base"
	trap 'git worktree remove --force "$tmp/base"; rm -rf "$tmp"' EXIT
	if [ ! -f "$tmp/base/mockserver/cpu_bench_test.go" ]; then
		# The benchmark without this tree's later cases and tests.
		sed -e '/^\/\/ TestFormatCount/,$d' -e '/mock-strict/d' mockserver/cpu_bench_test.go >"$tmp/base/mockserver/cpu_bench_test.go"
	fi
	(cd "$tmp/base" && go test -c -o "$tmp/base.test" ./mockserver)
	read -r baseI baseA < <(perCreate "$tmp/base.test")
	echo "base $base $sub: $baseI instructions per create, $baseA allocations per create"
	awk -v n="$newI" -v b="$baseI" 'BEGIN { printf "this tree / base: %.2f× instructions per create\n", n / b }'
fi
