#!/usr/bin/env bash
# browserless.sh: runs the real browserless (the browser farm: @browserless.io/browserless from npm)
# on this machine, in the foreground, on 127.0.0.1, driving the machine's Chromium, and prints the
# webpilot command line that uses it. Ctrl-C stops it and its browsers.
#
#   bash scripts/browserless.sh [--port 3000] [--token T] [--concurrent 4] [--queued 10]
#
# browserless and the Node 22 it runs on come from scripts/ensure-browserless.sh (through npx,
# cached: about 250 MB the first time), the Chromium from scripts/ensure-chromium.sh (the one
# webpilot would use; apt-get installs one on Debian/Ubuntu when there is none). Nothing is
# installed globally. Linux only: elsewhere, run browserless's Docker image.
#
# The npm package has no start command of its own that works outside its source tree: this script
# is its recipe, and webpilot's farm tests run browserless through it
# (internal/backend/endpoint/farmtest). It builds a run folder (--dir) holding
#   routes/{chromium,management}   links to its Chromium routes only, as its Chromium image has
#   browsers/chromium-<rev>/…      a link to the machine's Chromium, where its playwright-core
#                                  looks for its own (PLAYWRIGHT_BROWSERS_PATH)
#   run/{package.json,node_modules} its working folder: it reads both from there
#   data/ downloads/ metrics.json  the browsers' profiles (one per session, removed after it), downloads
# and starts build/index.js with HOST, PORT, TOKEN, CONCURRENT, QUEUED, TIMEOUT and those folders
# in its environment, and TMPDIR short enough for its browsers' sockets (Chromium aborts with
# "Socket path too long" under a long TMPDIR).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() {
	printf 'browserless.sh: %s\n' "$*" >&2
	exit 1
}

usage() {
	cat <<'EOF'
Usage: bash scripts/browserless.sh [options]

Runs browserless (the browser farm, from npm) in the foreground on 127.0.0.1 with the machine's
Chromium, and prints how to point webpilot at it. Ctrl-C stops it and its browsers.

  -p, --port N          port on 127.0.0.1 (default 3000)
  -t, --token T         the farm's token: letters, digits, '.', '_', '~', '-'
                        (default: a random one, printed)
  -c, --concurrent N    browsers running at once (default 4)
  -q, --queued N        connections that may wait for one when all are busy (default 10);
                        more are turned away (HTTP 429)
      --timeout MS      how long a session may live, in milliseconds (default 0: no limit;
                        browserless's own default, 30000, ends an agent's browser mid-task)
      --dir DIR         its run folder (default ${XDG_CACHE_HOME:-~/.cache}/webpilot/browserless-PORT)
      --tmpdir DIR      TMPDIR of its browsers; must be short (default DIR/tmp when that is at
                        most 50 characters, else /tmp/webpilot-browserless-UID-PORT)
      --chrome PATH     the Chromium to drive (default: the one scripts/ensure-chromium.sh
                        finds; it honours WEBPILOT_BROWSER)
      --browserless-dir DIR
                        the folder scripts/ensure-browserless.sh prints (default: run it)
      --exec            start browserless in this process and print nothing of its own: no
                        wait for it to answer, no command line (for scripts and webpilot's tests)
  -h, --help            this help
EOF
}

port=3000 token="" concurrent=4 queued=10 timeout=0
dir="" tmp="" chrome="" bldir="" exec_mode=0
while (($#)); do
	opt=$1 val="" has_val=0
	case $opt in
	--*=*)
		val=${opt#*=} opt=${opt%%=*} has_val=1
		;;
	esac
	case $opt in
	-p | --port | -t | --token | -c | --concurrent | -q | --queued | --timeout | --dir | --tmpdir | --chrome | --browserless-dir)
		if ((!has_val)); then
			(($# >= 2)) || die "$opt needs a value (--help lists the options)"
			val=$2
			shift
		fi
		;;
	--exec | -h | --help)
		((!has_val)) || die "$opt takes no value"
		;;
	*)
		die "unknown option $1 (--help lists the options)"
		;;
	esac
	shift
	case $opt in
	-p | --port) port=$val ;;
	-t | --token) token=$val ;;
	-c | --concurrent) concurrent=$val ;;
	-q | --queued) queued=$val ;;
	--timeout) timeout=$val ;;
	--dir) dir=$val ;;
	--tmpdir) tmp=$val ;;
	--chrome) chrome=$val ;;
	--browserless-dir) bldir=$val ;;
	--exec) exec_mode=1 ;;
	-h | --help)
		usage
		exit 0
		;;
	esac
done

# number NAME VALUE MIN checks that VALUE is a whole number (no leading zero) of at least MIN.
number() {
	[[ $2 =~ ^(0|[1-9][0-9]{0,9})$ ]] && (($2 >= $3)) || die "$1 must be a whole number of at least $3 (at most 10 digits, no leading zero), not '$2'"
}
number --port "$port" 1
((port <= 65535)) || die "--port must be at most 65535, not $port"
number --concurrent "$concurrent" 1
number --queued "$queued" 0
number --timeout "$timeout" 0
if [[ -z $token ]]; then
	token=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
fi
# The token goes into the farm's URL as it is: keep to characters a URL needs no escape for.
[[ $token =~ ^[A-Za-z0-9._~-]+$ ]] || die "--token may hold only letters, digits, '.', '_', '~' and '-'"

[[ $(uname -s) == Linux ]] || die "runs on Linux only (it puts the machine's Chromium where browserless's playwright-core looks for its own); elsewhere run the Docker image: docker run -p 127.0.0.1:${port}:3000 -e TOKEN=… -e TIMEOUT=0 ghcr.io/browserless/chromium"

# Nothing else may answer on the port: browserless would fail to listen, and a farm already there
# would be taken for this one.
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
	die "something already listens on 127.0.0.1:$port: stop it, or pick another --port"
fi

# browserless and node.
if [[ -z $bldir ]]; then
	((exec_mode)) || echo "browserless.sh: getting browserless and Node through npx (the first time downloads about 250 MB)…" >&2
	bldir=$(bash "$here/ensure-browserless.sh") || die "could not get browserless (see above)"
fi
[[ -x $bldir/node && -x $bldir/browserless ]] || die "$bldir holds no browserless and node (give the folder scripts/ensure-browserless.sh prints)"
mods=$(cd "$bldir/.." && pwd) # …/node_modules
pkg=$mods/@browserless.io/browserless
node=$bldir/node
[[ -f $pkg/build/index.js && -d $mods/playwright-core ]] || die "$mods holds no built @browserless.io/browserless with its playwright-core"

# The Chromium.
if [[ -z $chrome ]]; then
	chrome=$(bash "$here/ensure-chromium.sh" --print) || die "no Chromium to drive (see above)"
fi
if [[ $chrome != */* ]] && resolved=$(command -v "$chrome" 2>/dev/null); then
	chrome=$resolved
fi
[[ -f $chrome && -x $chrome ]] || die "--chrome $chrome is not an executable file"

# The run folder.
if [[ -z $dir ]]; then
	dir=${XDG_CACHE_HOME:-${HOME:?}/.cache}/webpilot/browserless-$port
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# link TARGET LINK makes LINK (a path under the run folder) point at TARGET, replacing a link there.
link() {
	mkdir -p "$(dirname "$2")"
	ln -sfn "$1" "$2"
}
link "$pkg/build/routes/chromium" "$dir/routes/chromium"
link "$pkg/build/routes/management" "$dir/routes/management"
link "$pkg/package.json" "$dir/run/package.json"
link "$mods" "$dir/run/node_modules"
# Where its playwright-core looks for the Chromium of its revision, e.g.
# browsers/chromium-1208/chrome-linux64/chrome: asked of playwright-core itself.
exe=$(PLAYWRIGHT_BROWSERS_PATH="$dir/browsers" "$node" -e \
	'console.log(require(process.argv[1]).chromium.executablePath())' "$mods/playwright-core") ||
	die "could not ask playwright-core where its Chromium goes"
[[ $exe == "$dir/browsers/"* ]] || die "playwright-core looks for its Chromium at $exe, outside $dir/browsers"
link "$chrome" "$exe"
mkdir -p "$dir/data" "$dir/downloads"

# Its browsers' TMPDIR.
if [[ -z $tmp ]]; then
	tmp=$dir/tmp
	if ((${#tmp} > 50)); then
		tmp=/tmp/webpilot-browserless-$(id -u)-$port
	fi
fi
mkdir -p -m 700 "$tmp" 2>/dev/null || true
# (this user's, or a shared one with the sticky bit, like /tmp)
[[ -d $tmp && ! -L $tmp && -w $tmp && (-O $tmp || -k $tmp) ]] || die "TMPDIR $tmp is not a folder this user may use"
tmp=$(cd "$tmp" && pwd)

env=(
	"PATH=$bldir:$PATH"
	HOST=127.0.0.1 "PORT=$port" "TOKEN=$token"
	"CONCURRENT=$concurrent" "QUEUED=$queued" "TIMEOUT=$timeout"
	"ROUTES=$dir/routes"
	"PLAYWRIGHT_BROWSERS_PATH=$dir/browsers"
	"DATA_DIR=$dir/data" "DOWNLOAD_DIR=$dir/downloads"
	"METRICS_JSON_PATH=$dir/metrics.json"
	"DEBUG=${DEBUG-browserless*,-**:verbose,-**:trace}" NODE_ENV=production
	"TMPDIR=$tmp"
)
cd "$dir/run"
if ((exec_mode)); then
	exec env "${env[@]}" "$node" "$pkg/build/index.js"
fi

env "${env[@]}" "$node" "$pkg/build/index.js" &
child=$!
# Ctrl-C, a closed terminal or a kill end browserless the way it ends itself (it closes its
# browsers); the script waits for it.
stop() { kill -TERM "$child" 2>/dev/null || true; }
trap stop INT TERM HUP

# answers succeeds when the farm answers /pressure with 200.
answers() {
	local status
	exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
	printf 'GET /pressure?token=%s HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n\r\n' "$token" "$port" >&3
	IFS= read -r -t 5 status <&3 || status=""
	exec 3<&-
	[[ $status == "HTTP/1."?" 200"* ]]
}
ready=0
for ((i = 0; i < 600; i++)); do
	kill -0 "$child" 2>/dev/null || break
	if answers 2>/dev/null; then
		ready=1
		break
	fi
	sleep 0.1
done
if ((!ready)); then
	if kill -0 "$child" 2>/dev/null; then
		stop
		wait "$child" || true
		die "browserless did not answer on 127.0.0.1:$port within 60 s (its log is above)"
	fi
	wait "$child" || true
	die "browserless exited at start (its log is above)"
fi

version=$("$node" -p 'require(process.argv[1]).version' "$pkg/package.json" 2>/dev/null || echo "?")
url="ws://127.0.0.1:$port/?token=$token"
cat <<EOF

browserless $version is running on 127.0.0.1:$port: $concurrent browsers at once, $queued more connections may wait.
Chromium: $chrome
Run folder: $dir (TMPDIR $tmp)
Endpoint: $url

Point webpilot at it (in another terminal), one farm browser per agent:
  webpilot mcp --cdp-endpoint '$url' --endpoint-per-session
In an MCP client's config:
  "command": "webpilot", "args": ["mcp", "--cdp-endpoint", "$url", "--endpoint-per-session"]
Try it once:
  webpilot call --standalone --cdp-endpoint '$url' browser_navigate '{"url":"data:text/html,hi"}'

Ctrl-C stops browserless and its browsers.

EOF

# wait returns early when a trapped signal arrives: wait again until browserless is gone.
rc=0
while :; do
	wait "$child" && rc=0 || rc=$?
	kill -0 "$child" 2>/dev/null || break
done
exit "$rc"
