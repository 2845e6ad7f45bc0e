#!/bin/sh
# Claude Code: pick one.
# stdio (Claude Code starts webpilot itself):
claude mcp add webpilot -- webpilot mcp
# HTTP (a running `webpilot serve`):
# claude mcp add --transport http webpilot http://127.0.0.1:31999/mcp
# HTTP with a token (serve started with --auth-token or WEBPILOT_AUTH_TOKEN):
# claude mcp add --transport http webpilot http://HOST:31999/mcp --header "Authorization: Bearer $WEBPILOT_AUTH_TOKEN"
