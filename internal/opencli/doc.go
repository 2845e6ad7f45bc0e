// Package opencli finds OpenCLI (the @jackwener/opencli command-line tool
// with its site adapters) and runs its adapters safely: an argv array and
// never a shell, a timeout, capped output, and the whole process tree
// killed (and its end checked) when a bound is passed. It knows nothing of
// MCP: the opencli tools are in package tools.
package opencli
