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
# BENCH_SMALL=1 is the small run of make bench: the 1 MB log only, one
# benchmark run and one timing each, no benchstat, and errorformat left out
# (with a note) when it cannot be installed; its figures are not to quote.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# The temporary folders (the logs' when no OUTDIR is given, and the tools')
# are removed at the end.
temps=()
trap 'rm -rf "${temps[@]}"' EXIT
out=${1:-}
if [ -z "$out" ]; then out=$(mktemp -d) && temps+=("$out"); fi
mkdir -p "$out"
gobin=${GOBIN_BENCH:-}
if [ -z "$gobin" ]; then gobin=$(mktemp -d) && temps+=("$gobin"); fi
EF_VERSION=${EF_VERSION:-v0.0.0-20260721110140-13bff69235f3}
small=${BENCH_SMALL:-}
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

cd "$repo"
SALVE_BENCH_DIR="$out" go test -count=1 -run TestWriteBenchLogs ./internal/heal/logparse >/dev/null
go build -o "$out/salve" ./cmd/salve

echo "== go test -bench (GOMAXPROCS=1, -count $count)"
GOMAXPROCS=1 go test -run XXX -bench "$benchre" -benchmem -count "$count" ./internal/heal/logparse | tee "$out/bench.txt"
if [ -x "$gobin/benchstat" ]; then "$gobin/benchstat" "$out/bench.txt"; fi

# The errorformat patterns: the GNU shape most tools share, tsc's, and
# file:line alone.
efm=('%f:%l:%c: %m' '%f:%l: %m' '%f(%l\,%c): %m')

echo "== time on the same bytes: user CPU seconds, wall seconds, MB/s of user CPU, peak RSS"
# GNU time gives the peak resident memory too; without it the shell's time
# gives the times alone.
gnutime=
if [ -x /usr/bin/time ] && /usr/bin/time -f '%U' true >/dev/null 2>&1; then gnutime=/usr/bin/time; fi
TIMEFORMAT='%U %R'
for log in "${logs[@]}"; do
	size=$(stat -c %s "$out/$log")
	for tool in salve $ef; do
		best="" peak=""
		for run in $(seq "$tries"); do
			if [ $tool = salve ]; then
				run_tool() { GOMAXPROCS=1 "$@" "$out/salve" parse --root /workspace/app "$out/$log" >/dev/null; }
			else
				run_tool() { GOMAXPROCS=1 "$@" "$gobin/errorformat" "${efm[@]}" <"$out/$log" >/dev/null; }
			fi
			if [ -n "$gnutime" ]; then
				t=$(run_tool "$gnutime" -f '%U %e %M' 2>&1 | tail -n 1)
				rss=${t##* } t=${t% *}
				if [ -z "$peak" ] || [ "$rss" -gt "$peak" ]; then peak=$rss; fi
			else
				t=$( { time run_tool; } 2>&1 )
			fi
			u=${t% *}
			if [ -z "$best" ] || awk "BEGIN{exit !($u < ${best% *})}"; then best=$t; fi
		done
		u=${best% *}; w=${best#* }
		echo "$log $tool user ${u}s wall ${w}s $(awk "BEGIN{printf \"%.0f\", $size/1048576/($u>0?$u:0.001)}") MB/s-cpu $(awk "BEGIN{printf \"%.0f\", $size/1048576/($w>0?$w:0.001)}") MB/s-wall${peak:+ peak-rss $(awk "BEGIN{printf \"%.1f\", $peak/1024}") MB}"
	done
done

echo "== corpus scores"
"$out/salve" parse --text --score internal/heal/logparse/testdata/corpus | head -3
if [ -n "$ef" ]; then
	python3 "$here/ef_score.py" "$gobin/errorformat" internal/heal/logparse/testdata/corpus "${efm[@]}"
fi
