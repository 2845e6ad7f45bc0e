#!/usr/bin/env bash
# ensure-chromium.sh: make sure a Chromium-family browser that webpilot can launch exists.
#
# Looks for, in order: $WEBPILOT_BROWSER (which, when set, must work), /usr/lib/chromium/chromium
# (Debian; preferred over the /usr/bin/chromium wrapper), the browser names webpilot looks up on
# PATH (chromium, google-chrome, ...), then the usual install paths on Linux and macOS. If one runs,
# its path is printed (to stderr) and the script exits 0. Otherwise, on Debian/Ubuntu, Chromium is
# installed with apt-get (the only download this script ever makes) and checked again; elsewhere it
# explains what to install and exits 1.
#
# All output goes to stderr; with --print, the browser's path is also printed on stdout (for scripts
# such as scripts/browserless.sh).
set -euo pipefail

print_path=0
case ${1:-} in
--print) print_path=1 ;;
"") ;;
*)
	printf 'ensure-chromium: unknown argument %s (the only one is --print)\n' "$1" >&2
	exit 2
	;;
esac

log() { printf 'ensure-chromium: %s\n' "$*" >&2; }

# usable PATH prints the browser's version line and succeeds if PATH is an executable browser.
usable() {
	local path=$1 version
	[[ -f $path && -x $path ]] || return 1
	if command -v timeout >/dev/null 2>&1; then
		version=$(timeout 30 "$path" --version 2>/dev/null) || return 1
	else
		version=$("$path" --version 2>/dev/null) || return 1
	fi
	version=${version%%$'\n'*}
	printf '%s\n' "${version%"${version##*[![:space:]]}"}"
}

# The places webpilot itself looks (internal/backend/launch/discover.go); keep the two in step.
path_names=(chromium chromium-browser google-chrome google-chrome-stable chrome
	microsoft-edge microsoft-edge-stable brave-browser)
install_paths=(
	/usr/lib/chromium/chromium
	/usr/lib/chromium-browser/chromium-browser
	/usr/bin/chromium
	/usr/bin/chromium-browser
	/usr/bin/google-chrome
	/usr/bin/google-chrome-stable
	/opt/google/chrome/chrome
	/usr/bin/microsoft-edge
	/opt/microsoft/msedge/msedge
	/usr/bin/brave-browser
	/opt/brave.com/brave/brave
	/snap/bin/chromium
)
mac_apps=(
	"Google Chrome.app/Contents/MacOS/Google Chrome"
	"Chromium.app/Contents/MacOS/Chromium"
	"Microsoft Edge.app/Contents/MacOS/Microsoft Edge"
	"Brave Browser.app/Contents/MacOS/Brave Browser"
	"Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"
)
for app in "${mac_apps[@]}"; do
	install_paths+=("/Applications/$app")
	if [[ -n ${HOME:-} ]]; then install_paths+=("$HOME/Applications/$app"); fi
done

# find_browser prints the path of the first usable browser; it fails if there is none.
find_browser() {
	local c p
	# Debian: the real binary, not the /usr/bin/chromium wrapper (it adds flags that get in the way).
	if usable /usr/lib/chromium/chromium >/dev/null; then
		printf '%s\n' /usr/lib/chromium/chromium
		return 0
	fi
	for c in "${path_names[@]}"; do
		if p=$(command -v "$c" 2>/dev/null) && usable "$p" >/dev/null; then
			printf '%s\n' "$p"
			return 0
		fi
	done
	for c in "${install_paths[@]}"; do
		if usable "$c" >/dev/null; then
			printf '%s\n' "$c"
			return 0
		fi
	done
	return 1
}

report() {
	local path=$1 version
	version=$(usable "$path" || true)
	log "using ${path}${version:+ (${version})}"
	if ((print_path)); then printf '%s\n' "$path"; fi
}

how_to_install() {
	cat >&2 <<'EOF'
Install a Chromium-family browser, then run this again:
  macOS:          brew install --cask google-chrome   (or download Chrome from https://www.google.com/chrome/)
  Fedora/RHEL:    sudo dnf install chromium
  Arch:           sudo pacman -S chromium
  openSUSE:       sudo zypper install chromium
  Alpine:         sudo apk add chromium
Or point webpilot at a browser you already have:
  export WEBPILOT_BROWSER=/path/to/chrome
EOF
}

# --- 1. An explicit choice wins, and a wrong one is an error, not a reason to install another. ---
if [[ -n ${WEBPILOT_BROWSER:-} ]]; then
	want=$WEBPILOT_BROWSER
	if [[ $want != */* ]] && resolved=$(command -v "$want" 2>/dev/null); then
		want=$resolved
	fi
	if usable "$want" >/dev/null; then
		report "$want"
		exit 0
	fi
	log "WEBPILOT_BROWSER=${WEBPILOT_BROWSER} is not an executable browser (running it with --version failed)."
	log "Fix the path, or unset WEBPILOT_BROWSER to let webpilot find or install Chromium."
	exit 1
fi

# --- 2. Anything already installed. ---
if path=$(find_browser); then
	report "$path"
	exit 0
fi

# --- 3. Install with apt on Debian/Ubuntu. ---
if ! command -v apt-get >/dev/null 2>&1 || [[ ! -e /etc/debian_version ]]; then
	log "no Chrome or Chromium found, and this is not a Debian/Ubuntu system where apt-get could install one."
	how_to_install
	exit 1
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
	if command -v sudo >/dev/null 2>&1; then
		sudo_cmd=(sudo)
	else
		log "Chromium is missing and installing it needs root: run 'apt-get install chromium' as root,"
		log "or set WEBPILOT_BROWSER=/path/to/chrome."
		exit 1
	fi
fi

# apt_get runs apt-get with the given arguments, waiting (up to about 5 minutes) while another apt or
# dpkg process holds the lock, e.g. an unattended upgrade or an install running in the background.
apt_get() {
	local out rc tries=0
	out=$(mktemp)
	while :; do
		rc=0
		"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive \
			apt-get -o DPkg::Lock::Timeout=60 "$@" 2>&1 | tee "$out" >&2 || rc=$?
		if [[ $rc -eq 0 ]]; then
			rm -f "$out"
			return 0
		fi
		if grep -qiE 'could not get lock|unable to lock|unable to acquire the dpkg frontend lock|is another process using it' "$out" &&
			((++tries < 30)); then
			log "apt is busy (another package operation holds its lock); retrying in 10 s (${tries}/30)"
			sleep 10
			continue
		fi
		rm -f "$out"
		return "$rc"
	done
}

# has_candidate PKG succeeds if apt can install PKG.
has_candidate() {
	local cand
	cand=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2; exit}')
	[[ -n $cand && $cand != "(none)" ]]
}

log "no Chrome or Chromium found; installing Chromium with apt-get"
apt_get update

# Debian ships "chromium"; Ubuntu only "chromium-browser" (which installs the snap).
# --no-install-recommends skips desktop services (printing, notifications, power) that a browser
# driven by an agent never uses; a standard font set is added explicitly.
pkgs=()
if has_candidate chromium; then
	pkgs=(chromium)
	if has_candidate fonts-liberation; then pkgs+=(fonts-liberation); fi
elif has_candidate chromium-browser; then
	pkgs=(chromium-browser)
else
	log "no Chrome or Chromium found, and apt has no chromium package for this system."
	how_to_install
	exit 1
fi

if ! apt_get install -y --no-install-recommends "${pkgs[@]}"; then
	log "apt-get install ${pkgs[*]} failed (see above)."
	log "Install Chrome or Chromium yourself, or set WEBPILOT_BROWSER=/path/to/chrome."
	exit 1
fi

# --- 4. Verify. ---
hash -r
if path=$(find_browser); then
	report "$path"
	exit 0
fi
log "installed ${pkgs[*]}, but no working browser was found afterwards."
log "Check that it starts ('chromium --version'), or set WEBPILOT_BROWSER=/path/to/chrome."
exit 1
