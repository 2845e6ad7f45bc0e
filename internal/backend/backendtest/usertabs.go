package backendtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// rigBrowser is a browser-level CDP session on the browser behind b that is
// not webpilot's: the rig's own connection (bridge, endpoint); on launch,
// webpilot's browser connection itself, whose Target commands no session
// tracks.
func rigBrowser(ctx context.Context, b backend.Backend) (*cdp.Session, error) {
	switch r := b.(type) {
	case *launch.Backend:
		return r.BrowserSession(ctx)
	case *bridgeRig:
		return r.browser.BrowserSession(ctx)
	case *endpointRig:
		return r.browser.Launch().BrowserSession(ctx)
	}
	return nil, fmt.Errorf("backend %T has no test rig browser", b)
}

// OpenUserTab opens a tab at url in a window of its own the way the user
// (or another CDP client) would: webpilot did not open it. It returns the
// tab's CDP target id.
func OpenUserTab(ctx context.Context, b backend.Backend, url string) (string, error) {
	bs, err := rigBrowser(ctx, b)
	if err != nil {
		return "", err
	}
	var res struct {
		TargetID string `json:"targetId"`
	}
	if err := bs.Call(ctx, "Target.createTarget", map[string]any{"url": url, "newWindow": true}, &res); err != nil {
		return "", fmt.Errorf("open a user tab: %w", err)
	}
	return res.TargetID, nil
}

// CloseUserTab closes a tab OpenUserTab opened.
func CloseUserTab(ctx context.Context, b backend.Backend, targetID string) error {
	bs, err := rigBrowser(ctx, b)
	if err != nil {
		return err
	}
	return bs.Call(ctx, "Target.closeTarget", map[string]any{"targetId": targetID}, nil)
}

// UserTab describes a page target as the browser itself sees it.
type UserTab struct {
	Open     bool // the target exists
	URL      string
	Attached bool // some debugging client (webpilot, chrome.debugger) is attached
}

// DescribeUserTab reports whether the tab is open, its URL, and whether a
// debugger is attached to it.
func DescribeUserTab(ctx context.Context, b backend.Backend, targetID string) (UserTab, error) {
	bs, err := rigBrowser(ctx, b)
	if err != nil {
		return UserTab{}, err
	}
	infos, err := targetInfos(ctx, bs)
	if err != nil {
		return UserTab{}, err
	}
	for _, ti := range infos {
		if ti.TargetID == targetID {
			return UserTab{Open: true, URL: ti.URL, Attached: ti.Attached}, nil
		}
	}
	return UserTab{}, nil
}

// EvalInExtension evaluates a JavaScript expression (a promise is awaited)
// in the bridge extension's service worker and returns its value as JSON.
func EvalInExtension(ctx context.Context, b backend.Backend, expr string) (string, error) {
	rig, ok := b.(*bridgeRig)
	if !ok {
		return "", fmt.Errorf("backend %T is not the test bridge", b)
	}
	w, err := extensionWorker(ctx, rig.browser)
	if err != nil {
		return "", err
	}
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := w.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &res); err != nil {
		return "", err
	}
	if d := res.ExceptionDetails; d != nil {
		return "", fmt.Errorf("in the extension: %s %s", d.Text, d.Exception.Description)
	}
	return string(res.Result.Value), nil
}

// ActAsUser evaluates expr in the page whose URL contains urlPart, over
// the rig's own browser connection rather than webpilot's: what the person
// at the browser does (types, submits) while a session waits for them.
func ActAsUser(ctx context.Context, b backend.Backend, urlPart, expr string) error {
	bs, err := rigBrowser(ctx, b)
	if err != nil {
		return err
	}
	infos, err := targetInfos(ctx, bs)
	if err != nil {
		return err
	}
	id := ""
	for _, ti := range infos {
		if ti.Type == "page" && strings.Contains(ti.URL, urlPart) {
			if id != "" {
				return fmt.Errorf("act as user: two pages at %q", urlPart)
			}
			id = ti.TargetID
		}
	}
	if id == "" {
		return fmt.Errorf("act as user: no page at %q", urlPart)
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := bs.Call(ctx, "Target.attachToTarget", map[string]any{"targetId": id, "flatten": true}, &att); err != nil {
		return fmt.Errorf("act as user: %w", err)
	}
	defer func() {
		_ = bs.Call(context.WithoutCancel(ctx), "Target.detachFromTarget", map[string]any{"sessionId": att.SessionID}, nil)
	}()
	var ev struct {
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	if err := bs.Conn().Session(att.SessionID).Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true}, &ev); err != nil {
		return fmt.Errorf("act as user: %w", err)
	}
	if ev.ExceptionDetails != nil {
		return fmt.Errorf("act as user: %s", ev.ExceptionDetails)
	}
	return nil
}

// CloseUserTabsAt closes, over the rig's own connection, every page whose
// URL contains urlPart (tabs a user's page opened, which the test did not
// open itself), and says how many.
func CloseUserTabsAt(ctx context.Context, b backend.Backend, urlPart string) (int, error) {
	bs, err := rigBrowser(ctx, b)
	if err != nil {
		return 0, err
	}
	infos, err := targetInfos(ctx, bs)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, ti := range infos {
		if ti.Type == "page" && strings.Contains(ti.URL, urlPart) {
			if err := bs.Call(ctx, "Target.closeTarget", map[string]any{"targetId": ti.TargetID}, nil); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// targetInfo is a target as Target.getTargets describes it.
type targetInfo struct {
	TargetID string `json:"targetId"`
	Type     string `json:"type"`
	URL      string `json:"url"`
	Attached bool   `json:"attached"`
}

// targetInfos lists the browser's targets over the rig's own connection.
func targetInfos(ctx context.Context, bs *cdp.Session) ([]targetInfo, error) {
	var res struct {
		TargetInfos []targetInfo `json:"targetInfos"`
	}
	if err := bs.Call(ctx, "Target.getTargets", map[string]any{}, &res); err != nil {
		return nil, err
	}
	return res.TargetInfos, nil
}
