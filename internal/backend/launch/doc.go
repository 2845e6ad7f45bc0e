// Package launch is the backend for a Chromium that webpilot starts and owns.
//
// A [Backend] finds a Chromium-based browser ([Discover]: --browser,
// WEBPILOT_BROWSER, PATH names, then the usual install paths of the OS),
// starts it with --remote-debugging-pipe (CDP over file descriptors 3 and 4,
// no TCP port is opened), and talks to it with package cdp. With
// [Options.DebuggingPort], and always on Windows, where Go cannot hand the
// browser extra file descriptors, it starts it with --remote-debugging-port=0
// on 127.0.0.1 instead, reads the port from <profile>/DevToolsActivePort and
// connects by WebSocket. Nothing starts in
// [New]: the browser starts on the first call that needs it, or on
// [Backend.Start] (--prewarm). A browser that crashed or was killed is started
// again on the next call. Close ends the browser and every process it
// started (the browser runs in its own process group, and on Linux dies with
// webpilot through PR_SET_PDEATHSIG), and removes a temporary profile.
//
// A profile directory that another live browser holds (its SingletonLock
// names a live process, or another host) is refused with an error matching
// [backend.ErrProfileLocked]; a lock left by a dead browser on this host is
// removed.
//
// The package is not the bridge to the user's own Chrome (package bridge)
// nor a client for a remote CDP endpoint, and it knows nothing of refs,
// snapshots, agent sessions or MCP. On Windows the browser's process tree is
// ended with taskkill /T /F; there is no parent-death signal there, and a
// stale profile lock is left to Chromium (it is a locked file).
package launch
