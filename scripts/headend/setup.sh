#!/usr/bin/env bash
# Installs the official client SDKs that the headend tests drive against a
# running `ai-agent` headend (the OpenAI and Anthropic Node SDKs and the MCP
# TypeScript SDK client), at pinned versions, into .deps/headend/ (ignored by
# git). Idempotent: a second run with the same pins does nothing. Without
# npm or node it exits 0 with a note; the tests that need the clients then
# skip, naming this script.
set -u
cd "$(dirname "$0")/../.."

OPENAI_VERSION=7.57.0
ANTHROPIC_VERSION=1.12.0
MCP_SDK_VERSION=1.32.2
DEST=.deps/headend
STAMP="$DEST/.installed"
WANT="openai@$OPENAI_VERSION @anthropic-ai/sdk@$ANTHROPIC_VERSION @modelcontextprotocol/sdk@$MCP_SDK_VERSION"

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	echo "scripts/headend/setup.sh: npm or node not found; headend client tests will skip" >&2
	exit 0
fi

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] \
	&& [ -f "$DEST/node_modules/openai/package.json" ] \
	&& [ -f "$DEST/node_modules/@anthropic-ai/sdk/package.json" ] \
	&& [ -f "$DEST/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
	echo "scripts/headend/setup.sh: headend client SDKs already installed ($WANT)" >&2
	exit 0
fi

mkdir -p "$DEST"
if [ ! -f "$DEST/package.json" ]; then
	printf '{\n  "name": "salve-headend-test-deps",\n  "private": true\n}\n' >"$DEST/package.json"
fi
# shellcheck disable=SC2086
if ! npm install --prefix "$DEST" --no-audit --no-fund --no-save --loglevel=error $WANT >&2; then
	echo "scripts/headend/setup.sh: npm install failed; headend client tests will skip" >&2
	exit 0
fi
echo "$WANT" >"$STAMP"
echo "scripts/headend/setup.sh: installed $WANT into $DEST" >&2
