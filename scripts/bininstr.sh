#!/usr/bin/env bash
# Counts the instructions the mock server BINARY spends per create over HTTP, with valgrind's
# callgrind: net/http's parse and answer, the log line and the collector included, which the
# in-process count (scripts/createinstr.sh) leaves out. The binary runs under callgrind with
# the flags of scripts/stripemock.sh's mock (-log-level info -strict-responses=false, the
# default -gc-percent), GOMAXPROCS=1; internal/createload -drive sends it 500 creates, then
# N (--n, default 4000), from 8 clients over keep-alive connections, in its own process;
# closing its standard input ends the server and callgrind writes its total. The difference of the two totals
# over N-500 is one create. With --base REF (repeatable) the binary built at git REF is
# measured too, and the ratio printed. --args replaces the binary's flags; --keep DIR keeps callgrind's output
# of each run there (callgrind_annotate --inclusive=yes FILE shows where a create goes).
#
#   scripts/bininstr.sh                          # this tree
#   scripts/bininstr.sh --base main --n 4000     # and main's binary, with the ratio
set -euo pipefail
cd "$(dirname "$0")/.."

bases=()
big=4000
flags="-log-level info -strict-responses=false"
keep="" # --keep DIR: leave each run's callgrind output there, for callgrind_annotate
while [ $# -gt 0 ]; do
	case "$1" in
	--base) bases+=("${2:?--base needs a git ref}"); shift ;;
	--n) big=${2:?}; shift ;;
	--args) flags=${2?}; shift ;;
	--keep) keep=${2:?--keep needs a directory}; shift ;;
	-h | --help) sed -n '2,13p' "$0"; exit 0 ;;
	*) echo "bininstr.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
command -v valgrind >/dev/null || { echo "bininstr.sh: valgrind is not installed" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/createload" ./internal/createload

# total BIN N: the binary's instructions from start to exit, having answered N creates. The
# server ends by -exit-on-stdin-close, not by a signal: callgrind stops on an assertion when
# a signal arrives at a Go binary's handler, and writes no counts.
total() {
	local bin=$1 n=$2 pid line="" url key
	: >"$tmp/start"
	rm -f "$tmp/in" && mkfifo "$tmp/in"
	GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=callgrind \
		--callgrind-out-file="$tmp/cg.out" "$bin" -addr 127.0.0.1:0 -exit-with-parent=false \
		-exit-on-stdin-close $flags <"$tmp/in" >"$tmp/start" 2>"$tmp/err" &
	pid=$!
	exec 3>"$tmp/in"
	for _ in $(seq 1500); do # the start line: valgrind starts a Go binary in seconds, a loaded machine in a minute
		line=$(head -n 1 "$tmp/start")
		[ -n "$line" ] && break
		sleep 0.2
	done
	url=$(sed -n 's/.*"url":"\([^"]*\)".*/\1/p' <<<"$line")
	key=$(sed -n 's/.*"apiKey":"\([^"]*\)".*/\1/p' <<<"$line")
	if [ -z "$url" ] || [ -z "$key" ]; then
		exec 3>&-
		kill "$pid" 2>/dev/null || true
		echo "bininstr.sh: no start line with url and apiKey: $line" >&2
		exit 1
	fi
	"$tmp/createload" -drive "$url" -key "$key" -n "$n" -conns 8
	exec 3>&-
	wait "$pid" || true
	if ! grep -q '^summary:' "$tmp/cg.out"; then
		echo "bininstr.sh: callgrind wrote no total; its log:" >&2
		tail -n 20 "$tmp/err" >&2
		exit 1
	fi
	awk '/^summary:/ {print $2}' "$tmp/cg.out"
	if [ -n "$keep" ]; then
		mkdir -p "$keep" && cp "$tmp/cg.out" "$keep/callgrind.$(basename "$bin").$n.out"
	fi
}

# perCreate BIN: instructions per create.
perCreate() {
	local small large
	small=$(total "$1" 500)
	large=$(total "$1" "$big")
	echo $(( (large - small) / (big - 500) ))
}

go build -o "$tmp/new" ./mockserver/cmd/mockserver
newI=$(perCreate "$tmp/new")
echo "this tree binary: $newI instructions per create ($flags)"
for base in "${bases[@]}"; do
	rm -rf "$tmp/base" && mkdir -p "$tmp/base"
	git archive "$base" | tar -x -C "$tmp/base"
	(cd "$tmp/base" && go build -o "$tmp/basebin" ./mockserver/cmd/mockserver)
	baseI=$(perCreate "$tmp/basebin")
	echo "base $base binary: $baseI instructions per create ($flags)"
	awk -v n="$newI" -v b="$baseI" -v r="$base" 'BEGIN { printf "this tree / %s: %.2f× instructions per create\n", r, n / b }'
done
