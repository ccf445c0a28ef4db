#!/usr/bin/env bash
# Installs the coding CLIs that salve's tool adapter runs and that the
# tests drive for real against a local model server: Claude Code
# (@anthropic-ai/claude-code, whose npm package carries a native program),
# at a pinned version, into .deps/npm (npm's global prefix, ignored by
# git), so its program is .deps/npm/bin/claude. Idempotent: a second run
# with the same pin does nothing. Without npm, or when the registry cannot
# be reached, it exits 0 with a note; the tests that need the CLI then
# skip, naming this script.
set -u
cd "$(dirname "$0")/../.."

CLAUDE_CODE_VERSION=2.1.332
PREFIX="$PWD/.deps/npm"
BIN="$PREFIX/bin/claude"

say() { printf 'scripts/extcli/setup.sh: %s\n' "$*" >&2; }

if [ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null | cut -d' ' -f1)" = "$CLAUDE_CODE_VERSION" ]; then
	say "Claude Code $CLAUDE_CODE_VERSION already installed"
	exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
	say "npm not found; the Claude Code tests will skip"
	exit 0
fi
mkdir -p "$PREFIX/bin" "$PREFIX/lib"
# The package asks for node 22 but runs no node code once installed: its
# program is native, put in place by its install script.
if NPM_CONFIG_PREFIX="$PREFIX" npm install -g --no-audit --no-fund --loglevel=error --engine-strict=false \
	"@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" >&2 &&
	[ "$("$BIN" --version 2>/dev/null | cut -d' ' -f1)" = "$CLAUDE_CODE_VERSION" ]; then
	say "installed Claude Code $CLAUDE_CODE_VERSION into .deps/npm"
else
	say "could not install @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION; the Claude Code tests will skip"
fi
exit 0
