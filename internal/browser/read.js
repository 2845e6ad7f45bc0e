// browser_read's page side: an expression that evaluates to a function
// (root, o) → {text, url, title, …}. root is the target element, or null for
// the whole document of the frame it runs in. It runs in the walker's
// isolated world (the page's scripts cannot change what it uses) and reads
// the DOM the page shares with that world: open shadow roots are read in
// place of their host's light children (slots resolved); closed ones and
// iframes are not entered.
//
// o.what: text | markdown | main | html | outer_html | attribute | value |
// title | url; o.attribute names the attribute; o.scroll = {steps, pause}
// scrolls down first (lazy content) and says where it ended.
((root, o) => {
  const doc = document;
  const out = { url: location.href, title: doc.title };
  const LIMIT = 10000000; // the most one read sends back (UTF-16 units)

  const BLOCK = new Set(["ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "BODY", "CENTER", "DETAILS", "DIALOG", "DD", "DIV", "DL", "DT",
    "FIELDSET", "FIGCAPTION", "FIGURE", "FOOTER", "FORM", "H1", "H2", "H3", "H4", "H5", "H6", "HEADER", "HGROUP", "HR", "HTML", "LI",
    "MAIN", "NAV", "OL", "P", "PRE", "SECTION", "SUMMARY", "TABLE", "UL", "MENU", "SEARCH"]);
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE", "IFRAME", "FRAME", "OBJECT",
    "EMBED", "CANVAS", "SVG", "svg", "MATH", "AUDIO", "VIDEO", "SOURCE", "TRACK", "MAP", "AREA", "DATALIST"]);
  // What the main content never holds: page chrome, forms and widgets.
  const CHROME = new Set(["NAV", "ASIDE", "FOOTER", "FORM", "BUTTON", "INPUT", "SELECT", "TEXTAREA", "DIALOG", "MENU", "SEARCH", "LABEL"]);
  const CHROME_ROLES = /^(navigation|complementary|contentinfo|banner|search|dialog|alertdialog|menu|menubar|toolbar|form)$/;
  // Class and id words of boilerplate: ads, promotions, sharing, related
  // links, cookie banners, newsletter boxes, comments, sidebars.
  const JUNK = /^(ad|ads|adv|advert|advertisement|advertising|adslot|adunit|adsbygoogle|adbox|sponsor|sponsored|sponsors|promo|promos|promoted|promotion|share|shares|sharing|sharebar|social|related|recommended|recommendations|more-stories|cookie|cookies|consent|gdpr|newsletter|subscribe|subscription|signup|comment|comments|disqus|popup|modal|sidebar|widget|widgets|outbrain|taboola|breadcrumb|breadcrumbs|skip|skiplink|banner-ad|paywall|toc)$/i;
  const junkWords = (el) => {
    const s = ((typeof el.className === "string" ? el.className : "") + " " + (el.id || "")).toLowerCase();
    if (!s.trim()) return false;
    return s.split(/[^a-z0-9]+/).some((w) => w && JUNK.test(w)) || /(^|[\s_-])(ad|sponsor|promo|related|cookie|newsletter|comment)s?-/.test(s);
  };

  const styleOf = (el) => { try { return getComputedStyle(el); } catch (e) { return null; } };
  // hidden: not rendered, or (in main) hidden from people in other ways.
  function hidden(el, strict) {
    if (el.hidden && el.tagName !== "DETAILS") return true;
    const st = styleOf(el);
    if (!st) return false;
    if (st.display === "none" || st.visibility === "hidden" || st.visibility === "collapse") return true;
    if (!strict) return false;
    if (el.getAttribute("aria-hidden") === "true" || st.opacity === "0") return true;
    if (st.display !== "contents" && (st.overflow === "hidden" || st.clip !== "auto" || st.clipPath !== "none")) {
      const r = el.getBoundingClientRect();
      if (r.width <= 1 && r.height <= 1) return true; // visually hidden (sr-only)
    }
    return false;
  }
  const isBlock = (el) => {
    if (BLOCK.has(el.tagName) || el.shadowRoot || el.tagName.includes("-")) return true;
    const d = (styleOf(el) || {}).display || "";
    return /^(block|flex|grid|table|list-item|flow-root)/.test(d);
  };
  // kids are an element's children as rendered: a shadow root's instead of
  // the light ones, a slot's assigned nodes (or its fallback content).
  function kids(n) {
    if (n.shadowRoot) return Array.from(n.shadowRoot.childNodes);
    if (n.tagName === "SLOT") {
      const a = n.assignedNodes({ flatten: true });
      return a.length ? a : Array.from(n.childNodes);
    }
    if (n.tagName === "TEMPLATE") return [];
    return Array.from(n.childNodes);
  }

  // ---- text ----
  // textOf is el's innerText, with the text of open shadow roots in place:
  // innerText reads the light DOM only, so the elements on the way to a
  // shadow host (or a slot) are read child by child in the flat tree, and
  // everything else by innerText.
  function textOf(el) {
    const need = new Set();
    const up = (n) => {
      for (let x = n; x && x !== el && !need.has(x); ) {
        need.add(x);
        x = x.parentNode;
        if (x && x.nodeType === 11) x = x.host;
      }
    };
    const scan = (root) => {
      for (const h of root.querySelectorAll("*")) {
        if (!h.shadowRoot) continue;
        up(h);
        for (const sl of h.shadowRoot.querySelectorAll("slot")) up(sl);
        scan(h.shadowRoot);
      }
    };
    if (el.shadowRoot) { scan(el.shadowRoot); for (const sl of el.shadowRoot.querySelectorAll("slot")) up(sl); }
    scan(el);
    if (!need.size && !el.shadowRoot) return el.innerText !== undefined ? el.innerText : el.textContent;
    need.add(el);
    const walk = (n) => {
      if (n.nodeType === 3) return n.data.replace(/[ \t\r\n]+/g, " ");
      if (n.nodeType !== 1 || SKIP.has(n.tagName) || hidden(n, false)) return "";
      if (n.tagName === "BR") return "\n";
      const t = need.has(n) ? kids(n).map(walk).join("") : (n.innerText !== undefined ? n.innerText : n.textContent);
      return isBlock(n) ? "\n" + t + "\n" : t;
    };
    return walk(el).replace(/ *\n */g, "\n");
  }

  // ---- markdown ----
  function Md(strict, dropped) {
    const seen = new Map();
    const skip = (el) => {
      let v = seen.get(el);
      if (v === undefined) {
        v = SKIP.has(el.tagName) || hidden(el, strict) || (strict && dropped(el));
        seen.set(el, v);
      }
      return v;
    };
    const ws = (s) => s.replace(/[\s\u00a0]+/g, " ");
    const wrap = (s, m) => {
      const x = /^(\s*)([\s\S]*?)(\s*)$/.exec(s);
      return x[2] ? x[1] + m + x[2] + m + x[3] : s;
    };
    function inline(n) {
      if (n.nodeType === 3) return ws(n.data);
      if (n.nodeType !== 1 || skip(n)) return "";
      const tag = n.tagName;
      const inner = () => kids(n).map(inline).join("");
      switch (tag) {
        case "BR": return "\n";
        case "STRONG": case "B": return wrap(inner(), "**");
        case "EM": case "I": case "CITE": return wrap(inner(), "*");
        case "DEL": case "S": case "STRIKE": return wrap(inner(), "~~");
        case "CODE": case "KBD": case "SAMP": case "TT": {
          const t = ws(n.textContent);
          if (!t.trim()) return t;
          const f = t.includes("`") ? "``" : "`";
          return f + t.trim() + f;
        }
        case "IMG": {
          const alt = ws(n.getAttribute("alt") || "").trim();
          if (!alt) return "";
          const src = n.currentSrc || n.src || "";
          return /^https?:/.test(src) ? "![" + alt + "](" + src + ")" : "![" + alt + "]";
        }
        case "A": {
          const t = inner();
          const core = t.trim().replace(/\s*\n\s*/g, " ");
          const href = n.getAttribute("href") ? n.href : "";
          if (!core) return t;
          if (!href || /^javascript:/i.test(href)) return t;
          const x = /^(\s*)/.exec(t)[1], y = /(\s*)$/.exec(t)[1];
          return x + "[" + core + "](" + href.replace(/ /g, "%20").replace(/\)/g, "%29") + ")" + y;
        }
        case "INPUT": case "SELECT": case "TEXTAREA": return "";
      }
      if (isBlock(n)) return " " + block(n).replace(/\s+/g, " ") + " ";
      return inner();
    }
    // para turns an inline run into a paragraph: spaces collapsed, lines
    // trimmed, blank ends dropped.
    const para = (s) => s.split("\n").map((l) => l.replace(/ +/g, " ").trim()).join("\n").replace(/^\n+|\n+$/g, "").replace(/\n{2,}/g, "\n");
    // blocks renders a node list as blocks separated by blank lines.
    function blocks(nodes) {
      const parts = [];
      let run = "";
      const flush = () => { const p = para(run); if (p) parts.push(p); run = ""; };
      for (const n of nodes) {
        if (n.nodeType === 1 && !skip(n) && isBlock(n)) {
          flush();
          const b = block(n);
          if (b.trim()) parts.push(b);
        } else {
          run += inline(n);
        }
      }
      flush();
      return parts.join("\n\n");
    }
    function block(n) {
      if (skip(n)) return "";
      const tag = n.tagName;
      const h = /^H([1-6])$/.exec(tag);
      if (h) {
        const t = para(kids(n).map(inline).join("")).replace(/\n/g, " ");
        return t ? "#".repeat(+h[1]) + " " + t : "";
      }
      switch (tag) {
        case "HR": return "---";
        case "PRE": return fence(n);
        case "UL": case "OL": case "MENU": return list(n);
        case "TABLE": return table(n);
        case "BLOCKQUOTE": {
          const b = blocks(kids(n));
          return b ? b.split("\n").map((l) => (l ? "> " + l : ">")).join("\n") : "";
        }
        case "DT": { const t = para(kids(n).map(inline).join("")); return t ? "**" + t.replace(/\n/g, " ") + "**" : ""; }
        case "DD": { const t = blocks(kids(n)); return t ? ": " + t : ""; }
      }
      return blocks(kids(n));
    }
    function fence(n) {
      const code = n.querySelector("code");
      const cls = ((code && code.className) || "") + " " + (n.className || "");
      const lang = (/(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(cls) || [])[1] || "";
      const text = n.textContent.replace(/\n$/, "");
      if (!text.trim()) return "";
      let f = "```";
      while (text.includes(f)) f += "`";
      return f + lang + "\n" + text + "\n" + f;
    }
    function list(n) {
      const ordered = n.tagName === "OL";
      let i = ordered ? (parseInt(n.getAttribute("start"), 10) || 1) : 0;
      const items = [];
      for (const li of kids(n)) {
        if (li.nodeType !== 1 || skip(li)) continue;
        const body = li.tagName === "LI" ? blocks(kids(li)) : block(li);
        if (!body.trim()) continue;
        const mark = ordered ? (i++) + ". " : "- ";
        const pad = " ".repeat(mark.length);
        const lines = body.split("\n").filter((l, k, all) => l.trim() || inFence(all, k));
        items.push(mark + lines[0] + lines.slice(1).map((l) => "\n" + (l ? pad + l : l)).join(""));
      }
      return items.join("\n");
    }
    // inFence says line k of lines is inside a code fence (blank lines
    // there are code).
    function inFence(lines, k) {
      let open = false;
      for (let j = 0; j < k; j++) if (/^`{3,}/.test(lines[j].trim())) open = !open;
      return open;
    }
    function rowsOf(t) {
      const rows = [];
      const add = (sec) => { for (const r of sec.children) if (r.tagName === "TR" && !skip(r)) rows.push(r); };
      for (const c of t.children) {
        if (c.tagName === "TR") { if (!skip(c)) rows.push(c); } else if (/^(THEAD|TBODY|TFOOT)$/.test(c.tagName) && !skip(c)) add(c);
      }
      return rows;
    }
    function table(t) {
      const rows = rowsOf(t);
      const cells = rows.map((r) => Array.from(r.children).filter((c) => /^(TD|TH)$/.test(c.tagName) && !skip(c)));
      const cols = Math.max(0, ...cells.map((cs) => cs.reduce((a, c) => a + Math.min(c.colSpan || 1, 50), 0)));
      // A layout table (one column, or tables in cells) is read as blocks.
      if (cols < 2 || t.querySelector("table")) return blocks(rows.flatMap((r) => Array.from(r.children)));
      const cellText = (c) => para(blocks(kids(c))).replace(/\n+/g, " ").replace(/\|/g, "\\|");
      const lines = [];
      const cap = t.querySelector("caption");
      if (cap && !skip(cap)) { const c = para(kids(cap).map(inline).join("")); if (c) lines.push("**" + c.replace(/\n/g, " ") + "**", ""); }
      cells.forEach((cs, k) => {
        const row = [];
        for (const c of cs) { row.push(cellText(c)); for (let s = 1; s < Math.min(c.colSpan || 1, 50); s++) row.push(""); }
        while (row.length < cols) row.push("");
        lines.push("| " + row.join(" | ") + " |");
        if (k === 0) lines.push("|" + " --- |".repeat(cols));
      });
      return lines.join("\n");
    }
    return (el) => (el.nodeType === 9 ? blocks(kids(el.body || el.documentElement)) : block(el)).trim();
  }

  // ---- main content ----
  const textLen = (el) => ((el.innerText || el.textContent || "").replace(/\s+/g, " ").trim()).length;
  function linkLen(el) {
    let n = 0;
    for (const a of el.querySelectorAll("a")) n += (a.textContent || "").replace(/\s+/g, " ").trim().length;
    return n;
  }
  const visible = (el) => !hidden(el, true) && el.getClientRects().length > 0;
  // mainRoot picks the element that holds the page's main content: the one
  // visible <article>, else <main> or [role=main], else the lowest common
  // container of several articles, else the best-scored block by
  // paragraphs, text length and commas, less its share of link text.
  function mainRoot(scope) {
    const all = (sel) => Array.from(scope.querySelectorAll(sel)).filter(visible);
    const arts = all("article, [role=article]").filter((a) => !a.parentElement || !a.parentElement.closest("article, [role=article]"))
      .filter((a) => textLen(a) >= 140);
    const mains = all("main, [role=main]").filter((m) => textLen(m) >= 140);
    if (arts.length === 1) return { el: arts[0], how: "article" };
    if (mains.length) return { el: mains[0], how: "main" };
    if (arts.length > 1) {
      let c = arts[0];
      while (c && !arts.every((a) => c.contains(a))) c = c.parentElement;
      if (c) return { el: c, how: "articles" };
    }
    const scores = new Map();
    for (const p of all("p, pre, td, blockquote, li")) {
      const len = textLen(p);
      if (len < 25) continue;
      const s = 1 + (p.textContent.match(/,/g) || []).length + Math.min(Math.floor(len / 100), 3);
      let up = p.parentElement, k = 0;
      while (up && k < 3 && scope.contains(up)) {
        scores.set(up, (scores.get(up) || 0) + s / (k === 0 ? 1 : k * 2));
        up = up.parentElement; k++;
      }
    }
    let best = null, top = 0;
    for (const [el, s0] of scores) {
      if (el.closest("nav, aside, footer, header, form, [role=navigation], [role=complementary], [role=contentinfo]")) continue;
      const words = ((typeof el.className === "string" ? el.className : "") + " " + el.id).toLowerCase();
      let s = s0 + (/(article|body|content|entry|main|page|post|text|blog|story)/.test(words) ? 25 : 0) - (junkWords(el) ? 25 : 0);
      const len = textLen(el) || 1;
      s *= 1 - Math.min(1, linkLen(el) / len);
      if (s > top) { top = s; best = el; }
    }
    return best ? { el: best, how: "scored" } : { el: scope.body || scope, how: "body" };
  }
  function mainOf(scope) {
    const { el: r, how } = mainRoot(scope);
    const total = textLen(r) || 1;
    const guessed = how === "scored" || how === "body";
    const dropped = (el) => {
      if (el === r) return false;
      const tag = el.tagName;
      const role = el.getAttribute("role") || "";
      const chrome = CHROME.has(tag) || CHROME_ROLES.test(role) || (tag === "HEADER" && !el.closest("article"));
      // Chrome and boilerplate go, unless they hold the title or the bulk
      // of the content (a wrapper named "content-with-sidebar").
      if (chrome || junkWords(el)) return !el.querySelector("h1") && textLen(el) < total * 0.6;
      // In a guessed root, a block of mostly links is navigation without
      // a tag.
      if (guessed && /^(DIV|SECTION|UL|OL|TABLE)$/.test(tag) && el.querySelectorAll("a").length >= 3 && !el.querySelector("h1,h2,h3,pre,table,p")) {
        const len = textLen(el);
        return len > 0 && linkLen(el) / len > 0.8;
      }
      return false;
    };
    return { md: Md(true, dropped)(r), how };
  }

  // ---- scroll (lazy content) ----
  async function scrollDown(steps, pause) {
    const se = doc.scrollingElement || doc.documentElement;
    let box = null;
    if (se.scrollHeight <= innerHeight + 2) {
      // The page does not scroll: its biggest scroll container does.
      let area = 0;
      for (const el of doc.querySelectorAll("body *")) {
        if (el.scrollHeight <= el.clientHeight + 2) continue;
        const oy = (styleOf(el) || {}).overflowY;
        if (oy !== "auto" && oy !== "scroll") continue;
        const a = el.clientWidth * el.clientHeight;
        if (a > area) { area = a; box = el; }
      }
    }
    const at = () => box ? [box.scrollTop, box.scrollHeight, box.clientHeight] : [scrollY, se.scrollHeight, innerHeight];
    let n = 0;
    for (; n < steps; n++) {
      const [y, h, vh] = at();
      if (y + vh >= h - 2) break;
      (box || window).scrollBy({ top: Math.max(vh * 0.9, 50), behavior: "instant" });
      await new Promise((r) => setTimeout(r, pause));
    }
    // Intersection observers run with rendering: two frames after the
    // last scroll, what they start (fetches, DOM) is under way, so the
    // settle wait that follows sees it (a tab that does not render gets
    // a timer instead).
    if (n > 0) await new Promise((r) => { const t = setTimeout(r, 250); requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(t); r(); })); });
    const [y, h, vh] = at();
    return { steps: n, y: Math.round(y), height: Math.round(h), bottom: y + vh >= h - 2,
      box: box ? box.tagName.toLowerCase() + (box.id ? "#" + box.id : "") : "" };
  }

  function read() {
    const what = o.what;
    const el = root;
    const d = el ? null : doc;
    switch (what) {
      case "title": return;
      case "url": out.text = location.href; return;
      case "text": {
        const t = textOf(el || doc.body || doc.documentElement);
        out.text = (t || "").replace(/\u00a0/g, " ").replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
        return;
      }
      case "markdown": out.text = Md(false, () => false)(el || d); return;
      case "main": { const m = mainOf(el || doc); out.text = m.md; out.how = m.how; return; }
      case "html": {
        if (el) { out.text = el.innerHTML; return; }
        const dt = doc.doctype ? "<!DOCTYPE " + doc.doctype.name + ">\n" : "";
        out.text = dt + doc.documentElement.outerHTML;
        return;
      }
      case "outer_html": out.text = (el || doc.documentElement).outerHTML; return;
      case "attribute": {
        const t = el || doc.documentElement;
        const v = t.getAttribute(o.attribute);
        out.text = v === null ? "" : v;
        if (v === null) { out.missing = true; out.names = t.getAttributeNames().slice(0, 30); }
        return;
      }
      case "value": {
        const t = el;
        const tag = t.tagName;
        if (tag === "INPUT" && (t.type === "checkbox" || t.type === "radio")) { out.text = t.checked ? "checked" : "unchecked"; out.control = tag.toLowerCase() + " " + t.type; return; }
        if (tag === "SELECT") { out.text = Array.from(t.selectedOptions).map((x) => x.value).join("\n"); out.control = "select"; return; }
        if (tag === "INPUT" && t.type === "file") { out.text = Array.from(t.files || []).map((f) => f.name).join("\n"); out.control = "input file"; return; }
        if (tag === "INPUT" || tag === "TEXTAREA" || tag === "OUTPUT" || tag === "BUTTON" || tag === "OPTION" || tag === "METER" || tag === "PROGRESS" || tag === "DATA") {
          out.text = String(t.value); out.control = tag.toLowerCase() + (t.type && tag === "INPUT" ? " " + t.type : ""); return;
        }
        if (t.isContentEditable) { out.text = t.innerText; out.control = "contenteditable"; return; }
        out.notControl = tag.toLowerCase();
        return;
      }
    }
    out.unknown = what;
  }

  const finish = () => {
    out.title = doc.title;
    out.url = location.href;
    if (o.what === "title") out.text = doc.title;
    if (typeof out.text === "string" && out.text.length > LIMIT) { out.cut = out.text.length; out.text = out.text.slice(0, LIMIT); }
    return out;
  };
  if (o.scroll) return scrollDown(o.scroll.steps, o.scroll.pause).then((s) => { out.scrolled = s; return finish(); });
  read();
  return finish();
})
