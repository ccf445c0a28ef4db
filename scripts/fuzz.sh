#!/usr/bin/env bash
# fuzz.sh runs every fuzz target of the module for a fixed time each and
# prints, per target, the executions the fuzzer reported. It is a benchmark,
# not part of make test.
#
#   scripts/fuzz.sh                 # every target, 10s each
#   FUZZTIME=30s scripts/fuzz.sh    # longer
#   scripts/fuzz.sh Stream          # only targets whose name matches
#
# Each target starts from its seed corpus and testdata only: the fuzz cache
# is a fresh folder per run, so figures do not depend on earlier runs. New
# findings are minimised for at most FUZZMINIMIZE (default 10s).
#
# BENCH_SMALL=1 is the small run of make bench: the first matching target
# only, for 1s (every target runs through the same steps).
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
minimize=${FUZZMINIMIZE:-10s}
most=0
if [ -n "${BENCH_SMALL:-}" ]; then
	fuzztime=${FUZZTIME:-1s} minimize=${FUZZMINIMIZE:-1s} most=1
fi
ran=0
filter=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '%-28s %-24s %10s %10s %s\n' PACKAGE TARGET EXECS EXECS/S RESULT
status=0
while read -r file; do
	pkg=$(dirname "$file")
	while read -r target; do
		if [[ -n $filter && ! $target =~ $filter && ! $pkg =~ $filter ]]; then
			continue
		fi
		if [[ $most -gt 0 && $ran -ge $most ]]; then
			break 2
		fi
		ran=$((ran + 1))
		log="$work/$(echo "$pkg" | tr / _)-$target.log"
		result=ok
		if ! go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" \
			-args -test.fuzzcachedir="$work/cache-$target-$(echo "$pkg" | tr / _)" >"$log" 2>&1; then
			result="FAIL (see below)"
			status=1
		fi
		# The last progress line: "fuzz: elapsed: 10s, execs: 123 (12/sec), ...".
		last=$(grep -E '^fuzz: elapsed: .*execs: [0-9]+' "$log" | tail -1 || true)
		execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
		secs=$(sed -nE 's/^fuzz: elapsed: ([0-9hms.]+),.*/\1/p' <<<"$last")
		rate=-
		if [[ -n $execs && -n $secs ]]; then
			total=$(awk -v t="$secs" 'BEGIN { s = 0; if (match(t, /[0-9]+h/)) { s += substr(t, RSTART, RLENGTH-1) * 3600 } if (match(t, /[0-9]+m/)) { s += substr(t, RSTART, RLENGTH-1) * 60 } if (match(t, /[0-9.]+s/)) { s += substr(t, RSTART, RLENGTH-1) } print s }')
			rate=$(awk -v e="$execs" -v s="$total" 'BEGIN { if (s > 0) printf "%d", e / s; else print "-" }')
		fi
		printf '%-28s %-24s %10s %10s %s\n' "${pkg#./}" "$target" "${execs:--}" "$rate" "$result"
		if [[ $result != ok ]]; then
			sed 's/^/    /' "$log" | grep -v '^    fuzz: elapsed' | head -20
		fi
	done < <(grep -o '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //')
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | sort)
exit $status
