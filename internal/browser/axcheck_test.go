package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// axNode is a node of Chrome's accessibility tree (Accessibility.getFullAXTree).
type axNode struct {
	Ignored bool `json:"ignored"`
	Role    struct {
		Value string `json:"value"`
	} `json:"role"`
	Name struct {
		Value string `json:"value"`
	} `json:"name"`
	BackendDOMNodeID int64 `json:"backendDOMNodeId"`
	Properties       []struct {
		Name  string `json:"name"`
		Value struct {
			Value any `json:"value"`
		} `json:"value"`
	} `json:"properties"`
}

// states are the states of an AX node that a snapshot shows, as the
// snapshot writes them.
func (n axNode) states() map[string]bool {
	out := map[string]bool{}
	for _, p := range n.Properties {
		v := fmt.Sprint(p.Value.Value)
		switch {
		case p.Name == "disabled" && v == "true":
			out["disabled"] = true
		case p.Name == "expanded":
			out[map[bool]string{true: "expanded", false: "collapsed"}[v == "true"]] = true
		case p.Name == "checked" && v == "true":
			out["checked"] = true
		case p.Name == "checked" && v == "mixed":
			out["mixed"] = true
		}
	}
	return out
}

// shownStates are the states a snapshot line gives, of those compared.
func shownStates(line string) map[string]bool {
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`\[(disabled|expanded|collapsed|checked|mixed)\]`).FindAllStringSubmatch(line, -1) {
		out[m[1]] = true
	}
	return out
}

// signRoles are webpilot's roles for targets found by a sign rather than
// a role (a listener, a pointer cursor, a tabindex, contenteditable, an
// overflow that scrolls, a drop listener): Chrome has no role for them and
// calls such an element whatever its tag makes it (generic, a list item, a
// cell, a paragraph, a label). Their names are webpilot's: the short text
// of a clickable says which it is, where Chrome names a generic element
// not at all.
var signRoles = map[string]bool{"clickable": true, "focusable": true, "draggable": true, "editable": true, "scroll": true, "dropzone": true}

// chromeRoles maps webpilot's role names onto Chrome's where they differ
// only in spelling: the disclosure button of a <details>, the typed inputs.
var chromeRoleNames = map[string][]string{
	"button":   {"button", "DisclosureTriangle"},
	"date":     {"Date"},
	"time":     {"InputTime"},
	"datetime": {"DateTime"},
	"month":    {"DateTime"},
	"week":     {"DateTime"},
	"color":    {"ColorWell"},
	"file":     {"button"},
	"textbox":  {"textbox"},
	"img":      {"img", "image"},
}

// checkRolesAgainstChrome compares every ref of the current page's last
// snapshot with Chrome's accessibility tree: the role must be Chrome's
// (a sign role excepted) and the name Chrome's, up to webpilot's cut.
// Then every element a user can click (hit at its centre, with a pointer
// cursor of its own or an onclick) must have a ref in or around it.
func checkRolesAgainstChrome(t *testing.T, e *env, page string) {
	checkedPages++
	t.Helper()
	snap := e.snapshot(browser.ModeFull)
	named := regexp.MustCompile(`\b(e\d+)\b`).FindAllString(snap, -1)
	var refs []browser.RefElement
	var tree struct {
		Nodes []axNode `json:"nodes"`
	}
	err := e.do(func(ctx context.Context, h *browser.Held) error {
		tab := h.Tab()

		var err error
		if refs, err = browser.RefElements(ctx, tab, named); err != nil {
			return err
		}
		return tab.Target().Call(ctx, "Accessibility.getFullAXTree", map[string]any{}, &tree)
	})
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	if len(refs) == 0 {
		t.Errorf("%s: the snapshot gave no refs to check", page)
	}
	ax := make(map[int64]axNode, len(tree.Nodes))
	for _, n := range tree.Nodes {
		if n.BackendDOMNodeID != 0 {
			ax[n.BackendDOMNodeID] = n
		}
	}
	for _, r := range refs {
		n, ok := ax[r.BackendNodeID]
		if !ok {
			t.Errorf("%s: %s %s %q is not in Chrome's accessibility tree", page, r.Ref, r.Role, r.Name)
			continue
		}
		if signRoles[r.Role] {
			continue
		}
		want := chromeRoleNames[r.Role]
		if want == nil {
			want = []string{r.Role}
		}
		roleOK := false
		for _, w := range want {
			roleOK = roleOK || n.Role.Value == w
		}
		if !roleOK && n.Role.Value == "generic" && strings.Fields(r.Attrs["role"] + " x")[0] == r.Role {
			// The author's role, which Chrome sets aside for the element's
			// context (jQuery UI's selectmenu puts each role=option in an
			// <li> of its listbox): the role says what it is to a user, and
			// the name follows it.
			continue
		}
		if !roleOK && n.Role.Value == "generic" && r.Role == "option" && r.Attrs["role"] == "" && r.Attrs["aria-selected"] != "" {
			// An item drawn beside an undrawn listbox of options (Ant
			// Design's Select keeps a 0×0 listbox for assistive technology
			// and draws divs with aria-selected): the drawn item is the
			// option a person picks.
			continue
		}
		if !roleOK {
			t.Errorf("%s: %s is %s %q in the snapshot, %s %q in Chrome's tree (ignored: %v)", page, r.Ref, r.Role, r.Name, n.Role.Value, n.Name.Value, n.Ignored)
			continue
		}
		chromeStates := n.states()
		if r.Tag == "SELECT" {
			// A native select's popup state is left out: the select
			// action picks options without opening it.
			delete(chromeStates, "collapsed")
		}
		if line := refLine(snap, r.Ref); fmt.Sprint(shownStates(line)) != fmt.Sprint(chromeStates) {
			t.Errorf("%s: %s has states %v in the snapshot (%q), %v in Chrome's tree", page, r.Ref, shownStates(line), line, chromeStates)
		}
		// Chrome's names include the glyphs of CSS generated content
		// (::before, icon fonts); webpilot's leave them out (the states say
		// what a ☐ says), so symbols and private-use characters do not count.
		glyphs := func(s string) string {
			return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
				if unicode.Is(unicode.So, r) || unicode.Is(unicode.Co, r) {
					return ' '
				}
				return r
			}, s)), " ")
		}
		chrome := strings.Join(strings.Fields(strings.ReplaceAll(n.Name.Value, "\u00a0", " ")), " ")
		if glyphs(chrome) == glyphs(r.Name) {
			chrome = r.Name
		}
		if len([]rune(chrome)) > 400 {
			chrome = string([]rune(chrome)[:400])
		}
		if chrome != r.Name && !namedOnPurpose(t, e, r, chrome, refLine(snap, r.Ref)) {
			t.Errorf("%s: %s %s is named %q in the snapshot, %q in Chrome's tree", page, r.Ref, r.Role, r.Name, chrome)
		}
	}
	// Mark the elements with refs, then look for a clickable one without.
	var unreffed []string
	err = e.do(func(ctx context.Context, h *browser.Held) error {
		tab := h.Tab()

		if err := browser.MarkRefs(ctx, tab, "data-wp-ref", named); err != nil {
			return err
		}
		var err error
		var n int
		unreffed, n, err = listenersWithoutRefs(ctx, tab)
		listenersChecked += n
		return err
	})
	if err != nil {
		t.Fatalf("%s: mark refs: %v", page, err)
	}
	if len(unreffed) > 0 {
		t.Errorf("%s: elements with a click listener, hit at their centre, without a ref in or around them:\n%s", page, strings.Join(unreffed, "\n"))
	}
	missed := e.eval(`(() => {
		const out = [];
		const has = (el) => el.closest("[data-wp-ref]") || el.querySelector("[data-wp-ref]");
		for (const el of document.querySelectorAll("body *")) {
			const st = getComputedStyle(el);
			const own = st.cursor === "pointer" && !(el.parentElement && getComputedStyle(el.parentElement).cursor === "pointer");
			if (!own && !el.hasAttribute("onclick")) continue;
			if (/^(col|row|ew|ns)-resize$/.test(st.cursor) || /separator|resiz/i.test(typeof el.className === "string" ? el.className : "")) continue; // (a resize handle: dragged)
			if (el.tagName === "LABEL" || el.closest("[aria-hidden=true]")) continue;
			const r = el.getBoundingClientRect();
			if (!el.firstElementChild && !el.textContent.trim() && r.width >= innerWidth * 0.9 && r.height >= innerHeight * 0.9) continue; // (a modal's mask)
			if (r.width < 2 || r.height < 2 || r.bottom < 0 || r.right < 0 || r.top > innerHeight || r.left > innerWidth) continue;
			const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
			if (!hit || !(el === hit || el.contains(hit))) continue;
			if (!has(el)) out.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + "." + Array.from(el.classList).join(".") + " " + JSON.stringify(el.textContent.trim().slice(0, 40)));
		}
		document.querySelectorAll("[data-wp-ref]").forEach((el) => el.removeAttribute("data-wp-ref"));
		return out.join("\n");
	})()`)
	if missed != "" {
		t.Errorf("%s: clickable on screen but without a ref:\n%s", page, missed)
	}
}

// namedOnPurpose says a ref's name differs from Chrome's for one of
// webpilot's written reasons, which the element's DOM shows:
//   - icons' names (Ant Design's <span role="img" aria-label="down">) are no
//     part of a control's name when it has text ("Actions", where Chrome
//     says "Actions down"): they name a picture, not what the control does;
//   - an icon-only control is named by a title, its own or that of a box
//     around it that holds nothing else (antd's pagination button in
//     <li title="Previous Page">, where Chrome says "left"), else by its
//     icons' names once each ("star", where Chrome says "star star");
//   - a tree item is named by its own text, without the names of its
//     controls (a checkbox "Select Documents") and nested items;
//   - a calendar day whose content is the bare number of the day is named by
//     the full date in its title ("2026-03-27", where Chrome says "27");
//   - letters as the page has them, not as CSS text-transform draws them
//     ("List", where Chrome says "LIST" for MUI's upper-case buttons);
//   - a div combobox named by its label and its own text shows that text as
//     its value (MUI's Select: "Department" = "Engineering", where Chrome
//     says "Department Engineering");
//   - a column header is named by its own text, its buttons after it (MUI's
//     DataGrid: "ID", where Chrome says "ID ID column menu");
//   - a control with no name of its own takes the <label for> that points
//     at its box (Ant Design's Form.Item label for its Slider's div, which
//     the browser ties to nothing: "Volume", where Chrome says ""; jQuery
//     UI's selectmenu: "Select a speed" = "Medium", where Chrome names it by
//     its text "Medium").
func namedOnPurpose(t *testing.T, e *env, r browser.RefElement, chrome, line string) bool {
	t.Helper()
	if strings.EqualFold(chrome, r.Name) {
		return true
	}
	if m := regexp.MustCompile(` = "([^"]*)"`).FindStringSubmatch(line); r.Role == "combobox" && m != nil &&
		chrome == r.Name+" "+strings.Join(strings.Fields(strings.ReplaceAll(m[1], ",", " ")), " ") {
		return true
	}
	if r.Role == "columnheader" && r.Name != "" && strings.HasPrefix(chrome, r.Name+" ") {
		return true
	}
	var info struct {
		Icons, Titles, Controls, ForBox []string
		Text                            string
	}
	err := e.do(func(ctx context.Context, h *browser.Held) error {
		sess := h.Tab().Target()
		var obj struct {
			Object struct {
				ObjectID string `json:"objectId"`
			} `json:"object"`
		}
		if err := sess.Call(ctx, "DOM.resolveNode", map[string]any{"backendNodeId": r.BackendNodeID}, &obj); err != nil {
			return err
		}
		var res struct {
			Result struct {
				Value string `json:"value"`
			} `json:"result"`
		}
		if err := sess.Call(ctx, "Runtime.callFunctionOn", map[string]any{"objectId": obj.Object.ObjectID, "returnByValue": true, "functionDeclaration": `function() {
			const name = (x) => (x.getAttribute("aria-label") || (x.querySelector(":scope > title") || {}).textContent || "").trim();
			const icons = Array.from(this.querySelectorAll('[role="img"]:not(img), svg'), name).filter(Boolean);
			const titles = [];
			for (let p = this, n = 0; p && n < 3; p = p.parentElement, n++) if (p.title) titles.push(p.title.trim());
			const controls = Array.from(this.querySelectorAll('[role=checkbox],[role=radio],[role=button],input,button'), (x) => name(x)).filter(Boolean);
			const forBox = [];
			for (let p = this, n = 0; p && n < 3; p = p.parentElement, n++) {
				const l = p.id && document.querySelector('label[for="' + CSS.escape(p.id) + '"]');
				if (l) forBox.push(l.textContent.trim());
			}
			return JSON.stringify({Icons: icons, Titles: titles, Controls: controls, ForBox: forBox, Text: this.textContent.trim()});
		}`}, &res); err != nil {
			return err
		}
		return json.Unmarshal([]byte(res.Result.Value), &info)
	})
	if err != nil {
		t.Fatalf("%s: %v", r.Ref, err)
	}
	// Chrome's name without the names of the icons and (in a tree item)
	// of the controls.
	rest := " " + chrome + " "
	drop := info.Icons
	if r.Role == "treeitem" {
		drop = append(drop, info.Controls...)
	}
	for _, d := range drop {
		rest = strings.Replace(rest, " "+d+" ", " ", 1)
	}
	rest = strings.Join(strings.Fields(rest), " ")
	uniq := []string{}
	for _, i := range info.Icons {
		if !slices.Contains(uniq, i) {
			uniq = append(uniq, i)
		}
	}
	switch {
	case slices.Contains(info.ForBox, r.Name) && (chrome == "" || strings.Contains(line, ` = "`+chrome+`"`)):
		return true
	case rest != "" && rest == r.Name:
		return true
	case rest == "" && len(info.Icons) > 0 && (slices.Contains(info.Titles, r.Name) || r.Name == strings.Join(uniq, " ")):
		return true
	case regexp.MustCompile(`^\d{1,2}$`).MatchString(chrome) && chrome == info.Text && slices.Contains(info.Titles, r.Name):
		return true
	}
	return false
}

// listenersWithoutRefs finds, through Chrome's own record of listeners
// (DOMDebugger.getEventListeners over the whole document), the elements
// with a click, mousedown or pointerdown listener that a user can hit at
// their centre and that have no element with a data-wp-ref mark in or
// around them (up to three ancestors). The document's root elements are
// left out: their listeners are everyone's.
func listenersWithoutRefs(ctx context.Context, tab *browser.Tab) ([]string, int, error) {
	sess := tab.Target()
	var doc struct {
		Result struct {
			ObjectID string `json:"objectId"`
		} `json:"result"`
	}
	if err := sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": "document"}, &doc); err != nil {
		return nil, 0, err
	}
	var ls struct {
		Listeners []struct {
			Type          string `json:"type"`
			BackendNodeID int64  `json:"backendNodeId"`
		} `json:"listeners"`
	}
	if err := sess.Call(ctx, "DOMDebugger.getEventListeners", map[string]any{"objectId": doc.Result.ObjectID, "depth": -1, "pierce": true}, &ls); err != nil {
		return nil, 0, err
	}
	seen := map[int64]bool{}
	var out []string
	for _, l := range ls.Listeners {
		if l.BackendNodeID == 0 || seen[l.BackendNodeID] || (l.Type != "click" && l.Type != "mousedown" && l.Type != "pointerdown") {
			continue
		}
		seen[l.BackendNodeID] = true
		var obj struct {
			Object struct {
				ObjectID string `json:"objectId"`
			} `json:"object"`
		}
		if err := sess.Call(ctx, "DOM.resolveNode", map[string]any{"backendNodeId": l.BackendNodeID}, &obj); err != nil {
			return nil, 0, err
		}
		var res struct {
			Result struct {
				Value string `json:"value"`
			} `json:"result"`
		}
		err := sess.Call(ctx, "Runtime.callFunctionOn", map[string]any{"objectId": obj.Object.ObjectID, "returnByValue": true, "functionDeclaration": `function() {
			const el = this;
			if (el.nodeType !== 1 || el === document.body || el === document.documentElement || el.closest("[aria-hidden=true]")) return "";
			// the element or one of three ancestors (through shadow roots)
			for (let p = el, n = 0; p && n < 4; p = p.parentElement || (p.getRootNode() !== document ? p.getRootNode().host : null), n++) {
				if (p.hasAttribute("data-wp-ref")) return "";
			}
			if (el.querySelector("[data-wp-ref]")) return "";
			// a label whose control has the ref; a resize handle (a grid's
			// column separator), dragged, not clicked
			const forBox = el.tagName === "LABEL" && el.htmlFor ? el.getRootNode().getElementById(el.htmlFor) : null;
			if (el.tagName === "LABEL" && ((el.control && el.control.hasAttribute("data-wp-ref")) ||
				(forBox && (forBox.hasAttribute("data-wp-ref") || forBox.querySelector("[data-wp-ref]"))) ||
				(el.id && el.getRootNode().querySelector('[data-wp-ref][aria-labelledby~="' + CSS.escape(el.id) + '"]')))) return "";
			if (/^(col|row|ew|ns)-resize$/.test(getComputedStyle(el).cursor) || /separator|resiz/i.test(typeof el.className === "string" ? el.className : "")) return "";
			const r = el.getBoundingClientRect();
			// a modal's mask over the whole page (what a click on it does,
			// Escape or the close button do)
			if (!el.firstElementChild && !el.textContent.trim() && r.width >= innerWidth * 0.9 && r.height >= innerHeight * 0.9) return "";
			if (r.width < 2 || r.height < 2 || r.bottom < 0 || r.right < 0 || r.top > innerHeight || r.left > innerWidth) return "";
			const hit = el.getRootNode().elementFromPoint ? el.getRootNode().elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) : null;
			if (!hit || !(el === hit || el.contains(hit))) return "";
			return el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + "." + Array.from(el.classList).join(".") + " " + JSON.stringify(el.textContent.trim().slice(0, 40));
		}`}, &res)
		if err != nil {
			return nil, 0, err
		}
		if res.Result.Value != "" {
			out = append(out, res.Result.Value)
		}
	}
	return out, len(seen), nil
}

// refLine is the part of the snapshot's line for ref that describes it
// (up to the ":" of its content or the next ref).
func refLine(snap, ref string) string {
	for _, l := range strings.Split(snap, "\n") {
		i := strings.Index(l, " "+ref+" ")
		if i < 0 {
			i = strings.Index(l, " "+ref+":")
		}
		if i < 0 && strings.HasSuffix(l, " "+ref) {
			i = len(l) - len(ref) - 1
		}
		if i < 0 {
			continue
		}
		rest := l[i:]
		if j := regexp.MustCompile(` (e|f\d+e)\d+[ :]`).FindStringIndex(rest[1:]); j != nil {
			rest = rest[:j[0]+1]
		}
		return rest
	}
	return ""
}

// listenersChecked and checkedPages count, over a test, the elements with
// click listeners checkRolesAgainstChrome looked at and its pages: a check
// that found none looked at nothing.
var listenersChecked, checkedPages int

// waitSnap takes compact snapshots until one holds all of want.
func (e *env) waitSnap(want ...string) string {
	e.t.Helper()
	deadline := time.Now().Add(backendtest.Timeout(5 * time.Second))
	for {
		snap := e.snapshot(browser.ModeCompact)
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(snap, w)
		}
		if ok {
			return snap
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the snapshot never showed %q:\n%s", want, snap)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// waitEval evaluates expr until it gives want.
func (e *env) waitEval(expr, want string) {
	e.t.Helper()
	deadline := time.Now().Add(backendtest.Timeout(5 * time.Second))
	for {
		got := e.eval(expr)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s is %q, want %q", expr, got, want)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// clickRef clicks the ref of `role eN "name"` in snap.
func (e *env) clickRef(snap, role, name string) {
	e.t.Helper()
	ref := refOf(e.t, snap, role, name)
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: ref}}); err != nil {
		e.t.Fatalf("click %s %s %q: %v", ref, role, name, err)
	}
}

// typeRef types text into the ref of `role eN "name"` in snap.
func (e *env) typeRef(snap, role, name, text string) {
	e.t.Helper()
	ref := refOf(e.t, snap, role, name)
	if _, err := e.act(browser.Action{Kind: "type", Target: browser.Locator{Ref: ref}, Value: text}); err != nil {
		e.t.Fatalf("type into %s %s %q: %v", ref, role, name, err)
	}
}

func TestRolesMatchChrome(t *testing.T) {
	listenersChecked, checkedPages = 0, 0
	e := newEnv(t, browser.Options{})
	for _, page := range []string{"/basic.html", "/form.html", "/snap/clickables.html", "/snap/form-all.html", "/snap/landmarks.html",
		"/snap/modal.html", "/snap/heavy.html", "/snap/article.html", "/snap/shadow.html", "/snap/hidden.html", "/snap/relist.html", "/act/kinds.html", "/act/drag.html", "/long.html", "/ariamix", "/presentational",
		"/real/bs4-modal.html", "/real/react-root.html", "/widgets/jqui-widgets.html", "/widgets/bs5-widgets.html"} {
		e.navigate(page)
		e.snapshot(browser.ModeCompact)
		checkRolesAgainstChrome(t, e, page)
	}
	if listenersChecked < 10 {
		t.Errorf("only %d elements with click listeners were checked on %d pages", listenersChecked, checkedPages)
	}
}

// The widgets of the big UI libraries, each operated the way an agent
// does: snapshot, ref, action, on the library's own files. Every state on
// the way is checked against Chrome's accessibility tree.
func TestWidgetTasks(t *testing.T) {
	e := newEnv(t, browser.Options{})
	check := func(page string) { t.Helper(); checkRolesAgainstChrome(t, e, page) }
	out := `document.getElementById("out").textContent`

	t.Run("jQueryUIAutocomplete", func(t *testing.T) {
		e.t = t
		e.navigate("/widgets/jqui-autocomplete.html")
		snap := e.snapshot(browser.ModeCompact)
		// The instruction is whole, its inline words as on screen.
		if want := `Enter "Jerald" into the first field, pick the country from the list of suggestions that appears below it, and then press "Search" to see the flights that leave from the capital of the country in the year 1995.`; !strings.Contains(snap, want) {
			t.Errorf("the instruction is cut or bent:\n%s", snap)
		}
		// an array source, several matches
		e.typeRef(snap, "textbox", "Country (list):", "Ce")
		snap = e.waitSnap(`clickable`)
		check("autocomplete, array source")
		e.clickRef(snap, "clickable", "Central African Republic")
		e.waitEval(`document.getElementById("picked").textContent`, "Central African Republic")
		// a function source that answers late, one match
		e.typeRef(snap, "textbox", "Country (lookup):", "Pe")
		snap = e.waitSnap(`clickable e`, `"Peru"`)
		check("autocomplete, function source")
		e.clickRef(snap, "clickable", "Peru")
		e.waitEval(`document.getElementById("picked").textContent`, "Peru")
		e.waitEval(`document.getElementById("remote").value`, "Peru")
	})

	t.Run("jQueryUIWidgets", func(t *testing.T) {
		e.t = t
		e.navigate("/widgets/jqui-widgets.html")
		snap := e.snapshot(browser.ModeCompact)
		check("jQuery UI widgets")
		e.clickRef(snap, "link", "Proin dolor")
		e.waitEval(out, "tab Proin dolor")
		e.waitSnap("Second panel: morbi tincidunt.")
		snap = e.snapshot(browser.ModeCompact)
		e.clickRef(snap, "tab", "Section 2")
		e.waitEval(out, "section Section 2")
		e.waitSnap("Sed non urna. Donec et ante.")
		snap = e.snapshot(browser.ModeCompact)
		e.clickRef(snap, "menuitem", "Books")
		e.waitEval(out, "menu Books")
		// the selectmenu: its button, then an option of its list
		snap = e.snapshot(browser.ModeCompact)
		ref := regexp.MustCompile(`combobox (e\d+) "Select a speed" = "Medium" \[collapsed\]`).FindStringSubmatch(snap)[1]
		if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: ref}}); err != nil {
			t.Fatal(err)
		}
		snap = e.waitSnap(`option e`, `"Faster"`)
		check("jQuery UI selectmenu open")
		e.clickRef(snap, "option", "Fast")
		e.waitEval(out, "speed Fast")
		// the spinner and the slider take keys
		snap = e.snapshot(browser.ModeCompact)
		e.clickRef(snap, "spinbutton", "Amount:")
		if _, err := e.act(browser.Action{Kind: "press", Key: "ArrowUp"}); err != nil {
			t.Fatal(err)
		}
		e.waitEval(out, "spinner 6")
		m := regexp.MustCompile(`focusable (e\d+) \(\.ui-slider-handle`).FindStringSubmatch(snap)
		if m == nil {
			t.Fatalf("no ref for the slider's handle:\n%s", snap)
		}
		if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: m[1]}}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.act(browser.Action{Kind: "press", Key: "End"}); err != nil {
			t.Fatal(err)
		}
		e.waitEval(out, "slider 100")
		snap = e.snapshot(browser.ModeCompact)
		e.clickRef(snap, "button", "Open dialog")
		snap = e.waitSnap(`dialog`, `button e`, `"OK"`)
		check("jQuery UI dialog open")
		e.clickRef(snap, "button", "OK")
		e.waitEval(out, "dialog ok")
	})

	t.Run("jQueryUIDatepicker", func(t *testing.T) {
		e.t = t
		e.navigate("/widgets/jqui-datepicker.html")
		snap := e.snapshot(browser.ModeCompact)
		e.clickRef(snap, "textbox", "Date:")
		snap = e.waitSnap("March 2026", `link e`)
		check("datepicker open")
		e.clickRef(snap, "link", "17")
		e.waitEval(`document.getElementById("chosen").textContent`, "03/17/2026")
	})

	t.Run("Select2", func(t *testing.T) {
		e.t = t
		e.navigate("/widgets/select2.html")
		snap := e.snapshot(browser.ModeCompact)
		check("select2 closed")
		// The label of the <select> that Select2 hides is still the page's text.
		if !regexp.MustCompile(`(?m)^State$`).MatchString(snap) {
			t.Errorf("the label State is gone:\n%s", snap)
		}
		e.clickRef(snap, "combobox", "Alabama")
		snap = e.waitSnap(`option e`, `"Colorado"`)
		check("select2 open")
		e.clickRef(snap, "option", "Colorado")
		e.waitEval(`document.getElementById("chosen").textContent`, "CO")
	})

	t.Run("Bootstrap5", func(t *testing.T) {
		e.t = t
		e.navigate("/widgets/bs5-widgets.html")
		snap := e.snapshot(browser.ModeCompact)
		e.clickRef(snap, "button", "Actions")
		snap = e.waitSnap(`link e`, `"Archive"`)
		check("bootstrap dropdown open")
		e.clickRef(snap, "link", "Archive")
		e.waitEval(out, "archive")
		e.clickRef(snap, "button", "Change plan")
		snap = e.waitSnap(`"Change plan?"`, `button e`, `"Switch to Pro"`)
		check("bootstrap modal open")
		e.clickRef(snap, "button", "Switch to Pro")
		e.waitEval(out, "plan pro")
		e.waitEval(`document.querySelector(".modal-backdrop") === null ? "gone" : "there"`, "gone")
		snap = e.snapshot(browser.ModeCompact)
		e.clickRef(snap, "button", "Filters")
		snap = e.waitSnap(`checkbox e`, `"Only open invoices"`)
		check("bootstrap offcanvas open")
		e.clickRef(snap, "checkbox", "Only open invoices")
		e.clickRef(snap, "button", "Apply")
		e.waitEval(out, "filters true")
		e.waitEval(`document.querySelector(".offcanvas-backdrop") === null ? "gone" : "there"`, "gone")
		snap = e.snapshot(browser.ModeCompact)
		e.clickRef(snap, "tab", "Billing")
		e.waitSnap("Your next invoice is due on 1 April.")
		e.clickRef(snap, "button", "Can I cancel?")
		e.waitSnap("Yes, at any time before renewal.")
		e.clickRef(snap, "button", "Save draft")
		e.waitSnap("Draft saved.")
		check("bootstrap toast shown")
	})

	t.Run("Terminal", func(t *testing.T) {
		e.t = t
		e.navigate("/widgets/terminal.html")
		snap := e.snapshot(browser.ModeCompact)
		// Its name is its label; what it prints stays text lines.
		if !regexp.MustCompile(`clickable e\d+ "terminal":\n +Welcome! Type help for a list of available commands\.\n`).MatchString(snap) {
			t.Errorf("the terminal's output is not its text:\n%s", snap)
		}
		check("terminal")
		// Typed into by its ref: not a text field, but it takes the focus
		// and reads the keys.
		res, err := e.act(browser.Action{Kind: "type", Target: browser.Locator{Ref: refOf(t, snap, "clickable", "terminal")}, Value: "help"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Note, "not a text field") {
			t.Errorf("typing into the terminal does not say it is no text field: %+v", res)
		}
		// A button is no place for keys: typing into it stays an error.
		e.navigate("/basic.html")
		snap = e.snapshot(browser.ModeCompact)
		_, err = e.act(browser.Action{Kind: "type", Target: browser.Locator{Ref: regexp.MustCompile(`button (e\d+)`).FindStringSubmatch(snap)[1]}, Value: "x"})
		wantCode(t, err, browser.CodeNotActionable)
		if err == nil || !strings.Contains(err.Error(), "cannot type into") {
			t.Errorf("typing into a button: %v", err)
		}
		e.navigate("/widgets/terminal.html")
		snap = e.snapshot(browser.ModeCompact)
		if _, err := e.act(browser.Action{Kind: "type", Target: browser.Locator{Ref: refOf(t, snap, "clickable", "terminal")}, Value: "help"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.act(browser.Action{Kind: "press", Key: "Enter"}); err != nil {
			t.Fatal(err)
		}
		snap = e.waitSnap("Commands:")
		for _, want := range []string{"$ help", "date show the date", "clear clear the screen"} {
			if !strings.Contains(snap, want) {
				t.Errorf("the output line %q is not in the snapshot:\n%s", want, snap)
			}
		}
	})

	t.Run("React18Listbox", func(t *testing.T) {
		e.t = t
		e.navigate("/widgets/react-listbox.html")
		snap := e.snapshot(browser.ModeCompact)
		e.clickRef(snap, "combobox", "Favourite fruit")
		snap = e.waitSnap(`option e`, `"Cherry"`)
		check("react listbox open")
		e.clickRef(snap, "option", "Cherry")
		e.waitSnap("Chosen: Cherry")
	})
}
