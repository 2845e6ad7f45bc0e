package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// reachPages are the fixtures whose every interactive element must have a
// ref that a trusted click reaches.
var reachPages = []string{
	"/snap/article.html", "/snap/form-all.html", "/snap/table.html", "/snap/heavy.html",
	"/snap/frames.html?xsite={{other}}", "/snap/shadow.html", "/snap/relist.html",
	"/snap/hidden.html", "/snap/modal.html", "/snap/clickables.html", "/basic.html", "/form.html",
}

// groundTruthJS lists the visible interactive elements of a document (open
// shadow roots included) that the walker has not numbered or whose number
// is not among the refs given.
const groundTruthJS = `(wids) => {
  const W = globalThis.__webpilot, have = new Set(wids), missing = [];
  let n = 0;
  const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [onclick], [tabindex]:not([tabindex="-1"]), [contenteditable=""], [contenteditable=true], [role=button], [role=link], [role=checkbox], [role=radio], [role=tab], [role=menuitem], [role=switch], [role=slider], [role=textbox], [role=combobox]';
  const visible = (el) => {
    if (!el.checkVisibility({visibilityProperty: true})) return false;
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1 || r.right + scrollX <= 0 || r.bottom + scrollY <= 0) return false;
    for (let p = el; p; p = p.parentElement || (p.getRootNode().host || null)) {
      if (p.getAttribute && p.getAttribute("aria-hidden") === "true") return false;
      const q = p.getBoundingClientRect(), st = getComputedStyle(p);
      if (p !== el && (q.width <= 1 || q.height <= 1) && st.overflow !== "visible") return false;
    }
    return true;
  };
  const visit = (root) => {
    for (const el of root.querySelectorAll(sel)) {
      if (!visible(el)) continue;
      // a control inside a control is reached through the outer one
      if (el.parentElement && el.parentElement.closest("a[href], button, summary")) continue;
      n++;
      const id = W.known(el);
      if (!id || !have.has(id)) missing.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + " " + JSON.stringify((el.innerText || el.value || el.getAttribute("aria-label") || "").trim().slice(0, 30)));
    }
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) visit(el.shadowRoot);
  };
  visit(document);
  return {n, missing};
}`

// recorderJS makes clicks do nothing but mark the elements they hit with
// the click's number (the attribute is visible from every world).
const recorderJS = `() => {
  if (globalThis.__rec) return;
  globalThis.__rec = 1;
  for (const type of ["click", "mousedown", "pointerdown", "mouseup", "pointerup", "auxclick", "dblclick"]) {
    window.addEventListener(type, (e) => {
      e.preventDefault(); e.stopImmediatePropagation();
      if (type === "click") for (const n of e.composedPath()) if (n.nodeType === 1) n.setAttribute("data-hit", String(globalThis.__rec));
    }, true);
  }
}`

var refLine = regexp.MustCompile(`^\s*(?:- |#+ )?([a-z]+) ((?:f\d+)?e\d+)\b(.*)$`)

// TestEveryElementReachable checks, per fixture, that every visible
// interactive element (found independently, in every frame and open shadow
// root) has a ref, and that a trusted click by each ref lands on it.
func TestEveryElementReachable(t *testing.T) {
	srv, other := goldenServers(t)
	m := NewManager(Options{Backend: backendtest.Shared(t), ActionTimeout: backendtest.Timeout(5 * time.Second)})
	for _, page := range reachPages {
		name := strings.TrimSuffix(strings.TrimPrefix(page, "/"), ".html")
		name = strings.SplitN(name, "?", 2)[0]
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			s := m.Session("reach-" + name)
			ctx, cancel := context.WithTimeout(context.Background(), backendtest.Timeout(120*time.Second))
			defer cancel()
			err := s.Do(ctx, func(ctx context.Context, h *Held) error {
				defer h.Tabs().CloseAll(context.WithoutCancel(ctx))
				tab, err := h.Tabs().Current(ctx)
				if err != nil {
					return err
				}
				if _, err := h.On(tab).Navigate(ctx, srv+strings.ReplaceAll(page, "{{other}}", other), 0); err != nil {
					return err
				}
				waitFrames(ctx, s, tab)
				snap, err := h.On(tab).Snapshot(ctx, SnapshotOptions{Mode: ModeFull})
				if err != nil {
					return err
				}
				// Ground truth, frame by frame.
				wids := map[*frameRefs][]int{}
				for _, f := range tab.refs.frames {
					for wid := range f.byWid {
						wids[f] = append(wids[f], wid)
					}
				}
				total := 0
				for _, f := range tab.refs.frames {
					w := frameWorld{sess: f.sess, frameID: f.frameID}
					arg, _ := json.Marshal(wids[f])
					var gt struct {
						N       int      `json:"n"`
						Missing []string `json:"missing"`
					}
					if _, err := w.eval(ctx, "("+groundTruthJS+")("+string(arg)+")", &gt); err != nil {
						return fmt.Errorf("ground truth in frame %q: %w", f.key, err)
					}
					total += gt.N
					for _, miss := range gt.Missing {
						t.Errorf("frame %q: %s has no ref", f.key, miss)
					}
					if _, err := w.eval(ctx, "("+recorderJS+")()", nil); err != nil {
						return err
					}
				}
				if total == 0 {
					t.Fatalf("no interactive elements found on %s", page)
				}
				if strings.Contains(page, "frames") && len(tab.refs.frames) < 3 {
					t.Errorf("frames: %d frames walked, want the page and two iframes", len(tab.refs.frames))
				}
				if strings.Contains(page, "frames") && tab.page.kids.count() == 0 {
					t.Errorf("frames: no out-of-process iframe target was attached")
				}
				// A trusted click by every ref reaches its element.
				clicks := 0
				for _, l := range strings.Split(snap.Text, "\n") {
					for _, part := range strings.Split(l, " · ") {
						mm := refLine.FindStringSubmatch(strings.TrimPrefix(strings.TrimSpace(part), "navigation: "))
						if mm == nil || strings.Contains(mm[3], "[disabled]") {
							continue
						}
						ref := mm[2]
						clicks++
						for _, f := range tab.refs.frames {
							w := frameWorld{sess: f.sess, frameID: f.frameID}
							if _, err := w.eval(ctx, "globalThis.__rec = "+fmt.Sprint(clicks+1), nil); err != nil {
								return err
							}
						}
						// The click of an action, without its settling.
						el, err := tab.finder().locate(ctx, Locator{Ref: ref})
						if err != nil {
							t.Errorf("locate %s: %v", ref, err)
							continue
						}
						if _, err := tab.pointer.pointerInput(ctx, el, Locator{Ref: ref}, gestureOf("click"), false); err != nil {
							t.Errorf("click %s (%s): %v", ref, strings.TrimSpace(l), err)
							continue
						}
						var hit string
						if err := tab.callEl(ctx, el, `function(){ return this.getAttribute("data-hit") || "" }`, &hit); err != nil {
							return err
						}
						if hit != fmt.Sprint(clicks+1) {
							t.Errorf("click by %s (%s) did not land on it (data-hit %q)", ref, strings.TrimSpace(part), hit)
						}
					}
				}
				if clicks < snap.Refs-10 {
					t.Errorf("clicked %d refs of %d", clicks, snap.Refs)
				}
				t.Logf("%s: %d interactive elements, %d refs, %d clicks", page, total, snap.Refs, clicks)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
