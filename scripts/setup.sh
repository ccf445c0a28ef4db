#!/usr/bin/env bash
# Installs what the test suite needs, from the repository's own files. Each
# area's scripts/<area>/setup.sh is run in turn; a part that cannot install
# says so and the tests that need it skip with a clear message.
set -u
cd "$(dirname "$0")/.."
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
