package tools

import (
	"context"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// EmulateIn is browser_emulate's input.
type EmulateIn struct {
	Device        string               `json:"device,omitempty" jsonschema:"preset: iPhone 15, Pixel 7, iPad, Laptop, Desktop"`
	Viewport      *browser.Viewport    `json:"viewport,omitempty" jsonschema:"width, height (CSS px), scale, mobile"`
	UserAgent     string               `json:"user_agent,omitempty" jsonschema:"sent and in navigator"`
	Locale        string               `json:"locale,omitempty" jsonschema:"e.g. de-DE"`
	Timezone      string               `json:"timezone,omitempty" jsonschema:"e.g. Europe/Berlin"`
	Geolocation   *browser.Geolocation `json:"geolocation,omitempty" jsonschema:"latitude, longitude, accuracy (m)"`
	ColorScheme   string               `json:"color_scheme,omitempty" jsonschema:"prefers-color-scheme" enum:"light,dark,no-preference"`
	ReducedMotion string               `json:"reduced_motion,omitempty" jsonschema:"prefers-reduced-motion" enum:"reduce,no-preference"`
	Media         string               `json:"media,omitempty" jsonschema:"CSS media type" enum:"screen,print"`
	CPUThrottle   float64              `json:"cpu_throttle,omitempty" jsonschema:"slowdown factor" minimum:"1" maximum:"20"`
	Network       string               `json:"network,omitempty" jsonschema:"online ends offline and throttling" enum:"offline,slow-3g,fast-3g,custom,online"`
	Custom        *browser.NetworkRate `json:"custom,omitempty" jsonschema:"network custom: download_kbps, upload_kbps, latency_ms"`
	Clear         bool                 `json:"clear,omitempty" jsonschema:"drop what was set first"`
	Session       string               `json:"session,omitempty"`
	Tab           string               `json:"tab,omitempty"`
}

var emulateTool = Def(Tool{
	Name:        "browser_emulate",
	Description: "Make the session's tabs look like another device or place to their pages; settings add up until clear.",
	Annotations: Annotations{Idempotent: true, Destructive: ptr(false)},
	Group:       GroupEmulate,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in EmulateIn) (*Result, error) {
	e, note, err := h.Emulator().Set(ctx, browser.Emulation{Device: in.Device, Viewport: in.Viewport, UserAgent: in.UserAgent, Locale: in.Locale, Timezone: in.Timezone,
		Geolocation: in.Geolocation, ColorScheme: in.ColorScheme, ReducedMotion: in.ReducedMotion, Media: in.Media, CPUThrottle: in.CPUThrottle,
		Network: in.Network, Custom: in.Custom}, in.Clear)
	if err != nil {
		return nil, err
	}
	text := &resultText{}
	if e.Empty() {
		text.printf("Emulating nothing: pages see the browser's own values.")
	} else {
		text.printf("Emulating, on every tab of the session: %s.", strings.Join(e.Describe(), " · "))
	}
	if note != "" {
		text.note("Note: %s.", note)
	}
	if in.UserAgent != "" || in.Locale != "" || in.Device != "" {
		text.note("Note: a page already loaded keeps what its server was sent; browser_navigate loads it again with the new user agent and language.")
	}
	return &Result{Text: text.String(), Notes: text.notes}, nil
})
