package backendtest

import (
	"errors"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/webpilot-mcp/webpilot/internal/backend"
)

// Run is the contract every backend.Backend passes: tabs open, list, attach,
// run a command and close; a tab opened or closed shows in Tabs; unknown
// tabs are ErrTabNotFound; a closed tab's session ends. b must be fresh or shared; the suite only
// touches the tabs it opens.
func Run(t *testing.T, b backend.Backend) {
	t.Helper()
	t.Run("TabLifecycle", func(t *testing.T) {
		ctx := Context(t, 30*time.Second)
		tab, err := b.NewTab(ctx, "about:blank")
		if err != nil {
			t.Fatalf("NewTab: %v", err)
		}
		if tab.ID == "" {
			t.Fatal("NewTab returned no id")
		}
		tabs, err := b.Tabs(ctx)
		if err != nil {
			t.Fatalf("Tabs: %v", err)
		}
		if !hasTab(tabs, tab.ID) {
			t.Fatalf("Tabs = %v lacks the new tab %s", tabs, tab.ID)
		}
		s, err := b.Attach(ctx, tab.ID)
		if err != nil {
			t.Fatalf("Attach: %v", err)
		}
		res, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: "1+1", ReturnByValue: new(true)})
		if err != nil {
			t.Fatalf("Runtime.evaluate: %v", err)
		}
		if res.Result == nil || string(res.Result.Value) != "2" {
			t.Fatalf("1+1 = %+v", res.Result)
		}
		if err := b.Activate(ctx, tab.ID); err != nil {
			t.Errorf("Activate: %v", err)
		}
		if err := b.CloseTab(ctx, tab.ID); err != nil {
			t.Fatalf("CloseTab: %v", err)
		}
		select {
		case <-s.Done():
		case <-ctx.Done():
			t.Fatal("the session of a closed tab did not end")
		}
		tabs, err = b.Tabs(ctx)
		if err != nil {
			t.Fatalf("Tabs after close: %v", err)
		}
		if hasTab(tabs, tab.ID) {
			t.Errorf("closed tab %s still listed", tab.ID)
		}
	})
	t.Run("UnknownTab", func(t *testing.T) {
		ctx := Context(t, 30*time.Second)
		if _, err := b.Attach(ctx, "no-such-tab"); !errors.Is(err, backend.ErrTabNotFound) {
			t.Errorf("Attach(unknown) = %v, want ErrTabNotFound", err)
		}
		if err := b.CloseTab(ctx, "no-such-tab"); !errors.Is(err, backend.ErrTabNotFound) {
			t.Errorf("CloseTab(unknown) = %v, want ErrTabNotFound", err)
		}
	})
	t.Run("TabsTrackUnattached", func(t *testing.T) {
		// A tab nobody attached to is listed once open and unlisted once
		// closed.
		ctx := Context(t, 30*time.Second)
		tab, err := b.NewTab(ctx, "about:blank")
		if err != nil {
			t.Fatalf("NewTab: %v", err)
		}
		if err := WaitTab(ctx, b, tab.ID, true, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		if err := b.CloseTab(ctx, tab.ID); err != nil {
			t.Fatalf("CloseTab: %v", err)
		}
		if err := WaitTab(ctx, b, tab.ID, false, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("Info", func(t *testing.T) {
		if info := b.Info(); info.Kind == "" {
			t.Errorf("Info().Kind is empty: %+v", info)
		}
	})
}

func hasTab(tabs []backend.TabInfo, id string) bool {
	for _, t := range tabs {
		if t.ID == id {
			return true
		}
	}
	return false
}
