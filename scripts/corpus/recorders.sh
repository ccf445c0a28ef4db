#!/usr/bin/env bash
# recorders.sh installs, from Debian's packages, the tools that
# generate.sh records the corpus with beyond the base toolchains (go, gcc,
# rustc and cargo, javac, python3, node): cmake and ctest, lld, GoogleTest,
# Catch2, kotlinc, Ruby with minitest, RSpec and RuboCop, PHP with PHPUnit,
# and Maven with the plugins Debian packages (compiler, resources,
# surefire, JUnit 4). Maven runs offline from a copy of Debian's Maven
# repository, made in $SALVE_M2 (default: the user's cache) because Maven
# writes into its local repository. Debian's python3-pytest records the pytest
# cases when the default python3 has no pytest.
# It is idempotent, and only needed to regenerate the logs: the tests read
# the recorded logs and never run these tools.
#
# usage: scripts/corpus/recorders.sh   (as root, or with sudo on PATH)
set -euo pipefail

pkgs=(cmake lld libgtest-dev catch2 kotlin ruby ruby-minitest ruby-rspec rubocop php-cli phpunit
	maven libmaven-compiler-plugin-java libmaven-resources-plugin-java libsurefire-java junit4 python3-pytest)
m2=${SALVE_M2:-${XDG_CACHE_HOME:-$HOME/.cache}/salve-corpus-m2}

make_m2() {
	if [ ! -d "$m2/org/apache/maven/plugins/maven-surefire-plugin" ] && [ -d /usr/share/maven-repo ]; then
		mkdir -p "$m2"
		cp -rL /usr/share/maven-repo/. "$m2/" 2>/dev/null || true
		echo "recorders: offline Maven repository in $m2" >&2
	fi
}
missing=()
for p in "${pkgs[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "recorders: all installed" >&2
	make_m2
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
make_m2
