// One check of browser_wait's target conditions in one frame, run in the
// walker's world (W is the walker). cs are the conditions of this frame:
// {i, sel | text | role (+name, exact) | ref, within | withinRef, all}; o
// is {ms (pattern budget), frames (list the shown iframes), diag (say more
// about what was seen)}. For each condition it counts the matches attached
// (a: only when all or diag is set for text), shown (s) and shown and
// enabled (e), and says why a match is hidden (why) or what is near
// (near). A selector that is not valid CSS is {bad}; an agent pattern that
// ran out of time {busy}.
async (W, cs, o) => {
  const out = { url: location.href, title: document.title, r: [] };
  const desc = (el) => {
    const t = el.tagName.toLowerCase();
    const c = typeof el.className === "string" && el.className.trim() ? "." + el.className.trim().split(/\s+/).slice(0, 2).join(".") : "";
    return t + (el.id ? "#" + el.id : c);
  };
  // seen says an element is rendered with a box (aria-hidden does not
  // matter here: spinners are often aria-hidden and still on screen).
  const seen = (el) => {
    if (!el.isConnected) return false;
    if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 || r.height > 0;
  };
  const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) || null;
  const whyHidden = (el) => {
    if (!el.isConnected) return "removed";
    for (let n = el; n; n = up(n)) {
      const st = getComputedStyle(n);
      if (st.display === "none") return n === el ? "display:none" : "display:none on " + desc(n);
      if (st.contentVisibility === "hidden" && n !== el) return "content-visibility:hidden on " + desc(n);
    }
    const st = getComputedStyle(el);
    if (st.visibility !== "visible") return "visibility:" + st.visibility;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return "zero size";
    if (el.closest('[aria-hidden="true"]')) return "aria-hidden";
    return "not rendered";
  };
  const enabled = (el) => !(el.matches && el.matches(":disabled")) && el.getAttribute("aria-disabled") !== "true";
  const byRef = (x) => {
    if (!x || W.doc !== x.doc) return null;
    const r = W.resolve(x.wid, x.fp);
    return r && r.level !== "stale" && r.id ? W.get(r.id) : null;
  };
  // allText is the text of root's subtree, open shadow roots included,
  // shown or not, with runs of white space as one space.
  const allText = (root) => {
    const parts = [];
    const walk = (n) => {
      for (let c = n.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) parts.push(c.data);
        else if (c.nodeType === 1) {
          if (/^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE)$/i.test(c.tagName)) continue;
          if (c.shadowRoot) walk(c.shadowRoot);
          walk(c);
        }
      }
    };
    walk(root);
    return W.unsecret(parts.join(" ").replace(/\s+/g, " ").trim());
  };
  const textIn = async (c, texts) => {
    if (W.isPattern(c.text)) {
      const r = await W.rxAll(texts.map((s) => [c.text, s]), o.ms);
      if (r.busy) return { busy: r.busy };
      return { n: r.res.filter(Boolean).length };
    }
    const p = c.text.replace(/\s+/g, " ").trim().toLowerCase();
    return { n: texts.filter((s) => (c.exact ? s.toLowerCase() === p : s.toLowerCase().includes(p))).length };
  };
  for (const c of cs) {
    const r = { i: c.i, a: 0, s: 0, e: 0 };
    out.r.push(r);
    let roots = [null];
    if (c.withinRef) {
      const w = byRef(c.withinRef);
      roots = w ? [w] : [];
      if (!w) r.why = "within " + c.withinName + " is no longer in the page";
    } else if (c.within) {
      try {
        roots = Array.from(document.querySelectorAll(c.within));
      } catch (e) {
        return { bad: "within " + JSON.stringify(c.within) + " is not a valid CSS selector" };
      }
      if (!roots.length) r.why = "nothing matches within " + JSON.stringify(c.within);
    }
    if (c.ref) {
      const el = byRef(c.ref);
      if (el) {
        r.a = 1;
        if (seen(el)) {
          r.s = 1;
          if (enabled(el)) r.e = 1;
        } else r.why = whyHidden(el);
      }
      continue;
    }
    if (c.sel) {
      let all = [];
      try {
        for (const root of roots) all.push(...(root || document).querySelectorAll(c.sel));
      } catch (e) {
        return { bad: "selector " + JSON.stringify(c.sel) + " is not a valid CSS selector" };
      }
      all = [...new Set(all)];
      r.a = all.length;
      for (const el of all) {
        if (!seen(el)) {
          if (!r.why) r.why = whyHidden(el);
          continue;
        }
        r.s++;
        if (enabled(el)) r.e++;
      }
      continue;
    }
    // text or role: the walker's query, as browser_find and actions see it
    const near = [];
    for (const root of roots) {
      const q = await W.find({ text: c.text || "", role: c.role || "", name: c.name || "", exact: !!c.exact }, root, o.ms);
      if (q.busy) return { busy: q.busy };
      r.s += q.count;
      for (const h of q.hits.slice(0, q.count)) {
        const el = W.get(h.id);
        if (el && enabled(el)) r.e++;
      }
      if (!q.count && q.near) for (const h of q.near) if (near.length < 3) near.push(h.r + ' "' + String(h.n).slice(0, 40) + '"');
    }
    if (near.length && o.diag) r.near = near;
    r.a = r.s;
    if (c.text && (c.all || (o.diag && !r.s))) {
      const texts = roots.map((root) => allText(root || document.body || document.documentElement));
      const t = await textIn(c, texts);
      if (t.busy) return { busy: t.busy };
      r.a = Math.max(r.s, t.n);
    }
  }
  if (o.frames) {
    const frames = [];
    const walk = (n) => {
      for (let c = n.firstElementChild; c; c = c.nextElementSibling) {
        if (c.tagName === "IFRAME" || c.tagName === "FRAME") {
          if (seen(c)) frames.push(W.idOf(c));
          continue;
        }
        if (c.shadowRoot) walk(c.shadowRoot);
        walk(c);
      }
    };
    walk(document.documentElement || document);
    out.frames = frames;
  }
  return out;
}
