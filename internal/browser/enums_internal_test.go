package browser

import (
	"slices"
	"testing"
)

// The sets of enums.go written out as lists are the ones the engine's own
// checks take: a gesture's check takes every listed button ("" is left)
// and no other; FillForm has a control for every listed field type and
// takes no other but the aliases text and combobox.
func TestEnumsMatchChecks(t *testing.T) {
	for _, b := range append(MouseButtons(), "", "back", "Left", "primary") {
		err := (&MouseInput{Action: "click", Button: b}).check()
		if listed := b == "" || slices.Contains(MouseButtons(), b); (err == nil) != listed {
			t.Errorf("button %q: check = %v, listed in MouseButtons: %v", b, err, listed)
		}
	}
	for _, f := range FieldTypes() {
		if kind, ok := fieldTypes[f]; !ok || kind == "" {
			t.Errorf("field type %q: FillForm has no control for it", f)
		}
	}
	for k, kind := range fieldTypes {
		if k != "" && k != "text" && k != "combobox" && !slices.Contains(FieldTypes(), k) {
			t.Errorf("FillForm takes field type %q (%s), which FieldTypes does not list", k, kind)
		}
	}
}
