package browser

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// browser_emulate makes the session's tabs look like another device or
// place to their pages: viewport, user agent, locale, time zone,
// geolocation, media features, CPU and network. Settings add up over
// calls until cleared; they hold for every tab of the session, the ones
// that join later too (prepareTab), through the tab's own CDP session —
// frames in other processes keep the browser's own values.

// Emulation is what browser_emulate sets (zero values: not set).
type Emulation struct {
	Viewport      *Viewport    `json:"viewport,omitempty"`
	Device        string       `json:"device,omitempty"`
	UserAgent     string       `json:"user_agent,omitempty"`
	Locale        string       `json:"locale,omitempty"`
	Timezone      string       `json:"timezone,omitempty"`
	Geolocation   *Geolocation `json:"geolocation,omitempty"`
	ColorScheme   string       `json:"color_scheme,omitempty"`   // light, dark, no-preference
	ReducedMotion string       `json:"reduced_motion,omitempty"` // reduce, no-preference
	Media         string       `json:"media,omitempty"`          // screen, print
	CPUThrottle   float64      `json:"cpu_throttle,omitempty"`   // 1 is none; 4 is four times slower
	Network       string       `json:"network,omitempty"`        // offline, slow-3g, fast-3g, custom, online
	Custom        *NetworkRate `json:"custom,omitempty"`         // Network custom
}

// Viewport is an emulated screen, in CSS pixels.
type Viewport struct {
	Width  int     `json:"width"`
	Height int     `json:"height"`
	Scale  float64 `json:"scale,omitempty"` // device pixel ratio (default 1)
	Mobile bool    `json:"mobile,omitempty"`
}

// Geolocation is an emulated position.
type Geolocation struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Accuracy  float64 `json:"accuracy,omitempty"` // metres (default 10)
}

// NetworkRate is an emulated connection: throughput in kbit/s (0: no
// limit) and added latency.
type NetworkRate struct {
	DownloadKbps float64 `json:"download_kbps,omitempty"`
	UploadKbps   float64 `json:"upload_kbps,omitempty"`
	LatencyMs    float64 `json:"latency_ms,omitempty"`
}

// device is a preset: a viewport and the user agent that goes with it.
type device struct {
	vp Viewport
	ua string
}

// Devices are browser_emulate's device presets, by lowercase name.
var Devices = map[string]device{
	"iphone 15": {Viewport{393, 852, 3, true}, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"},
	"pixel 7":   {Viewport{412, 915, 2.625, true}, "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"},
	"ipad":      {Viewport{820, 1180, 2, true}, "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"},
	"laptop":    {Viewport{1366, 768, 1, false}, ""},
	"desktop":   {Viewport{1920, 1080, 1, false}, ""},
}

// DeviceNames are Devices' names as a hint lists them.
var DeviceNames = []string{"iPhone 15", "Pixel 7", "iPad", "Laptop", "Desktop"}

// networkPresets are the named connections: kbit/s down and up, latency.
var networkPresets = map[string]NetworkRate{
	"slow-3g": {DownloadKbps: 400, UploadKbps: 400, LatencyMs: 400},
	"fast-3g": {DownloadKbps: 1600, UploadKbps: 750, LatencyMs: 150},
}

var (
	localeRx   = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)
	timezoneRx = regexp.MustCompile(`^[A-Za-z_]+(/[A-Za-z0-9_+\-]+)*$`)
)

// merge is e with the settings of o laid over it, checked. A device sets
// the viewport and user agent unless o sets them too.
func (e Emulation) merge(o Emulation) (Emulation, error) {
	bad := func(msg, hint string) (Emulation, error) {
		return e, &Error{Code: CodeInvalidArgument, Message: msg, Hint: hint}
	}
	if o.Device != "" {
		d, ok := Devices[strings.ToLower(strings.TrimSpace(o.Device))]
		if !ok {
			return bad(fmt.Sprintf("unknown device %q", o.Device), "use one of "+strings.Join(DeviceNames, ", ")+", or give viewport and user_agent")
		}
		e.Device = o.Device
		vp := d.vp
		e.Viewport = &vp
		e.UserAgent = d.ua
	}
	if v := o.Viewport; v != nil {
		if v.Width < 100 || v.Width > 8000 || v.Height < 100 || v.Height > 8000 {
			return bad(fmt.Sprintf("viewport %d×%d is out of range", v.Width, v.Height), "width and height from 100 to 8,000 CSS pixels")
		}
		if v.Scale != 0 && (v.Scale < 0.5 || v.Scale > 5) {
			return bad(fmt.Sprintf("scale %g is out of range", v.Scale), "a device pixel ratio from 0.5 to 5 (1 is a desktop screen, 3 a phone's)")
		}
		vp := *v
		e.Viewport = &vp
	}
	if o.UserAgent != "" {
		if len(o.UserAgent) > 500 || strings.ContainsAny(o.UserAgent, "\r\n") {
			return bad("user_agent must be one line of at most 500 characters", "e.g. Mozilla/5.0 (…)")
		}
		e.UserAgent = o.UserAgent
	}
	if o.Locale != "" {
		if !localeRx.MatchString(o.Locale) {
			return bad(fmt.Sprintf("locale %q is not a language tag", o.Locale), "e.g. de-DE, fr, pt-BR")
		}
		e.Locale = o.Locale
	}
	if o.Timezone != "" {
		if !timezoneRx.MatchString(o.Timezone) {
			return bad(fmt.Sprintf("timezone %q is not a time zone name", o.Timezone), "an IANA name, e.g. Europe/Berlin, America/New_York, Asia/Tokyo")
		}
		e.Timezone = o.Timezone
	}
	if g := o.Geolocation; g != nil {
		if g.Latitude < -90 || g.Latitude > 90 || g.Longitude < -180 || g.Longitude > 180 || g.Accuracy < 0 {
			return bad("geolocation is out of range", "latitude -90 to 90, longitude -180 to 180, accuracy in metres ≥ 0")
		}
		gl := *g
		if gl.Accuracy == 0 {
			gl.Accuracy = 10
		}
		e.Geolocation = &gl
	}
	pick := func(v, name string, ok ...string) (string, error) {
		if v == "" || slices.Contains(ok, v) {
			return v, nil
		}
		return "", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown %s %q", name, v), Hint: "use " + strings.Join(ok, ", ")}
	}
	var err error
	if o.ColorScheme, err = pick(o.ColorScheme, "color_scheme", ColorSchemes()...); err != nil {
		return e, err
	}
	if o.ReducedMotion, err = pick(o.ReducedMotion, "reduced_motion", ReducedMotions()...); err != nil {
		return e, err
	}
	if o.Media, err = pick(o.Media, "media", MediaTypes()...); err != nil {
		return e, err
	}
	if o.Network, err = pick(o.Network, "network", NetworkConditions()...); err != nil {
		return e, err
	}
	if o.ColorScheme != "" {
		e.ColorScheme = o.ColorScheme
	}
	if o.ReducedMotion != "" {
		e.ReducedMotion = o.ReducedMotion
	}
	if o.Media != "" {
		e.Media = o.Media
	}
	if o.CPUThrottle != 0 {
		if o.CPUThrottle < 1 || o.CPUThrottle > 20 {
			return bad(fmt.Sprintf("cpu_throttle %g is out of range", o.CPUThrottle), "1 (none) to 20 (twenty times slower)")
		}
		e.CPUThrottle = o.CPUThrottle
	}
	if (o.Network == "custom") != (o.Custom != nil) {
		return bad("network custom takes custom {download_kbps, upload_kbps, latency_ms}, and custom goes with network custom", `e.g. {"network": "custom", "custom": {"download_kbps": 1000, "latency_ms": 200}}`)
	}
	if c := o.Custom; c != nil && (c.DownloadKbps < 0 || c.UploadKbps < 0 || c.LatencyMs < 0 || c.LatencyMs > 60000) {
		return bad("custom network values are out of range", "kbit/s ≥ 0 (0: no limit), latency_ms 0 to 60,000")
	}
	switch o.Network {
	case "":
	case "online":
		e.Network, e.Custom = "", nil
	default:
		e.Network, e.Custom = o.Network, o.Custom
	}
	return e, nil
}

// Empty says nothing is emulated.
func (e Emulation) Empty() bool { return e == (Emulation{}) }

// Describe lists what is in force, one setting per item.
func (e Emulation) Describe() []string {
	var out []string
	if e.Device != "" {
		out = append(out, "device "+e.Device)
	}
	if v := e.Viewport; v != nil {
		s := fmt.Sprintf("viewport %d×%d", v.Width, v.Height)
		if v.Scale != 0 && v.Scale != 1 {
			s += fmt.Sprintf(" @%gx", v.Scale)
		}
		if v.Mobile {
			s += " mobile (touch)"
		}
		out = append(out, s)
	}
	if e.UserAgent != "" {
		out = append(out, "user agent "+quote(shorten(e.UserAgent, 60)))
	}
	for _, kv := range [][2]string{{"locale", e.Locale}, {"timezone", e.Timezone}, {"color scheme", e.ColorScheme}, {"reduced motion", e.ReducedMotion}, {"media", e.Media}} {
		if kv[1] != "" {
			out = append(out, kv[0]+" "+kv[1])
		}
	}
	if g := e.Geolocation; g != nil {
		out = append(out, fmt.Sprintf("geolocation %g,%g (±%g m)", g.Latitude, g.Longitude, g.Accuracy))
	}
	if e.CPUThrottle > 1 {
		out = append(out, fmt.Sprintf("CPU %g× slower", e.CPUThrottle))
	}
	if e.Network != "" {
		s := "network " + e.Network
		if r, ok := e.rate(); ok && e.Network != "offline" {
			s += fmt.Sprintf(" (%g/%g kbit/s, %g ms)", r.DownloadKbps, r.UploadKbps, r.LatencyMs)
		}
		out = append(out, s)
	}
	return out
}

// rate is the connection the network setting stands for.
func (e Emulation) rate() (NetworkRate, bool) {
	if e.Network == "custom" && e.Custom != nil {
		return *e.Custom, true
	}
	r, ok := networkPresets[e.Network]
	return r, ok
}

// applyTo sets e on the tab; what e leaves unset is reset to the
// browser's own (the whole state is sent each time, so a cleared setting
// goes).
func (e Emulation) applyTo(ctx context.Context, t *Tab) error {
	call := func(method string, params any) error {
		if err := t.page.Call(ctx, method, params, nil); err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		return nil
	}
	if v := e.Viewport; v != nil {
		scale := v.Scale
		if scale == 0 {
			scale = 1
		}
		if err := call("Emulation.setDeviceMetricsOverride", map[string]any{"width": v.Width, "height": v.Height, "deviceScaleFactor": scale, "mobile": v.Mobile,
			"screenWidth": v.Width, "screenHeight": v.Height}); err != nil {
			return err
		}
	} else if err := call("Emulation.clearDeviceMetricsOverride", nil); err != nil {
		return err
	}
	mobile := e.Viewport != nil && e.Viewport.Mobile
	touch := map[string]any{"enabled": mobile}
	if mobile {
		touch["maxTouchPoints"] = 5
	}
	if err := call("Emulation.setTouchEmulationEnabled", touch); err != nil {
		return err
	}
	ua := map[string]any{"userAgent": e.UserAgent}
	if e.Locale != "" {
		ua["acceptLanguage"] = e.Locale
	}
	if e.UserAgent == "" && e.Locale != "" {
		// (the override needs a user agent: the browser's own, read back)
		var v struct {
			Product   string `json:"product"`
			UserAgent string `json:"userAgent"`
		}
		if err := t.page.Call(ctx, "Browser.getVersion", nil, &v); err == nil {
			ua["userAgent"] = v.UserAgent
		}
	}
	if err := call("Emulation.setUserAgentOverride", ua); err != nil {
		return err
	}
	if err := call("Emulation.setLocaleOverride", map[string]any{"locale": e.Locale}); err != nil && e.Locale != "" {
		return err
	}
	if err := call("Emulation.setTimezoneOverride", map[string]any{"timezoneId": e.Timezone}); err != nil && e.Timezone != "" {
		return err
	}
	if g := e.Geolocation; g != nil {
		if err := call("Emulation.setGeolocationOverride", map[string]any{"latitude": g.Latitude, "longitude": g.Longitude, "accuracy": g.Accuracy}); err != nil {
			return err
		}
	} else if err := call("Emulation.clearGeolocationOverride", nil); err != nil {
		return err
	}
	var features []map[string]string
	if e.ColorScheme != "" {
		features = append(features, map[string]string{"name": "prefers-color-scheme", "value": e.ColorScheme})
	}
	if e.ReducedMotion != "" {
		features = append(features, map[string]string{"name": "prefers-reduced-motion", "value": e.ReducedMotion})
	}
	if features == nil {
		features = []map[string]string{}
	}
	if err := call("Emulation.setEmulatedMedia", map[string]any{"media": e.Media, "features": features}); err != nil {
		return err
	}
	rate := e.CPUThrottle
	if rate < 1 {
		rate = 1
	}
	if err := call("Emulation.setCPUThrottlingRate", map[string]any{"rate": rate}); err != nil {
		return err
	}
	net := map[string]any{"offline": e.Network == "offline", "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
	if r, ok := e.rate(); ok {
		kbps := func(v float64) float64 {
			if v <= 0 {
				return -1
			}
			return v * 1000 / 8
		}
		net["latency"], net["downloadThroughput"], net["uploadThroughput"] = r.LatencyMs, kbps(r.DownloadKbps), kbps(r.UploadKbps)
	}
	return call("Network.emulateNetworkConditions", net)
}

// Emulator is what the held session emulates (browser_emulate).
type Emulator struct{ h *Held }

// Set lays o over what the session emulates (or, with clear, starts from
// nothing) and applies the result to each of the session's tabs. The note
// says what could not be done as asked.
func (em Emulator) Set(ctx context.Context, o Emulation, clear bool) (Emulation, string, error) {
	h := em.h
	s := h.s
	base := s.emulation
	if clear {
		base = Emulation{}
	}
	e, err := base.merge(o)
	if err != nil {
		return s.emulation, "", err
	}
	note := ""
	if o.Geolocation != nil {
		// A page reads the position only with the permission: granted to
		// the browser's pages (Browser.grantPermissions, which an
		// extension's debugger cannot send: there the browser asks).
		if err := h.t.page.Call(ctx, "Browser.grantPermissions", map[string]any{"permissions": []string{"geolocation"}}, nil); err != nil {
			h.s.m.log.Debug("grant geolocation", "err", err)
			note = "the browser did not let webpilot grant pages the location permission: a page that asks for the position makes the browser ask the user"
		}
	}
	for _, t := range s.tabs.all {
		if err := e.applyTo(ctx, t); err != nil {
			return s.emulation, "", backendError("emulate on tab "+t.ID, err)
		}
	}
	s.emulation = e
	s.noteMu.Lock()
	s.emulating = e.Describe()
	s.noteMu.Unlock()
	return e, note, nil
}

// Settings are what the session emulates now.
func (em Emulator) Settings() Emulation { return em.h.s.emulation }
