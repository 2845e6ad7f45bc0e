package browser_test

import (
	"reflect"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// maxHeldMethods bounds the tools' contract (held.go): what grows past it
// belongs to a noun.
const maxHeldMethods = 30

// TestHeldStaysNarrow keeps Held, the tools' contract, at most
// maxHeldMethods methods: a new tool extends a noun (Held's doc comment
// tables them) rather than Held itself.
func TestHeldStaysNarrow(t *testing.T) {
	ht := reflect.TypeOf(&browser.Held{})
	if n := ht.NumMethod(); n > maxHeldMethods {
		var names []string
		for i := range n {
			names = append(names, ht.Method(i).Name)
		}
		t.Errorf("Held has %d methods, want at most %d (group what belongs together into a noun): %v", n, maxHeldMethods, names)
	}
}
