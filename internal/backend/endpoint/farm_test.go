package endpoint_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/endpoint"
)

// A Farm keeps count of the Backends it handed out until they close, opens
// no tab itself (it is no Backend: tabs open through the Backends it hands
// out), and closes every Backend on Close; one handed out after Close
// comes closed.
func TestFarmBookkeeping(t *testing.T) {
	f := endpoint.NewFarm(endpoint.Options{URL: "wss://user:pa55word@farm.example/?token=hunter22"})
	a, b := f.NewBackend("a"), f.NewBackend("b")
	if got := f.Connections(); got != 2 {
		t.Errorf("Connections = %d, want 2", got)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if got := f.Connections(); got != 1 {
		t.Errorf("Connections after one Close = %d, want 1", got)
	}
	ctx := context.Background()
	if tabs, err := f.Tabs(ctx); err != nil || len(tabs) != 0 {
		t.Errorf("Farm.Tabs with nothing connected = %v, %v; want none (and no connect)", tabs, err)
	}
	info := f.Info()
	if info.Kind != "endpoint" || info.Running || strings.Contains(info.BrowserPath, "pa55word") || strings.Contains(info.BrowserPath, "hunter22") {
		t.Errorf("Info = %+v", info)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got := f.Connections(); got != 0 {
		t.Errorf("Connections after Close = %d", got)
	}
	if _, err := f.Tabs(ctx); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("Farm.Tabs after Close = %v, want ErrClosed", err)
	}
	if _, err := b.Tabs(ctx); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("a Backend after the Farm closed: Tabs = %v, want ErrClosed", err)
	}
	late := f.NewBackend("late")
	if _, err := late.NewTab(ctx, ""); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("a Backend handed out after Close: NewTab = %v, want ErrClosed", err)
	}
	if got := f.Connections(); got != 0 {
		t.Errorf("Connections after a late NewBackend = %d", got)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
