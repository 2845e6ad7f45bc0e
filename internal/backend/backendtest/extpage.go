package backendtest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/webpilot-mcp/webpilot/extension"
	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// ExtensionPage is a page of the bridge's extension (its popup, say)
// opened in a tab of the rig's browser, as a user could open it, with a
// debugging session of the rig's own on it.
type ExtensionPage struct {
	b        backend.Backend
	targetID string
	s        *cdp.Session
}

// OpenExtensionPage opens chrome-extension://<id>/<path> of the bridge's
// extension in a new window of the rig's browser and attaches to it.
func OpenExtensionPage(ctx context.Context, b backend.Backend, path string) (*ExtensionPage, error) {
	if _, ok := b.(*bridgeRig); !ok {
		return nil, fmt.Errorf("backend %T is not the test bridge", b)
	}
	bs, err := rigBrowser(ctx, b)
	if err != nil {
		return nil, err
	}
	id, err := OpenUserTab(ctx, b, extension.Origin+"/"+path)
	if err != nil {
		return nil, fmt.Errorf("open the extension's %s: %w", path, err)
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := bs.Call(ctx, "Target.attachToTarget", map[string]any{"targetId": id, "flatten": true}, &att); err != nil {
		_ = CloseUserTab(ctx, b, id)
		return nil, fmt.Errorf("attach to the extension's %s: %w", path, err)
	}
	return &ExtensionPage{b: b, targetID: id, s: bs.Conn().Session(att.SessionID)}, nil
}

// TargetID is the page's CDP target id.
func (p *ExtensionPage) TargetID() string { return p.targetID }

// Eval evaluates a JavaScript expression in the page (a promise is
// awaited) and returns its value as JSON.
func (p *ExtensionPage) Eval(ctx context.Context, expr string) (string, error) {
	return EvalIn(ctx, p.s, expr)
}

// EvalIn evaluates a JavaScript expression in the page of the debugging
// session s (a promise is awaited) and returns its value as JSON; an
// exception is an error.
func EvalIn(ctx context.Context, s *cdp.Session, expr string) (string, error) {
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
	if err := s.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &res); err != nil {
		return "", fmt.Errorf("evaluate in the extension's page: %w", err)
	}
	if d := res.ExceptionDetails; d != nil {
		return "", fmt.Errorf("in the extension's page: %s %s", d.Text, d.Exception.Description)
	}
	return string(res.Result.Value), nil
}

// Close closes the page's tab.
func (p *ExtensionPage) Close(ctx context.Context) error {
	return CloseUserTab(ctx, p.b, p.targetID)
}
