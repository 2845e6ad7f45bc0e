#!/bin/sh
# Installs webpilot on Linux or macOS:
#   curl -fsSL https://github.com/webpilot-mcp/webpilot/releases/latest/download/install.sh | sh
# It downloads the release archive for this machine, checks it against the release's SHA256SUMS,
# and puts the binary in $WEBPILOT_INSTALL_DIR (default ~/.local/bin). Nothing else is changed.
#   WEBPILOT_VERSION       a release tag such as v0.2.0 (default: the latest)
#   WEBPILOT_INSTALL_DIR   where the binary goes (default: ~/.local/bin)
#   WEBPILOT_DOWNLOAD_URL  the folder that holds the archives and SHA256SUMS (instead of GitHub's)
set -eu

die() {
	echo "install.sh: $*" >&2
	exit 1
}

case $(uname -s) in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) die "no build for $(uname -s) here; on Windows run install.ps1 in PowerShell" ;;
esac
case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) die "no build for the $(uname -m) processor" ;;
esac

version=${WEBPILOT_VERSION:-latest}
if [ -n "${WEBPILOT_DOWNLOAD_URL:-}" ]; then
	base=$WEBPILOT_DOWNLOAD_URL
elif [ "$version" = latest ]; then
	base=https://github.com/webpilot-mcp/webpilot/releases/latest/download
else
	base=https://github.com/webpilot-mcp/webpilot/releases/download/$version
fi
dir=${WEBPILOT_INSTALL_DIR:-$HOME/.local/bin}
archive=webpilot_${os}_${arch}.tar.gz

fetch() { # fetch URL FILE
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --retry 3 -o "$2" "$1"
	elif command -v wget >/dev/null 2>&1; then
		wget -q -O "$2" "$1"
	else
		die "neither curl nor wget is installed"
	fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "downloading $base/$archive"
fetch "$base/$archive" "$tmp/$archive" || die "could not download $base/$archive"
fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS" || die "could not download $base/SHA256SUMS"

want=$(awk -v f="$archive" '$2 == f { print $1 }' "$tmp/SHA256SUMS")
[ -n "$want" ] || die "SHA256SUMS lists no $archive"
if command -v sha256sum >/dev/null 2>&1; then
	got=$(sha256sum "$tmp/$archive" | awk '{ print $1 }')
elif command -v shasum >/dev/null 2>&1; then
	got=$(shasum -a 256 "$tmp/$archive" | awk '{ print $1 }')
else
	die "neither sha256sum nor shasum is installed: cannot check the download"
fi
[ "$got" = "$want" ] || die "$archive does not match SHA256SUMS (got $got, want $want): not installed"
echo "checked $archive against SHA256SUMS"

tar -xzf "$tmp/$archive" -C "$tmp" webpilot
mkdir -p "$dir"
mv -f "$tmp/webpilot" "$dir/webpilot.new"
chmod 755 "$dir/webpilot.new"
mv -f "$dir/webpilot.new" "$dir/webpilot"
echo "installed $dir/webpilot ($("$dir/webpilot" version))"

case ":$PATH:" in
*":$dir:"*) ;;
*) echo "note: $dir is not on your PATH; add it (e.g. export PATH=\"$dir:\$PATH\" in your shell's profile)" ;;
esac
echo "next: webpilot setup   (adds webpilot to your MCP clients; --dry-run shows what it changes)"
