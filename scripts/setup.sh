#!/usr/bin/env bash
# Installs what the test suite needs, from the repository's own files. Each
# area's scripts/<area>/setup.sh is run in turn; a part that cannot install
# says so and the tests that need it skip with a clear message.
#
# Nothing is installed for the whole machine: npm's global prefix is pointed
# at .deps/npm (ignored by git), so an area's `npm install -g` puts its
# packages in .deps/npm/lib/node_modules and their programs (tsc, eslint…)
# in .deps/npm/bin. That folder is put first on PATH here, so the areas'
# checks find what they installed; the tests find those programs when
# .deps/npm/bin is on their PATH too (`make test` puts it there).
set -u
cd "$(dirname "$0")/.."
NPM_CONFIG_PREFIX="$PWD/.deps/npm"
export NPM_CONFIG_PREFIX
mkdir -p "$NPM_CONFIG_PREFIX/bin" "$NPM_CONFIG_PREFIX/lib"
PATH="$NPM_CONFIG_PREFIX/bin:$PATH"
export PATH
status=0
for s in scripts/*/setup.sh; do
	[ -f "$s" ] || continue
	echo "setup: $s" >&2
	if ! bash "$s"; then
		echo "setup: $s failed" >&2
		status=1
	fi
done
exit $status
