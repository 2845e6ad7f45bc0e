package mcpserver

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// A flow's budget replaces the call ceiling, and an EOF on stdin waits for
// a running flow as long as its budget allows, not only the ceiling.
func TestFlowBudgetCeiling(t *testing.T) {
	for _, tc := range []struct {
		args string
		want time.Duration
	}{
		{`{"steps":[]}`, 30 * time.Second},
		{`{"budget_ms":90000}`, 90 * time.Second},
		{`{"budget_ms":"120000"}`, 120 * time.Second},
		{`{"budget_ms":200000}`, 30 * time.Second}, // refused by validation anyway
		{`not json`, 30 * time.Second},
	} {
		got, ok := tools.CallBudget("browser_flow", json.RawMessage(tc.args))
		if !ok || got != tc.want {
			t.Errorf("CallBudget(%s) = %v, %v; want %v", tc.args, got, ok, tc.want)
		}
	}
	if _, ok := tools.CallBudget("browser_action", json.RawMessage(`{"budget_ms":5}`)); ok {
		t.Errorf("browser_action has a budget")
	}

	s := New(Options{CallCeiling: 100 * time.Millisecond})
	if g := s.eofGrace(); g != 100*time.Millisecond+eofSlack {
		t.Errorf("eofGrace with no flow running = %v", g)
	}
	key := new(int)
	s.budgeted.Store(key, time.Now().Add(time.Minute))
	if g := s.eofGrace(); g < 55*time.Second {
		t.Errorf("eofGrace with a flow running for a minute more = %v", g)
	}
	s.budgeted.Delete(key)
	if g := s.eofGrace(); g != 100*time.Millisecond+eofSlack {
		t.Errorf("eofGrace after the flow = %v", g)
	}
}
