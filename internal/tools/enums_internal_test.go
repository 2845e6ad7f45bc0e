package tools

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// enumSet is what an enum-tagged argument's values must be: the set the
// engine takes (set), or, for an argument the tool reads itself and the
// engine never sees, nil and why (the tag is then its one declaration).
type enumSet struct {
	set []string
	why string
}

// inlineModes are the modes of the snapshot an action returns: none, or
// one of the engine's snapshot modes.
var inlineModes = []string{"none", browser.ModeCompact, browser.ModeDiff}

// enumSets has an entry for every enum-tagged argument of every tool's
// input, by input type and JSON name.
var enumSets = map[string]enumSet{
	"ActionIn.action":          {set: browser.ActionKinds()},
	"ActionIn.direction":       {set: browser.ScrollDirections()},
	"ActionIn.input_mode":      {set: browser.InputModes()},
	"ActionIn.snapshot":        {set: inlineModes},
	"FillFormIn.snapshot":      {set: inlineModes},
	"MouseIn.snapshot":         {set: inlineModes},
	"NavigateIn.snapshot":      {set: inlineModes},
	"FillFormIn.submit":        {set: browser.SubmitModes()},
	"FieldIn.type":             {set: browser.FieldTypes()},
	"EmulateIn.color_scheme":   {set: browser.ColorSchemes()},
	"EmulateIn.reduced_motion": {set: browser.ReducedMotions()},
	"EmulateIn.media":          {set: browser.MediaTypes()},
	"EmulateIn.network":        {set: browser.NetworkConditions()},
	"MouseIn.action":           {set: browser.MouseActions},
	"MouseIn.button":           {set: browser.MouseButtons()},
	"NavigateIn.go":            {set: browser.HistoryMoves()},
	"PDFIn.paper":              {set: browser.PaperNames},
	"ReadIn.what":              {set: browser.ReadKinds},
	"RouteIn.abort":            {set: browser.RouteAborts()},
	"ScreenshotIn.format":      {set: browser.ScreenshotFormats()},
	"SnapshotIn.mode":          {set: browser.SnapshotModes()},
	"StorageIn.action":         {set: browser.StorageActions},
	"StorageIn.op":             {set: browser.StorageOps()},
	"StorageIn.same_site":      {set: browser.SameSites()},
	"DialogIn.action":          {why: "the tool turns accept or dismiss into AnswerDialog's accept flag"},
	"NetworkIn.action":         {why: "the tool's own verbs over the network log"},
	"OpenCLIRunIn.format":      {why: "passed to OpenCLI's --format as given"},
	"RecipeRecordIn.action":    {why: "the tool's own verbs over the recorder"},
	"RouteIn.action":           {why: "the tool's own verbs over the route table"},
	"ScreencastIn.action":      {why: "the tool's own verbs over the screencast"},
	"TabsIn.action":            {why: "the tool's own verbs over the session's tabs"},
	"WaitIn.mode":              {why: "the tool turns any or all into WaitOptions.All"},
}

// Every enum in a tool's argument schema is the set the engine takes, so
// that a value added on one side only fails here: an enum-tagged argument
// with no entry in enumSets fails, and so does an entry whose argument is
// gone.
func TestEnumsTiedToEngine(t *testing.T) {
	seen := map[string]bool{}
	for _, tool := range Table() {
		walkEnums(tool.input, map[reflect.Type]bool{}, func(key string, values []string) {
			seen[key] = true
			want, ok := enumSets[key]
			switch {
			case !ok:
				t.Errorf("%s (%s) has enum %q and no entry in enumSets: tie it to the set the engine takes (internal/browser/enums.go)", key, tool.Name, values)
			case want.set == nil && want.why == "":
				t.Errorf("%s: an entry with neither a set nor a reason", key)
			case want.set != nil && !sameSet(values, want.set):
				t.Errorf("%s (%s): the tag says %q, the engine takes %q", key, tool.Name, values, want.set)
			}
		})
	}
	for key := range enumSets {
		if !seen[key] {
			t.Errorf("enumSets has %s, which no tool's input has (or it has no enum tag): remove it", key)
		}
	}
}

// walkEnums calls f for every enum-tagged field of typ and of the structs
// it holds (in fields, slices, pointers and maps), keyed "Type.json_name".
func walkEnums(typ reflect.Type, done map[reflect.Type]bool, f func(key string, values []string)) {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array || typ.Kind() == reflect.Map {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct || done[typ] {
		return
	}
	done[typ] = true
	for i := range typ.NumField() {
		fld := typ.Field(i)
		if enum := fld.Tag.Get("enum"); enum != "" {
			name := strings.Split(fld.Tag.Get("json"), ",")[0]
			f(typ.Name()+"."+name, strings.Split(enum, ","))
		}
		walkEnums(fld.Type, done, f)
	}
}

// sameSet says a and b hold the same values, as many times each.
func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}
