function (a) {
  // browser_collect's page side, called with this = the root element
  // (within) or undefined (the whole document), in the walker's isolated
  // world. a.op: "collect" (read items), "scroll" (load more), "discover"
  // (propose item selectors), "near" (selectors near one that matched
  // nothing), "doc" (only the document's token). Answers one JSON string.
  const root = this && this.nodeType === 1 ? this : document;
  const t0 = performance.now();
  const budget = a.budget || 5000;
  const late = () => performance.now() - t0 > budget;
  // doc names this document (a new document has a new world, so a new
  // token): a cached result is paged on only in the document it was read
  // from.
  const docKey = '__webpilot_collect_doc';
  const doc = globalThis[docKey] || (globalThis[docKey] = Math.random().toString(36).slice(2, 10) + Date.now().toString(36));
  const MAXV = 2000;
  const norm = (s) => String(s == null ? '' : s).replace(/\s+/g, ' ').trim();
  const cut = (s) => s.length > MAXV ? s.slice(0, MAXV) + '…(+' + (s.length - MAXV) + ' chars)' : s;
  const abs = (u) => {
    if (!u) return '';
    try { return new URL(u, document.baseURI).href; } catch (e) { return u; }
  };
  const shown = (el) => el.checkVisibility ? el.checkVisibility({ visibilityProperty: true }) : el.getClientRects().length > 0;
  const badSel = (s) => {
    try { document.createDocumentFragment().querySelector(s); return ''; } catch (e) { return String(e.message || e); }
  };
  const qsa = (s) => { try { return Array.from(root.querySelectorAll(s)); } catch (e) { return null; } };

  function prop(el, p) {
    switch (p || 'text') {
      case 'text': return norm(el.innerText !== undefined ? el.innerText : el.textContent);
      case 'href': {
        const s = 'a[href],area[href]';
        const l = el.matches(s) ? el : (el.querySelector(s) || el.closest(s));
        return abs(l ? l.getAttribute('href') : el.getAttribute('href'));
      }
      case 'src': {
        const s = 'img,video,audio,source,iframe,embed';
        const m = el.matches(s) ? el : el.querySelector(s);
        if (!m) return abs(el.getAttribute('src'));
        return m.currentSrc || abs(m.getAttribute('src') || (m.getAttribute('srcset') || '').trim().split(/\s+/)[0]);
      }
      case 'value': return typeof el.value === 'string' ? el.value : (el.getAttribute('value') || '');
      case 'html': return el.innerHTML.trim();
    }
    return p.startsWith('attr:') ? (el.getAttribute(p.slice(5)) || '') : '';
  }

  // extract reads an item's fields: their values in order, then the
  // item's text when every value is empty and fallback is asked for.
  // null: every value empty (the item is dropped).
  function extract(el, fields, fallback) {
    const vs = [];
    let any = false;
    for (const f of fields) {
      const tg = f.selector ? el.querySelector(f.selector) : el;
      const v = tg ? cut(String(prop(tg, f.property))) : '';
      if (v) any = true;
      vs.push(v);
    }
    if (any) return vs;
    if (!fallback) return null;
    const text = cut(prop(el, 'text'));
    return text ? vs.concat([text]) : null;
  }

  function collect() {
    const which = [['selector', a.selector]].concat(a.fields.map((f, i) => ['fields[' + i + '].selector', f.selector]));
    for (const [arg, s] of which) {
      const bad = s ? badSel(s) : '';
      if (bad) return { error: arg, message: bad };
    }
    // Items from index a.from on, until a.need of them are read.
    const els = qsa(a.selector) || [];
    const out = { count: els.length, hidden: 0, empty: 0, items: [], next: a.from };
    for (let i = a.from; i < els.length && out.items.length < a.need; i++) {
      if (i % 50 === 49 && late()) { out.stopped = true; break; }
      out.next = i + 1;
      const el = els[i];
      if (!shown(el)) { out.hidden++; continue; }
      const vs = extract(el, a.fields, a.fallback);
      if (vs) out.items.push(vs); else out.empty++;
    }
    return out;
  }

  // scroll brings what follows the last item into view (its scrolling
  // container, else the page) and waits for more items, up to a.wait ms.
  // frames resolves after n rendered frames (intersection observers run
  // between them), or after 50 ms a frame where the tab does not render.
  function frames(n) {
    return new Promise((resolve) => {
      let left = n;
      const t = setTimeout(resolve, 50 * n);
      const step = () => { if (--left <= 0) { clearTimeout(t); resolve(); } else requestAnimationFrame(step); };
      requestAnimationFrame(step);
    });
  }

  // scroll brings the end of the list into view and waits for it to grow.
  // With a.nudge (the last scroll brought nothing) it first goes up a
  // screen, so that observers see the end leave and come back.
  async function scroll() {
    const els = qsa(a.selector) || [];
    const before = els.length;
    const last = els[els.length - 1];
    let box = null;
    for (let p = last && last.parentElement; p && p !== document.body && p !== document.documentElement; p = p.parentElement) {
      const oy = getComputedStyle(p).overflowY;
      if ((oy === 'auto' || oy === 'scroll' || oy === 'overlay') && p.scrollHeight > p.clientHeight + 1) { box = p; break; }
    }
    const se = document.scrollingElement || document.documentElement;
    const pos = () => (box ? box.scrollTop : se.scrollTop);
    const from = pos();
    if (a.nudge) {
      const up = box ? box.clientHeight : window.innerHeight;
      if (box) box.scrollTop = Math.max(0, box.scrollTop - up);
      else window.scrollTo(0, Math.max(0, se.scrollTop - up));
      await frames(2);
    }
    if (last) last.scrollIntoView({ block: 'end' });
    if (box) box.scrollTop = box.scrollHeight;
    else window.scrollTo(0, se.scrollHeight);
    const moved = pos() !== from;
    const end = performance.now() + a.wait;
    for (;;) {
      await new Promise((r) => setTimeout(r, 50));
      const n = (qsa(a.selector) || []).length;
      if (n > before) {
        // The new items are laid out before the next scroll, so the
        // page's observers see its end move away.
        await frames(2);
        return { count: (qsa(a.selector) || []).length, moved };
      }
      if (performance.now() >= end) return { count: n, moved };
    }
  }

  // --- discover ---

  const STATE = /^(active|selected|current|open|opened|closed|hidden|show|shown|visible|first|last|odd|even|clearfix|row|col|container|wrapper|inner)$/i;
  const stable = (el) => Array.from(el.classList).filter((c) =>
    c.length <= 30 && !STATE.test(c) && !/^(is|has|js|ng|v)-/.test(c) && !/^(css|sc|jsx|emotion|svelte|tw)-/.test(c) &&
    !(/\d/.test(c) && /[A-Z]/.test(c)) && !/\d{3,}/.test(c) && /^[A-Za-z_-][\w-]*$/.test(c));
  const esc = (s) => CSS.escape(s);
  const uniqueIn = (s) => { const r = qsa(s); return r && r.length === 1; };

  // uniq is a short selector that names el alone in root.
  function uniq(el, depth) {
    if (el === root) return ':scope';
    if (el === document.body) return 'body';
    const t = el.tagName.toLowerCase();
    if (el.id && /^[A-Za-z][\w-]*$/.test(el.id) && !/\d{3,}/.test(el.id) && uniqueIn('#' + esc(el.id))) return '#' + esc(el.id);
    const cls = stable(el);
    for (const c of cls) if (uniqueIn('.' + esc(c))) return '.' + esc(c);
    for (const c of cls) if (uniqueIn(t + '.' + esc(c))) return t + '.' + esc(c);
    if (['main', 'nav', 'header', 'footer', 'aside', 'article'].includes(t) && uniqueIn(t)) return t;
    const label = el.getAttribute('aria-label');
    if (label && label.length < 40 && !/["\\\n]/.test(label) && uniqueIn(t + '[aria-label="' + label + '"]')) return t + '[aria-label="' + label + '"]';
    if (depth >= 3 || !el.parentElement) return null;
    const p = uniq(el.parentElement, depth + 1);
    if (!p) return null;
    for (const c of cls) if (uniqueIn(p + ' > ' + t + '.' + esc(c))) return p + ' > ' + t + '.' + esc(c);
    if (uniqueIn(p + ' > ' + t)) return p + ' > ' + t;
    let k = 1;
    for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === el.tagName) k++;
    return p + ' > ' + t + ':nth-of-type(' + k + ')';
  }

  const exact = (s, set) => {
    const r = qsa(s);
    return !!r && r.length === set.size && r.every((e) => set.has(e));
  };

  // itemSelector is the shortest selector (of a few kinds) that matches
  // exactly the group's members in root.
  function itemSelector(g) {
    const set = new Set(g.members);
    const t = g.tag;
    const tries = [];
    for (const c of g.classes) tries.push('.' + esc(c), t + '.' + esc(c));
    if (g.classes.length >= 2) tries.push('.' + esc(g.classes[0]) + '.' + esc(g.classes[1]));
    for (const s of tries) if (exact(s, set)) return s;
    const p = uniq(g.parent, 0);
    if (!p) return null;
    const scoped = [];
    for (const c of g.classes) scoped.push(p + ' > ' + t + '.' + esc(c), p + ' .' + esc(c));
    scoped.push(p + ' > ' + t);
    for (const s of scoped) if (exact(s, set)) return s;
    return null;
  }

  const CHROME = /(^|[-_\s])(nav|navbar|navigation|menu|menubar|footer|header|breadcrumbs?|pagination|pager|sidebar|toolbar|tabs|filters?|social|share|cookie)([-_\s]|$)/i;
  // region weighs where a group is: page chrome and menus down, the main
  // content up.
  function region(el) {
    let f = 1;
    for (let p = el; p && p !== document.documentElement; p = p.parentElement) {
      const t = p.tagName.toLowerCase();
      const role = p.getAttribute('role') || '';
      if (t === 'nav' || t === 'aside' || /^(navigation|menu|menubar|tablist|banner|contentinfo|complementary|toolbar)$/.test(role)) return 0.2;
      if ((t === 'header' || t === 'footer') && !p.closest('article')) return 0.2;
      if (CHROME.test(p.id || '') || CHROME.test(typeof p.className === 'string' ? p.className : '')) return 0.25;
      if (t === 'main' || role === 'main') f = Math.max(f, 1.5);
    }
    return f;
  }

  // UP is how many ancestors of a group's parent discover looks at for the
  // item that contains it.
  const UP = 12;
  const SKIP = new Set(['SCRIPT', 'STYLE', 'LINK', 'META', 'BR', 'HR', 'NOSCRIPT', 'TEMPLATE', 'OPTION', 'OPTGROUP', 'SOURCE', 'TRACK', 'TD', 'TH', 'COL', 'PARAM', 'INPUT', 'BUTTON', 'SELECT', 'TEXTAREA', 'LABEL']);
  const ownText = (el) => {
    for (const n of el.childNodes) if (n.nodeType === 3 && /[\p{L}\p{N}]/u.test(n.data)) return true;
    return false;
  };

  // relSel is a selector, inside item m, whose first match is d.
  function relSel(d, m, depth) {
    const t = d.tagName.toLowerCase();
    const cls = stable(d);
    const first = (s) => { try { return m.querySelector(s) === d; } catch (e) { return false; } };
    for (const c of cls) if (first('.' + esc(c))) return '.' + esc(c);
    if (first(t)) return t;
    for (const c of cls) if (first(t + '.' + esc(c))) return t + '.' + esc(c);
    const p = d.parentElement;
    if (depth < 2 && p && p !== m) {
      const ps = relSel(p, m, depth + 1);
      if (ps && first(ps + ' ' + t)) return ps + ' ' + t;
      if (ps && first(ps + ' > ' + t)) return ps + ' > ' + t;
    }
    return null;
  }

  // namesOf are names for a field read from el: from its classes, then
  // from its tag.
  const namesOf = (el) => {
    const out = [];
    for (const c of stable(el)) {
      const parts = c.toLowerCase().split(/[-_]+/).filter((x) => /^[a-z]{2,}$/.test(x));
      if (parts.length) out.push(parts[parts.length - 1]);
    }
    const t = el.tagName.toLowerCase();
    out.push({ cite: 'source', time: 'date', p: 'text', span: 'text', div: 'text', small: 'note', strong: 'text', b: 'text', em: 'text' }[t] || t);
    return out;
  };

  // fieldsOf proposes the fields of a group from a sample of its members:
  // a title link (text and href), else a heading; the first image; texts
  // found in at least half the sample, named after their class.
  function fieldsOf(g) {
    const sample = g.shownMembers.slice(0, 6);
    if (g.tag === 'tr') return tableFields(g, sample);
    const cands = new Map();
    sample.forEach((m) => {
      const seen = new Set();
      const note = (d, kind) => {
        const sel = d === m ? '' : relSel(d, m, 0);
        if (sel === null || seen.has(kind + sel)) return;
        seen.add(kind + sel);
        const key = kind + '\u0000' + sel;
        let c = cands.get(key);
        if (!c) { c = { sel, kind, n: 0, len: 0, el: d, inHeading: !!d.closest('h1,h2,h3,h4,h5,h6') && m.contains(d.closest('h1,h2,h3,h4,h5,h6')) || /^H[1-6]$/.test(d.tagName) || !!d.querySelector('h1,h2,h3,h4,h5,h6') }; cands.set(key, c); }
        c.n++;
        c.len += norm(d.textContent).length;
      };
      if (m.matches('a[href]')) note(m, 'link');
      let k = 0;
      for (const d of m.querySelectorAll('*')) {
        if (++k > 300) break;
        if (SKIP.has(d.tagName) && d.tagName !== 'LABEL') continue;
        if (d.matches('a[href]')) { if (norm(d.textContent)) note(d, 'link'); continue; }
        if (d.tagName === 'IMG') { if (d.currentSrc || d.getAttribute('src')) note(d, 'img'); continue; }
        if (/^H[1-6]$/.test(d.tagName)) { if (norm(d.textContent)) note(d, 'heading'); continue; }
        if (ownText(d) && !d.closest('a[href]')) note(d, 'text');
      }
    });
    const half = Math.max(1, Math.ceil(sample.length / 2));
    const ok = Array.from(cands.values()).filter((c) => c.n >= half);
    const fields = [];
    const names = new Set();
    const add = (name, sel, property) => {
      const want = [].concat(name);
      let nm = want.find((n) => !names.has(n));
      for (let i = 2; !nm; i++) if (!names.has(want[0] + i)) nm = want[0] + i;
      names.add(nm);
      const f = { name: nm, selector: sel };
      if (property && property !== 'text') f.property = property;
      fields.push(f);
    };
    const links = ok.filter((c) => c.kind === 'link');
    links.sort((x, y) => (y.inHeading - x.inHeading) || (y.len - x.len));
    const covered = [];
    const h = ok.find((c) => c.kind === 'heading');
    if (links.length && (links[0].inHeading || !h)) {
      const l = links[0];
      add('title', l.sel, 'text');
      add('url', l.sel, 'href');
      covered.push(l.el);
    } else if (h) {
      // A heading, and a link elsewhere ("Details"): the heading names
      // the item, the link gives its address.
      add('title', h.sel, 'text');
      covered.push(h.el);
      if (links.length) { add('url', links[0].sel, 'href'); covered.push(links[0].el); }
    }
    const img = ok.find((c) => c.kind === 'img');
    const texts = ok.filter((c) => c.kind === 'text' || (c.kind === 'heading' && !covered.includes(c.el)));
    for (const c of texts) {
      if (fields.length >= 6) break;
      if (covered.some((e) => e.contains(c.el) || c.el.contains(e))) continue;
      add(namesOf(c.el), c.sel, 'text');
      covered.push(c.el);
    }
    if (img && fields.length < 7) add('image', img.sel, 'src');
    if (!fields.length) return [];
    return fields;
  }

  function tableFields(g, sample) {
    const row = sample[0];
    const table = row.closest('table');
    const heads = table ? Array.from(table.querySelectorAll('thead th, thead td')).map((h) => norm(h.textContent)) : [];
    const fields = [];
    const names = new Set();
    Array.from(row.children).slice(0, 8).forEach((cell, i) => {
      let nm = (heads[i] || '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '_').replace(/^_+|_+$/g, '').slice(0, 20) || 'col' + (i + 1);
      let n = nm, k = 2;
      while (names.has(n)) n = nm + k++;
      names.add(n);
      fields.push({ name: n, selector: ':scope > :nth-child(' + (i + 1) + ')' });
    });
    return fields;
  }

  // groups finds sets of ≥3 sibling elements of one tag (and, inside such
  // a set, of one class).
  function groups() {
    const out = [];
    const parents = [root === document ? document.body : root].concat(Array.from((root === document ? document.body : root).querySelectorAll('*')).slice(0, 30000));
    for (const p of parents) {
      if (!p || p.children.length < 3 || SKIP.has(p.tagName) || p.namespaceURI !== 'http://www.w3.org/1999/xhtml') continue;
      if (late()) break;
      const byTag = new Map();
      for (const c of p.children) {
        if (SKIP.has(c.tagName)) continue;
        const l = byTag.get(c.tagName) || [];
        l.push(c);
        byTag.set(c.tagName, l);
      }
      for (const [tag, list] of byTag) {
        if (list.length < 3) continue;
        const classSets = list.map(stable);
        const core = classSets[0].filter((c) => classSets.every((s) => s.includes(c)));
        const sets = [{ members: list, classes: core }];
        const freq = new Map();
        classSets.forEach((s) => s.forEach((c) => freq.set(c, (freq.get(c) || 0) + 1)));
        for (const [c, n] of freq) {
          if (n >= 3 && n < list.length) {
            const ms = list.filter((e, i) => classSets[i].includes(c));
            const cs = stable(ms[0]).filter((x) => ms.every((e) => e.classList.contains(x)));
            sets.push({ members: ms, classes: cs });
          }
        }
        for (const s of sets) out.push({ parent: p, tag: tag.toLowerCase(), members: s.members, classes: s.classes });
      }
    }
    return out;
  }

  // richness scores what items hold: text, links, images, distinct texts.
  function measure(g) {
    const shownMembers = [];
    for (const m of g.members) {
      if (shownMembers.length >= 10) break;
      if (shown(m)) shownMembers.push(m);
    }
    g.shownMembers = shownMembers;
    if (shownMembers.length < 3) return 0;
    let text = 0, link = 0, img = 0, leaves = 0;
    for (const m of shownMembers) {
      text += Math.min(norm(m.textContent).length, 200);
      if (m.matches('a[href]') || m.querySelector('a[href]')) link++;
      if (m.querySelector('img')) img++;
      let l = 0;
      for (const d of m.querySelectorAll('*')) { if (ownText(d)) l++; if (l >= 4) break; }
      if (ownText(m)) l++;
      leaves += Math.min(l, 4);
    }
    const n = shownMembers.length;
    if (text / n < 2 && !link && !img) return 0;
    return text / n / 200 + link / n + 0.5 * img / n + 0.25 * leaves / n;
  }

  function discover() {
    const gs = groups();
    for (const g of gs) {
      g.rich = measure(g);
      g.region = g.rich ? region(g.parent) : 0;
      g.score = g.rich * g.region * Math.min(g.members.length, 100);
    }
    // A container of other items is not an item list itself: a group is
    // marked down when a group at least as large lies inside one of its
    // members. Each group's parent is looked up among its nearest
    // ancestors (a map from member to groups), so the cost grows with the
    // number of groups, not with its square.
    const rich = gs.filter((g) => g.score > 0);
    const groupsOf = new Map();
    for (const g of rich) {
      for (const m of g.members) {
        const l = groupsOf.get(m);
        if (l) l.push(g); else groupsOf.set(m, [g]);
      }
    }
    const inner = new Set();
    for (const h of rich) {
      if (late()) break;
      let up = h.parent;
      for (let d = 0; up && d < UP; d++, up = up.parentElement) {
        const gs2 = groupsOf.get(up);
        if (gs2) for (const g of gs2) if (g !== h && h.members.length >= g.members.length) inner.add(g);
      }
    }
    for (const g of inner) g.score *= 0.3;
    rich.sort((x, y) => y.score - x.score);
    const props = [];
    const sels = new Set();
    const chosen = [];
    for (const g of rich.slice(0, 20)) {
      if (props.length >= (a.want || 5) || late()) break;
      // Repeated parts of an item already proposed are its fields.
      if (chosen.some((c) => c.members.some((m) => m.contains(g.parent)))) continue;
      const sel = itemSelector(g);
      if (!sel || sels.has(sel)) continue;
      chosen.push(g);
      sels.add(sel);
      const fields = fieldsOf(g);
      const score = g.score * (1 + 0.15 * Math.min(fields.length, 4));
      const fs = fields.length ? fields : [{ name: 'text', selector: '' }];
      const sample = g.shownMembers.slice(0, 3).map((m) => extract(m, fs, true) || []);
      props.push({ selector: sel, count: g.members.length, fields, sample, score: Math.round(score * 100) / 100, chrome: g.region < 1 });
    }
    props.sort((x, y) => y.score - x.score);
    return { proposals: props };
  }

  // near lists selectors close to one that matched nothing: parts of it
  // that match, and classes and ids of the page that share a word with it.
  function near() {
    const sel = a.selector;
    const out = [];
    const add = (s) => {
      if (out.some((o) => o.selector === s) || s === sel) return;
      const r = qsa(s);
      if (r && r.length) out.push({ selector: s, count: r.length });
    };
    if (!/[[("']/.test(sel)) {
      const parts = sel.trim().split(/\s*[>+~]\s*|\s+/).filter(Boolean);
      if (parts.length > 1) add(parts[parts.length - 1]);
      const last = parts[parts.length - 1] || '';
      const simple = last.match(/[.#]?[^.#:]+/g) || [];
      if (simple.length > 1) for (const s of simple) add(s);
    }
    const words = (sel.match(/[A-Za-z][A-Za-z0-9]*/g) || []).map((w) => w.toLowerCase()).filter((w) => w.length >= 3 && !['div', 'span', 'nth', 'child', 'type', 'not'].includes(w));
    const counts = new Map();
    let k = 0;
    for (const el of root.querySelectorAll('[class], [id]')) {
      if (++k > 20000) break;
      for (const c of el.classList) counts.set('.' + c, (counts.get('.' + c) || 0) + 1);
      if (el.id) counts.set('#' + el.id, (counts.get('#' + el.id) || 0) + 1);
    }
    const close = [];
    for (const [name, n] of counts) {
      const low = name.slice(1).toLowerCase();
      const hit = words.filter((w) => low.includes(w) || (low.length >= 3 && w.includes(low))).length;
      if (hit) close.push({ selector: name[0] + esc(name.slice(1)), count: n, hit });
    }
    close.sort((x, y) => (y.hit - x.hit) || (y.count - x.count));
    for (const c of close.slice(0, 5)) if (!out.some((o) => o.selector === c.selector)) out.push({ selector: c.selector, count: c.count });
    return { near: out.slice(0, 6), proposals: discover().proposals.slice(0, 2) };
  }

  let r;
  switch (a.op) {
    case 'collect': r = collect(); break;
    case 'scroll': return scroll().then((v) => JSON.stringify(v));
    case 'discover': r = discover(); break;
    case 'near': r = near(); break;
    case 'doc': r = {}; break;
    default: r = { error: 'op', message: 'unknown op' };
  }
  r.url = location.href;
  r.title = document.title;
  r.doc = doc;
  return JSON.stringify(r);
}
