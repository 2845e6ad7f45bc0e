package browser

import (
	"maps"
	"slices"
)

// The value sets the engine takes for its enumerated options, for the tool
// layer, whose argument schemas list them too: a test in internal/tools
// checks that every enum of a tool's argument equals the set named here,
// so that a value added on one side only fails it. Each call returns a new
// slice. ReadKinds, MouseActions, StorageActions and PaperNames are such
// sets too.

// ActionKinds are the action kinds Held.Act takes (browser_action's
// action).
func ActionKinds() []string { return slices.Clone(actionKinds) }

// ScrollDirections are the directions a scroll action takes, sorted.
func ScrollDirections() []string { return slices.Sorted(maps.Keys(scrollDirections)) }

// InputModes are the ways an action's input may be sent (Action.InputMode).
func InputModes() []string { return []string{InputAuto, InputCDP, InputDOM} }

// SubmitModes are FillForm's submit strategies.
func SubmitModes() []string { return []string{SubmitNone, SubmitForm, SubmitEvent, SubmitBoth} }

// FieldTypes are the field types FillForm documents (fieldTypes also
// takes the aliases text and combobox).
func FieldTypes() []string {
	return []string{"textbox", "checkbox", "radio", "select", "date", "file"}
}

// MouseButtons are the buttons a mouse gesture presses (MouseInput.Button;
// "" is left).
func MouseButtons() []string { return []string{"left", "middle", "right"} }

// HistoryMoves are the moves Held.Go takes.
func HistoryMoves() []string { return []string{"back", "forward", "reload"} }

// SnapshotModes are the modes Held.Snapshot takes.
func SnapshotModes() []string { return []string{ModeCompact, ModeFull, ModeInteractive, ModeDiff} }

// ScreenshotFormats are the image formats Capture.Screenshot takes.
func ScreenshotFormats() []string { return []string{FormatJPEG, FormatPNG} }

// ColorSchemes are the color schemes Emulate takes.
func ColorSchemes() []string { return []string{"light", "dark", "no-preference"} }

// ReducedMotions are the reduced-motion preferences Emulate takes.
func ReducedMotions() []string { return []string{"reduce", "no-preference"} }

// MediaTypes are the CSS media types Emulate takes.
func MediaTypes() []string { return []string{"screen", "print"} }

// NetworkConditions are the network conditions Emulate takes: presets,
// custom (the rates given) and online (none).
func NetworkConditions() []string {
	return []string{"offline", "slow-3g", "fast-3g", "custom", "online"}
}

// RouteAborts are the network errors a route may fail a request with
// (Route.Abort), sorted.
func RouteAborts() []string { return slices.Sorted(maps.Keys(routeAborts)) }

// StorageOps are the operations on cookies and web storage (StorageOptions.Op).
func StorageOps() []string { return []string{"list", "get", "set", "delete"} }

// SameSites are the SameSite values a cookie set takes.
func SameSites() []string { return []string{"Strict", "Lax", "None"} }
