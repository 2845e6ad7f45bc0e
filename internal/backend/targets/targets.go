// Package targets drives tabs through the browser-level Target domain of a
// CDP connection: listing, opening, closing, activating and attaching to
// page targets, and watching targets go away. The launch and endpoint
// backends share it; the bridge, which has no
// browser-level session, does not.
package targets

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/chromedp/cdproto/target"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// CloseTimeout bounds CloseTab's wait for the tab to be reported gone.
var CloseTimeout = 5 * time.Second

// Browser is a browser-level session and the name its errors carry
// ("launch: close tab …").
type Browser struct {
	Conn   *cdp.Conn
	Prefix string
	Log    *slog.Logger
}

func (b Browser) sess() *cdp.Session { return b.Conn.Browser() }

// Tabs lists the page targets.
func (b Browser) Tabs(ctx context.Context) ([]backend.TabInfo, error) {
	res, err := cdproto.Call(ctx, b.sess(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, fmt.Errorf("%s: list tabs: %w", b.Prefix, err)
	}
	tabs := make([]backend.TabInfo, 0, len(res.TargetInfos))
	for _, ti := range res.TargetInfos {
		if IsTab(ti) {
			tabs = append(tabs, ToTab(ti))
		}
	}
	return tabs, nil
}

// NewTab opens a tab at url ("" means about:blank) in its own background
// window: a background tab sharing a window is not rendered, and its first
// input then waits for a frame.
//
// When ctx ends before the reply, the browser may still open the window and
// its id never arrives: that tab is listed by Tabs, and there is no id to
// close it by.
func (b Browser) NewTab(ctx context.Context, url string) (backend.TabInfo, error) {
	if url == "" {
		url = "about:blank"
	}
	res, err := cdproto.Call(ctx, b.sess(), target.CreateTarget, target.CreateTargetParams{URL: url, NewWindow: new(true), Background: new(true)})
	if err != nil {
		return backend.TabInfo{}, fmt.Errorf("%s: new tab %s: %w", b.Prefix, url, err)
	}
	tab := backend.TabInfo{ID: string(res.TargetID), URL: url}
	if info, err := cdproto.Call(ctx, b.sess(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: res.TargetID}); err == nil && info.TargetInfo != nil {
		tab = ToTab(info.TargetInfo)
		if tab.URL == "" {
			tab.URL = url
		}
	}
	return tab, nil
}

// NewContext makes an empty browser context (its own cookies, storage and
// cache), disposed of when the connection ends.
func (b Browser) NewContext(ctx context.Context) (string, error) {
	var res struct {
		BrowserContextID string `json:"browserContextId"`
	}
	if err := b.sess().Call(ctx, "Target.createBrowserContext", map[string]any{"disposeOnDetach": true}, &res); err != nil {
		return "", fmt.Errorf("%s: new browser context: %w", b.Prefix, err)
	}
	return res.BrowserContextID, nil
}

// NewTabIn opens a background tab at url in the browser context id.
func (b Browser) NewTabIn(ctx context.Context, id, url string) (backend.TabInfo, error) {
	if url == "" {
		url = "about:blank"
	}
	var res struct {
		TargetID string `json:"targetId"`
	}
	if err := b.sess().Call(ctx, "Target.createTarget", map[string]any{"url": url, "browserContextId": id, "newWindow": true, "background": true}, &res); err != nil {
		return backend.TabInfo{}, fmt.Errorf("%s: new tab in context %s: %w", b.Prefix, id, err)
	}
	return backend.TabInfo{ID: res.TargetID, URL: url}, nil
}

// CloseContext closes the browser context id and its tabs.
func (b Browser) CloseContext(ctx context.Context, id string) error {
	if err := b.sess().Call(ctx, "Target.disposeBrowserContext", map[string]any{"browserContextId": id}, nil); err != nil {
		return fmt.Errorf("%s: close browser context %s: %w", b.Prefix, id, err)
	}
	return nil
}

// CloseTab closes the tab and waits (up to CloseTimeout) until the browser
// reports it gone. An unknown id is an error matching backend.ErrTabNotFound.
// afterClose, if set, runs once the close was accepted. The browser reports
// a target gone only while Target.setDiscoverTargets is on, which the
// backends turn on when they connect.
func (b Browser) CloseTab(ctx context.Context, id string, afterClose func()) error {
	destroyed, cancel := b.sess().Subscribe(target.TargetDestroyed.Method)
	defer cancel()
	if _, err := cdproto.Call(ctx, b.sess(), target.CloseTarget, target.CloseTargetParams{TargetID: target.ID(id)}); err != nil {
		return b.TabErr("close tab", id, err)
	}
	if afterClose != nil {
		afterClose()
	}
	wait := time.NewTimer(CloseTimeout)
	defer wait.Stop()
	for {
		select {
		case raw, ok := <-destroyed:
			if !ok {
				return nil // the connection is gone, and the tab with it
			}
			var ev target.EventTargetDestroyed
			if jsonv2.Unmarshal(raw, &ev) == nil && string(ev.TargetID) == id {
				return nil
			}
		case <-wait.C:
			if b.Log != nil {
				b.Log.Warn("closed tab not reported gone", "tab", id, "after", CloseTimeout)
			}
			return nil
		case <-ctx.Done():
			return fmt.Errorf("%s: close tab %s: %w", b.Prefix, id, ctx.Err())
		}
	}
}

// Activate brings the tab to the front.
func (b Browser) Activate(ctx context.Context, id string) error {
	if _, err := cdproto.Call(ctx, b.sess(), target.ActivateTarget, target.ActivateTargetParams{TargetID: target.ID(id)}); err != nil {
		return b.TabErr("activate tab", id, err)
	}
	return nil
}

// Attach attaches a new flat CDP session to the tab.
func (b Browser) Attach(ctx context.Context, id string) (cdp.Caller, error) {
	res, err := cdproto.Call(ctx, b.sess(), target.AttachToTarget, target.AttachToTargetParams{TargetID: target.ID(id), Flatten: new(true)})
	if err != nil {
		return nil, b.TabErr("attach to tab", id, err)
	}
	return b.Conn.Session(string(res.SessionID)), nil
}

// Release detaches the flat session c (from Attach) from its tab; the tab
// stays open.
func (b Browser) Release(ctx context.Context, id string, c cdp.Caller) error {
	s, ok := c.(*cdp.Session)
	if !ok {
		return fmt.Errorf("%s: release tab %s: not a session of this connection", b.Prefix, id)
	}
	select {
	case <-s.Done():
		return nil // detached already
	default:
	}
	if _, err := cdproto.Call(ctx, b.sess(), target.DetachFromTarget, target.DetachFromTargetParams{SessionID: target.SessionID(s.ID())}); err != nil {
		return b.TabErr("release tab", id, err)
	}
	select {
	case <-s.Done():
	case <-ctx.Done():
	}
	return nil
}

// TabErr wraps a failed per-tab command; the browser's "no such target"
// becomes backend.ErrTabNotFound.
func (b Browser) TabErr(op, id string, err error) error {
	if cdp.Classify(err) == cdp.FaultNoTarget {
		return fmt.Errorf("%s: %s %s: %w: %w", b.Prefix, op, id, backend.ErrTabNotFound, err)
	}
	return fmt.Errorf("%s: %s %s: %w", b.Prefix, op, id, err)
}

// IsTab reports whether a target is a tab: a page, not a prerendered one.
func IsTab(ti *target.Info) bool {
	return ti.Type == "page" && ti.Subtype != "prerender"
}

// ToTab describes a target as a tab.
func ToTab(ti *target.Info) backend.TabInfo {
	return backend.TabInfo{ID: string(ti.TargetID), URL: ti.URL, Title: ti.Title, Opener: string(ti.OpenerID)}
}

// WatchDestroyed calls onDestroyed with the id of each target that
// Target.targetDestroyed reports (as subscribed before
// Target.setDiscoverTargets) until the channel closes.
func WatchDestroyed(destroyed <-chan jsonv2.Value, onDestroyed func(id string)) {
	for raw := range destroyed {
		var ev target.EventTargetDestroyed
		if jsonv2.Unmarshal(raw, &ev) == nil {
			onDestroyed(string(ev.TargetID))
		}
	}
}
