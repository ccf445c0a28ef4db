#!/usr/bin/env bash
# Installs Debian's chromium for the run viewer's browser tests (ui/). It
# is driven headless over the DevTools protocol from Go. Idempotent; when it
# cannot install, it says so and the browser tests skip naming this script.
set -u
if command -v chromium >/dev/null 2>&1; then
	echo "scripts/ui/setup.sh: chromium already installed ($(chromium --version 2>/dev/null | head -1))" >&2
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "scripts/ui/setup.sh: no apt-get; the browser tests will skip" >&2
	exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else
		echo "scripts/ui/setup.sh: not root and no sudo; the browser tests will skip" >&2
		exit 0
	fi
fi
if ! apt-cache show chromium >/dev/null 2>&1; then
	$SUDO apt-get update -qq >/dev/null 2>&1 || echo "scripts/ui/setup.sh: apt-get update failed" >&2
fi
if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; then
	echo "scripts/ui/setup.sh: could not install chromium; the browser tests will skip" >&2
	exit 0
fi
echo "scripts/ui/setup.sh: installed $(chromium --version 2>/dev/null | head -1)" >&2
