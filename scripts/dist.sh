#!/usr/bin/env bash
# Cross-compiles salve's three static binaries for linux and darwin on
# amd64 and arm64, packs one tarball per platform, and writes SHA256SUMS
# over the tarballs. The version is stamped from the git tag (git describe).
#   scripts/dist.sh [OUTDIR]     (default dist/)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist}
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
platforms=${PLATFORMS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64"}
rm -rf "$out"
mkdir -p "$out"
for p in $platforms; do
	os=${p%/*}
	arch=${p#*/}
	name="salve-$version-$os-$arch"
	dir="$out/$name"
	mkdir -p "$dir"
	echo "dist: $name" >&2
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$dir/" ./cmd/...
	cp README.md "$dir/"
	[ -f LICENSE ] && cp LICENSE "$dir/"
	tar -C "$out" -czf "$out/$name.tar.gz" "$name"
	rm -rf "$dir"
done
(cd "$out" && sha256sum -- *.tar.gz >SHA256SUMS)
echo "dist: $(wc -l <"$out/SHA256SUMS") archives and SHA256SUMS in $out (version $version)" >&2
