#!/usr/bin/env bash
# recorders.sh installs, from Debian's packages, the tools that
# generate.sh records the corpus with beyond the base toolchains (go, gcc,
# rustc and cargo, javac, python3, node): cmake and ctest, lld, GoogleTest,
# Catch2, kotlinc, Ruby with minitest, RSpec and RuboCop, PHP with PHPUnit.
# It is idempotent, and only needed to regenerate the logs: the tests read
# the recorded logs and never run these tools.
#
# usage: scripts/corpus/recorders.sh   (as root, or with sudo on PATH)
set -euo pipefail

pkgs=(cmake lld libgtest-dev catch2 kotlin ruby ruby-minitest ruby-rspec rubocop php-cli phpunit)
missing=()
for p in "${pkgs[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "recorders: all installed" >&2
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "recorders: no apt-get; install ${missing[*]} by hand" >&2
	exit 1
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
