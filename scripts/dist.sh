#!/usr/bin/env bash
# Cross-compiles salve's static binaries (CGO_ENABLED=0) and packs the
# release archives, then writes SHA256SUMS over them and checks it:
#   salve_<version>_<os>_<arch>.tar.gz   linux and darwin, amd64 and arm64:
#                                        salve, ai-agent, ai-agent-telemetry, git_agent,
#                                        LICENSE, README.md
#   salve_<version>_windows_amd64.zip    ai-agent.exe, ai-agent-telemetry.exe, git_agent.exe, LICENSE
#                                        (salve itself needs unix)
# Each archive holds one folder of its own name. The version is stamped from
# the git tag (git describe), or VERSION.
#
# The archives are reproducible when GNU tar is at hand: names sorted, every
# mtime set to SOURCE_DATE_EPOCH (default: the time of the last commit),
# owner and group 0, gzip without a name or time. Elsewhere they are packed
# as the local tar does, with a note.
#
# The builds share the go build cache with `make build` and the cross-build
# test (the same -trimpath), so after either only the link steps are left.
#
#   scripts/dist.sh [OUTDIR]     (default dist/)
#   PLATFORMS="linux/amd64 windows/amd64" scripts/dist.sh   (a subset)
set -euo pipefail
shopt -s nullglob
export LC_ALL=C
cd "$(dirname "$0")/.."
out=${1:-dist}
case $out in "" | / | . | ..)
	echo "dist: refusing to empty $out" >&2
	exit 2
	;;
esac
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
platforms=${PLATFORMS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64"}
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
ldflags="-s -w -X main.version=$version"

gnutar=false
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
	gnutar=true
else
	echo "dist: not GNU tar: the archives are not reproducible (names, owners and times as found)" >&2
fi
if command -v sha256sum >/dev/null; then
	sha256=(sha256sum)
else
	sha256=(shasum -a 256)
fi

# pack_tgz DIR NAME: DIR/NAME/ into DIR/../NAME.tar.gz.
pack_tgz() {
	local stage=$1 name=$2
	if $gnutar; then
		tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
			--format=gnu -C "$stage" -cf - "$name" | gzip -n -9 >"$out/$name.tar.gz"
	else
		tar -C "$stage" -cf - "$name" | gzip -n -9 >"$out/$name.tar.gz"
	fi
}

# pack_zip DIR NAME: DIR/NAME/ into DIR/../NAME.zip, the names listed in
# byte order, no directory entries and no extra (owner, time) fields.
pack_zip() {
	local stage=$1 name=$2
	command -v zip >/dev/null || {
		echo "dist: zip is needed for the windows archive" >&2
		exit 1
	}
	local abs
	abs=$(cd "$out" && pwd)/$name.zip
	(cd "$stage" && find "$name" -type f | sort | zip -X -D -q -9 "$abs" -@)
}

rm -rf "$out"
mkdir -p "$out/.stage"
trap 'rm -rf "$out/.stage"' EXIT
for p in $platforms; do
	os=${p%/*}
	arch=${p#*/}
	name="salve_${version}_${os}_${arch}"
	dir="$out/.stage/$name"
	mkdir -p "$dir"
	start=$SECONDS
	if [ "$os" = windows ]; then
		pkgs=(./cmd/ai-agent ./cmd/ai-agent-telemetry ./cmd/git_agent)
		docs=(LICENSE)
	else
		pkgs=(./cmd/salve ./cmd/ai-agent ./cmd/ai-agent-telemetry ./cmd/git_agent)
		docs=(LICENSE README.md)
	fi
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$ldflags" -o "$dir/" "${pkgs[@]}"
	cp "${docs[@]}" "$dir/"
	chmod 0755 "$dir"
	chmod 0644 "${docs[@]/#/$dir/}"
	find "$dir" -type f ! -name LICENSE ! -name README.md -exec chmod 0755 {} +
	# zip stores local time: in UTC, the same epoch gives the same archive.
	if TZ=UTC touch -d "@$epoch" "$dir" 2>/dev/null; then
		TZ=UTC touch -d "@$epoch" "$dir"/*
	fi
	if [ "$os" = windows ]; then
		TZ=UTC pack_zip "$out/.stage" "$name"
	else
		pack_tgz "$out/.stage" "$name"
	fi
	echo "dist: $name ($((SECONDS - start))s)" >&2
done
(
	cd "$out"
	archives=(*.tar.gz *.zip)
	"${sha256[@]}" -- "${archives[@]}" >SHA256SUMS
	"${sha256[@]}" -c --quiet SHA256SUMS
)
echo "dist: $(wc -l <"$out/SHA256SUMS") archives and SHA256SUMS in $out (version $version), checked" >&2
