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

// contextRef names the browser context a tab is in (zero: the
// browser's own).
type contextRef struct {
	name, id string
}

// browserContexts are a session's named browser contexts, name → id
// (guarded by the session's hold).
type browserContexts struct {
	ids map[string]string
}

// open opens a tab of session s in the named browser context (made on
// first use) and makes it current.
func (c *browserContexts) open(ctx context.Context, s *Session, name string) (*Tab, error) {
	if !contextName.MatchString(name) {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("context %q is not a name", Echo(name)), Hint: "letters, digits, - and _, at most 40"}
	}
	cb, ok := s.be.(backend.Contexts)
	if !ok {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("the %s backend cannot open browser contexts", s.be.Info().Kind),
			Hint: "through the extension webpilot works in your own Chrome profile, which has one set of cookies; named contexts need the Chromium webpilot launches (--backend launch) or a CDP endpoint"}
	}
	if c.ids == nil {
		c.ids = map[string]string{}
	}
	id := c.ids[name]
	if id == "" {
		var err error
		if id, err = cb.NewContext(ctx); err != nil {
			return nil, backendError("make the browser context", err)
		}
		c.ids[name] = id
	}
	info, err := cb.NewTabIn(ctx, id, "about:blank")
	if err != nil {
		c.drop(ctx, s)
		return nil, backendError("open a tab in context "+name, err)
	}
	t, err := s.tabs.attachTab(ctx, info.ID)
	if err != nil {
		_ = s.be.CloseTab(context.WithoutCancel(ctx), info.ID)
		c.drop(ctx, s)
		return nil, err
	}
	t.bctx = contextRef{name: name, id: id}
	t.waitInitialLoad(ctx)
	s.tabs.join(t)
	s.tabs.setCurrent(t)
	return t, nil
}

// names are the names of the contexts, sorted.
func (c *browserContexts) names() []string {
	var out []string
	for name := range c.ids {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// drop closes the contexts that no tab of session s is in.
func (c *browserContexts) drop(ctx context.Context, s *Session) {
	cb, ok := s.be.(backend.Contexts)
	if !ok || len(c.ids) == 0 {
		return
	}
	used := map[string]bool{}
	for _, t := range s.tabs.all {
		used[t.bctx.name] = true
	}
	for name, id := range c.ids {
		if used[name] {
			continue
		}
		if err := cb.CloseContext(context.WithoutCancel(ctx), id); err != nil {
			s.m.log.Debug("close a browser context", "context", name, "err", err)
		}
		delete(c.ids, name)
	}
}

// ContextNames are the names of the session's browser contexts, sorted; a
// tab opens in one with NewIn.
func (ts Tabs) ContextNames() []string { return ts.h.s.contexts.names() }
