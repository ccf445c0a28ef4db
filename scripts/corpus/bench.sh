#!/usr/bin/env bash
# bench.sh measures the logparse parser against reviewdog's errorformat CLI
# on the same logs, and scores errorformat on the fixture corpus.
#
# usage: scripts/corpus/bench.sh [OUTDIR]
#
# 1. builds bench-1MB.log and bench-100MB.log (corpus logs mixed with CI
#    noise, the bytes the Go benchmarks parse) with TestWriteBenchLogs;
# 2. runs the Go benchmarks (-count 5) and summarises them with benchstat;
# 3. times `salve parse` and `errorformat` on both logs, user CPU and wall
#    (best of the runs), and their peak RSS (the largest, with GNU time);
# 4. scores errorformat, with generic GNU/tsc patterns, on the corpus.
#
# errorformat and benchstat are installed with `go install` into a
# temporary GOBIN; they are not dependencies of the module.
#
# BENCH_BASE=REV (a commit, branch or tag of this repository) measures the
# parser at REV beside this tree's, in the same minutes: its Go benchmarks
# run too (benchstat compares the two), and its `salve parse` takes turns
# with this tree's in every round of the timings. Both must print the same
# bytes on both logs, or the script fails.
#
# BENCH_SMALL=1 is the small run of make bench: the 1 MB log only, one
# benchmark run and one timing each, no benchstat, and errorformat left out
# (with a note) when it cannot be installed; its figures are not to quote.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# The temporary folders (the logs' when no OUTDIR is given, the tools' and
# the base revision's source) are removed at the end.
temps=()
trap 'rm -rf "${temps[@]}"' EXIT
out=${1:-}
if [ -z "$out" ]; then out=$(mktemp -d) && temps+=("$out"); fi
mkdir -p "$out"
gobin=${GOBIN_BENCH:-}
if [ -z "$gobin" ]; then gobin=$(mktemp -d) && temps+=("$gobin"); fi
EF_VERSION=${EF_VERSION:-v0.0.0-20260721110140-13bff69235f3}
small=${BENCH_SMALL:-}
base=${BENCH_BASE:-}
logs=(bench-1MB.log bench-100MB.log) count=5 tries=3 benchre='BenchmarkParse(1|100)MB'
if [ -n "$small" ]; then
	logs=(bench-1MB.log) count=1 tries=1 benchre='BenchmarkParse1MB$'
fi

ef=errorformat
if ! GOBIN="$gobin" go install "github.com/reviewdog/errorformat/cmd/errorformat@$EF_VERSION"; then
	[ -n "$small" ] || exit 1
	echo "bench: errorformat could not be installed; its timings and score are left out" >&2
	ef=
fi
if [ -z "$small" ]; then
	GOBIN="$gobin" go install golang.org/x/perf/cmd/benchstat@latest || echo "bench: benchstat unavailable" >&2
fi

# build SRC NAME builds cmd/salve of the tree SRC as $out/NAME. The binary
# is copied into place: its peak RSS counts the pages of its file it maps,
# and how many depends on how the file was written, so both binaries of a
# comparison are written the same way.
build() {
	(cd "$1" && go build -o "$out/$2.build" ./cmd/salve)
	cp "$out/$2.build" "$out/$2" && rm "$out/$2.build"
}

cd "$repo"
SALVE_BENCH_DIR="$out" go test -count=1 -run TestWriteBenchLogs ./internal/heal/logparse >/dev/null
build "$repo" salve
tools=(salve)
if [ -n "$base" ]; then
	basesrc=$(mktemp -d) && temps+=("$basesrc")
	git -C "$repo" archive "$base" | tar -x -C "$basesrc"
	build "$basesrc" salve-base
	tools+=(salve-base)
fi

echo "== go test -bench (GOMAXPROCS=1, -count $count)"
GOMAXPROCS=1 go test -run XXX -bench "$benchre" -benchmem -count "$count" ./internal/heal/logparse | tee "$out/bench.txt"
if [ -n "$base" ]; then
	echo "== go test -bench at $base"
	(cd "$basesrc" && GOMAXPROCS=1 go test -run XXX -bench "$benchre" -benchmem -count "$count" ./internal/heal/logparse) | tee "$out/bench-base.txt"
fi
if [ -x "$gobin/benchstat" ]; then
	if [ -n "$base" ]; then
		"$gobin/benchstat" "$base=$out/bench-base.txt" "this tree=$out/bench.txt"
	else
		"$gobin/benchstat" "$out/bench.txt"
	fi
fi

# The errorformat patterns: the GNU shape most tools share, tsc's, and
# file:line alone.
efm=('%f:%l:%c: %m' '%f:%l: %m' '%f(%l\,%c): %m')
tools+=($ef)

echo "== time on the same bytes: user CPU seconds, wall seconds, MB/s of user CPU, peak RSS"
# GNU time gives the peak resident memory too; without it the shell's time
# gives the times alone.
gnutime=
if [ -x /usr/bin/time ] && /usr/bin/time -f '%U' true >/dev/null 2>&1; then gnutime=/usr/bin/time; fi
TIMEFORMAT='%U %R'
run_tool() { # run_tool TOOL LOG [TIMER...]
	local tool=$1 log=$2
	shift 2
	if [ "$tool" = errorformat ]; then
		GOMAXPROCS=1 "$@" "$gobin/errorformat" "${efm[@]}" <"$out/$log" >/dev/null
	else
		GOMAXPROCS=1 "$@" "$out/$tool" parse --root /workspace/app "$out/$log" >/dev/null
	fi
}
for log in "${logs[@]}"; do
	size=$(stat -c %s "$out/$log")
	declare -A best=() peak=()
	# The tools take turns within each round, so that the load of the
	# machine weighs on each alike.
	for run in $(seq "$tries"); do
		for tool in "${tools[@]}"; do
			if [ -n "$gnutime" ]; then
				t=$(run_tool "$tool" "$log" "$gnutime" -f '%U %e %M' 2>&1 | tail -n 1)
				rss=${t##* } t=${t% *}
				if [ -z "${peak[$tool]:-}" ] || [ "$rss" -gt "${peak[$tool]}" ]; then peak[$tool]=$rss; fi
			else
				t=$( { time run_tool "$tool" "$log"; } 2>&1 )
			fi
			u=${t% *}
			if [ -z "${best[$tool]:-}" ] || awk "BEGIN{exit !($u < ${best[$tool]% *})}"; then best[$tool]=$t; fi
		done
	done
	for tool in "${tools[@]}"; do
		u=${best[$tool]% *} w=${best[$tool]#* } p=${peak[$tool]:-}
		echo "$log $tool user ${u}s wall ${w}s $(awk "BEGIN{printf \"%.0f\", $size/1048576/($u>0?$u:0.001)}") MB/s-cpu $(awk "BEGIN{printf \"%.0f\", $size/1048576/($w>0?$w:0.001)}") MB/s-wall${p:+ peak-rss $(awk "BEGIN{printf \"%.1f\", $p/1024}") MB}"
	done
	unset best peak
	if [ -n "$base" ]; then
		"$out/salve" parse --root /workspace/app "$out/$log" >"$out/$log.json"
		"$out/salve-base" parse --root /workspace/app "$out/$log" >"$out/$log.base.json"
		if ! cmp -s "$out/$log.json" "$out/$log.base.json"; then
			echo "bench: salve parse at $base and in this tree print different reports on $log" >&2
			exit 1
		fi
		echo "$log: salve parse at $base and in this tree print the same bytes ($(wc -c <"$out/$log.json") bytes)"
	fi
done

echo "== corpus scores"
"$out/salve" parse --text --score internal/heal/logparse/testdata/corpus | head -3
if [ -n "$ef" ]; then
	python3 "$here/ef_score.py" "$gobin/errorformat" internal/heal/logparse/testdata/corpus "${efm[@]}"
fi
