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

HEAD
	for f in docs/bench-*.md; do
		echo
		echo "<!-- from $f -->"
		sed -e 's/^#/##/' "$f"
	done
} >"$out"
echo "wrote $out from $(ls docs/bench-*.md | wc -l) files" >&2
