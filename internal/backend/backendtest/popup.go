package backendtest

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/webpilot-mcp/webpilot/extension"
	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// Popup is the extension's popup page, opened in a window of the bridge's
// browser as the user opens it from the toolbar button; tests read and
// press what the user sees there.
type Popup struct {
	s      cdp.Caller
	close  func()
	target string
}

// OpenPopup opens the extension's popup.html in a window of its own.
func OpenPopup(ctx context.Context, b backend.Backend) (*Popup, error) {
	rig, ok := b.(*bridgeRig)
	if !ok {
		return nil, fmt.Errorf("backend %T is not the test bridge", b)
	}
	bs, err := rig.browser.BrowserSession(ctx)
	if err != nil {
		return nil, err
	}
	var res struct {
		TargetID string `json:"targetId"`
	}
	url := "chrome-extension://" + extension.ID + "/popup.html"
	if err := bs.Call(ctx, "Target.createTarget", map[string]any{"url": url, "newWindow": true}, &res); err != nil {
		return nil, fmt.Errorf("open the popup: %w", err)
	}
	closeTab := func() {
		_ = bs.Call(context.WithoutCancel(ctx), "Target.closeTarget", map[string]any{"targetId": res.TargetID}, nil)
	}
	s, err := rig.browser.Attach(ctx, res.TargetID)
	if err != nil {
		closeTab()
		return nil, fmt.Errorf("attach to the popup: %w", err)
	}
	p := &Popup{s: s, close: closeTab, target: res.TargetID}
	// Answer once the page has loaded and its script has run once.
	var last error
	for deadline := time.Now().Add(Timeout(10 * time.Second)); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var ready bool
		if last = p.Eval(ctx, `document.readyState === "complete" && document.getElementById("version").textContent !== "?"`, &ready); last == nil && ready {
			return p, nil
		}
	}
	closeTab()
	return nil, fmt.Errorf("the popup did not load: %v", last)
}

// Eval evaluates expr in the popup page (promises awaited) and decodes its
// value into out (which may be nil).
func (p *Popup) Eval(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	if err := p.s.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &res); err != nil {
		return fmt.Errorf("popup: evaluate %q: %w", expr, err)
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("popup: evaluate %q: %s", expr, res.ExceptionDetails)
	}
	if out == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}

// Close closes the popup's window.
func (p *Popup) Close() { p.close() }
