#!/bin/sh
# Installs what the heal tests use for real beyond the machine's own
# toolchains (go, gcc/g++, rustc/cargo, javac, python3, node): the
# TypeScript compiler and eslint, from the npm registry, for the suggest
# tier's tsc and eslint sources and the TypeScript rules; jest and vitest,
# for the re-runs of their failing tests; and flake8, from
# Debian, for the Python unused-import and -variable rules. Idempotent and
# never fatal: when npm is missing or the registry cannot be reached, the
# tests that need tsc, eslint, jest or vitest skip with a message saying so.
#
# Usage: scripts/heal/setup.sh
set -u

say() { printf 'heal setup: %s\n' "$*" >&2; }

for tool in cc c++ cargo javac python3 node; do
	command -v "$tool" >/dev/null 2>&1 || say "$tool is not installed; the heal tests that need it will skip"
done

# flake8 (Debian's package) for the Python unused-import and -variable rules.
if command -v flake8 >/dev/null 2>&1; then
	say "flake8 present: $(flake8 --version 2>&1 | head -n 1)"
elif command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	apt-cache show flake8 >/dev/null 2>&1 || apt-get update -qq >/dev/null 2>&1 || say "apt-get update failed"
	if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq flake8 >/dev/null 2>&1; then
		say "installed flake8"
	else
		say "could not install flake8; the tests that need it will skip"
	fi
else
	say "flake8 is not installed (no apt-get or not root); the tests that need it will skip"
fi

if ! command -v npm >/dev/null 2>&1; then
	say "npm is not installed; the tsc and eslint tests will skip"
	exit 0
fi

install() { # install BIN PACKAGE
	if command -v "$1" >/dev/null 2>&1; then
		say "$1 present: $($1 --version 2>&1 | head -n 1)"
		return
	fi
	if npm install -g --no-audit --no-fund --loglevel=error "$2" >/dev/null 2>&1 && command -v "$1" >/dev/null 2>&1; then
		say "installed $1 $($1 --version 2>&1 | head -n 1)"
	else
		say "could not install $2 from npm; the tests that need $1 will skip"
	fi
}

install tsc typescript@5
install eslint eslint@9

# jest and vitest, for the re-runs of their failing tests, in a folder of
# their own (.deps/jsrunners): on the tests' PATH they would be every
# project's jest, and a test of a project that lacks its runner needs it
# missing. Only the tests that run them look there.
runners="$(dirname "$0")/../../.deps/jsrunners"
if [ -x "$runners/node_modules/.bin/jest" ] && [ -x "$runners/node_modules/.bin/vitest" ]; then
	say "jest and vitest present in .deps/jsrunners"
elif mkdir -p "$runners" && npm install --prefix "$runners" --no-audit --no-fund --no-save --loglevel=error jest@29 vitest@3 >/dev/null 2>&1; then
	say "installed jest and vitest in .deps/jsrunners"
else
	say "could not install jest and vitest from npm; the tests that re-run them will skip"
fi
exit 0
