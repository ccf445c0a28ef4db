#!/usr/bin/env bash
# Runs salve's contract validator over salve itself, once it exists.
set -eu
cd "$(dirname "$0")/.."
if [ -x bin/salve ] && bin/salve validate --help >/dev/null 2>&1; then
	bin/salve validate ./...
else
	echo "validate: salve validate is not built yet; skipped" >&2
fi
