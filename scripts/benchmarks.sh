#!/usr/bin/env bash
# Rebuilds BENCHMARKS.md from each area's figures in docs/bench-*.md. Each
# area's file holds its numbers and the exact command that produced them;
# this script only gathers them, with headings one level down.
set -euo pipefail
cd "$(dirname "$0")/.."
out=BENCHMARKS.md
{
	cat <<'HEAD'
# Benchmarks

Every figure below was produced by the command printed beside it, on this
project's machine kind: 2 cores and 24 GiB, shared. Speed and memory are
measured with `go test -bench` (compared with benchstat where noted), never
asserted in tests. Unless a section says otherwise, its figures were taken
while other builds ran on the same 2 cores, so treat absolute times as upper
bounds and compare within a table.

This file is generated from `docs/bench-*.md` by `scripts/benchmarks.sh`;
edit those files, then run the script.

`make bench` runs every benchmark below at a small size (each Go benchmark
once with `-short`, each script with `BENCH_SMALL=1` or the flags of a
small run), so that a command that no longer runs as written fails there;
its figures are not to quote. A house test
(`internal/housetest/benchpaths_test.go`) holds every package and script
these pages name to one that exists, and every script to one `make bench`
runs.

HEAD
	for f in docs/bench-*.md; do
		echo
		echo "<!-- from $f -->"
		sed -e 's/^#/##/' "$f"
	done
} >"$out"
echo "wrote $out from $(ls docs/bench-*.md | wc -l) files" >&2
