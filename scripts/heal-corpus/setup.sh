#!/usr/bin/env bash
# Installs what the heal corpus's cases need beyond go, gcc, python3, node,
# cargo and javac: the TypeScript compiler (tsc), from the npm registry.
# Idempotent; skips with a note when it cannot (the TypeScript cases are then
# skipped by the scorer, which says so).
set -u
if command -v tsc >/dev/null 2>&1; then
	exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "heal-corpus setup: npm is not installed; the TypeScript cases will be skipped" >&2
	exit 0
fi
if ! npm install -g --no-fund --no-audit typescript@5 >/dev/null 2>&1; then
	echo "heal-corpus setup: could not install typescript; the TypeScript cases will be skipped" >&2
fi
exit 0
