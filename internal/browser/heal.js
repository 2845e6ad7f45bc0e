// Element descriptors and self-healing relocation, run in the walker's
// world (W is the walker).
//
// op "describe": el is the element; returns its candidates (see heal.go:
// Candidates): fingerprint, CSS candidates by confidence, short visible
// text, position among similar siblings.
//
// op "selector": a selector unique in the document for el ("" when none).
//
// op "relocate": a is {primary: {sel | text | role (+name, exact), within},
// c: the candidates, ms: pattern budget}. Every way of finding the element
// is tried in confidence order, and each try reports how many shown
// elements it matched and which (walker numbers); the matches, and the
// shown elements of the same tag (the look-alikes a match must stand out
// from), come back with their fingerprints. Go scores and decides. Open
// shadow roots are searched; a selector that is not valid CSS is {bad}, an
// agent pattern that ran out of time {busy}; pending says the very element
// may still come (matched but not shown yet, or the document loading).
async (W, op, el, a) => {
  const norm = (s) => String(s || "").replace(/[\s\u00a0\u200b]+/g, " ").trim();
  const TESTID = ["data-testid", "data-test-id", "data-test", "data-qa", "data-cy"];
  const ATTRS = ["name", "aria-label", "href", "placeholder", "title", "alt", "for"];
  const testIdOf = (e) => {
    for (const n of TESTID) {
      const v = e.getAttribute(n);
      if (v) return [n, v];
    }
    return null;
  };
  // stableId says an id looks written by a person, not generated per
  // build or per render (React's :r1:, ember123, long numbers or hex).
  const stableId = (id) => !!id && id.length < 60 && !/\d{4,}|[0-9a-f]{8,}|^:|^(ember|ext-gen|gen|yui|uid|mui-|radix-|headlessui-)/i.test(id);
  const cssq = (v) => '"' + String(v).replace(/["\\]/g, "\\$&").replace(/\n/g, "\\a ") + '"';
  const hrefOf = (e) => {
    const h = e.getAttribute("href");
    if (!h || (e.tagName !== "A" && e.tagName !== "AREA")) return "";
    try {
      const u = new URL(h, location.href);
      return u.origin === location.origin ? u.pathname + u.search : u.href;
    } catch (x) {
      return h;
    }
  };
  const shown = (e) => {
    if (!e.isConnected) return false;
    if (e.checkVisibility && !e.checkVisibility({ visibilityProperty: true })) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 || r.height > 0 || (e.tagName === "INPUT" && (e.type === "checkbox" || e.type === "radio"));
  };
  // kind tells elements of one tag apart cheaply: the role attribute and
  // an input's type (what the role depends on).
  const kind = (e) => e.tagName.toLowerCase() + "|" + (e.getAttribute("role") || "") + "|" + (e.tagName === "INPUT" ? e.type : "");
  const textOf = (e) => {
    if (e.tagName === "INPUT") return /^(button|submit|reset)$/i.test(e.type) ? norm(e.value) : "";
    if (e.tagName === "SELECT" || e.tagName === "TEXTAREA") return "";
    return norm(e.innerText);
  };
  const fpFrom = (e, h) => {
    const tid = testIdOf(e);
    return {
      tag: e.tagName.toLowerCase(), role: h.r, name: h.n.slice(0, 200), id: e.id || "", test_id: tid ? tid[1] : "",
      type: e.tagName === "INPUT" || e.tagName === "BUTTON" ? String(e.type || "").toLowerCase() : "",
      name_attr: e.getAttribute("name") || "", href: hrefOf(e), placeholder: e.getAttribute("placeholder") || "",
      context: (h.p && h.p[3]) || "",
    };
  };
  // tagIx is el's place among its same-tag siblings (1-based) and their count.
  const tagIx = (e) => {
    let k = 1, n = 0;
    const first = e.parentElement ? e.parentElement.firstElementChild : e.parentNode ? e.parentNode.firstElementChild : null;
    for (let s = first; s; s = s.nextElementSibling) {
      if (s.tagName === e.tagName) {
        n++;
        if (s === e) k = n;
      }
    }
    return [k, n];
  };
  const within = (root, s) => {
    try {
      return Array.from(root.querySelectorAll(s));
    } catch (x) {
      return null;
    }
  };
  const only = (root, e, s) => {
    const m = within(root, s);
    return !!m && m.length === 1 && m[0] === e;
  };
  // structural is the shortest tag:nth-of-type path that is unique in
  // root, anchored at an ancestor with a stable id or going up to body.
  const structural = (e, root) => {
    const parts = [];
    for (let n = e; n && n.nodeType === 1; n = n.parentElement) {
      if (n !== e && n.id && stableId(n.id)) {
        parts.unshift("#" + CSS.escape(n.id));
        const s = parts.join(" > ");
        return only(root, e, s) ? s : "";
      }
      const t = n.tagName.toLowerCase();
      const [k, c] = tagIx(n);
      parts.unshift(c > 1 ? t + ":nth-of-type(" + k + ")" : t);
      const s = parts.join(" > ");
      if (only(root, e, s)) return s;
      if (n.tagName === "BODY" || parts.length >= 10) break;
    }
    return "";
  };
  // uniqueSel is a selector unique in the document for e ("" inside a
  // shadow root, which selectors do not reach).
  const uniqueSel = (e) => {
    if (e.getRootNode() !== document) return "";
    if (e.id && only(document, e, "#" + CSS.escape(e.id))) return "#" + CSS.escape(e.id);
    const t = e.tagName.toLowerCase();
    for (const n of [...TESTID, ...ATTRS]) {
      const v = e.getAttribute(n);
      if (!v) continue;
      const s = (TESTID.includes(n) ? "" : t) + "[" + n + "=" + cssq(v) + "]";
      if (only(document, e, s)) return s;
    }
    return structural(e, document);
  };

  if (op === "selector") return el ? uniqueSel(el) : "";

  if (op === "describe") {
    const h = W.hit(el);
    const fp = fpFrom(el, h);
    const root = el.getRootNode();
    const css = [];
    if (el.id && stableId(el.id) && only(root, el, "#" + CSS.escape(el.id))) css.push({ kind: "id", selector: "#" + CSS.escape(el.id) });
    let attrs = 0;
    for (const n of [...TESTID, ...ATTRS]) {
      const v = el.getAttribute(n);
      if (!v || attrs >= 3) continue;
      const s = (TESTID.includes(n) ? "" : fp.tag) + "[" + n + "=" + cssq(v) + "]";
      if (only(root, el, s)) {
        css.push({ kind: "attr", selector: s });
        attrs++;
      }
    }
    const st = structural(el, root);
    if (st && !css.some((c) => c.selector === st)) css.push({ kind: "structural", selector: st });
    const out = { fingerprint: fp, css };
    const text = textOf(el);
    if (text && text.length <= 80) out.text = text;
    // similar: other shown elements with the same role and name now
    if (fp.name && !W.isPattern(fp.name)) {
      const q = W.query({ role: fp.role, name: fp.name, exact: true }, null);
      if (q.count > 1) fp.similar = q.count - 1;
    }
    // position: the nearest ancestor-or-self repeated among its siblings
    // (a list item, a card, a row) gives the group of similar elements.
    let item = el;
    for (let i = 0; item && item.parentElement && i < 6; i++, item = item.parentElement) {
      const p = item.parentElement;
      if (tagIx(item)[1] < 2) continue;
      const pt = p.tagName.toLowerCase() + (p.id && stableId(p.id) ? "#" + CSS.escape(p.id) : "");
      const it = item.tagName.toLowerCase();
      const sel = item === el ? pt + " > " + it : pt + " > " + it + " " + fp.tag;
      const group = (within(root, sel) || []).filter((e) => kind(e) === kind(el) && shown(e));
      const ix = group.indexOf(el);
      if (ix >= 0 && group.length > 1) {
        out.position = { selector: sel, index: ix, count: group.length, kind: kind(el) };
        break;
      }
    }
    return out;
  }

  // relocate
  const c = a.c || {};
  const fp = c.fingerprint || {};
  let nodes = null;
  const allEls = () => {
    if (nodes) return nodes;
    nodes = [];
    const visit = (r) => {
      const tw = document.createTreeWalker(r, NodeFilter.SHOW_ELEMENT);
      for (let n = tw.nextNode(); n; n = tw.nextNode()) {
        nodes.push(n);
        if (n.shadowRoot) visit(n.shadowRoot);
      }
    };
    visit(document);
    return nodes;
  };
  const deepQ = (s) => {
    const out = within(document, s);
    if (!out) return null;
    for (const n of allEls()) if (n.shadowRoot) out.push(...n.shadowRoot.querySelectorAll(s));
    return out;
  };
  const els = new Map();
  const note = (e, sel) => {
    const h = W.hit(e);
    let x = els.get(h.id);
    if (!x) els.set(h.id, (x = { k: h.id, fp: fpFrom(e, h), p: h.p }));
    if (sel && x.sel === undefined) x.sel = uniqueSel(e);
    return h.id;
  };
  const tries = [];
  // pending: the very element may be on its way: the step's own locator,
  // its id or an attribute candidate matches elements of the document none
  // of which is shown yet (a modal fading in), or the document is still
  // loading. Go waits for it before taking a look-alike; when it is plainly
  // gone (no match at all), the other candidates decide at once.
  let pending = document.readyState !== "complete";
  const add = (via, what, list) => {
    const vis = list.filter(shown);
    if (vis.length === 0 && list.length > 0 && (via === "primary" || via === "id" || via === "attr")) pending = true;
    tries.push({ via, what, n: vis.length, ks: vis.slice(0, 10).map((e) => note(e, true)) });
    return vis.length;
  };
  const fromHits = (r) => r.hits.slice(0, r.count).map((h) => W.get(h.id)).filter(Boolean);

  const pr = a.primary || {};
  let root = document;
  if (pr.within) {
    // a container by a role and a text it holds (row "A-1002"), or CSS
    const rt = /^\s*([a-z]+)\s+"(.+)"\s*$/.exec(pr.within);
    let r;
    if (rt) {
      const f = await W.find({ role: rt[1], contains: rt[2] }, null, a.ms);
      if (f.busy) return { busy: f.busy };
      r = fromHits(f);
    } else {
      r = within(document, pr.within);
    }
    if (r === null) return { bad: pr.within + " (within) is not a valid CSS selector" };
    root = r.length === 1 ? r[0] : null;
    if (!root) tries.push({ via: "primary", what: "within " + pr.within + ": " + r.length + " elements", n: 0, ks: [] });
  }
  if (root) {
    if (pr.sel) {
      const m = root === document ? deepQ(pr.sel) : within(root, pr.sel);
      if (m === null) return { bad: JSON.stringify(pr.sel) + " is not a valid CSS selector" };
      add("primary", "selector " + pr.sel, m);
    } else if (pr.text || pr.role) {
      const r = await W.find({ text: pr.text, role: pr.role, name: pr.name, exact: !!pr.exact }, root === document ? null : root, a.ms);
      if (r.busy) return { busy: r.busy };
      const m = fromHits(r);
      if (r.count === 0 && r.unseen) pending = true;
      tries.push({ via: "primary", what: pr.text ? "text " + JSON.stringify(pr.text) : "role " + pr.role + (pr.name ? " " + JSON.stringify(pr.name) : ""), n: r.count, ks: m.slice(0, 10).map((e) => note(e, true)) });
    }
  }
  // The step's own locator finding the very element (same identity, same
  // context) ends the search: the common case of an unchanged page.
  if (tries.length === 1 && tries[0].n === 1) {
    const x = els.get(tries[0].ks[0]);
    if (x && ["tag", "role", "name", "id", "test_id", "type", "name_attr", "href", "placeholder", "context"].every((f) => (x.fp[f] || "") === (fp[f] || ""))) {
      return { doc: W.doc, url: location.href, tries, els: [x] };
    }
  }
  for (const kind of ["id", "attr"]) {
    for (const cc of c.css || []) {
      if (cc.kind !== kind) continue;
      const m = deepQ(cc.selector);
      if (m) add(kind, cc.selector, m);
    }
  }
  const sameTag = () => allEls().filter((e) => e.tagName.toLowerCase() === fp.tag);
  if (c.text) {
    const loose = (s) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
    const want = loose(c.text);
    const pool = sameTag().filter((e) => {
      if (e.tagName === "INPUT") return true;
      const tc = loose(e.textContent || "");
      return want.length >= 3 ? tc.includes(want) || (tc.length >= 3 && want.includes(tc)) : tc === want;
    });
    const texts = pool.map((e) => [e, textOf(e)]);
    if (add("text", "text " + JSON.stringify(c.text), texts.filter(([, t]) => t === c.text).map(([e]) => e)) === 0 &&
        add("text", "text ~" + JSON.stringify(c.text), texts.filter(([, t]) => t && loose(t) === want).map(([e]) => e)) === 0 && want.length >= 3) {
      add("text", "text containing " + JSON.stringify(c.text), texts.filter(([, t]) => {
        const l = loose(t);
        return l.length >= 3 && (l.includes(want) || want.includes(l));
      }).map(([e]) => e));
    }
  }
  if (fp.role && fp.name && !W.isPattern(fp.name)) {
    const r = W.query({ role: fp.role, name: fp.name, exact: true }, null);
    const what = "role " + fp.role + " " + JSON.stringify(fp.name);
    if (add("role", what, fromHits(r)) === 0) {
      const r2 = W.query({ role: fp.role, name: fp.name }, null);
      add("role", what + " (in a longer name)", fromHits(r2));
    }
  }
  for (const cc of c.css || []) {
    if (cc.kind !== "structural") continue;
    const m = deepQ(cc.selector);
    if (m) add("structural", cc.selector, m);
  }
  if (c.position && c.position.selector) {
    const g = (deepQ(c.position.selector) || []).filter((e) => e.tagName.toLowerCase() === fp.tag && (!c.position.kind || kind(e) === c.position.kind) && shown(e));
    const e = g[c.position.index];
    add("position", "#" + (c.position.index + 1) + " of " + c.position.selector + " (" + g.length + " now, " + (c.position.count || "?") + " before)", e ? [e] : []);
  }
  // the look-alikes: shown elements of the same tag (at most 300, those
  // sharing a word of the name first)
  let pool = sameTag().filter(shown);
  if (pool.length > 300) {
    const words = norm(fp.name).toLowerCase().split(" ").filter((w) => w.length > 2);
    const share = (e) => words.some((w) => (e.textContent || "").toLowerCase().includes(w)) || (fp.id && e.id === fp.id);
    pool = pool.filter(share).concat(pool.filter((e) => !share(e))).slice(0, 300);
  }
  for (const e of pool) note(e, false);
  // settling: the document changed in the last 300 ms (or was not watched
  // yet): a page still rendering its next view may yet show the element.
  const since = W.sinceMutation();
  return { doc: W.doc, url: location.href, tries, els: Array.from(els.values()), pending, settling: since < 0 || since < 300 };
}
