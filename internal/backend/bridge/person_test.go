package bridge

import (
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/backend"
)

// TestApprovalsKnown: what the bridge knows of the person's answers, per
// browser profile, client, session and site.
func TestApprovalsKnown(t *testing.T) {
	var a approvals
	q := backend.Approval{Client: "Claude Code", Session: "s1", Site: "example.com"}
	a.learn("p1", q, backend.AllowOnce)
	tests := []struct {
		name    string
		profile string
		q       backend.Approval
		want    backend.Answer
	}{
		{"the session that was allowed once", "p1", q, backend.AllowOnce},
		{"another session of the client", "p1", backend.Approval{Client: "Claude Code", Session: "s2", Site: "example.com"}, ""},
		{"another profile", "p2", q, ""},
		{"another site", "p1", backend.Approval{Client: "Claude Code", Session: "s1", Site: "example.org"}, ""},
	}
	for _, tt := range tests {
		if got := a.lookup(tt.profile, tt.q); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	a.learn("p1", backend.Approval{Client: "Codex", Session: "x", Site: "example.com"}, backend.AllowAlways)
	if got := a.lookup("p1", backend.Approval{Client: "Codex", Session: "y", Site: "example.com"}); got != backend.AllowAlways {
		t.Errorf("a rule holds for every session: %q", got)
	}
	// A bind's answer is never a rule for its site.
	a.learn("p1", backend.Approval{Client: "Zed", Session: "z", Site: "example.com", Bind: true}, backend.Deny)
	a.learn("p1", backend.Approval{Client: "Zed", Session: "z", Site: "example.com", Bind: true}, backend.AllowOnce)
	if got := a.lookup("p1", backend.Approval{Client: "Zed", Session: "z", Site: "example.com"}); got != "" {
		t.Errorf("a bind's answer was kept for the site: %q", got)
	}
	// A revoke forgets the rule and the sessions' once answers.
	a.forget("p1", "Claude Code", "example.com")
	a.forget("p1", "Codex", "example.com")
	if got := a.lookup("p1", q); got != "" {
		t.Errorf("after the revoke: %q", got)
	}
	if got := a.lookup("p1", backend.Approval{Client: "Codex", Session: "y", Site: "example.com"}); got != "" {
		t.Errorf("the rule after the revoke: %q", got)
	}
}

// TestApprovalsAnswerBeforeWait: an answer that arrives before the call
// waits for it still ends the wait.
func TestApprovalsAnswerBeforeWait(t *testing.T) {
	var a approvals
	a.answer("a-1", backend.Deny)
	select {
	case <-a.wait("a-1"):
	default:
		t.Fatal("the wait for a question answered already did not end")
	}
	if a.answerOf("a-1") != backend.Deny {
		t.Fatalf("answer: %q", a.answerOf("a-1"))
	}
	ch := a.wait("a-2")
	a.answer("a-2", backend.AllowOnce)
	select {
	case <-ch:
	default:
		t.Fatal("the answer did not end the wait")
	}
	for i := range maxAnswered + 10 {
		a.answer("x-"+string(rune('a'+i%26))+string(rune('a'+i/26)), backend.AllowOnce)
	}
	if len(a.answered) > maxAnswered {
		t.Errorf("%d answers kept, at most %d", len(a.answered), maxAnswered)
	}
}
