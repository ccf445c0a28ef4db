#!/usr/bin/env bash
# generate.sh rebuilds the logparse fixture corpus: for every case folder
# internal/heal/logparse/testdata/corpus/<family>/<case>/ whose meta.json is not synthetic,
# it copies src/ to $WORK/<family>/<case>, runs meta.json's "command" there
# with the real tool, records stdout+stderr, applies the CI "mess" the case
# asks for (timestamps, ANSI colour, CRLF, BuildKit prefixes, another root),
# and writes log.txt and meta.json's "root". expected.json is never touched:
# it is written by hand from the broken sources.
#
# usage: scripts/corpus/generate.sh [family[/case] ...]
#
# Tools come from the machine (go, gcc, clang, cmake, make, rustc, cargo,
# javac, java, python3 with pytest, flake8, pylint, mypy, shellcheck, node);
# scripts/corpus/recorders.sh installs the rest from Debian's packages
# (ctest, lld, GoogleTest, Catch2, kotlinc, ruby, minitest, rspec, rubocop,
# php, phpunit). The npm tools (typescript, eslint 8, jest, mocha) and
# staticcheck are installed into $TOOLS on first use. A case whose tool is
# missing is skipped with a note, and keeps its old log.
#
# Run-time cases record what the program prints when it fails: sanitizer
# reports (gcc -fsanitize=address,undefined), assert() aborts, go test
# -race/-timeout/-fuzz, cargo test panics, Python and Java exceptions. Their
# addresses, pids, temporary object names and fuzzing inputs change from one
# recording to the next; the locations do not.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
corpus=${CORPUS:-$repo/internal/heal/logparse/testdata/corpus}
work=${WORK:-/tmp/salve-corpus}
tools=${TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/salve-corpus-tools}

setup_tools() {
	mkdir -p "$tools"
	if [ ! -x "$tools/node_modules/.bin/tsc" ] && command -v npm >/dev/null; then
		(cd "$tools" && npm init -y >/dev/null 2>&1 && npm install --no-audit --no-fund typescript@7.0.2 eslint@8.57.1 jest@30.5.2 mocha@12.0.3 vitest@4.1.12 pyright@1.1.414 >/dev/null 2>&1) ||
			echo "generate: npm tools unavailable; ts/js cases keep their logs" >&2
	fi
	if [ ! -x "$tools/bin/staticcheck" ]; then
		GOBIN="$tools/bin" go install honnef.co/go/tools/cmd/staticcheck@2026.2.2 >/dev/null 2>&1 ||
			echo "generate: staticcheck unavailable" >&2
	fi
}

meta_get() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2]); print("" if v is None else (v if isinstance(v,str) else json.dumps(v)))' "$1" "$2"; }

wanted() {
	[ $# -eq 0 ] && return 0
	local id=$1; shift
	for w in "${selected[@]}"; do
		case "$id" in "$w"|"$w"/*) return 0 ;; esac
	done
	return 1
}

# PYTHON is a python3 that has pytest (Debian's, when the default lacks it).
if [ -z "${PYTHON:-}" ]; then
	PYTHON=python3
	for c in python3 /usr/bin/python3; do
		if "$c" -c 'import pytest' >/dev/null 2>&1; then PYTHON=$c; break; fi
	done
fi
export PYTHON

selected=("$@")
setup_tools
export PATH="$tools/node_modules/.bin:$tools/bin:$PATH"
export NO_COLOR=1 FORCE_COLOR=0 CARGO_TERM_COLOR=never GOFLAGS=-mod=mod
# Maven runs offline from the repository recorders.sh copies from Debian's.
export SALVE_M2=${SALVE_M2:-${XDG_CACHE_HOME:-$HOME/.cache}/salve-corpus-m2}
n=0
for meta in "$corpus"/*/*/meta.json; do
	dir=$(dirname "$meta")
	id=${dir#"$corpus"/}
	if [ ${#selected[@]} -gt 0 ] && ! wanted "$id" "${selected[@]}"; then continue; fi
	[ "$(meta_get "$meta" synthetic)" = "true" ] && continue
	cmd=$(meta_get "$meta" command)
	[ -n "$cmd" ] || continue
	tool=$(meta_get "$meta" tool)
	first=""
	for w in $cmd; do
		case "$w" in *=*) continue ;; '$PYTHON') first=$PYTHON; break ;; *) first=$w; break ;; esac
	done
	if ! command -v "$first" >/dev/null 2>&1 && [ "$first" != "cd" ] && [ "$first" != "echo" ]; then
		echo "generate: skip $id: $first not installed" >&2
		continue
	fi
	run="$work/$id"
	rm -rf "$run"
	mkdir -p "$run"
	if [ -d "$dir/src" ]; then cp -R "$dir/src/." "$run/"; fi
	raw=$(mktemp)
	(cd "$run" && timeout 300 bash -c "$cmd") >"$raw" 2>&1 || true
	root_as=$(meta_get "$meta" root_as)
	mess=$(meta_get "$meta" mess)
	python3 "$here/mess.py" "$raw" "$run" "${root_as:-$run}" "${mess:-[]}" >"$dir/log.txt"
	rm -f "$raw"
	python3 - "$meta" "${root_as:-$run}" <<'PY'
import json, sys
p, root = sys.argv[1], sys.argv[2]
m = json.load(open(p))
m["root"] = root
open(p, "w").write(json.dumps(m, indent=2) + "\n")
PY
	n=$((n + 1))
	echo "generate: $id ($tool)"
done
echo "generate: recorded $n logs" >&2
