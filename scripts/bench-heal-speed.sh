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
#   scripts/bench-heal-speed.sh overhead [RUNS]
#   scripts/bench-heal-speed.sh large [RUNS]
#   scripts/bench-heal-speed.sh many [RUNS]
#
# BENCH_ONLY, a list of example names (go python rust node), limits the
# default mode to those examples. With SALVE_BIN_DIR_B naming a directory
# of another salve and git_agent, each round of the default and real modes
# also heals warm with those (B), so two versions meet the same load; B's
# row follows A's.
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
# "overhead" measures a heal's fixed cost on a small Go module, the heal
# corpus's go-unused-var case (one unused variable; go test ./...), with
# --isolation none and the run store on: each round times the project's
# own two builds (go test in the broken tree, then in a copy with the fix)
# and one heal, back to back, and prints the wall times, heal / builds,
# each stage of the heal from its results.json (setup, build, verify,
# commit, cleanup, the rest of the stages, and what the process spends
# outside them: start-up, assembly, the run store, the cache trim) and
# how many times it started the git agent (counted by a wrapper). With
# SALVE_BIN_DIR_B naming a directory of another salve and git_agent, each
# round also heals with those (B), so the two versions are compared in
# the same minutes, pair by pair; A and B take turns at healing first.
#
# "large" measures setup and cleanup on a repository of BENCH_FILES
# tracked files (default 20000): examples/testdata/go-broken (a missing
# import the rules tier fixes; go build ./...) with generated data files
# beside it, made in the temporary folder and never committed anywhere
# else. A first heal runs untimed, then each of RUNS heals (the second
# onwards) is timed with its stages, beside git's own floor: a
# `git worktree add` of the same commit and its removal. Three copies of
# the repository are healed in each round: with the default (over
# SALVE_KEEP_WORKTREE_FILES tracked files, 2000 unless set, the heal keeps
# its worktree, cleaned, and the next heal resets and reuses it), with
# --keep-worktree=false (the worktree is added and removed by every heal)
# and with --keep-worktree (kept as the heal left it, build outputs and
# all).
#
# "many" measures a JavaScript project of many test files, where the
# failing test's error is thrown in the code under test (the report then
# names the code, not the test file): src/cart.js, whose total() fails on
# a cart without items, its test file, and BENCH_MANY_FILES (default 30)
# test files of one passing test each, for node's runner (node --test),
# jest and vitest: each a row as in the default mode, healed by the llm
# tier with a scripted model that returns the fix. jest and vitest are
# taken from PATH, else from .deps/jsrunners (scripts/heal/setup.sh
# installs them there); a runner that is missing is left out, with a note.
#
# BENCH_SMALL=1 is the small run of make bench: one round (unless RUNS is
# given), which proves the examples and commands are where the script
# looks; its figures are not to quote. Given no mode, it runs every mode
# (large with 2000 files).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mode=
case "${1:-}" in
cold | overhead | large | real | many)
	mode=$1
	shift
	;;
esac
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
if [ -n "${SALVE_BIN_DIR_B:-}" ]; then
	mkdir -p "$work/bin-b"
	cp "$SALVE_BIN_DIR_B/salve" "$SALVE_BIN_DIR_B/git_agent" "$work/bin-b/"
fi
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@salve.invalid GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@salve.invalid
# NODE_EXTRA_CA_CERTS makes every node process read and parse a CA bundle
# (40 ms each here: node --test starts one per test file, jest and vitest
# one per worker). A heal's sandboxed builds do not get it (their
# environment is an allow-list), so the project's own builds would pay
# for it and the heal's would not: it is unset for both.
unset NODE_EXTRA_CA_CERTS
# Pin the user's caches to where they are now, before XDG_CACHE_HOME moves
# to point salve at a cold or warm cache of its own.
GOCACHE=$(go env GOCACHE)
GOMODCACHE=$(go env GOMODCACHE)
export GOCACHE GOMODCACHE
export XDG_STATE_HOME=$work/state
# The heal worktrees (a kept one too) live under the temporary folder.
export XDG_DATA_HOME=$work/data
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

# fresh_tests forgets the test results go test caches (the compiled
# packages stay): the project's own passing build then runs its tests, as
# it does after a fix it has not seen, instead of replaying the result the
# warm-up run left; the heals' builds see the same. Only for the go rows.
fresh_tests() {
	if [ "${fresh_go:-}" = 1 ]; then go clean -testcache; fi
}

heal_n=0
# heal REPO CACHE ARGS...: one salve heal of REPO with salve's cache in
# CACHE; it must end green.
heal() {
	local repo=$1 cache=$2
	shift 2
	heal_n=$((heal_n + 1))
	XDG_CACHE_HOME=$cache GOCACHE=$GOCACHE "${heal_bin:-$salve}" heal --workspace "$repo" --branch "bench-$heal_n" \
		--store "$work/runs.db" --results "$work/results-$heal_n.json" "$@" >"$work/heal-$heal_n.log" 2>&1
}

# bench NAME SRC CMD HEALARGS...
bench() {
	local name=$1 src=$2 cmd=$3
	shift 3
	local repo=$work/$name
	if [ -d "$src/.git" ]; then
		repo=$src # a repository made ready by real_one
	else
		cp -r "$root/$src" "$repo"
		find "$repo" -name '*.go.input' -exec sh -c 'mv "$1" "${1%.input}"' _ {} \;
		git -C "$repo" init -q -b main
		git -C "$repo" add -A
		git -C "$repo" commit -qm broken
	fi
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
	: >"$work/fail" && : >"$work/pass" && : >"$work/cold" && : >"$work/warm" && : >"$work/none" && : >"$work/failed" && : >"$work/warm-b"
	heal "$repo" "$work/cache-warm-$name" --cmd "$cmd" "$@" || true # warm salve's cache
	if [ -n "${SALVE_BIN_DIR_B:-}" ]; then
		heal_bin=$work/bin-b/salve SALVE_GIT_AGENT=$work/bin-b/git_agent heal "$repo" "$work/cache-warm-b-$name" --cmd "$cmd" "$@" || true
	fi
	# heal_b ARGS...: one warm heal by version B, when there is one.
	heal_b() {
		[ -n "${SALVE_BIN_DIR_B:-}" ] || return 0
		fresh_tests
		heal_bin=$work/bin-b/salve SALVE_GIT_AGENT=$work/bin-b/git_agent \
			timed heal "$repo" "$work/cache-warm-b-$name" --cmd "$cmd" "$@" >>"$work/warm-b"
		fresh_tests
	}
	# One of each per round, so that every column sees the same load.
	for i in $(seq "$runs"); do
		fresh_tests
		XDG_CACHE_HOME=$user_xdg timed sh -c "cd '$repo' && { $cmd; true; }" >>"$work/fail" # meant to fail
		git -C "$repo" checkout -q "$fixed" -- .
		fresh_tests
		XDG_CACHE_HOME=$user_xdg timed sh -c "cd '$repo' && $cmd" >>"$work/pass"
		git -C "$repo" checkout -q main -- .
		# The first heal after the direct builds runs slower (the checkout
		# was just rewritten twice): cold and warm take turns at it.
		fresh_tests
		# B, the other version (warm), heals right after A's warm heal,
		# before it in every other round.
		if [ $((i % 2)) -eq 1 ]; then
			timed heal "$repo" "$work/cache-cold-$name-$i" --cmd "$cmd" "$@" >>"$work/cold"
			fresh_tests
			timed heal "$repo" "$work/cache-warm-$name" --cmd "$cmd" "$@" >>"$work/warm"
			heal_b "$@"
		else
			heal_b "$@"
			timed heal "$repo" "$work/cache-warm-$name" --cmd "$cmd" "$@" >>"$work/warm"
			fresh_tests
			timed heal "$repo" "$work/cache-cold-$name-$i" --cmd "$cmd" "$@" >>"$work/cold"
		fi
		fresh_tests
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
		printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f (%.2fx) | %.2f (%.2fx) | %s | %s | %.2f (%.2fx) | %d |\n", n, f, p, b, goal,
			c, c / b, w, w / b, (c <= goal ? "yes" : "no"), (w <= goal ? "yes" : "no"), x, x / b, bad }'
	if [ -s "$work/warm-b" ]; then
		awk -v n="$name" -v f="$fail" -v p="$pass" -v w="$(median <"$work/warm-b")" 'BEGIN {
			b = f + p; goal = 1.3 * b + 0.5
			printf "| %s (B) | %.2f | %.2f | %.2f | %.2f | | %.2f (%.2fx) | | %s | | |\n", n, f, p, b, goal, w, w / b, (w <= goal ? "yes" : "no") }'
	fi
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
# counting_agent NAME BIN: a git_agent wrapper at $work/NAME that counts
# its starts in $work/NAME.starts, then runs BIN.
counting_agent() {
	printf '#!/bin/sh\necho start >>"%s"\nexec "%s" "$@"\n' "$work/$1.starts" "$2" >"$work/$1"
	chmod +x "$work/$1"
}

# stages RESULTS WALL: one line of a heal's stage seconds from its
# results.json: setup build verify commit cleanup, the other stages, and
# the wall time outside every stage.
stages() {
	python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r.get("timings", {})
named = ["setup", "build", "verify", "commit", "cleanup"]
rest = sum(v for k, v in t.items() if k not in named)
wall = float(sys.argv[2])
print(" ".join("%.3f" % t.get(k, 0) for k in named), "%.3f" % rest, "%.3f" % (wall - sum(t.values())), r.get("outcome", "?"))
PY
}

# column N FILE: the median of column N of FILE.
column() { awk -v n="$1" '{print $n}' "$2" | median; }

# overhead_bench: a heal's fixed cost on a small Go module (see the top).
overhead_bench() {
	local src=$root/testdata/heal-corpus/go-unused-var cmd='go test ./...'
	local repo=$work/sp fixed=$work/sp-fixed
	cp -r "$src/tree" "$repo"
	cp -r "$src/tree" "$fixed"
	cp "$src/fixed/"* "$fixed/"
	git -C "$repo" init -q -b main
	git -C "$repo" add -A
	git -C "$repo" commit -qm broken
	local versions=A
	counting_agent agent-A "$work/bin/git_agent"
	if [ -n "${SALVE_BIN_DIR_B:-}" ]; then
		versions="A B"
		counting_agent agent-B "$work/bin-b/git_agent"
	fi
	# heal_v V I: one heal with version V, timed, its stages in $work/V.stages.
	heal_v() {
		local v=$1 i=$2 bin=$work/bin
		[ "$v" = B ] && bin=$work/bin-b
		: >"$work/agent-$v.starts"
		local t
		t=$(SALVE_GIT_AGENT=$work/agent-$v timed "$bin/salve" heal --workspace "$repo" --branch "o-$v-$i" --isolation none \
			--cmd "$cmd" --store "$work/runs-$v.db" --results "$work/o-$v.json" -q)
		echo "$t" >>"$work/$v.wall"
		echo "$(stages "$work/o-$v.json" "$t") $(wc -l <"$work/agent-$v.starts")" >>"$work/$v.stages"
	}
	(cd "$repo" && $cmd >/dev/null 2>&1) || true
	(cd "$fixed" && $cmd >/dev/null 2>&1)
	for v in $versions; do heal_v "$v" warm && : >"$work/$v.wall" && : >"$work/$v.stages"; done
	: >"$work/builds" && : >"$work/failed"
	for i in $(seq "$runs"); do
		timed sh -c "cd '$repo' && { $cmd; true; } && cd '$fixed' && $cmd" >>"$work/builds"
		# The first heal after the builds runs slower: A and B take turns
		# at it.
		if [ $((i % 2)) -eq 1 ] || [ "$versions" = A ]; then
			for v in $versions; do heal_v "$v" "$i"; done
		else
			heal_v B "$i"
			heal_v A "$i"
		fi
	done
	echo "salve heal's fixed cost on go-unused-var ($cmd), --isolation none, store on, $runs rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "| version | builds s | heal s | heal / builds | setup s | build s | verify s | commit s | cleanup s | other stages s | outside the stages s | git agent starts | outcome |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	local b v
	b=$(median <"$work/builds")
	for v in $versions; do
		paste "$work/builds" "$work/$v.wall" | awk '{printf "%.3f\n", $2 / $1}' >"$work/$v.ratio"
		printf '| %s | %.3f | %.3f | %.2fx | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %s |\n' "$v" "$b" \
			"$(median <"$work/$v.wall")" "$(median <"$work/$v.ratio")" \
			"$(column 1 "$work/$v.stages")" "$(column 2 "$work/$v.stages")" "$(column 3 "$work/$v.stages")" \
			"$(column 4 "$work/$v.stages")" "$(column 5 "$work/$v.stages")" "$(column 6 "$work/$v.stages")" \
			"$(column 7 "$work/$v.stages")" "$(column 9 "$work/$v.stages" | awk '{printf "%d", $1}')" "$(awk '{print $8}' "$work/$v.stages" | sort | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2}')"
	done
	if [ "$versions" = "A B" ]; then
		paste "$work/A.wall" "$work/B.wall" | awk '{printf "%.3f\n", $1 / $2}' >"$work/ab"
		echo
		echo "A / B, pair by pair: median $(median <"$work/ab")x"
	fi
	echo
	echo "(medians of the rounds; heal / builds is taken round by round)"
}

# large_bench: setup and cleanup on a large repository (see the top).
large_bench() {
	local n=${BENCH_FILES:-20000} cmd='go build ./...'
	local repo=$work/large
	cp -r "$root/examples/testdata/go-broken" "$repo"
	find "$repo" -name '*.go.input' -exec sh -c 'mv "$1" "${1%.input}"' _ {} \;
	local have d f=0
	have=$(find "$repo" -type f | wc -l)
	# Data files, 100 to a folder, until the repository tracks n files.
	for ((d = 0; have + f < n; d++)); do
		mkdir -p "$repo/data/d$d"
		for ((k = 0; k < 100 && have + f < n; k++, f++)); do
			printf 'record %d of folder %d\n' "$k" "$d" >"$repo/data/d$d/f$k.txt"
		done
	done
	git -C "$repo" init -q -b main
	git -C "$repo" add -A
	# No automatic gc: one packing the new objects while the copy below
	# reads them makes the copy fail.
	git -C "$repo" -c gc.auto=0 commit -qm broken
	# Two more repositories of the same files, healed with
	# --keep-worktree=false and with --keep-worktree.
	cp -a "$repo" "$work/large-removed"
	cp -a "$repo" "$work/large-kept"
	local tracked
	tracked=$(git -C "$repo" ls-files | wc -l)
	# keep_arg R: the --keep-worktree flag of repository R (none: the
	# default).
	keep_arg() {
		case $1 in
		large-removed) echo --keep-worktree=false ;;
		large-kept) echo --keep-worktree ;;
		esac
	}
	local r
	for r in large large-removed large-kept; do
		# shellcheck disable=SC2046 # keep_arg prints one word or none
		if ! heal "$work/$r" "$work/cache-large" --cmd "$cmd" --fixers rules --isolation none $(keep_arg "$r"); then
			echo "large: the first heal did not end green" >&2
			tail -n 5 "$work/heal-$heal_n.log" >&2
			return 1
		fi
	done
	: >"$work/floor" && : >"$work/failed"
	for r in large large-removed large-kept; do : >"$work/$r.stages"; done
	local i
	for i in $(seq "$runs"); do
		for r in large large-removed large-kept; do
			# shellcheck disable=SC2046 # keep_arg prints one word or none
			timed heal "$work/$r" "$work/cache-large" --cmd "$cmd" --fixers rules --isolation none $(keep_arg "$r") >"$work/t"
			echo "$(stages "$work/results-$heal_n.json" "$(cat "$work/t")") $(cat "$work/t")" >>"$work/$r.stages"
		done
		timed sh -c "git -C '$repo' worktree add -q --detach '$work/floor-wt' HEAD && git -C '$repo' worktree remove --force '$work/floor-wt'" >>"$work/floor"
	done
	echo "salve heal on a repository of $tracked tracked files (go build ./..., rules tier, --isolation none), after a first heal, $runs rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "| heal | round | heal s | setup s | cleanup s | setup + cleanup s | commit s | builds s | git worktree add + remove s | outcome |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	local what
	for r in large large-removed large-kept; do
		case $r in
		large) what="default: kept clean and reused" ;;
		large-removed) what="--keep-worktree=false: removed" ;;
		large-kept) what="--keep-worktree: kept as left" ;;
		esac
		paste "$work/$r.stages" "$work/floor" | awk -v w="$what" '{printf "| %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %s |\n", w, NR, $9, $1, $5, $1 + $5, $4, $2 + $3, $10, $8}'
		awk '{printf "%.3f\n", $1 + $5}' "$work/$r.stages" >"$work/sc"
		printf '| %s | median | %.3f | %.3f | %.3f | %.3f | %.3f | | %.3f | |\n' "$what" "$(column 9 "$work/$r.stages")" "$(column 1 "$work/$r.stages")" \
			"$(column 5 "$work/$r.stages")" "$(median <"$work/sc")" "$(column 4 "$work/$r.stages")" "$(median <"$work/floor")"
	done
	echo
	echo "failed runs: $(wc -l <"$work/failed")"
}

# scenario ID REASON OUT: a scripted model for the llm tier whose one
# answer is the file read on stdin, as OUT.json (scenario ID) and
# OUT.ai-agent.json (the configuration that names it).
scenario() {
	mkdir -p "$(dirname "$3")"
	python3 -c '
import json, sys
json.dump([{"id": sys.argv[1], "description": "a heal-speed benchmark: the fixed file, as the model answers it",
    "systemPromptMustInclude": ["Fix Agent"],
    "turns": [{"turn": 1, "response": {"kind": "final-report", "reportFormat": "json",
        "reportContentJson": {"patched_content": sys.stdin.read(), "fix_reason": sys.argv[2], "confidence_score": 0.9},
        "tokenUsage": {"inputTokens": 700, "outputTokens": 150}}}]}], open(sys.argv[3] + ".json", "w"))
' "$1" "$2" "$3"
	printf '{"providers": {"test": {"type": "test-llm", "scenarioFile": "%s.json"}}}\n' "$(basename "$3")" >"$3.ai-agent.json"
}

# real_one NAME SRC COMMIT FILE SED CMD: the rows of bench for a public
# project: SRC (a git repository or URL) cloned at COMMIT, one slip planted
# in FILE by the sed expression SED and committed, healed with CMD by the
# llm tier and a scripted model whose one answer is FILE as COMMIT has it
# (so the fixer's speed is not measured, only salve's).
real_one() {
	local name=$1 src=$2 commit=$3 file=$4 expr=$5 cmd=$6
	local dir=$work/real-src-$name
	git clone -q "$src" "$dir"
	git -C "$dir" checkout -q -B main "$commit"
	rm -rf "$dir/.git/hooks"
	case $name in
	node) (cd "$dir" && npm install --no-audit --no-fund --ignore-scripts --no-package-lock >/dev/null 2>&1) ;;
	esac
	git -C "$dir" show "HEAD:$file" | scenario "fix-real-$name" "undo the slip" "$work/real-scenarios/$name"
	sed -i "$expr" "$dir/$file"
	if git -C "$dir" diff --quiet; then
		echo "real $name: the slip ($expr) changed nothing in $file" >&2
		return 1
	fi
	git -C "$dir" commit -qam "slip in $file"
	bench "$name-real" "$dir" "$cmd" --fixers llm --models "test/fix-real-$name" \
		--config "$work/real-scenarios/$name.ai-agent.json"
}

# real_bench: REAL_GO, REAL_PYTHON and REAL_NODE name where to clone
# urfave/cli, more-itertools and express from (a local copy or the
# public URL); each that is set gets its rows.
real_bench() {
	if [ -n "${REAL_GO:-}" ]; then
		fresh_go=1
		real_one go "$REAL_GO" 1305a082 sort.go 's/return lir < ljr/return lir > ljr/' 'go test ./...'
		fresh_go=
	fi
	if [ -n "${REAL_PYTHON:-}" ]; then
		real_one python "$REAL_PYTHON" 2fe1b2e more_itertools/recipes.py \
			's/return chain.from_iterable(repeat(tuple(iterable), n))/return chain.from_iterable(repeat(tuple(iterable), n - 1))/' \
			'python3 -m unittest -v tests.test_recipes'
	fi
	if [ -n "${REAL_NODE:-}" ]; then
		real_one node "$REAL_NODE" a3714473 lib/utils.js 's/if (!type || !charset) {/if (!type || charset) {/' \
			'npx mocha --require test/support/env --check-leaks test/ test/acceptance/'
	fi
}

# many_one RUNNER CMD: the row of a project of many test files for one
# JavaScript test runner (see "many" at the top).
many_one() {
	local runner=$1 cmd=$2 n=${BENCH_MANY_FILES:-30}
	local dir=$work/many-$runner
	mkdir -p "$dir/src" "$dir/test"
	local esm=0 imports
	case $runner in
	vitest) esm=1 ;;
	esac
	if [ $esm = 1 ]; then
		printf '{"name": "cart", "version": "1.0.0", "private": true, "type": "module"}\n' >"$dir/package.json"
	else
		printf '{"name": "cart", "version": "1.0.0", "private": true}\n' >"$dir/package.json"
	fi
	{
		printf '// total adds the prices of the cart'"'"'s items; an empty cart totals 0.\n'
		printf 'function total(cart) {\n  return cart.items.reduce((s, i) => s + i.price, 0);\n}\n\n'
		printf '// count is how many items the cart holds.\nfunction count(cart) {\n  return (cart.items || []).length;\n}\n\n'
		if [ $esm = 1 ]; then printf 'export { total, count };\n'; else printf 'module.exports = { total, count };\n'; fi
	} >"$dir/src/cart.js"
	case $runner in
	node) imports="const test = require('node:test');\nconst assert = require('node:assert');\nconst { total, count } = require('../src/cart');\n" ;;
	jest) imports="const { total, count } = require('../src/cart');\n" ;;
	vitest) imports="import { test, expect } from 'vitest';\nimport { total, count } from '../src/cart.js';\n" ;;
	esac
	if [ "$runner" = node ]; then
		printf "$imports"'test('"'"'cart totals an empty cart'"'"', () => { assert.strictEqual(total({}), 0); });\n' >"$dir/test/cart.test.js"
		for i in $(seq "$n"); do
			printf "$imports"'test('"'"'counts %d'"'"', () => { assert.strictEqual(count({ items: new Array(%d) }), %d); });\n' "$i" "$i" "$i" >"$dir/test/other$i.test.js"
		done
	else
		printf "$imports"'test('"'"'cart totals an empty cart'"'"', () => { expect(total({})).toBe(0); });\n' >"$dir/test/cart.test.js"
		for i in $(seq "$n"); do
			printf "$imports"'test('"'"'counts %d'"'"', () => { expect(count({ items: new Array(%d) })).toBe(%d); });\n' "$i" "$i" "$i" >"$dir/test/other$i.test.js"
		done
	fi
	git -C "$dir" init -q -b main
	git -C "$dir" add -A
	git -C "$dir" commit -qm broken
	sed 's/return cart.items.reduce(/return (cart.items || []).reduce(/' "$dir/src/cart.js" |
		scenario "fix-many-$runner" "a cart without items totals 0" "$work/many-scenarios/$runner"
	bench "$runner-$((n + 1))-files" "$dir" "$cmd" --fixers llm --models "test/fix-many-$runner" \
		--config "$work/many-scenarios/$runner.ai-agent.json"
}

# many_bench: the rows of "many", one per runner found.
many_bench() {
	local runners=$root/.deps/jsrunners/node_modules/.bin
	if [ -d "$runners" ]; then PATH="$PATH:$runners"; fi
	many_one node 'node --test'
	local r
	for r in jest vitest; do
		if ! command -v "$r" >/dev/null 2>&1; then
			echo "many: $r is not installed (scripts/heal/setup.sh installs it in .deps/jsrunners); no row" >&2
			continue
		fi
		case $r in
		jest) many_one jest jest ;;
		vitest) many_one vitest 'vitest run' ;;
		esac
	done
}

case "$mode" in
many)
	echo "salve heal speed on a project of many test files, a failure thrown in the code, median of $runs runs, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "| example | fail build s | pass build s | both s | goal s | heal cold s (/both) | heal warm s (/both) | cold ok | warm ok | heal none s (/both) | failed runs |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	many_bench
	exit 0
	;;
real)
	echo "salve heal speed on public projects, median of $runs runs, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "| example | fail build s | pass build s | both s | goal s | heal cold s (/both) | heal warm s (/both) | cold ok | warm ok | heal none s (/both) | failed runs |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	real_bench
	exit 0
	;;
cold)
	cold_bench
	exit 0
	;;
overhead)
	overhead_bench
	exit 0
	;;
large)
	large_bench
	exit 0
	;;
esac

isolation=$(XDG_CACHE_HOME=$work/probe "$salve" exec --json --no-record --cmd true --workspace "$work" 2>/dev/null |
	sed -n 's/.*"isolation": *"\([a-z]*\)".*/\1/p' | head -n 1)
echo "salve heal speed, median of $runs runs, isolation ${isolation:-unknown}, $(nproc) cores"
echo
echo "| example | fail build s | pass build s | both s | goal s | heal cold s (/both) | heal warm s (/both) | cold ok | warm ok | heal none s (/both) | failed runs |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
only() { [ -z "${BENCH_ONLY:-}" ] || [[ " ${BENCH_ONLY//,/ } " == *" $1 "* ]]; }
if only go; then
	fresh_go=1
	bench go examples/testdata/logic-bug 'go test ./...' \
		--fixers rules,llm --models test/fix-last --config "$root/examples/testdata/scenarios/.ai-agent.json"
	fresh_go=
fi
if only python; then
	bench python examples/testdata/python-broken 'python3 -m unittest discover -v' --fixers rules
fi
if only rust; then
	bench rust examples/testdata/bench/rust-bug 'cargo test' \
		--fixers llm --models test/fix-rust-last --config "$root/examples/testdata/bench/scenarios/.ai-agent.json"
fi
if only node; then
	bench node examples/testdata/bench/node-bug 'node --test' \
		--fixers llm --models test/fix-node-last --config "$root/examples/testdata/bench/scenarios/.ai-agent.json"
fi
if [ -n "${BENCH_SMALL:-}" ]; then
	echo
	overhead_bench
	echo
	BENCH_FILES=${BENCH_FILES:-2000} large_bench
	echo
	BENCH_MANY_FILES=${BENCH_MANY_FILES:-3} many_bench
fi
