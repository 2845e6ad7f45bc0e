package daemon

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Pair shows the code (armed) only once the daemon says its listener took
// it, before the pairing ends; an error after that is the pairing's error,
// and one before it is the daemon's refusal.
func TestPairWaitsForArmed(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Code string `json:"code"`
		}
		_ = json.NewDecoder(r.Body).Decode(&in)
		switch in.Code {
		case "REFUSED":
			http.Error(w, "the daemon could not listen on the bridge port", http.StatusConflict)
			return
		case "EXPIRED":
			_ = json.NewEncoder(w).Encode(PairLine{Armed: true})
			_ = json.NewEncoder(w).Encode(PairLine{Error: "the code expired"})
			return
		}
		_ = json.NewEncoder(w).Encode(PairLine{Armed: true})
		w.(http.Flusher).Flush()
		<-release // the user types the code only after it was shown
		_ = json.NewEncoder(w).Encode(PairLine{Paired: &Paired{Paired: true, BridgePort: 7}})
	}))
	defer srv.Close()
	st := State{Addr: strings.TrimPrefix(srv.URL, "http://"), Token: "t"}
	shown := false
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // a code never shown would wait for ever
	defer cancel()
	p, err := Pair(ctx, st, "ABCD-EFGH", time.Minute, func() { shown = true; close(release) })
	if err != nil || !p.Paired || p.BridgePort != 7 || !shown {
		t.Errorf("Pair = %+v, %v (code shown: %v)", p, err, shown)
	}
	if _, err := Pair(t.Context(), st, "EXPIRED", time.Minute, func() {}); err == nil || err.Error() != "the code expired" {
		t.Errorf("an expired code: %v", err)
	}
	called := false
	if _, err := Pair(t.Context(), st, "REFUSED", time.Minute, func() { called = true }); err == nil || !strings.Contains(err.Error(), "could not listen") || called {
		t.Errorf("a refusal: %v (code shown: %v)", err, called)
	}
}
