#!/usr/bin/env bash
# Installs the reference MCP servers that the internal/agent/tools/mcp tests run as real
# peers, at pinned versions, into .deps/mcp/ (ignored by git). Idempotent: a
# second run with the same pins does nothing. Without npm it exits 0 with a
# note; the tests that need the servers then skip, naming this script.
set -u
cd "$(dirname "$0")/../.."

EVERYTHING_VERSION=2026.8.31
FILESYSTEM_VERSION=2026.8.31
DEST=.deps/mcp
STAMP="$DEST/.installed"
WANT="server-everything@$EVERYTHING_VERSION server-filesystem@$FILESYSTEM_VERSION"

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	echo "scripts/mcp/setup.sh: npm or node not found; MCP reference-server tests will skip" >&2
	exit 0
fi

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] \
	&& [ -f "$DEST/node_modules/@modelcontextprotocol/server-everything/dist/index.js" ] \
	&& [ -f "$DEST/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js" ]; then
	echo "scripts/mcp/setup.sh: MCP reference servers already installed ($WANT)" >&2
	exit 0
fi

mkdir -p "$DEST"
if [ ! -f "$DEST/package.json" ]; then
	printf '{\n  "name": "salve-mcp-test-deps",\n  "private": true\n}\n' >"$DEST/package.json"
fi
if ! npm install --prefix "$DEST" --no-audit --no-fund --no-save --loglevel=error \
	"@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" \
	"@modelcontextprotocol/server-filesystem@$FILESYSTEM_VERSION" >&2; then
	echo "scripts/mcp/setup.sh: npm install failed; MCP reference-server tests will skip" >&2
	exit 0
fi
echo "$WANT" >"$STAMP"
echo "scripts/mcp/setup.sh: installed $WANT into $DEST" >&2
