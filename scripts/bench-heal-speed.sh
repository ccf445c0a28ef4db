#!/usr/bin/env bash
# Heal speed against the project's own builds, side by side, for a Go, a
# Python, a Rust and a Node example (issue 13's goal: a heal takes at most
# 1.3 times the project's failing and passing builds, plus 0.5 s).
#
# For each example, in a fresh git repository:
#   direct   the failing build, then the passing build (the fix applied),
#            run directly in the checkout with the user's warm caches;
#   cold     salve heal with salve's own cache directory empty (a fresh
#            XDG_CACHE_HOME for each run, as on a fresh CI runner);
#   warm     salve heal again with salve's cache directory kept from the
#            previous heal;
#   none     salve heal --isolation none (no sandbox; for reference only,
#            to tell the sandbox's share of the overhead from the rest).
# The user's caches (GOCACHE, GOMODCACHE, ~/.npm, ~/.cargo, the checkout's
# target/) are warm in every case: the direct builds are run once first.
# Each figure is the median wall time of RUNS runs (default 3).
#
# Not part of make test: it takes minutes. Usage:
#   scripts/bench-heal-speed.sh [RUNS]
#   scripts/bench-heal-speed.sh cold [RUNS]
#
# "cold" measures the cold-cache case instead (issue 27: a heal pays the
# cold build once): for examples/testdata/go-broken (a missing import the
# rules tier fixes, no LLM) and its build command CMD, each round runs
#   both   with an empty GOCACHE, CMD failing, then CMD passing (the fix
#          applied), back to back on the same cache: the project's own
#          two builds on a fresh runner;
#   heal   with an empty GOCACHE and an empty salve cache (a fresh
#          XDG_CACHE_HOME), salve heal --fixers rules of the same module;
# and prints each round's figures and the medians, with heal / both, and
# the times of the heal's own builds as its run records give them (the
# failing build, then the verify build: where the second is as slow as the
# first, the heal paid the cold cache twice). Every
# heal must end green. SALVE_BIN_DIR, when set, names a directory holding a
# salve and git_agent built elsewhere (to measure another version); CMD is
# $BENCH_CMD, default "go build ./...".
#
# BENCH_SMALL=1 is the small run of make bench: one round (unless RUNS is
# given), which proves the examples and commands are where the script
# looks; its figures are not to quote.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mode=
if [ "${1:-}" = cold ]; then
	mode=cold
	shift
fi
runs=${1:-3}
if [ -n "${BENCH_SMALL:-}" ]; then runs=${1:-1}; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/salve-bench-heal-XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
if [ -n "${SALVE_BIN_DIR:-}" ]; then
	mkdir -p "$work/bin"
	cp "$SALVE_BIN_DIR/salve" "$SALVE_BIN_DIR/git_agent" "$work/bin/"
else
	go build -o "$work/bin/" ./cmd/salve ./cmd/git_agent
fi
salve=$work/bin/salve
export SALVE_GIT_AGENT=$work/bin/git_agent
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@salve.invalid GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@salve.invalid
# Pin the user's caches to where they are now, before XDG_CACHE_HOME moves
# to point salve at a cold or warm cache of its own.
GOCACHE=$(go env GOCACHE)
GOMODCACHE=$(go env GOMODCACHE)
export GOCACHE GOMODCACHE
export XDG_STATE_HOME=$work/state
user_xdg=${XDG_CACHE_HOME:-$HOME/.cache}

# now prints the time in seconds with microseconds.
now() { printf '%s' "$EPOCHREALTIME"; }
# median reads numbers, one per line, and prints their median.
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }
# timed CMD...: runs CMD quietly and prints its wall time; a failure is
# counted in $work/failed (a heal that did not end green is no figure).
timed() {
	local t0 t1
	t0=$(now)
	"$@" >/dev/null 2>&1 || echo "$*" >>"$work/failed"
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f\n", b-a}'
}

heal_n=0
# heal REPO CACHE ARGS...: one salve heal of REPO with salve's cache in
# CACHE; it must end green.
heal() {
	local repo=$1 cache=$2
	shift 2
	heal_n=$((heal_n + 1))
	XDG_CACHE_HOME=$cache GOCACHE=$GOCACHE "$salve" heal --workspace "$repo" --branch "bench-$heal_n" \
		--store "$work/runs.db" --results "$work/results-$heal_n.json" "$@" >"$work/heal-$heal_n.log" 2>&1
}

# bench NAME SRC CMD HEALARGS...
bench() {
	local name=$1 src=$2 cmd=$3
	shift 3
	local repo=$work/$name
	cp -r "$root/$src" "$repo"
	find "$repo" -name '*.go.input' -exec sh -c 'mv "$1" "${1%.input}"' _ {} \;
	git -C "$repo" init -q -b main
	git -C "$repo" add -A
	git -C "$repo" commit -qm broken
	# One heal gives the fix (its branch) and warms nothing of salve's that
	# the cold runs could use: each cold run gets a fresh cache directory.
	if ! heal "$repo" "$work/cache-first-$name" --cmd "$cmd" "$@"; then
		echo "$name: the first heal did not end green; see below" >&2
		tail -n 5 "$work/heal-$heal_n.log" >&2
		return 1
	fi
	local fixed=bench-$heal_n
	local fail pass
	direct() { # the failing build, then the passing one, in the checkout
		(cd "$repo" && sh -c "$cmd") >/dev/null 2>&1 || true
		git -C "$repo" checkout -q "$fixed" -- .
		(cd "$repo" && sh -c "$cmd") >/dev/null 2>&1 || true
		git -C "$repo" checkout -q main -- .
	}
	XDG_CACHE_HOME=$user_xdg direct # warm the user's caches
	: >"$work/fail" && : >"$work/pass" && : >"$work/cold" && : >"$work/warm" && : >"$work/none" && : >"$work/failed"
	heal "$repo" "$work/cache-warm-$name" --cmd "$cmd" "$@" || true # warm salve's cache
	# One of each per round, so that every column sees the same load.
	for i in $(seq "$runs"); do
		XDG_CACHE_HOME=$user_xdg timed sh -c "cd '$repo' && { $cmd; true; }" >>"$work/fail" # meant to fail
		git -C "$repo" checkout -q "$fixed" -- .
		XDG_CACHE_HOME=$user_xdg timed sh -c "cd '$repo' && $cmd" >>"$work/pass"
		git -C "$repo" checkout -q main -- .
		# The first heal after the direct builds runs slower (the checkout
		# was just rewritten twice): cold and warm take turns at it.
		if [ $((i % 2)) -eq 1 ]; then
			timed heal "$repo" "$work/cache-cold-$name-$i" --cmd "$cmd" "$@" >>"$work/cold"
			timed heal "$repo" "$work/cache-warm-$name" --cmd "$cmd" "$@" >>"$work/warm"
		else
			timed heal "$repo" "$work/cache-warm-$name" --cmd "$cmd" "$@" >>"$work/warm"
			timed heal "$repo" "$work/cache-cold-$name-$i" --cmd "$cmd" "$@" >>"$work/cold"
		fi
		timed heal "$repo" "$work/cache-warm-$name" --cmd "$cmd" --isolation none "$@" >>"$work/none"
	done
	fail=$(median <"$work/fail")
	pass=$(median <"$work/pass")
	local cold warm none
	cold=$(median <"$work/cold")
	warm=$(median <"$work/warm")
	none=$(median <"$work/none")
	awk -v n="$name" -v f="$fail" -v p="$pass" -v c="$cold" -v w="$warm" -v x="$none" -v bad="$(wc -l <"$work/failed")" 'BEGIN {
		b = f + p; goal = 1.3 * b + 0.5
		printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f (%.1fx) | %.2f (%.1fx) | %s | %s | %.2f (%.1fx) | %d |\n", n, f, p, b, goal,
			c, c / b, w, w / b, (c <= goal ? "yes" : "no"), (w <= goal ? "yes" : "no"), x, x / b, bad }'
}

# cold_bench: the cold-cache rounds described at the top.
cold_bench() {
	local cmd=${BENCH_CMD:-go build ./...}
	local repo=$work/go-cold
	cp -r "$root/examples/testdata/go-broken" "$repo"
	find "$repo" -name '*.go.input' -exec sh -c 'mv "$1" "${1%.input}"' _ {} \;
	git -C "$repo" init -q -b main
	git -C "$repo" add -A
	git -C "$repo" commit -qm broken
	# One heal, on warm caches, gives the fix (its branch).
	if ! XDG_CACHE_HOME=$work/cache-first heal "$repo" "$work/cache-first" --cmd "$cmd" --fixers rules; then
		echo "go-cold: the first heal did not end green" >&2
		tail -n 5 "$work/heal-$heal_n.log" >&2
		return 1
	fi
	local fixed=bench-$heal_n
	local isolation
	isolation=$(XDG_CACHE_HOME=$work/probe "$salve" exec --json --no-record --cmd true --workspace "$work" 2>/dev/null |
		sed -n 's/.*"isolation": *"\([a-z]*\)".*/\1/p' | head -n 1)
	echo "salve heal on a cold Go cache, $runs rounds, isolation ${isolation:-unknown}, $(nproc) cores, command: $cmd"
	echo
	echo "| round | fail build s | pass build s | both s | heal s | the heal's builds s | heal / both |"
	echo "|---|---|---|---|---|---|---|"
	: >"$work/both" && : >"$work/heal" && : >"$work/ratio" && : >"$work/failed"
	local i f p h builds
	for i in $(seq "$runs"); do
		rm -rf "$work/gocache" && mkdir "$work/gocache"
		GOCACHE=$work/gocache timed sh -c "cd '$repo' && { $cmd; true; }" >"$work/t" # meant to fail
		f=$(cat "$work/t")
		git -C "$repo" checkout -q "$fixed" -- .
		GOCACHE=$work/gocache timed sh -c "cd '$repo' && $cmd" >"$work/t"
		p=$(cat "$work/t")
		git -C "$repo" checkout -q main -- .
		rm -rf "$work/gocache" && mkdir "$work/gocache"
		chmod -R u+w "$work/cache-cold" 2>/dev/null || true
		rm -rf "$work/cache-cold"
		local user_gocache=$GOCACHE
		GOCACHE=$work/gocache
		rm -rf "$work/state/salve/runs"
		timed heal "$repo" "$work/cache-cold" --cmd "$cmd" --fixers rules >"$work/t"
		h=$(cat "$work/t")
		GOCACHE=$user_gocache
		# The heal's own builds, in the order they ran, from their records.
		builds=$(ls -tr "$work"/state/salve/runs/*/output.json |
			xargs sed -n 's/.*"execution_time_seconds": *\([0-9.]*\).*/\1/p' | awk '{printf "%s%.2f", (NR > 1 ? " + " : ""), $1}') || builds=?
		awk -v f="$f" -v p="$p" 'BEGIN {print f + p}' >>"$work/both"
		echo "$h" >>"$work/heal"
		awk -v f="$f" -v p="$p" -v h="$h" 'BEGIN {printf "%.3f\n", h / (f + p)}' >>"$work/ratio"
		awk -v i="$i" -v f="$f" -v p="$p" -v h="$h" -v b="$builds" 'BEGIN {printf "| %d | %.2f | %.2f | %.2f | %.2f | %s | %.2fx |\n", i, f, p, f + p, h, b, h / (f + p)}'
	done
	local b m r
	b=$(median <"$work/both")
	m=$(median <"$work/heal")
	r=$(median <"$work/ratio")
	# The ratio's median is taken round by round: a round's heal and builds
	# see about the same load.
	awk -v b="$b" -v h="$m" -v r="$r" -v bad="$(wc -l <"$work/failed")" 'BEGIN {
		printf "| median | | | %.2f | %.2f | | %.2fx |\n\nfailed runs: %d\n", b, h, r, bad }'
}
if [ "$mode" = cold ]; then
	cold_bench
	exit 0
fi

isolation=$(XDG_CACHE_HOME=$work/probe "$salve" exec --json --no-record --cmd true --workspace "$work" 2>/dev/null |
	sed -n 's/.*"isolation": *"\([a-z]*\)".*/\1/p' | head -n 1)
echo "salve heal speed, median of $runs runs, isolation ${isolation:-unknown}, $(nproc) cores"
echo
echo "| example | fail build s | pass build s | both s | goal s | heal cold s (/both) | heal warm s (/both) | cold ok | warm ok | heal none s (/both) | failed runs |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
bench go examples/testdata/logic-bug 'go test ./...' \
	--fixers rules,llm --models test/fix-last --config "$root/examples/testdata/scenarios/.ai-agent.json"
bench python examples/testdata/python-broken 'python3 -m unittest discover -v' --fixers rules
bench rust examples/testdata/bench/rust-bug 'cargo test' \
	--fixers llm --models test/fix-rust-last --config "$root/examples/testdata/bench/scenarios/.ai-agent.json"
bench node examples/testdata/bench/node-bug 'node --test' \
	--fixers llm --models test/fix-node-last --config "$root/examples/testdata/bench/scenarios/.ai-agent.json"
