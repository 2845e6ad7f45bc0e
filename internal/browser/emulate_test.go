package browser_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// seen is what emulate/probe.html's page tells about its device and place.
type seen struct {
	Width, Height int
	DPR           float64
	UA, Lang, TZ  string
	Dark, Reduced bool
	Print         bool
	Touch         int
	Online        bool
}

// Emulation changes what the page sees: viewport and scale, user agent
// and language, time zone, color scheme, reduced motion, print media,
// touch, geolocation and the network (offline); settings add up, reach a
// tab that joins later, and clear puts back the browser's own values.
func TestEmulate(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/emulate/probe.html")
	look := func() seen {
		t.Helper()
		var s seen
		if err := json.Unmarshal([]byte(e.eval(`seen()`)), &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	emulate := func(o browser.Emulation, clear bool) (browser.Emulation, string, error) {
		var got browser.Emulation
		var note string
		err := e.do(func(ctx context.Context, h *browser.Held) error {
			var err error
			got, note, err = h.Emulator().Set(ctx, o, clear)
			return err
		})
		return got, note, err
	}
	must := func(o browser.Emulation, clear bool) (browser.Emulation, string) {
		t.Helper()
		got, note, err := emulate(o, clear)
		if err != nil {
			t.Fatalf("emulate %+v: %v", o, err)
		}
		return got, note
	}
	before := look()

	got, _ := must(browser.Emulation{Device: "iPhone 15", Timezone: "Asia/Tokyo", Locale: "de-DE", ColorScheme: "dark", ReducedMotion: "reduce"}, false)
	if d := strings.Join(got.Describe(), " · "); !strings.Contains(d, "viewport 393×852 @3x mobile (touch)") || !strings.Contains(d, "timezone Asia/Tokyo") {
		t.Errorf("Describe = %s", d)
	}
	e.navigate("/emulate/probe.html") // the new user agent and language go with the load
	s := look()
	if s.Width != 393 || s.DPR != 3 || !strings.Contains(s.UA, "iPhone") || s.TZ != "Asia/Tokyo" || !s.Dark || !s.Reduced || s.Touch != 5 || !strings.HasPrefix(s.Lang, "de") {
		t.Errorf("as an iPhone in Tokyo, dark, reduced motion, in German, the page sees %+v", s)
	}
	// Settings add up: print media on top, the rest stays.
	must(browser.Emulation{Media: "print", Viewport: &browser.Viewport{Width: 800, Height: 600}}, false)
	if s := look(); !s.Print || s.Width != 800 || s.TZ != "Asia/Tokyo" || !s.Dark {
		t.Errorf("with print media and 800×600 added, the page sees %+v", s)
	}

	// Geolocation: the position the page reads (the bridge cannot grant
	// the permission: it says so).
	_, note := must(browser.Emulation{Geolocation: &browser.Geolocation{Latitude: 48.8584, Longitude: 2.2945}}, false)
	if os.Getenv("WEBPILOT_TEST_BACKEND") == "bridge" {
		if !strings.Contains(note, "location permission") {
			t.Errorf("on the bridge, geolocation's note = %q", note)
		}
	} else {
		if note != "" {
			t.Errorf("geolocation note %q", note)
		}
		e.eval(`where()`)
		if p := waitValue(t, e, `window.pos`); p != "48.8584,2.2945" {
			t.Errorf("the page's position: %q", p)
		}
	}

	// Offline, then online again.
	must(browser.Emulation{Network: "offline"}, false)
	e.eval(`fetched()`)
	if got := waitValue(t, e, `window.got`); got != "failed" || look().Online {
		t.Errorf("offline: the fetch %s, navigator.onLine %v", got, look().Online)
	}
	must(browser.Emulation{Network: "online"}, false)
	e.eval(`fetched()`)
	if got := waitValue(t, e, `window.got`); got != "ok" {
		t.Errorf("online again: the fetch %s", got)
	}

	// A tab that joins the session looks like the others.
	if err := e.do(func(ctx context.Context, h *browser.Held) error {
		_, err := h.Tabs().New(ctx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e.navigate("/emulate/probe.html")
	if s := look(); s.Width != 800 || !strings.Contains(s.UA, "iPhone") {
		t.Errorf("a new tab of the session sees %+v", s)
	}

	// Clear: the browser's own values again.
	if got, _ := must(browser.Emulation{}, true); !got.Empty() {
		t.Errorf("after clear: %+v", got)
	}
	e.navigate("/emulate/probe.html")
	if s := look(); s.Width != before.Width || s.UA != before.UA || s.TZ != before.TZ || s.Dark != before.Dark || s.Print || s.Touch != before.Touch {
		t.Errorf("after clear the page sees %+v, before %+v", s, before)
	}

	for _, c := range []struct {
		o    browser.Emulation
		want string
	}{
		{browser.Emulation{Device: "Nokia 3310"}, "unknown device"},
		{browser.Emulation{Timezone: "Mars Time"}, "not a time zone"},
		{browser.Emulation{Locale: "german!"}, "not a language tag"},
		{browser.Emulation{Viewport: &browser.Viewport{Width: 10, Height: 600}}, "out of range"},
		{browser.Emulation{Network: "custom"}, "network custom takes custom"},
		{browser.Emulation{ColorScheme: "purple"}, "unknown color_scheme"},
		{browser.Emulation{CPUThrottle: 0.5}, "out of range"},
		{browser.Emulation{Geolocation: &browser.Geolocation{Latitude: 100}}, "out of range"},
	} {
		_, _, err := emulate(c.o, false)
		if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, c.want) {
			t.Errorf("%+v: %q, want it to say %q", c.o, be.Message, c.want)
		}
	}
}

// waitValue polls a page value the page sets later, until it is set
// (not "").
func waitValue(t *testing.T, e *env, expr string) string {
	t.Helper()
	deadline := time.Now().Add(backendtest.Timeout(10 * time.Second))
	for {
		if v := e.eval(`String(` + expr + ` || "")`); v != "" {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was never set", expr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
