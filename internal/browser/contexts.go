package browser

import (
	"context"
	"fmt"
	"regexp"
	"slices"

	"github.com/webpilot-mcp/webpilot/internal/backend"
)

// Named browser contexts (browser_tabs new with context): a tab opened in
// a context has its own cookies, storage and cache, shared only with the
// session's other tabs of that context; the default context is the
// browser's own. A context is made on its first tab and closed with its
// last. The launched browser and an endpoint have them; the extension
// works in the user's own profile and cannot make one.

var contextName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`)

// NewTabIn opens a tab of the session in the named browser context (made
// on first use) and makes it current.
func (h *Held) NewTabIn(ctx context.Context, name string) (*Tab, error) {
	s := h.s
	if !contextName.MatchString(name) {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("context %q is not a name", Echo(name)), Hint: "letters, digits, - and _, at most 40"}
	}
	cb, ok := s.be.(backend.Contexts)
	if !ok {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("the %s backend cannot open browser contexts", s.be.Info().Kind),
			Hint: "through the extension webpilot works in your own Chrome profile, which has one set of cookies; named contexts need the Chromium webpilot launches (--backend launch) or a CDP endpoint"}
	}
	if s.contexts == nil {
		s.contexts = map[string]string{}
	}
	id := s.contexts[name]
	if id == "" {
		var err error
		if id, err = cb.NewContext(ctx); err != nil {
			return nil, backendError("make the browser context", err)
		}
		s.contexts[name] = id
	}
	info, err := cb.NewTabIn(ctx, id, "about:blank")
	if err != nil {
		s.dropContexts(ctx)
		return nil, backendError("open a tab in context "+name, err)
	}
	t, err := s.attachTab(ctx, info.ID)
	if err != nil {
		_ = s.be.CloseTab(context.WithoutCancel(ctx), info.ID)
		s.dropContexts(ctx)
		return nil, err
	}
	t.contextName, t.contextID = name, id
	t.waitInitialLoad(ctx)
	s.join(t)
	s.current = t
	h.t = t
	return t, nil
}

// Contexts are the names of the session's browser contexts, sorted.
func (h *Held) Contexts() []string {
	var out []string
	for name := range h.s.contexts {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// dropContexts closes the session's contexts that no tab of it is in.
func (s *Session) dropContexts(ctx context.Context) {
	cb, ok := s.be.(backend.Contexts)
	if !ok || len(s.contexts) == 0 {
		return
	}
	used := map[string]bool{}
	for _, t := range s.tabs {
		used[t.contextName] = true
	}
	for name, id := range s.contexts {
		if used[name] {
			continue
		}
		if err := cb.CloseContext(context.WithoutCancel(ctx), id); err != nil {
			s.m.log.Debug("close a browser context", "context", name, "err", err)
		}
		delete(s.contexts, name)
	}
}
