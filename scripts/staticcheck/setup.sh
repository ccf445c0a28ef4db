#!/usr/bin/env bash
# Installs staticcheck, the Go linter `make check` runs, at a pinned
# version, from the Go module proxy into .deps/bin/ (ignored by git).
# Idempotent: when .deps/bin/staticcheck already reports the pinned
# version, nothing is done. Without go, or when the install fails, it
# exits 0 with a note; `make check` then stops and says to run
# `make setup`.
#
# The pin must support the go version in go.mod: staticcheck releases
# follow Go's, and one built for an older Go cannot check newer code.
set -u
cd "$(dirname "$0")/../.."

STATICCHECK_VERSION=v0.8.2
DEST=.deps/bin
BIN="$DEST/staticcheck"

if ! command -v go >/dev/null 2>&1; then
	echo "scripts/staticcheck/setup.sh: go not found; make check cannot run staticcheck" >&2
	exit 0
fi

# staticcheck -version prints e.g. "staticcheck 2026.2.2 (0.8.2)".
if [ -x "$BIN" ] && "$BIN" -version 2>/dev/null | grep -qF "(${STATICCHECK_VERSION#v})"; then
	echo "scripts/staticcheck/setup.sh: staticcheck $STATICCHECK_VERSION already installed" >&2
	exit 0
fi

mkdir -p "$DEST"
if ! GOBIN="$PWD/$DEST" go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"; then
	echo "scripts/staticcheck/setup.sh: go install of staticcheck $STATICCHECK_VERSION failed; make check cannot run staticcheck" >&2
	exit 0
fi
echo "scripts/staticcheck/setup.sh: installed staticcheck $STATICCHECK_VERSION into $DEST" >&2
