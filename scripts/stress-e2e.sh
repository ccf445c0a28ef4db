#!/usr/bin/env bash
# stress-e2e.sh [N] [package[:pattern]...]: runs the slow end-to-end test
# packages N times each (default 3, -count=1) while CPU burners keep every
# core busy, prints a pass/fail table per package and exits 1 when any run
# failed. A package may carry its own -run pattern: ./cmd/salve:TestMCP.
# A test that waits on a sleep instead of an event fails here long before
# it fails in CI. See docs/testing.md.
#
# Environment:
#   STRESS_RUN      a -run pattern (default: every test of the package)
#   STRESS_BURNERS  how many CPU burners (default: the number of cores)
#   STRESS_TIMEOUT  go test -timeout of one run (default 30m)
#   STRESS_LOGS     where the logs of the runs go (default: a new temp dir)
set -u

cd "$(dirname "$0")/.." || exit 2

n=${1:-3}
case $n in
'' | *[!0-9]*)
	echo "usage: $0 [N] [package[:pattern]...]" >&2
	exit 2
	;;
esac
[ $# -gt 0 ] && shift
if [ $# -gt 0 ]; then
	pkgs=("$@")
else
	# The packages whose tests build binaries, start servers or run real
	# builds and heals.
	pkgs=(./cmd/salve ./cmd/ai-agent ./cmd/git_agent ./heal ./mcpserver ./service ./worker ./headend
		./internal/agent/conformance ./internal/toolrun ./internal/sandbox ./internal/ui ./internal/heal/executor ./internal/gitagent/... ./internal/agent/tools/mcp/...)
fi
burners=${STRESS_BURNERS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
timeout=${STRESS_TIMEOUT:-30m}
logs=${STRESS_LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/stress-e2e.XXXXXX")}
mkdir -p "$logs" || exit 2
# runflags PKG: the -run flags of a package[:pattern] argument.
runflags() {
	case $1 in
	*:*) echo "-run=${1#*:}" ;;
	*) [ -n "${STRESS_RUN:-}" ] && echo "-run=$STRESS_RUN" ;;
	esac
}

# Compile first, without the burners: a package that does not build is not
# a flake, and the runs below then start from the build cache.
for p in "${pkgs[@]}"; do
	if ! go test -count=1 -run '^$' "${p%%:*}" >"$logs/build.log" 2>&1; then
		cat "$logs/build.log" >&2
		echo "stress-e2e: $p does not build" >&2
		exit 2
	fi
done

pids=()
stop_burners() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null
	done
	wait "${pids[@]}" 2>/dev/null
	pids=()
}
trap stop_burners EXIT
trap 'stop_burners; exit 130' INT TERM
for ((i = 0; i < burners; i++)); do
	(while :; do :; done) &
	pids+=($!)
done
echo "stress-e2e: $n run(s) of ${#pkgs[@]} package(s), $burners CPU burner(s), logs in $logs"

declare -A pass fail slowest
failed=0
for ((r = 1; r <= n; r++)); do
	for p in "${pkgs[@]}"; do
		log="$logs/$(echo "$p" | tr -c 'A-Za-z0-9_\n' '_')-$r.log"
		t0=$(date +%s)
		# shellcheck disable=SC2046 # runflags prints one word or none
		if go test -count=1 -timeout "$timeout" $(runflags "$p") "${p%%:*}" >"$log" 2>&1; then
			pass[$p]=$((${pass[$p]:-0} + 1))
			res=ok
		else
			fail[$p]=$((${fail[$p]:-0} + 1))
			failed=1
			res=FAIL
		fi
		d=$(($(date +%s) - t0))
		[ "$d" -gt "${slowest[$p]:-0}" ] && slowest[$p]=$d
		printf 'run %d/%d  %-4s %4ds  %s\n' "$r" "$n" "$res" "$d" "$p"
		if [ "$res" = FAIL ]; then
			grep -E '^(--- FAIL|FAIL|panic:)|_test\.go:[0-9]+:' "$log" | head -20 | sed 's/^/    /'
		fi
	done
done
stop_burners

printf '\n%-40s %5s %5s %9s\n' package pass fail slowest
for p in "${pkgs[@]}"; do
	printf '%-40s %5d %5d %8ds\n' "$p" "${pass[$p]:-0}" "${fail[$p]:-0}" "${slowest[$p]:-0}"
done
echo "logs: $logs"
if [ "$failed" -ne 0 ]; then
	echo "stress-e2e: FAILED" >&2
	exit 1
fi
echo "stress-e2e: ok"
