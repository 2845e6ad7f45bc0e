#!/usr/bin/env bash
# conformance.sh: webpilot against third-party MCP clients (`make conformance`, part of `make test`).
#
# 1. The official MCP conformance suite (@modelcontextprotocol/conformance, active suite) against
#    `webpilot serve` (Streamable HTTP), with testdata/conformance/expected-failures.yml as the
#    baseline: the scenarios that call the suite's own fixtures (test_* tools, test:// resources,
#    prompts) are expected to fail; any other failure, or a listed scenario that passes, fails.
# 2. The MCP Inspector's CLI (@modelcontextprotocol/inspector) over stdio (`webpilot mcp
#    --standalone`, a server process per call) and over HTTP (the same `webpilot serve`): tools/list,
#    browser_navigate to a fixture page and browser_snapshot of it, asserting the page's content;
#    a refused URL must come back as an error result (exit 5). Its connection CLI (mcpdo, same
#    package) keeps one stdio server for navigate then snapshot.
#
# Node 22 (the suite needs it) comes from the npm registry as the `node` package, through npx; the
# machine's own Node and npm only run npx. Versions are pinned below. Everything runs in a temp dir
# (a temporary browser profile, the output dir, the inspector's state, XDG_CONFIG_HOME), on
# loopback only, and is removed on exit. The last line is "conformance: N passed, N failed,
# N skipped" (skipped: failed checks of the expected-failure scenarios); exit status 1 on failure.
set -euo pipefail

# The shell's webpilot settings are not the tests' (WEBPILOT_BROWSER names the browser to use).
for v in $(compgen -e | grep '^WEBPILOT_' || true); do
	[[ $v == WEBPILOT_BROWSER ]] || unset "$v"
done

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$PWD

NODE_PKG=node@22.23.3
CONFORMANCE_PKG=@modelcontextprotocol/conformance@0.1.16
INSPECTOR_PKG=@modelcontextprotocol/inspector@2.12.0
BASELINE=$repo/testdata/conformance/expected-failures.yml
FIXTURES=$repo/testdata/pages

GO=${GO:-go}
started=$SECONDS
say() { printf 'conformance: %s\n' "$*"; }
die() {
	say "FAIL: $*" >&2
	exit 1
}

# A short folder: the Inspector's connection daemon and Chromium make unix sockets in it, whose
# paths may not pass 107 bytes (a long TMPDIR, such as a user's ~/tmp/…, is not used then).
base=${TMPDIR:-/tmp}
((${#base} <= 40)) || base=/tmp
tmp=$(mktemp -d "$base/webpilot-conformance.XXXXXX")
pids=()
daemon_pid=""
cleanup() {
	local rc=$? pid i
	trap - EXIT INT TERM
	if [[ -n ${MCP_INSPECTOR_DAEMON_DIR:-} ]] && command -v mcpdo >/dev/null 2>&1; then
		mcpdo daemon stop >/dev/null 2>&1 || true
	fi
	# mcpdo's daemon, if stopping it did not end it
	if [[ -n $daemon_pid && $(cat "/proc/$daemon_pid/comm" 2>/dev/null) == mcpdod ]]; then
		kill "$daemon_pid" 2>/dev/null || true
	fi
	for pid in "${pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	# webpilot closes its browser on SIGTERM; give it a few seconds, then kill.
	for pid in "${pids[@]}"; do
		for ((i = 0; i < 100; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	[[ -n ${MCP_INSPECTOR_DAEMON_DIR:-} ]] && rm -rf "$MCP_INSPECTOR_DAEMON_DIR"
	rm -rf "$tmp"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# wait_for_line FILE PATTERN PID: waits (20 s at most) until FILE has a line matching PATTERN
# while PID runs, and prints the first match.
wait_for_line() {
	local file=$1 pattern=$2 pid=$3 i line
	for ((i = 0; i < 200; i++)); do
		line=$(grep -m1 -oE "$pattern" "$file" 2>/dev/null || true)
		if [[ -n $line ]]; then
			printf '%s\n' "$line"
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# --- the clients from npm, in the background while webpilot builds (the first run installs them
# into npx's cache: ~45 s, ~480 MB; later runs take a second)
command -v npx >/dev/null 2>&1 || die "npx not found: install Node.js with npm (Debian: apt-get install npm)"
say "fetching $NODE_PKG, $CONFORMANCE_PKG and $INSPECTOR_PKG through npx"
npx -y -p "$NODE_PKG" -p "$CONFORMANCE_PKG" -p "$INSPECTOR_PKG" -- \
	sh -c 'dirname "$(command -v conformance)"' >"$tmp/npx.out" 2>"$tmp/npx.log" </dev/null &
npx_pid=$!

# --- build: with the race detector when cgo can (it reuses the packages `go test -race` built,
# and a data race in the server under these clients fails the run)
race=()
if [[ $("$GO" env CGO_ENABLED) == 1 ]] && cc=$("$GO" env CC) && command -v "${cc%% *}" >/dev/null 2>&1; then
	race=(-race)
fi
say "building webpilot ${race[*]:+(with the race detector) }and the fixture server"
"$GO" build "${race[@]}" -o "$tmp/webpilot" ./cmd/webpilot
CGO_ENABLED=0 "$GO" build -o "$tmp/fixtureserver" ./scripts/fixtureserver
mkdir -p "$tmp/race"
export GORACE="log_path=$tmp/race/report"

if ! wait "$npx_pid"; then
	cat "$tmp/npx.log" >&2
	die "npx could not install the clients"
fi
bindir=$(head -n 1 "$tmp/npx.out")
export PATH="$bindir:$PATH"
node_version=$(node --version)
[[ $node_version == v22.* ]] || die "node from $NODE_PKG is $node_version (at $(command -v node)), not v22"
for tool in conformance inspector mcpdo; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool is not in $bindir"
done

# The inspector keeps its state (catalog, OAuth, secrets, the mcpdo daemon) in here.
export MCP_STORAGE_DIR=$tmp/inspector
export MCP_CATALOG_PATH=$tmp/inspector/mcp.json
export MCP_CLIENT_CONFIG_PATH=$tmp/inspector/client.json
export MCP_INSPECTOR_OAUTH_STATE_PATH=$tmp/inspector/oauth.json
export MCP_INSPECTOR_SECRET_STORE=file
# Its connection daemon's socket, and whatever else the clients put in TMPDIR: in the short folder.
export MCP_INSPECTOR_DAEMON_DIR=$tmp/daemon TMPDIR=$tmp
mkdir -p "$MCP_STORAGE_DIR" "$tmp/config" "$tmp/out" "$tmp/run"

# webpilot runs in $tmp/run (no .webpilot.json), with a temporary profile, its config dir (pairing)
# and Chromium's in $tmp/config, on the launch backend (never the user's browser), headless.
browser_env=()
[[ -n ${WEBPILOT_BROWSER:-} ]] && browser_env=("WEBPILOT_BROWSER=$WEBPILOT_BROWSER")
cat >"$tmp/webpilot-stdio" <<EOF
#!/bin/sh
cd '$tmp/run' && exec env XDG_CONFIG_HOME='$tmp/config' TMPDIR='$tmp' GORACE='$GORACE' ${browser_env[*]} \\
	'$tmp/webpilot' mcp --standalone --isolated --no-prewarm --backend launch --headless --output-dir '$tmp/out'
EOF
chmod +x "$tmp/webpilot-stdio"

# --- the fixture pages and the HTTP server
"$tmp/fixtureserver" -dir "$FIXTURES" >"$tmp/fixture.out" 2>"$tmp/fixture.log" &
pids+=($!)
fixture=$(wait_for_line "$tmp/fixture.out" '^http://127\.0\.0\.1:[0-9]+/' "${pids[-1]}") ||
	die "the fixture server did not start: $(cat "$tmp/fixture.log")"
page=${fixture}basic.html

(cd "$tmp/run" && exec env XDG_CONFIG_HOME="$tmp/config" TMPDIR="$tmp" "$tmp/webpilot" serve \
	--listen 127.0.0.1:0 --isolated --no-prewarm --backend launch --headless --output-dir "$tmp/out" --session conformance \
	>"$tmp/serve.out" 2>"$tmp/serve.log") &
pids+=($!)
url=$(wait_for_line "$tmp/serve.log" 'http://127\.0\.0\.1:[0-9]+/mcp' "${pids[-1]}") ||
	die "webpilot serve did not start: $(cat "$tmp/serve.log")"
say "webpilot serve at $url, fixture pages at $fixture ($((SECONDS - started)) s so far)"

# --- 1. the conformance suite
suite_rc=0
suite_started=$SECONDS
conformance server --url "$url" --expected-failures "$BASELINE" -o "$tmp/results" \
	>"$tmp/suite.out" 2>&1 || suite_rc=$?
if ! grep -q '^=== SUMMARY ===' "$tmp/suite.out"; then
	cat "$tmp/suite.out"
	die "the conformance suite did not run (exit $suite_rc)"
fi
# Its summary and baseline verdict, indented: its own "Total:" line counts the expected failures
# as failed, and this script's last line is the one that counts.
sed -n '/^=== SUMMARY ===/,$p' "$tmp/suite.out" | sed -e 's/\x1b\[[0-9;]*m//g' -e 's/^/  | /'
if ((suite_rc != 0)); then
	say "the conformance suite failed (exit $suite_rc); its whole output:"
	sed -e 's/\x1b\[[0-9;]*m//g' "$tmp/suite.out"
fi
# Checks passed; checks failed outside the baseline (unexpected) plus the baseline's scenarios that
# pass now; checks failed in the baseline's scenarios (skipped).
read -r suite_pass suite_fail suite_skip < <(
	grep -oE '^[[:space:]]*- [a-z0-9-]+' "$BASELINE" | awk '{print $2}' >"$tmp/baseline.txt"
	sed -e 's/\x1b\[[0-9;]*m//g' "$tmp/suite.out" | awk -v bl="$tmp/baseline.txt" '
		BEGIN { while ((getline s < bl) > 0) expected[s] = 1 }
		/^=== SUMMARY ===/ { on = 1; next }
		on && $0 ~ /^[^ ]+ [a-z0-9-]+: [0-9]+ passed, [0-9]+ failed$/ {
			name = $2; sub(/:$/, "", name)
			p += $3; f = $5
			if (!(name in expected)) fail += f
			else if (f > 0) skip += f
			else fail++ # a stale entry: it passes now
		}
		END { print p + 0, fail + 0, skip + 0 }'
)
if ((suite_rc != 0 && suite_fail == 0)); then
	suite_fail=1 # a stale baseline entry or a warning: the suite said no
fi

say "the suite took $((SECONDS - suite_started)) s"

# --- 2. the Inspector CLI
insp_pass=0
insp_fail=0
# text_of FILE: the text of a tools/call result (or the tool names of tools/list) in FILE, which
# holds the inspector's JSON ({"result": …}) or mcpdo's (the result itself).
text_of() {
	node -e '
		const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		const r = j.result ?? j;
		if (Array.isArray(r.tools)) console.log(r.tools.map(t => t.name).join("\n"));
		else console.log((r.content ?? []).filter(c => c.type === "text").map(c => c.text).join("\n"));
	' "$1"
}
# check NAME WANT_EXIT NEEDLE... -- COMMAND...: runs COMMAND and passes if it exits WANT_EXIT and
# its result's text contains every NEEDLE.
n=0
check() {
	local name=$1 want=$2 needles=() rc=0 text needle missing=()
	shift 2
	while [[ $1 != -- ]]; do
		needles+=("$1")
		shift
	done
	shift
	n=$((n + 1))
	"$@" >"$tmp/check$n.json" 2>"$tmp/check$n.err" </dev/null || rc=$?
	text=$(text_of "$tmp/check$n.json" 2>/dev/null || true)
	for needle in "${needles[@]}"; do
		[[ $text == *"$needle"* ]] || missing+=("$needle")
	done
	if [[ $rc == "$want" && ${#missing[@]} -eq 0 ]]; then
		insp_pass=$((insp_pass + 1))
		say "ok   $name"
	else
		insp_fail=$((insp_fail + 1))
		say "FAIL $name: exit $rc (want $want)${missing:+, missing ${missing[*]}}"
		sed 's/^/       stdout: /' "$tmp/check$n.json" | cut -c1-600
		sed 's/^/       stderr: /' "$tmp/check$n.err" | tail -n 20 | cut -c1-600
	fi
}
inspector=(inspector --cli -q --format json)
stdio=(-- "$tmp/webpilot-stdio")
heading="# Basic page — $page"
button='button e3 "Clicked 0 times"'

say "MCP Inspector CLI over stdio (a server process per call)"
check "stdio tools/list" 0 browser_navigate browser_snapshot -- \
	"${inspector[@]}" --method tools/list "${stdio[@]}"
check "stdio browser_navigate" 0 "$heading" "$button" -- \
	"${inspector[@]}" --method tools/call --tool-name browser_navigate --tool-args-json "{\"url\":\"$page\"}" "${stdio[@]}"
check "stdio error result (javascript: URL refused, isError)" 5 'INVALID_ARGUMENT: ' -- \
	"${inspector[@]}" --method tools/call --tool-name browser_navigate --tool-args-json '{"url":"javascript:alert(1)"}' "${stdio[@]}"

say "MCP Inspector CLI reading the config webpilot setup wrote (Claude Desktop's, in a fresh home)"
mkdir -p "$tmp/home/.config/Claude"
if HOME="$tmp/home" XDG_CONFIG_HOME= "$tmp/webpilot" setup --client claude-desktop --no-skill >"$tmp/setup.out" 2>&1; then
	check "setup's config: tools/list" 0 browser_navigate browser_snapshot -- \
		env -u MCP_CATALOG_PATH "${inspector[@]}" --config "$tmp/home/.config/Claude/claude_desktop_config.json" --server webpilot \
		-e HOME="$tmp/home" -e XDG_CONFIG_HOME="$tmp/home/.config" -e TMPDIR="$tmp" -e GORACE="$GORACE" --method tools/list
	HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" "$tmp/webpilot" daemon stop >/dev/null 2>&1 || true
else
	insp_fail=$((insp_fail + 1))
	say "FAIL webpilot setup: $(cat "$tmp/setup.out")"
fi

say "mcpdo over stdio (one server process: navigate, then snapshot)"
eval "$(mcpdo private)"
conn=$tmp/webpilot-stdio
check "stdio connect" 0 -- mcpdo --format json connect -- "$conn"
daemon_pid=$(mcpdo daemon status 2>/dev/null | awk '/^Daemon pid/ {print $3}') || true
check "stdio browser_navigate (connection)" 0 "$heading" -- \
	mcpdo --format json --conn "$conn" tools/call browser_navigate --tool-args-json "{\"url\":\"$page\"}"
check "stdio browser_snapshot (connection)" 0 "$heading" "$button" -- \
	mcpdo --format json --conn "$conn" tools/call browser_snapshot
mcpdo daemon stop >/dev/null 2>&1 || true

say "MCP Inspector CLI over HTTP (webpilot serve; an MCP session per call, one named browser session)"
check "http tools/list" 0 browser_navigate browser_snapshot -- \
	"${inspector[@]}" --method tools/list "$url"
check "http browser_navigate" 0 "$heading" "$button" -- \
	"${inspector[@]}" --method tools/call --tool-name browser_navigate \
	--tool-args-json "{\"url\":\"$page\",\"session\":\"conformance\"}" "$url"
check "http browser_snapshot (next client, same session)" 0 "$heading" "$button" -- \
	"${inspector[@]}" --method tools/call --tool-name browser_snapshot \
	--tool-args-json '{"session":"conformance"}' "$url"

# --- verdict
say "conformance suite: $suite_pass checks passed, $suite_fail failed unexpectedly, $suite_skip failed as expected ($(grep -c . "$tmp/baseline.txt") scenarios in ${BASELINE#"$repo"/})"
say "inspector: $insp_pass passed, $insp_fail failed"
pass=$((suite_pass + insp_pass))
fail=$((suite_fail + insp_fail))
# Data races the servers reported (the stdio servers have exited; serve reports when it stops, so
# it is stopped first).
kill -TERM "${pids[-1]}" 2>/dev/null || true
for ((i = 0; i < 100; i++)); do
	kill -0 "${pids[-1]}" 2>/dev/null || break
	sleep 0.1
done
if compgen -G "$tmp/race/report*" >/dev/null; then
	say "FAIL: the race detector reported data races in webpilot:"
	cat "$tmp"/race/report*
	fail=$((fail + 1))
fi
if ((fail > 0)); then
	say "webpilot serve's log (last 30 lines):"
	tail -n 30 "$tmp/serve.log" | sed 's/^/  | /'
fi
say "took $((SECONDS - started)) s"
printf 'conformance: %d passed, %d failed, %d skipped\n' "$pass" "$fail" "$suite_skip"
((fail == 0))
