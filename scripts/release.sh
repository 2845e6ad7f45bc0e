#!/usr/bin/env bash
# Builds webpilot release binaries with the version stamped in, plus SHA256SUMS:
#   dist/webpilot-$VERSION-$GOOS-$GOARCH[.exe]
# VERSION comes from the environment, else `git describe --tags --always --dirty`.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
TARGETS=${TARGETS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64"}
DIST=dist

mkdir -p "$DIST"
built=()
for target in $TARGETS; do
	goos=${target%/*}
	goarch=${target#*/}
	out="webpilot-$VERSION-$goos-$goarch"
	[ "$goos" = windows ] && out="$out.exe"
	echo "building $DIST/$out"
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch "$GO" build -trimpath \
		-ldflags "-s -w -X main.version=$VERSION" -o "$DIST/$out" ./cmd/webpilot
	built+=("$out")
done

# sha256sum's format: "<hex>  <name>"; shasum -a 256 (macOS) writes the same.
(
	cd "$DIST"
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "${built[@]}"
	else
		shasum -a 256 "${built[@]}"
	fi
) >"$DIST/SHA256SUMS"
echo "wrote $DIST/SHA256SUMS"
cat "$DIST/SHA256SUMS"
