#!/usr/bin/env bash
# Checks that every case of the heal corpus is what it says: the broken tree
# fails its command, and the tree with the case's fixed/ files laid over it
# passes (so a healed case is reachable); a green control passes; an
# environment control fails; a flaky case fails on its first run, passes on
# the second, and leaves nothing git sees. Cases whose tools are missing are
# skipped.
#   scripts/heal-corpus/check-cases.sh [testdata/heal-corpus] [name-substring]
# BENCH_SMALL=1 is the small run of make bench: the first case of each
# language (the part of the name before its first "-").
set -u
dir=${1:-testdata/heal-corpus}
only=${2:-}
bad=0
seen=" "
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for c in "$dir"/*/; do
	name=$(basename "$c")
	case "$name" in *"$only"*) ;; *) continue ;; esac
	if [ -n "${BENCH_SMALL:-}" ]; then
		case "$seen" in *" ${name%%-*} "*) continue ;; esac
		seen="$seen${name%%-*} "
	fi
	{ read -r cmd; read -r expect; read -r tools; } < <(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
print(c["command"]); print(c["expect"]); print(" ".join(c.get("tools", [])))' "$c/case.json")
	missing=""
	for t in $tools; do command -v "$t" >/dev/null 2>&1 || missing="$t"; done
	if [ -n "$missing" ]; then echo "skip  $name ($missing is not installed)"; continue; fi
	rm -rf "$work/t" && cp -r "$c/tree" "$work/t"
	# A deliberately unformatted Go file is kept as X.go.input.
	find "$work/t" -name '*.go.input' | while read -r f; do mv "$f" "${f%.input}"; done
	(cd "$work/t" && sh -c "$cmd") >"$work/log" 2>&1
	rc=$?
	case "$expect" in
	flaky)
		# Fails once, passes when run again, and leaves nothing git sees.
		git -C "$work/t" init -q && git -C "$work/t" add -A &&
			git -C "$work/t" -c user.name=check -c user.email=check@example.com commit -qm case
		if [ $rc -eq 0 ]; then echo "FAIL  $name: the flaky test passes on its first run"; bad=1; continue; fi
		if ! (cd "$work/t" && sh -c "$cmd") >"$work/log" 2>&1; then
			echo "FAIL  $name: the flaky test fails again: $(tail -n3 "$work/log" | tr '\n' ' ')"; bad=1; continue
		fi
		if [ -n "$(git -C "$work/t" status --porcelain)" ]; then
			echo "FAIL  $name: the runs leave files git sees: $(git -C "$work/t" status --porcelain | tr '\n' ' ')"; bad=1; continue
		fi
		echo "ok    $name (flaky: fails, then passes)"; continue ;;
	green) [ $rc -eq 0 ] && echo "ok    $name (green)" || { echo "FAIL  $name: the green control fails"; bad=1; } ; continue ;;
	environment) [ $rc -ne 0 ] && echo "ok    $name (fails: $(tail -n1 "$work/log"))" || { echo "FAIL  $name: the environment control passes"; bad=1; } ; continue ;;
	esac
	if [ $rc -eq 0 ]; then echo "FAIL  $name: the broken tree passes"; bad=1; continue; fi
	if [ ! -d "$c/fixed" ]; then echo "FAIL  $name: no fixed/ files"; bad=1; continue; fi
	cp -r "$c/fixed/." "$work/t/"
	if (cd "$work/t" && sh -c "$cmd") >"$work/log" 2>&1; then
		echo "ok    $name"
	else
		echo "FAIL  $name: the fixed tree fails: $(tail -n3 "$work/log" | tr '\n' ' ')"
		bad=1
	fi
done
exit $bad
