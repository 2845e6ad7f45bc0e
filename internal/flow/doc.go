// Package flow is the step language of browser_flow (and, later, of
// recipes): a short sequence of steps, each naming a step kind (navigate,
// snapshot, find, action, fill_form, wait, read, collect, back, screenshot, tabs)
// with that tool's own arguments, checked whole before anything runs, then
// run in order within a time budget: a timeout per step, at most one retry,
// optional steps skipped on failure, values saved with save_as and used as
// $name. There are no loops and no jumps.
//
// The package knows neither MCP nor the tool table: the caller gives it an
// Executor that checks and runs one step's tool on the session and tab it
// holds, and reads the page after a failure.
package flow
