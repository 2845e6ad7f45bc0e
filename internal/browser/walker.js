// The page walker of webpilot's snapshots. It runs in an isolated world of
// each frame (the page's scripts cannot see or change it) and keeps, per
// document, a numbering of the elements it has handed out: the same element
// keeps its number across snapshots, which is what makes refs stable.
//
// The expression evaluates to the walker object, created once per world.
(() => {
  if (globalThis.__webpilot) return globalThis.__webpilot;

  const ids = new WeakMap();
  const els = new Map();
  let next = 1;
  // doc names this walker's document: a new document gets a new world, so a
  // new token, and Go drops the refs of the old one.
  const doc = Math.random().toString(36).slice(2, 10) + Date.now().toString(36);

  function idOf(el) {
    let id = ids.get(el);
    if (!id) {
      id = next++;
      ids.set(el, id);
      els.set(id, new WeakRef(el));
    }
    return id;
  }
  function get(id) {
    const r = els.get(id);
    const el = r && r.deref();
    if (!el || !el.isConnected) {
      if (r) els.delete(id);
      return null;
    }
    return el;
  }

  const WS = /[\s\u00a0\u200b]+/g;
  const norm = (s) => (s || "").replace(WS, " ").trim();

  // memo caches, for one pass over the page (a snapshot, a query), what
  // would otherwise be recomputed per element at the cost of a document
  // traversal each: the labels of controls and the text of ancestors. It
  // is set afresh by each entry point (a terminated walk leaves it behind).
  let memo = null;
  // rx is the agent pattern being tested now: a walk stopped while it is
  // set was stuck in that regular expression.
  let rx = null;

  // labelsOf is el.labels, which Chromium computes by scanning the whole
  // document: within a pass, all labels of a tree are read once.
  function labelsOf(el) {
    if (!memo) return el.labels ? Array.from(el.labels) : [];
    const root = el.getRootNode();
    let byControl = memo.labels.get(root);
    if (!byControl) {
      byControl = new Map();
      const all = root.querySelectorAll ? root.querySelectorAll("label") : [];
      for (const l of all) {
        const c = l.control;
        if (!c) continue;
        const list = byControl.get(c);
        if (list) list.push(l);
        else byControl.set(c, [l]);
      }
      memo.labels.set(root, byControl);
    }
    return byControl.get(el) || [];
  }

  // textStart is the start of norm(el.textContent): all of it, or at least
  // need+2 characters of it, without reading the whole text of a big
  // container.
  function textStart(el, need) {
    const m = memo && memo.text.get(el);
    if (m && (m.full || m.s.length > need + 1)) return m.s;
    let acc = "";
    let full = true;
    const tw = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = tw.nextNode(); n; n = tw.nextNode()) {
      let d = n.data.replace(WS, " ");
      if (d.charCodeAt(0) === 32 && (acc === "" || acc.charCodeAt(acc.length - 1) === 32)) d = d.slice(1);
      acc += d;
      if (acc.length > need + 1) { full = false; break; }
    }
    const s = full ? acc.trimEnd() : acc;
    if (memo) memo.text.set(el, { s, full });
    return s;
  }
  const cut = (s, n) => (s.length > n ? s.slice(0, n) : s);

  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE", "BASE", "PARAM", "SOURCE", "TRACK"]);
  const LANDMARK_SCOPE = new Set(["ARTICLE", "ASIDE", "MAIN", "NAV", "SECTION"]);
  const INPUT_ROLES = {
    button: "button", submit: "button", reset: "button", image: "button",
    checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton",
    search: "searchbox", email: "textbox", tel: "textbox", text: "textbox", url: "textbox",
    password: "textbox", date: "date", time: "time", "datetime-local": "datetime",
    month: "month", week: "week", color: "color", file: "file",
  };
  // Roles an agent acts on: they get refs.
  const WIDGET = new Set(["button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "treeitem", "slider", "spinbutton", "textbox", "searchbox", "combobox", "listbox",
    "date", "time", "datetime", "month", "week", "color", "file", "gridcell", "scrollbar"]);
  // Roles whose name is their content: the content is not repeated.
  const FROM_CONTENT = new Set(["button", "link", "heading", "cell", "columnheader", "rowheader", "option", "tab",
    "menuitem", "menuitemcheckbox", "menuitemradio", "treeitem", "checkbox", "radio", "switch", "tooltip",
    "clickable", "gridcell", "focusable", "draggable"]);
  // Roles whose content is kept as children.
  const CONTAINER = new Set(["navigation", "main", "banner", "contentinfo", "complementary", "form", "search",
    "region", "dialog", "alertdialog", "article", "status", "alert", "log", "menu", "menubar", "tablist",
    "tabpanel", "tree", "radiogroup", "toolbar", "figure", "group", "list", "listitem", "table", "row", "dropzone",
    "rowgroup", "grid", "treegrid", "feed", "scroll", "note", "marquee", "timer", "definition", "term",
    "focusable", "editable", "paragraph", "blockquote", "generic"]);

  function implicitRole(el, tag) {
    switch (tag) {
      case "A": case "AREA": return el.hasAttribute("href") ? "link" : "";
      case "BUTTON": return "button";
      case "INPUT": {
        const t = (el.getAttribute("type") || "text").toLowerCase();
        if (t === "hidden") return "";
        if (t === "text" || t === "search" || t === "email" || t === "tel" || t === "url") {
          if (el.getAttribute("list")) return "combobox";
        }
        return INPUT_ROLES[t] || "textbox";
      }
      case "SELECT": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "TEXTAREA": return "textbox";
      case "H1": case "H2": case "H3": case "H4": case "H5": case "H6": return "heading";
      case "IMG": return el.getAttribute("alt") === "" ? "" : "img";
      case "NAV": return "navigation";
      case "MAIN": return "main";
      case "ASIDE": return "complementary";
      case "HEADER": case "FOOTER": {
        for (let p = el.parentElement; p; p = p.parentElement) if (LANDMARK_SCOPE.has(p.tagName)) return "";
        return tag === "HEADER" ? "banner" : "contentinfo";
      }
      case "FORM": return "form";
      case "SEARCH": return "search";
      case "SECTION": return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : "";
      case "ARTICLE": return "article";
      case "DIALOG": return "dialog";
      case "FIELDSET": return "group";
      case "DETAILS": return "group";
      case "SUMMARY": return "button";
      case "FIGURE": return "figure";
      case "TABLE": return "table";
      case "THEAD": case "TBODY": case "TFOOT": return "rowgroup";
      case "TR": return "row";
      case "TD": return "cell";
      case "TH": return el.getAttribute("scope") === "row" ? "rowheader" : "columnheader";
      case "UL": case "OL": case "MENU": return "list";
      case "LI": {
        // an item of a list only: under a menu or a tablist Chrome says none
        const p = el.parentElement, pr = p && p.getAttribute("role");
        return pr && !/^\s*(list|directory|none|presentation)\b/i.test(pr) ? "" : "listitem";
      }
      case "P": return "paragraph";
      case "BLOCKQUOTE": return "blockquote";
      case "PROGRESS": return "progressbar";
      case "METER": return "meter";
      case "OUTPUT": return "status";
      case "HR": return "separator";
      case "IFRAME": case "FRAME": return "iframe";
      case "VIDEO": return "video";
      case "AUDIO": return "audio";
      case "SVG": return el.hasAttribute("aria-label") || el.querySelector(":scope > title") ? "img" : "";
      case "DT": return "term";
      case "DD": return "definition";
    }
    return "";
  }

  // GLOBAL_ARIA are the global ARIA attributes: an element with one keeps
  // its native role under role=none/presentation (ARIA's presentational
  // role conflict resolution), as does a focusable one.
  const GLOBAL_ARIA = ["aria-atomic", "aria-busy", "aria-controls", "aria-current", "aria-describedby", "aria-details",
    "aria-dropeffect", "aria-flowto", "aria-grabbed", "aria-haspopup", "aria-invalid", "aria-keyshortcuts", "aria-label",
    "aria-labelledby", "aria-live", "aria-owns", "aria-relevant", "aria-roledescription"];

  // focusable says the element takes focus: a native control, a link, or
  // tabindex / contenteditable.
  function focusable(el, tag) {
    if (el.hasAttribute("tabindex") || el.isContentEditable) return true;
    switch (tag) {
      case "A": case "AREA": return el.hasAttribute("href");
      case "BUTTON": case "SELECT": case "TEXTAREA": case "IFRAME": case "SUMMARY": return !el.disabled;
      case "INPUT": return !el.disabled && (el.type || "").toLowerCase() !== "hidden";
      case "AUDIO": case "VIDEO": return el.hasAttribute("controls");
    }
    return false;
  }

  function roleOf(el, tag) {
    const r = el.getAttribute("role");
    if (r) {
      const first = r.trim().split(/\s+/)[0].toLowerCase();
      if (first === "none" || first === "presentation") {
        if (focusable(el, tag) || GLOBAL_ARIA.some((a) => el.hasAttribute(a))) return implicitRole(el, tag);
        return "";
      }
      if (first) return first;
    }
    if (el.hasAttribute("aria-selected") && twinOption(el)) return "option";
    const implicit = implicitRole(el, tag);
    // A presentational table's or list's own parts are presentational too
    // (unless focusable or with a global ARIA attribute).
    if (INHERITS_PRESENTATION[implicit] && !focusable(el, tag) && !GLOBAL_ARIA.some((a) => el.hasAttribute(a))) {
      const owner = el.closest(INHERITS_PRESENTATION[implicit]);
      if (owner && owner !== el && presentational(owner)) return "";
    }
    return implicit;
  }

  // twinOption says an element with aria-selected and no role is an item
  // of the list a person sees beside a listbox of options that is not
  // drawn (Ant Design's Select keeps a 0×0 listbox for assistive
  // technology next to the list it draws): the drawn item is the option.
  function twinOption(el) {
    if (extOut) extOut.fl |= EXT; // (its role hangs on a listbox beside it)
    let x = el.parentElement;
    for (let up = 0; x && up < 6 && x !== document.body; up++, x = x.parentElement) {
      for (let c = x.firstElementChild; c; c = c.nextElementSibling) {
        if (c.getAttribute("role") !== "listbox" || c.contains(el) || !c.querySelector('[role="option"]')) continue;
        const r = c.getBoundingClientRect();
        return r.width === 0 || r.height === 0;
      }
    }
    return false;
  }

  // INHERITS_PRESENTATION maps the roles that a presentational container
  // passes its role to onto that container's selector.
  const INHERITS_PRESENTATION = {row: "table", cell: "table", columnheader: "table", rowheader: "table", rowgroup: "table", listitem: "ul,ol,menu"};

  // presentational says the element's own role is none or presentation,
  // and stands (see roleOf).
  function presentational(el) {
    const r = (el.getAttribute("role") || "").trim().split(/\s+/)[0].toLowerCase();
    return (r === "none" || r === "presentation") && !focusable(el, el.tagName) && !GLOBAL_ARIA.some((a) => el.hasAttribute(a));
  }

  function byIds(el, attr) {
    const v = el.getAttribute(attr);
    if (!v) return "";
    const root = el.getRootNode();
    const out = [];
    for (const id of v.split(/\s+/)) {
      const t = (root.getElementById ? root.getElementById(id) : null) || document.getElementById(id);
      if (t) out.push(t.getAttribute("aria-label") || textOf(t));
    }
    return norm(out.join(" "));
  }

  // textOf is an element's text without the values of form controls, as
  // it reads on screen: an inline element's text joins its neighbours'
  // without a space that is not there ("Enter "<b>Ada</b>"" reads
  // `Enter "Ada"`), a block's is set apart.
  function textOf(el) {
    return norm(rawText(el));
  }
  function rawText(el) {
    let s = "";
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) s += c.data;
      else if (c.nodeType === 1) {
        const t = c.tagName;
        if (t === "INPUT" || t === "SELECT" || t === "TEXTAREA" || SKIP.has(t)) continue;
        if (t === "IMG") s += " " + (c.getAttribute("alt") || "") + " ";
        else if (INLINE_TAGS.has(t)) {
          const st = getComputedStyle(c);
          s += INLINE.has(st.display) ? gap(st, "Left") + rawText(c) + gap(st, "Right") : " " + rawText(c) + " ";
        }
        else s += " " + rawText(c) + " ";
      }
    }
    return s;
  }
  // gap is a space where an inline element keeps its neighbours apart on
  // screen by a margin or padding of its own (side "Left" or "Right").
  function gap(st, side) {
    // (named reads: a computed style's properties read by a built key
    // take the slow path)
    const m = parseFloat(side === "Left" ? st.marginLeft : st.marginRight);
    if (m >= 2) return " ";
    return m + parseFloat(side === "Left" ? st.paddingLeft : st.paddingRight) >= 2 ? " " : "";
  }
  // INLINE_TAGS are the phrasing elements whose text runs on with their
  // neighbours' (when their style leaves them inline).
  const INLINE_TAGS = new Set(["A", "ABBR", "B", "BDI", "BDO", "CITE", "CODE", "DATA", "DFN", "EM", "FONT", "I", "KBD",
    "LABEL", "MARK", "Q", "S", "SAMP", "SMALL", "SPAN", "STRONG", "SUB", "SUP", "TIME", "U", "VAR"]);

  // LABELABLE are the elements a label names (but buttons, named by their
  // content here).
  const LABELABLE = new Set(["INPUT", "SELECT", "TEXTAREA", "METER", "OUTPUT", "PROGRESS"]);
  // labelName is the name an element gets from outside its content.
  function labelName(el, tag, role) {
    // (a name from elsewhere: a labelling element, a label that may come)
    if (extOut && (el.hasAttribute("aria-labelledby") || (LABELABLE.has(tag) && !el.hasAttribute("aria-label")))) extOut.fl |= EXT;
    let n = byIds(el, "aria-labelledby");
    if (n) return n;
    n = norm(el.getAttribute("aria-label"));
    if (n) return n;
    if (el.labels !== undefined && el.labels !== null) {
      // (a button is named by a label elsewhere, not by one around it,
      // whose text is the button's own)
      const ls = tag === "BUTTON" ? labelsOf(el).filter((l) => !l.contains(el)) : labelsOf(el);
      n = ls.length ? norm(ls.map(textOf).join(" ")) : "";
      if (n) return n;
    }
    if (tag === "INPUT") {
      const t = (el.type || "").toLowerCase();
      if (t === "submit" || t === "reset" || t === "button") return norm(el.value) || (t === "submit" ? "Submit" : t === "reset" ? "Reset" : "");
      if (t === "image") return norm(el.getAttribute("alt")) || "Submit";
    }
    if (tag === "IMG" || tag === "AREA") return norm(el.getAttribute("alt"));
    if (tag === "FIELDSET") {
      const lg = el.querySelector(":scope > legend");
      if (lg) return textOf(lg);
    }
    if (tag === "TABLE") {
      const c = el.querySelector(":scope > caption");
      if (c) return textOf(c);
    }
    if (tag === "FIGURE") {
      const c = el.querySelector(":scope > figcaption");
      if (c) return textOf(c);
    }
    if (tag === "SVG") {
      const t = el.querySelector(":scope > title");
      if (t) return norm(t.textContent);
    }
    return "";
  }

  function fallbackName(el) {
    return norm(el.getAttribute("title")) || norm(el.getAttribute("placeholder")) || norm(el.getAttribute("aria-placeholder"));
  }

  // FOR_BOX_ROLES are the controls a form's <label for> may name through
  // the box around them.
  const FOR_BOX_ROLES = new Set(["slider", "spinbutton", "radiogroup", "listbox", "switch", "combobox", "textbox", "group", "tree", "grid"]);

  // labelForBox is the text of a <label for> that points at the control's
  // box rather than at a field (Ant Design's Form.Item label for the div
  // of its Slider, Rate or Segmented, which the browser does not tie to
  // anything): the control itself or one of its two nearest ancestors, by
  // id. A person reads that label as the control's.
  function labelForBox(el, role) {
    if (!FOR_BOX_ROLES.has(role)) return "";
    const root = el.getRootNode();
    for (let p = el, n = 0; p && n < 3 && p !== document.body; p = p.parentElement, n++) {
      if (!p.id || LABELABLE.has(p.tagName.toUpperCase())) continue;
      let l = null;
      try { l = root.querySelector('label[for="' + CSS.escape(p.id) + '"]'); } catch (e) { l = null; }
      if (l && !l.contains(el)) {
        if (extOut) extOut.fl |= EXT; // (a name from elsewhere)
        return textOf(l);
      }
    }
    return "";
  }

  // isIcon says an element draws an icon (an icon font's span of role img,
  // an inline svg with a name), not a picture (<img>): its name is the
  // icon's file name ("down", "setting"), not what the control does.
  const isIcon = (el, tag) => tag !== "IMG" && roleOf(el, tag) === "img";
  // iconNodes are the walked nodes of icons.
  const iconNodes = new WeakSet();

  // titleAround is the title of el or of a box around it that holds
  // nothing else (Ant Design's pagination: <li title="Previous Page">
  // around the button).
  function titleAround(el) {
    for (let p = el, n = 0; p && n < 3 && p !== document.body; p = p.parentElement, n++) {
      if (n > 0 && p.childElementCount !== 1) break;
      const t = norm(p.getAttribute("title"));
      if (t) return t;
    }
    return "";
  }

  // contentName is the name an element takes from content that holds
  // icons, or from a tree item's content: its text (as textOf, without
  // what is hidden, icons' names, and in a tree item its nested group and
  // the controls of its own); without text, a title (its own or of a box
  // around it that holds nothing else), else its icons' names.
  function contentName(el, role) {
    const icons = [];
    const t = norm(ownText(el, role === "treeitem", icons, false));
    if (t) return t;
    return icons.length ? titleAround(el) || Array.from(new Set(icons)).join(" ") : "";
  }
  // ownText is the text of el's content for contentName (item: a tree
  // item's, without its group and controls; icons gets the icons' names;
  // ph: without placeholders drawn as text).
  function ownText(el, item, icons, ph) {
    let s = "";
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) { s += c.data; continue; }
      if (c.nodeType !== 1) continue;
      const t = c.tagName.toUpperCase();
      if (t === "INPUT" || t === "SELECT" || t === "TEXTAREA" || SKIP.has(t) || c.getAttribute("aria-hidden") === "true") continue;
      const r = roleOf(c, t);
      if (t !== "IMG" && r === "img") {
        const n = labelName(c, t, r);
        if (n) icons.push(n);
        continue;
      }
      if (item && (r === "group" || r === "tree" || r === "treeitem" || WIDGET.has(r))) continue;
      if (ph && /placeholder/i.test(typeof c.className === "string" ? c.className : "")) continue;
      const st = getComputedStyle(c);
      if (st.display === "none") continue;
      if (t === "IMG") s += " " + (c.getAttribute("alt") || "") + " ";
      else if (INLINE_TAGS.has(t) && INLINE.has(st.display)) s += gap(st, "Left") + ownText(c, item, icons, ph) + gap(st, "Right");
      else s += " " + ownText(c, item, icons, ph) + " ";
    }
    return s;
  }
  // ICON_SEL finds what may draw an icon in a control.
  const ICON_SEL = '[role="img"]:not(img),svg';

  // labelledElsewhere says a button's name comes from a label outside it
  // (aria-labelledby that does not name itself, a <label for>): then its
  // own text is its value (a date picker's button that shows the date).
  function labelledElsewhere(el, tag) {
    const ids = (el.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean);
    if (ids.length) return !(el.id && ids.includes(el.id)) && !!byIds(el, "aria-labelledby");
    if (norm(el.getAttribute("aria-label")) || tag !== "BUTTON") return false;
    return labelsOf(el).some((l) => !l.contains(el) && textOf(l));
  }

  // dayName is the full date that a calendar day whose content is the
  // bare number of the day carries in its title (Ant Design's
  // <td title="2026-03-27">27</td>): it tells the day from the same day
  // of another month.
  function dayName(el, text) {
    if (!/^\d{1,2}$/.test(text)) return "";
    const v = norm(el.getAttribute("title"));
    return v && v !== text && /\d{4}/.test(v) && v.includes(String(+text)) ? v : "";
  }
  // DAY_ROLES are the roles a calendar's day has.
  const DAY_ROLES = new Set(["cell", "gridcell", "button", "option", "clickable"]);
  // outsideDay says a calendar day lies outside the month shown: Mantine's
  // data-outside, a class that says so (MUI's …-dayOutsideMonth), or
  // Ant Design's cell without its "-in-view" class where others have it.
  function outsideDay(el) {
    if (el.getAttribute("data-outside") === "true") return true;
    for (const c of el.classList) {
      if (/outside/i.test(c)) return true;
      if (c.endsWith("-cell") && !el.classList.contains(c + "-in-view")) {
        const t = el.closest("table");
        try { if (t && t.querySelector("." + CSS.escape(c + "-in-view"))) return true; } catch (e) { /* an odd class */ }
      }
    }
    return false;
  }
  // RESIZE are the cursors of a handle that resizes (a grid's column
  // separator): no target to click.
  const RESIZE = new Set(["col-resize", "row-resize", "ew-resize", "ns-resize"]);

  // NO_EXPAND are the roles that aria-expanded says nothing for (Chrome
  // leaves it out): the popup itself, not what opens it.
  const NO_EXPAND = new Set(["listbox", "list", "menu", "menubar", "dialog", "alertdialog", "tabpanel", "region", "group", "tree", "grid", "tablist", "toolbar", "navigation"]);

  function states(el, tag, role, st, out) {
    const a = (n) => el.getAttribute(n);
    const s = [];
    if (tag === "INPUT" && (role === "checkbox" || role === "radio" || role === "switch")) {
      if (el.indeterminate) s.push("mixed");
      else if (el.checked) s.push("checked");
    } else {
      const c = a("aria-checked");
      if (c === "true") s.push("checked");
      else if (c === "mixed") s.push("mixed");
    }
    if (a("aria-pressed") === "true") s.push("pressed");
    // aria-disabled holds for what is inside too (a menu item's wrapper)
    if (el.disabled || (tag !== "FIELDSET" && el.matches && el.matches(":disabled")) || (el.closest && el.closest('[aria-disabled="true"]'))) s.push("disabled");
    if (tag === "SUMMARY") {
      const d = el.parentElement;
      if (d && d.tagName === "DETAILS") s.push(d.open ? "expanded" : "collapsed");
    } else if (!NO_EXPAND.has(role)) {
      const e = a("aria-expanded");
      if (e === "true") s.push("expanded");
      else if (e === "false") s.push("collapsed");
    }
    const sel = a("aria-selected");
    if (sel === "true") s.push("selected");
    // (Ant Design's tree marks its selected node by a class alone)
    else if (sel === null && (role === "treeitem" || role === "option") && (a("data-selected") === "true" || /-selected(\s|$)/.test(typeof el.className === "string" ? el.className : ""))) s.push("selected");
    const sort = a("aria-sort");
    if (sort === "ascending" || sort === "descending") s.push("sorted " + sort);
    const cur = a("aria-current");
    if (cur && cur !== "false") s.push("current");
    if (a("aria-multiselectable") === "true") s.push("multiselectable");
    if (el.required || a("aria-required") === "true") s.push("required");
    if ((el.readOnly && (tag === "INPUT" || tag === "TEXTAREA")) || a("aria-readonly") === "true") s.push("readonly");
    const inv = a("aria-invalid");
    if (inv && inv !== "false") s.push("invalid");
    if (a("aria-modal") === "true") s.push("modal");
    if (out.focus === el && (role === "textbox" || role === "searchbox" || role === "combobox" || role === "spinbutton" || role === "editable")) s.push("focused");
    return s;
  }

  // namesControl says a label element names a control: its own (for, or
  // nested), or one whose aria-labelledby points at it.
  function namesControl(el) {
    if (extOut) extOut.fl |= EXT; // (what it names is elsewhere)
    // (a label of a control that is not drawn, a hidden radio under a
    // tile, is what a person clicks: it stays a target)
    if (el.control) return shownBox(el.control);
    // (a label for a box the browser ties to nothing: a widget's own
    // element, jQuery UI's selectmenu button, or the box around it)
    const f = el.htmlFor && el.getRootNode().getElementById ? el.getRootNode().getElementById(el.htmlFor) : null;
    if (f && (f.hasAttribute("role") || f.tabIndex >= 0 || f.querySelector("[role]"))) return true;
    if (!el.id) return false;
    try { return !!el.getRootNode().querySelector('[aria-labelledby~="' + CSS.escape(el.id) + '"]'); } catch (e) { return false; }
  }

  // fieldInput (below) says an input is the text input of a library's
  // select, combobox or tags field (role combobox, aria-haspopup or
  // aria-autocomplete); NOT_VALUE is what in such a field is no part of the choice
  // it shows (controls of their own, labels, icons, what is hidden from
  // assistive technology, lists of choices: a dropdown beside a search
  // field).
  const NOT_VALUE = 'button,a[href],select,textarea,input,label,[role="button"],[role="link"],[role="img"],[aria-hidden="true"],svg,' +
    'ul,ol,table,[role="listbox"],[role="option"],[role="menu"],[role="menuitem"],[role="tree"],[role="treeitem"],[role="grid"],[role="dialog"],[role="tooltip"],' +
    'h1,h2,h3,h4,h5,h6,p,kbd,[role="heading"],[role="status"],[role="alert"],[aria-live]';

  // fieldBox is the box a field draws around its input: the nearest of
  // the input's five closest ancestors with a border, a background or a
  // shadow of its own that holds the input's box; null when none does (a
  // bare input: nothing is drawn beside it as its choice).
  function fieldBox(el) {
    const r = el.getBoundingClientRect();
    for (let b = el.parentElement, up = 0; b && up < 5 && b !== document.body; b = b.parentElement, up++) {
      const st = getComputedStyle(b), q = b.getBoundingClientRect();
      if (q.left > r.left + 1 || q.right < r.right - 1 || q.top > r.top + 1 || q.bottom < r.bottom - 1) continue;
      const bordered = ["Top", "Right", "Bottom", "Left"].some((k) => parseFloat(st["border" + k + "Width"]) > 0 && st["border" + k + "Style"] !== "none");
      const filled = st.backgroundColor !== "rgba(0, 0, 0, 0)" && st.backgroundColor !== "transparent";
      if (bordered || filled || (st.boxShadow && st.boxShadow !== "none")) return b;
    }
    return null;
  }

  // shownValues finds, for each such input left empty, the choice its
  // field shows beside it (Ant Design's selected item, Mantine's pills):
  // that is the input's value as a person reads it (out.shownVal), and the
  // elements that show it are not walked again (out.shown). It takes only
  // what lies inside the box the field draws (fieldBox), looking no
  // further out than that box and never as far as one that holds the
  // input's label; the field's description and error message are never
  // its choice.
  // fieldInput says an input is a library field's own (see NOT_VALUE).
  const fieldInput = (el) => {
    const hp = el.getAttribute("aria-haspopup");
    return el.getAttribute("role") === "combobox" || (hp !== null && hp !== "false") || el.hasAttribute("aria-autocomplete");
  };
  function shownValues(scope, out) {
    // (the inputs by tag, then fieldInput: a selector of attributes over
    // the whole document cost 12 ms on a 200,000-element page)
    const list = scope.getElementsByTagName ? scope.getElementsByTagName("input") : scope.querySelectorAll("input");
    for (const el of list) {
      if (el.value !== "" || el.type === "hidden" || !fieldInput(el)) continue;
      const labels = el.labels ? Array.from(el.labels) : [];
      for (const id of (el.getAttribute("aria-labelledby") || "").split(/\s+/)) {
        const l = id && el.getRootNode().getElementById ? el.getRootNode().getElementById(id) : null;
        if (l) labels.push(l);
      }
      // (a placeholder drawn as text, as a native one would be, is not
      // shown when the field has a name)
      const named = labels.length > 0 || !!norm(el.getAttribute("aria-label"));
      const hide = (e) => { out.shown.add(e); if (out.inc) out.inc.mark(e); };
      // (only what the field draws inside its own box; never its
      // description or error message)
      const field = fieldBox(el);
      if (!field) continue;
      const fr = field.getBoundingClientRect();
      const notes = [];
      for (const a of ["aria-describedby", "aria-errormessage"]) {
        for (const id of (el.getAttribute(a) || "").split(/\s+/)) {
          const d = id && el.getRootNode().getElementById ? el.getRootNode().getElementById(id) : null;
          if (d) notes.push(d);
        }
      }
      const inField = (c) => {
        if (notes.some((d) => d === c || d.contains(c) || c.contains(d))) return false;
        const q = c.getBoundingClientRect(), x = q.left + q.width / 2, y = q.top + q.height / 2;
        return x >= fr.left && x <= fr.right && y >= fr.top && y <= fr.bottom;
      };
      for (let box = el.parentElement; box && box !== document.body; box = box.parentElement) {
        if (labels.some((l) => box.contains(l))) break;
        const parts = [], els = [], ph = [];
        shownParts(box, el, parts, els, ph, inField);
        if (named) ph.forEach(hide);
        if (parts.length) {
          out.shownVal.set(el, parts.join(", "));
          els.forEach(hide);
          break;
        }
        if (box === field) break;
      }
    }
  }

  // shownParts adds the visible texts of box that lie in the field
  // (inField), but input and what is no part of a choice, to parts (one
  // per child that shows one), the children that show them to els, and
  // the placeholders drawn as text to ph.
  function shownParts(box, input, parts, els, ph, inField) {
    for (let c = box.firstElementChild; c && parts.length < 50; c = c.nextElementSibling) {
      if (c === input || c.matches(NOT_VALUE)) continue;
      if (c.contains(input)) { shownParts(c, input, parts, els, ph, inField); continue; }
      if (!inField(c)) continue;
      if (/placeholder/i.test(typeof c.className === "string" ? c.className : "")) { ph.push(c); continue; }
      const st = getComputedStyle(c);
      if (st.display === "none" || st.visibility === "hidden" || st.opacity === "0") continue;
      const t = norm(choiceText(c));
      if (t) { parts.push(cut(t, 200)); els.push(c); }
    }
  }

  // choiceText is the text of a part of a field's shown choice, without
  // what is no part of it.
  function choiceText(el) {
    let s = "";
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) s += c.data;
      else if (c.nodeType === 1 && !c.matches(NOT_VALUE) && !SKIP.has(c.tagName.toUpperCase())) s += " " + choiceText(c) + " ";
    }
    return s;
  }

  function valueOf(el, tag, role) {
    if (tag === "INPUT") {
      const t = (el.type || "").toLowerCase();
      if (t === "checkbox" || t === "radio" || t === "button" || t === "submit" || t === "reset" || t === "image") return null;
      if (t === "password") return el.value ? "•".repeat(Math.min(el.value.length, 8)) : "";
      if (t === "file") return Array.from(el.files || [], (f) => f.name).join(", ");
      return el.value;
    }
    if (tag === "TEXTAREA") return el.value;
    if (tag === "SELECT") return Array.from(el.selectedOptions, (o) => norm(o.label || o.text)).join(", ");
    if (role === "editable") return cut(norm(el.innerText), 2000);
    if (role === "slider" || role === "spinbutton" || role === "progressbar" || role === "meter") {
      const v = el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow");
      if (v !== null) return v;
      if ("value" in el) return String(el.value);
    }
    return null;
  }

  // context text for a fingerprint: the start of the nearest ancestor that
  // says more than the element itself (a list item, a card).
  // (read: the ancestors whose text it read are noted in read.pend)
  function contextOf(el, name, read) {
    let p = el.parentElement, last = null;
    for (let i = 0; p && i < 6; i++, p = p.parentElement) {
      if (p === document.body) break;
      last = p;
      const t = textStart(p, Math.max(60, name.length + 2));
      if (t.length > name.length + 2) {
        if (read) read.pend.push(p);
        return cut(t, 60);
      }
    }
    if (read && last) read.pend.push(last);
    return "";
  }

  function pathOf(el) {
    const parts = [];
    for (let p = el.parentElement; p && parts.length < 4 && p !== document.body; p = p.parentElement) parts.push(p.tagName.toLowerCase());
    return parts.join("<");
  }

  // shortPrint is the fingerprint of a walked node as the walk returns it:
  // tag, id, test id, then the context text and the ancestor path as
  // numbers into the walk's string table (neighbours share them), without
  // the role and name (the node's own). Go expands it.
  function shortPrint(el, name, out) {
    const ix = (s) => {
      let i = out.strIx.get(s);
      if (i === undefined) { i = out.strs.length; out.strs.push(s); out.strIx.set(s, i); }
      return String(i);
    };
    return [el.tagName.toLowerCase(), el.id || "", el.getAttribute("data-testid") || el.getAttribute("data-test-id") || "", ix(contextOf(el, name, out.inc ? out : null)), ix(pathOf(el))];
  }

  function fingerprint(el, role, name) {
    return [el.tagName.toLowerCase(), el.id || "", el.getAttribute("data-testid") || el.getAttribute("data-test-id") || "", contextOf(el, name), pathOf(el), role, name];
  }

  // fewDescendants says el has at most max descendant elements, counting
  // no further than that.
  function fewDescendants(el, max) {
    let n = 0;
    const tw = document.createTreeWalker(el, NodeFilter.SHOW_ELEMENT);
    while (tw.nextNode()) if (++n > max) return false;
    return true;
  }

  function isScroller(el, st) {
    const oy = st.overflowY, ox = st.overflowX;
    if ((oy === "auto" || oy === "scroll") && el.scrollHeight > el.clientHeight + 1) return true;
    if ((ox === "auto" || ox === "scroll") && el.scrollWidth > el.clientWidth + 1) return true;
    return false;
  }

  // children yields the nodes rendered under el: an open shadow root's
  // content instead of the light DOM, slots replaced by what they show.
  function kids(el) {
    const root = el.shadowRoot;
    if (root) watchRoot(root);
    const src = root ? root.childNodes : el.tagName === "SLOT" ? (el.assignedNodes({ flatten: true }).length ? el.assignedNodes({ flatten: true }) : el.childNodes) : el.childNodes;
    return src;
  }

  // WEAK are the kinds of target found by a sign (a listener, a pointer
  // cursor, a tabindex) rather than a role.
  const WEAK = new Set(["clickable", "focusable", "draggable"]);

  // ITEM_CONTAINERS are the roles whose children are items.
  const ITEM_CONTAINERS = new Set(["list", "menu", "menubar", "listbox", "grid", "tree", "tablist", "radiogroup", "rowgroup", "table", "toolbar"]);

  // delegates says el, which has a click listener, hands its clicks down to
  // items (a list whose handler runs for the item under the pointer, as
  // jQuery's .on("click", ".item", …) does): it holds at least two visible
  // children of one shape (tag and classes), and it is a list, menu,
  // table or grid, or those children show a pointer cursor. The items are
  // noted in out.items, where their own visits find them.
  function delegates(el, tag, role, out) {
    let src = el;
    if (tag === "TABLE") src = el.tBodies.length === 1 ? el.tBodies[0] : el;
    const groups = new Map();
    let n = 0;
    for (let c = src.firstElementChild; c && n < 400; c = c.nextElementSibling, n++) {
      if (SKIP.has(c.tagName.toUpperCase())) continue;
      const key = c.tagName + " " + c.className;
      const g = groups.get(key);
      if (g) g.push(c);
      else groups.set(key, [c]);
    }
    let best = null;
    for (const g of groups.values()) if (g.length >= 2 && (!best || g.length > best.length)) best = g;
    if (!best) return false;
    const shown = best.filter((c) => getComputedStyle(c).display !== "none");
    if (shown.length < 2) return false;
    if (!ITEM_CONTAINERS.has(role) && getComputedStyle(shown[0]).cursor !== "pointer") return false;
    for (const c of shown) out.items.add(c);
    return true;
  }

  // refCount counts the refs of walked nodes, up to max.
  function refCount(items, max) {
    let n = 0;
    for (const x of items) {
      if (x.i) n++;
      if (x.c) n += refCount(x.c, max - n);
      if (n >= max) return n;
    }
    return n;
  }

  // refIn says a walked node or one inside it has a ref.
  function refIn(items) {
    for (const x of items) if (x.i || (x.c && refIn(x.c))) return true;
    return false;
  }

  // shownBox says a control is drawn: a box bigger than the 1px of the
  // "visually hidden" pattern, or a checkbox styled over by its label.
  function shownBox(c) {
    const r = c.getBoundingClientRect();
    return (r.width > 1 && r.height > 1) || styledOver(c, c.tagName.toUpperCase());
  }

  // hintOf is what tells a nameless target apart: its id or classes.
  function hintOf(el) {
    if (el.id) return cut("#" + el.id, 40);
    const cls = Array.from(el.classList).slice(0, 2);
    return cls.length ? cut("." + cls.join("."), 40) : el.tagName.toLowerCase();
  }

  const INLINE = new Set(["inline", "inline-block", "inline-flex", "inline-grid", "contents", "ruby", "inline-table"]);

  // A first look (opts.look) at a document of at least LOOK_MIN elements
  // reads, of each container of at least LOOK_KIDS element children, only
  // the children on screen or near it (from half a viewport above to one
  // and a half below), and those out of the flow (fixed, sticky, absolute)
  // whose box is in that window or that hold a dialog on screen; each run of children left out is one node {k: how many,
  // kw: what they are, kb: 1 when below}. The rest of the page is read by a
  // whole walk (a full snapshot, a scope, or the next look after a scroll).
  const LOOK_MIN = 10000, LOOK_KIDS = 64;
  // lookHits is every dialog on screen, with its ancestors (across shadow
  // roots). (A hit test, elementFromPoint, costs in proportion to a long
  // list's length: 12 ms a point on a line of 40,000 elements.)
  function lookHits() {
    const hit = new Set(), h = innerHeight;
    const up = (e) => { for (; e && !hit.has(e); e = e.parentElement || (e.getRootNode && e.getRootNode().host) || null) hit.add(e); };
    // (by tag: an attribute selector over the whole document cost 20-45 ms)
    for (const e of document.getElementsByTagName("dialog")) { const r = e.getBoundingClientRect(); if (r.width && r.height && r.bottom > 0 && r.top < h) up(e); }
    return hit;
  }
  // lookWindow is the range [first, last, jump, extra] of el's element
  // children that a first look reads, found by halving on their boxes, or
  // null (all of them) when the boxes do not run down the page in order (a
  // grid laid out otherwise, children without boxes); extra are the
  // children outside it that are read too (jump: none).
  function lookWindow(el, out) {
    const kids = el.children, n = kids.length;
    const box = (i) => {
      // (a child without a box stands for the next one with one)
      for (let j = i; j < n && j < i + 8; j++) {
        const r = kids[j].getBoundingClientRect();
        if (r.width || r.height) return r;
      }
      return null;
    };
    const first = box(0), last = box(Math.max(0, n - 8)), mid = box(n >> 1);
    if (!first || !last || !mid || !(first.top <= mid.top && mid.top <= last.top) || last.bottom - first.top < innerHeight * 2) return null;
    const top = -innerHeight / 2, bottom = innerHeight * 1.5;
    let lo = 0, hi = -1;
    // the first child whose box ends below the window's top
    for (let a = 0, b = n - 1; a <= b;) {
      const m = (a + b) >> 1, r = box(m);
      if (!r) return null;
      if (r.bottom < top) { a = m + 1; lo = a; } else b = m - 1;
    }
    // the last child whose box starts above the window's bottom
    for (let a = lo, b = n - 1; a <= b;) {
      const m = (a + b) >> 1, r = box(m);
      if (!r) return null;
      if (r.top <= bottom) { a = m + 1; hi = m; } else b = m - 1;
    }
    // (a container wholly above or below the window: its nearest child)
    lo = Math.min(lo, n - 1);
    hi = Math.max(lo, hi);
    if (lo === 0 && hi === n - 1) return null;
    // A child outside [lo, hi] positioned out of the flow (fixed, sticky,
    // absolute) may still be on screen: read when its box is in the
    // window; as is one holding a dialog on screen. jump: none.
    let extra = null;
    const add = (c) => { (extra || (extra = new Set())).add(c); };
    // (by sibling links: the collection's index costs more)
    for (let i = 0, c = el.firstElementChild; c; i++, c = c.nextElementSibling) {
      if (i >= lo && i <= hi) continue;
      const p = getComputedStyle(c).position;
      if (p === "static" || p === "relative") continue;
      const r = c.getBoundingClientRect();
      if (r.bottom >= top && r.top <= bottom) add(c);
    }
    for (const h of out.look.hit) if (h.parentElement === el) add(h);
    return [lo, hi, !extra, extra];
  }
  // lookWord names what a run of children left out holds.
  function lookWord(c) {
    const r = c.getAttribute("role") || implicitRole(c, c.tagName.toUpperCase());
    return r === "row" ? "rows" : r === "listitem" ? "items" : r === "option" ? "options" : r === "article" ? "articles" : "elements";
  }

  // walk appends the nodes of el's content to items. raw, when given,
  // gets the content's text as it runs (its own spaces, no padding), in
  // raw.s, for inline content that joins its neighbours'.
  function walk(el, out, ctx, items, raw) {
    let buf = "";
    const flush = () => {
      const t = norm(buf);
      if (t) {
        items.push({ t });
        if (raw) raw.s = raw.s ? raw.s + " " + buf : buf;
      }
      buf = "";
    };
    // keep adds an item that comes whole (a block's), its text to raw too
    const keep = (x) => { items.push(x); if (raw && x.t !== undefined) raw.s = raw.s ? raw.s + " " + x.t : x.t; };
    // (a plain element's children by their sibling links: a node list's
    // iterator costs more)
    const list = el.shadowRoot || el.tagName === "SLOT" ? kids(el) : null;
    // (a first look reads, of a container of many elements, those on
    // screen and near it: lookWindow)
    const win = out.look && !list && el.childElementCount >= LOOK_KIDS ? lookWindow(el, out) : null;
    let ei = -1, skip = 0, skipped = null;
    const unread = () => {
      if (!skip) return;
      flush();
      items.push({ k: skip, kw: lookWord(skipped), kb: ei > win[0] ? 1 : 0 });
      out.look.skipped += skip;
      skip = 0;
    };
    let start = list ? list[0] : el.firstChild, end = null;
    if (win && win[2]) {
      // (no child outside the window holds what is on screen: straight to
      // the window's first child, and out after its last)
      const k = el.children;
      skip = win[0];
      skipped = k[0];
      ei = win[0] - 1;
      start = k[win[0]];
      end = k[win[1] + 1] || null;
    }
    for (let i = 0, c = start; c && c !== end; c = list ? list[++i] : c.nextSibling) {
      if (out.stopped) break;
      if (c.nodeType === 3) {
        if (win && (ei + 1 < win[0] || ei > win[1])) continue;
        if (!ctx.dropText && ctx.visible) buf += c.data;
        continue;
      }
      if (c.nodeType !== 1) continue;
      if (win) {
        ei++;
        if ((ei < win[0] || ei > win[1]) && !(win[3] && win[3].has(c))) {
          if (!skip) skipped = c;
          skip++;
          continue;
        }
        unread();
      }
      if (out.moved.has(c)) {
        // (a popup walked right after its trigger is not walked here
        // again; whether it was depends on more than this subtree)
        out.fl |= EXT;
        if (out.placed.has(c)) continue;
      }
      const r = visit(c, out, ctx);
      add(r);
      const pops = r !== null && out.popups.size ? out.popups.get(c) : undefined;
      if (pops) for (const a of pops) add(place(a, out));
    }
    if (end && !out.stopped) {
      skip += el.childElementCount - 1 - win[1];
      skipped = end;
      ei = win[1] + 1;
    }
    if (win) unread();
    flush();
    return items;

    function add(r) {
      if (r === null) return;
      if (r.inline !== undefined) {
        // transparent inline content joins the running text
        if (r.text) buf += r.text;
        if (r.items) {
          if (r.items.length) { flush(); for (const x of r.items) keep(x); }
        }
        return;
      }
      if (r.block) { flush(); for (const x of r.items) keep(x); return; }
      flush();
      items.push(r);
    }
  }

  // SET_ROLES are the containers of items that may say how many there are
  // in all where only some are in the page (a virtualised list or grid).
  const SET_ROLES = new Set(["listbox", "list", "tree", "menu", "feed", "grid", "table", "treegrid"]);
  // setSize notes how many items (node.sz: aria-setsize of its items) or
  // rows and columns (node.rc, node.cc: aria-rowcount, aria-colcount) a
  // container has in all, as the page says; nothing when it does not.
  function setSize(el, role, node) {
    const num = (v) => { const n = parseInt(v, 10); return n > 0 ? n : 0; };
    if (role === "grid" || role === "table" || role === "treegrid") {
      const rc = num(el.getAttribute("aria-rowcount")), cc = num(el.getAttribute("aria-colcount"));
      if (rc) node.rc = rc;
      if (cc) node.cc = cc;
      return;
    }
    let n = 0;
    for (const it of el.querySelectorAll("[aria-setsize]")) {
      if (++n > 50) break;
      const c = it.parentElement && it.parentElement.closest('[role="listbox"],[role="list"],[role="tree"],[role="group"],[role="menu"],[role="feed"],ul,ol');
      if (c !== el) continue;
      const z = num(it.getAttribute("aria-setsize"));
      if (z) node.sz = z;
      break;
    }
  }

  // POPUP_SEL are the popups that may name their trigger, or its label,
  // by aria-labelledby (a menu its button, a listbox its field's label).
  const POPUP_SEL = ["listbox", "menu", "dialog", "tree", "grid"].map((r) => '[role="' + r + '"][aria-labelledby]').join(",");

  // popupsOf finds the popups of the open triggers (aria-expanded="true")
  // under scope that a portal renders elsewhere in the body (a library's
  // dropdown, menu or picker at the end of the page): the element a
  // trigger names by aria-controls or aria-owns, or a popup that names the
  // trigger or its label by aria-labelledby. Each is walked right after
  // its trigger, not where it stands (out.popups: trigger → the part of
  // the portal that holds the popup and nothing of another trigger's;
  // out.moved: those parts). A popup in the trigger's own part of the
  // body (an accordion's panel) stays where it is, and so does one before
  // its trigger or one its trigger's walk does not reach (a trigger not
  // shown).
  function popupsOf(scope, out) {
    const body = document.body;
    if (!body) return;
    let open;
    try { open = Array.from(scope.querySelectorAll('[aria-expanded="true"]')); } catch (e) { return; }
    if (scope.nodeType === 1 && scope.getAttribute("aria-expanded") === "true") open.push(scope);
    if (!open.length) return;
    const byId = (id) => (id ? document.getElementById(id) : null);
    const ids = (el, a) => (el.getAttribute(a) || "").split(/\s+/);
    const pairs = [], byLabel = new Map();
    for (const t of open) {
      for (const a of ["aria-controls", "aria-owns"]) for (const id of ids(t, a)) { const p = byId(id); if (p) pairs.push([t, p]); }
      byLabel.set(t, t);
      for (const id of ids(t, "aria-labelledby")) { const l = byId(id); if (l && !byLabel.has(l)) byLabel.set(l, t); }
      if (t.labels) for (const l of t.labels) if (!byLabel.has(l)) byLabel.set(l, t);
    }
    for (const p of document.querySelectorAll(POPUP_SEL)) {
      for (const id of ids(p, "aria-labelledby")) {
        const t = byLabel.get(byId(id));
        if (t) { pairs.push([t, p]); break; }
      }
    }
    const found = [];
    for (const [t, p] of pairs) {
      if (p === t || p.contains(t) || t.contains(p) || found.some((f) => f.p === p)) continue;
      let b = p;
      while (b.parentElement && b.parentElement !== body) b = b.parentElement;
      if (b.parentElement !== body || b.contains(t) || !(t.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING)) continue;
      found.push({ t, p, b });
    }
    for (const f of found) {
      // the part of the portal that holds nothing of another trigger's
      let a = f.b;
      const other = (x) => a.contains(x) && !f.p.contains(x) && !x.contains(f.p);
      while (a !== f.p && found.some((g) => g.t !== f.t && (other(g.p) || other(g.t)))) {
        let c = a.firstElementChild;
        while (c && !c.contains(f.p)) c = c.nextElementSibling;
        a = c;
      }
      let seen = true;
      for (let e = a.parentElement; e && e !== body; e = e.parentElement) {
        if (e.getAttribute("aria-hidden") === "true" || getComputedStyle(e).display === "none") { seen = false; break; }
      }
      if (!seen || out.moved.has(a)) continue;
      out.moved.add(a);
      const list = out.popups.get(f.t);
      if (list) list.push(a);
      else out.popups.set(f.t, [a]);
      if (out.inc && !out.inc.whole) {
        // (the trigger's ancestors and the portal walk again)
        out.inc.mark(f.t);
        out.inc.mark(a.parentElement);
      }
    }
  }

  // place walks a popup (popupsOf) right after its trigger, once, in the
  // context of the walk's top: it is in none of the trigger's ancestors.
  function place(a, out) {
    if (out.placed.has(a)) return null;
    out.placed.add(a);
    out.fl |= EXT;
    const ctx = Object.create(out.top);
    if (out.inc && !out.inc.whole) {
      for (let e = a.parentElement; e; e = e.parentElement) {
        const fa = freshAt.get(e);
        if (fa > ctx.freshAt) ctx.freshAt = fa;
      }
    }
    return visit(a, out, ctx);
  }

  // visit returns null (nothing to show), a node, {block, items} for a
  // transparent block, or {inline, text, items} for transparent inline.
  function visitOwn(el, out, ctx) {
    // The time budget is checked every 64 elements.
    if (out.stopped) return null;
    if ((++out.seen & 63) === 0 && performance.now() > out.until) { out.stopped = true; return null; }
    const tag = el.tagName.toUpperCase();
    if (SKIP.has(tag)) return null;
    if (el.getAttribute("aria-hidden") === "true") { out.hidden++; return null; }
    if (out.shown.has(el)) return null; // (a field's shown choice: its input's value)
    if (ctx.modal && !ctx.inModal && el !== ctx.modal && !el.contains(ctx.modal) && !(el.shadowRoot && el.shadowRoot.contains(ctx.modal))) {
      out.inert++;
      return null;
    }
    const st = getComputedStyle(el);
    const display = st.display;
    if (display === "none") {
      if (tag !== "DIALOG" && tag !== "DATALIST" && tag !== "OPTION" && tag !== "SLOT") out.hidden++;
      return null;
    }
    let rect = null;
    if (display !== "contents" && !styledOver(el, tag)) {
      rect = el.getBoundingClientRect();
      if (out.inc) {
        out.box = rect;
        out.fl |= RECTS;
        // (a box the page's scroll moves: what holds it is not taken over
        // after a scroll)
        if (st.position === "fixed" || st.position === "sticky") out.fl |= PINNED;
        if (rect.right + out.sx < out.minR) out.minR = rect.right + out.sx;
        if (rect.bottom + out.sy < out.minB) out.minB = rect.bottom + out.sy;
      }
      // (the overflow and clip are read only for a box this small)
      if (rect.width <= 1 && rect.height <= 1 && (rect.width > 0 || rect.height > 0) && (st.overflowX !== "visible" || st.overflowY !== "visible" || st.clip !== "auto")) {
        // the "visually hidden" pattern: a 1px clipped box
        out.hidden++;
        return null;
      }
      if (rect.width === 0 && rect.height === 0) {
        if (st.overflowX !== "visible" || st.overflowY !== "visible" || !el.firstElementChild || tag === "INPUT" || tag === "BUTTON" || tag === "SELECT" || tag === "TEXTAREA") {
          if (el.textContent.trim() || el.firstElementChild) out.hidden++;
          return null;
        }
      }
      if (rect.right + out.sx <= 0 || rect.bottom + out.sy <= 0) { out.hidden++; out.fl |= OFF; return null; }
    }
    const visible = st.visibility !== "hidden" && st.visibility !== "collapse";
    let role = roleOf(el, tag);
    if (role === "separator" || role === "presentation") return null;
    let interactive = WIDGET.has(role) && visible;
    if (role === "option" && (tag === "OPTION")) interactive = false;
    if (role === "gridcell" || role === "scrollbar") interactive = interactive && el.tabIndex >= 0;
    // A column header that sorts or takes focus (a data grid's) is a
    // target: a click on it sorts (unless it holds no text: see header).
    const header = role === "columnheader" && visible && (el.hasAttribute("aria-sort") || el.hasAttribute("tabindex"));
    if (header) interactive = true;
    let extra = "";
    if (!interactive && visible) {
      // (a label that names a control is that control's: a click on it goes
      // there, whatever listens to it)
      const listens = out.clickers.has(el) && tag !== "BODY" && tag !== "HTML" && !(tag === "LABEL" && namesControl(el));
      if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) extra = "editable";
      else if (listens && delegates(el, tag, role, out)) { /* its items get the refs */ }
      else if (el.hasAttribute("onclick") || (listens && fewDescendants(el, 50)) || out.items.has(el)) extra = "clickable";
      else if (el.getAttribute("draggable") === "true") extra = "draggable";
      else if (out.droppers.has(el) && tag !== "BODY" && tag !== "HTML") extra = "dropzone";
      else if (st.cursor === "pointer" && tag !== "LABEL" && !(el.parentElement && getComputedStyle(el.parentElement).cursor === "pointer") && !ctx.inWidget) extra = "clickable";
      else if (tag !== "HTML" && tag !== "BODY" && display !== "inline" && isScroller(el, st)) extra = "scroll";
      else if (el.hasAttribute("tabindex") && (!role || role === "generic") && (el.tabIndex >= 0 || (!ctx.inWidget && !ctx.inClickable && fewDescendants(el, 10)))) extra = "focusable";
      if (extra) {
        interactive = true;
        if (!role || role === "generic" || role === "paragraph" || role === "listitem" || extra === "scroll" || extra === "dropzone") role = extra;
      }
    }
    if (role === "editable" && el.isContentEditable) role = "editable";
    const inline = INLINE.has(display);

    if (role === "iframe") {
      if (!visible) return null;
      return { r: "iframe", n: norm(el.getAttribute("title") || el.getAttribute("aria-label") || el.getAttribute("name")), f: idOf(el) };
    }

    // Leaf controls: no content walk.
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || tag === "IMG" || tag === "SVG" || tag === "VIDEO" || tag === "AUDIO" || tag === "CANVAS" || tag === "PROGRESS" || tag === "METER") {
      // (a control's value and state change with no DOM change: compared
      // before each walk)
      if (out.inc && (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA")) controls.set(el, controlSig(el, tag));
      if (!role || !visible) return null;
      const node = { r: role, n: labelName(el, tag, role) || fallbackName(el) };
      if (interactive) node.i = idOf(el);
      const v = out.shownVal.get(el) || valueOf(el, tag, role);
      if (v !== null && v !== undefined) node.v = cut(v, 4000);
      if (tag === "SELECT") {
        const opts = [];
        for (const o of el.options) if (opts.length < 200) opts.push(norm(o.label || o.text));
        node.o = opts;
        if (el.options.length > 200) node.om = el.options.length - 200;
      }
      const s = states(el, tag, role, st, out);
      if (s.length) node.s = s;
      if (node.i) { node.p = shortPrint(el, node.n, out); out.refs++; }
      else if (tag === "SVG" && role === "img") iconNodes.add(node);
      return node;
    }

    // An invisible element shows only its visible descendants.
    if (!visible && !interactive) {
      const sub = Object.create(ctx);
      sub.visible = false;
      const items = walk(el, out, sub, []);
      if (!items.length) { out.hidden++; return null; }
      return { block: true, items };
    }

    // Content walk.
    const sub = Object.create(ctx);
    sub.visible = visible;
    // Inside a widget, a pointer cursor or a tabindex marks no other
    // target; inside a clickable found by such a sign, a tabindex=-1
    // wrapper is the same target again.
    if (WIDGET.has(role) || role === "editable" || header) sub.inWidget = true;
    // (a nameless handle in such a header, a column's resize grip, is the
    // header's, no target of its own)
    if (header) sub.inHeader = true;
    else if (WEAK.has(extra)) sub.inClickable = true;
    // A label's text names its control, unless the control is not on
    // screen (a select replaced by a widget): then it is the page's text.
    if (tag === "LABEL") out.fl |= EXT; // (what it names is elsewhere)
    if (tag === "LABEL" && el.control && shownBox(el.control)) sub.dropText = true;
    if ((tag === "LEGEND" && el.parentElement && el.parentElement.tagName === "FIELDSET") || tag === "CAPTION" || tag === "FIGCAPTION") return null;
    if (el === ctx.modal) sub.inModal = true;
    let items;
    const raw = { s: "" };
    if (tag === "DETAILS" && !el.open) {
      items = [];
      const s = el.querySelector(":scope > summary");
      if (s) { const r = visit(s, out, sub); if (r) items.push(r); }
    } else {
      items = walk(el, out, sub, [], raw);
    }

    if (!role || role === "generic" || role === "paragraph" || role === "blockquote" || role === "rowgroup" || (role === "region" && !interactive) && false) {
      if (role === "rowgroup") return { block: true, items };
      if (inline && !interactive) {
        // inline text joins the surrounding run; inline nodes break it
        if (items.every((x) => x.t !== undefined)) return { inline: true, text: gap(st, "Left") + raw.s + gap(st, "Right") };
        return { inline: true, items };
      }
      return { block: true, items };
    }

    // A target found by a sign whose content holds the refs (a wrapper
    // around an input, a table cell around its link, a dropdown around its
    // options) is no target of its own: one ref per item.
    let weak = WEAK.has(extra) && WEAK.has(role);
    if (WEAK.has(extra) && refIn(items) && !(weak && items.some((x) => x.t !== undefined) && refCount(items, 3) <= 2)) {
      if (weak) {
        if (inline) return { inline: true, items };
        return { block: true, items };
      }
      // The element keeps its role (a dialog, a cell), not a ref.
      interactive = false;
      weak = false;
    }
    // A column header target is named by its own text: the buttons in it
    // (sort, column menu) are targets of their own, after its name. One
    // without text (a "select all" checkbox's) is no target of its own.
    let headText = null;
    if (header) {
      headText = norm(items.map((x) => (x.t !== undefined ? x.t : "")).join(" "));
      if (!headText) interactive = false;
    }
    const node = { r: role };
    let name = labelName(el, tag, role);
    // A target found by a sign takes its name from its content only when
    // that is a short text (a label); else its content stays content.
    // Icons' names are no part of a name from content with text; an
    // icon-only control is named by a title before its icons (contentName),
    // a tree item without its nested items.
    const icons = items.some((x) => iconNodes.has(x));
    let fromContent = false;
    if (!name && FROM_CONTENT.has(role)) {
      const texts = icons ? items.filter((x) => !iconNodes.has(x)) : items;
      if (role === "treeitem" || (icons && !weak)) name = contentName(el, role);
      else {
        name = norm(texts.map((x) => (x.t !== undefined ? x.t : x.n || "")).join(" "));
        if (!name && !weak) name = norm(textOf(el));
        // (one run of text: lines of output are no name)
        if (weak && (name.length > 100 || texts.length !== 1 || texts[0].t === undefined)) name = "";
        // (beside icons, a title says more than a glyph's text: "Next 5
        // Pages", not "•••")
        if (weak && icons) name = titleAround(el) || name || (texts.length ? "" : contentName(el, role));
      }
      fromContent = !!name;
      // (a calendar's day: its date)
      if (fromContent && DAY_ROLES.has(role)) name = dayName(el, name) || name;
    }
    if (headText && !labelName(el, tag, role)) { name = headText; items = items.filter((x) => x.t === undefined); }
    if (!name) name = fallbackName(el) || labelForBox(el, role);
    if (role === "editable") name = labelName(el, tag, role) || fallbackName(el);
    // An element made a text box by its role shows its text as its value
    // (a readonly box that shows a choice); its name comes from a label.
    const ariaBox = (role === "textbox" || role === "searchbox") && !el.isContentEditable;
    if (ariaBox) name = labelName(el, tag, role);
    node.n = cut(name, 400);
    if (role === "heading") node.l = +(el.getAttribute("aria-level") || (/^H[1-6]$/.test(tag) ? tag[1] : 2));
    if (role === "link" && el.href) node.u = String(el.href);
    if (interactive) node.i = idOf(el);
    const v = valueOf(el, tag, role);
    if (v !== null && v !== undefined) node.v = cut(v, 4000);
    const s = states(el, tag, role, st, out);
    if (DAY_ROLES.has(role) && items.length === 1 && items[0].t !== undefined && /^\d{1,2}$/.test(items[0].t) && outsideDay(el)) s.push("outside");
    if (s.length) node.s = s;
    if (SET_ROLES.has(role)) setSize(el, role, node);
    // A button named by a label elsewhere (a date picker's: "Start date")
    // shows its value as its text ("2026-03-20", nothing while a
    // placeholder stands there).
    let valued = false;
    if (role === "button" && name && !fromContent && labelledElsewhere(el, tag)) {
      const all = norm(textOf(el));
      if (all && all !== name) { node.v = cut(norm(ownText(el, false, [], true)), 4000); valued = true; }
    }
    // A combobox that is no text field, named by a label (and by its own
    // text: MUI's Select, a div whose aria-labelledby names its label and
    // itself), shows its choice, one text or one per chip: that is its
    // value, and its name is the label's part.
    let choice = false;
    if (role === "combobox" && tag !== "INPUT" && node.v === undefined && items.length && items.every((x) => x.t !== undefined)) {
      const own = norm(items.map((x) => x.t).join(" "));
      if (own && node.n.length > own.length + 1 && node.n.endsWith(" " + own)) {
        node.n = node.n.slice(0, -own.length - 1);
        choice = true;
      } else if (own && node.n && node.n !== own && !fromContent) {
        choice = true; // (named by a label: jQuery UI's selectmenu)
      }
      if (choice) node.v = cut(items.map((x) => x.t).join(", "), 4000);
    }
    // A named control's icons say no more than its name.
    if (icons && node.n && FROM_CONTENT.has(role)) items = items.filter((x) => !iconNodes.has(x));
    // A name-from-content node drops content that only spells its name.
    const keep = items.some((x) => x.t === undefined);
    if (ariaBox) node.v = cut(norm(items.map((x) => (x.t !== undefined ? x.t : x.n || "")).join(" ")), 4000);
    if (role === "editable" || ariaBox || choice || valued) { /* its text is its value */ }
    else if (!FROM_CONTENT.has(role) || keep || (weak && !fromContent)) { if (items.length) node.c = items; }
    // A target found by a sign with nothing to show is no use to an agent,
    // unless it is big enough to be meant for a click (a slider's handle,
    // an icon drawn by a style): its id or classes tell it apart.
    if (weak && !node.n && !node.c) {
      if (!rect || rect.width < 8 || rect.height < 8 || ctx.inHeader) return null;
      // (a mask over the whole page, a resize handle: no target either)
      if (RESIZE.has(st.cursor) || /resize$/.test(st.cursor) || /separator|resiz/i.test(typeof el.className === "string" ? el.className : "") || (rect.width >= innerWidth * 0.9 && rect.height >= innerHeight * 0.9)) return null;
      node.h = hintOf(el);
    }
    if (node.i) { node.p = shortPrint(el, node.n, out); out.refs++; }
    else if (role === "img" && tag !== "IMG") iconNodes.add(node);
    return node;
  }

  // Incremental walks. A walk of the whole document keeps, per element, what
  // its visit gave (cache); the next walk gives the same again for an
  // element when nothing its result depends on can have changed since: no
  // DOM change in its subtree (MutationObservers on the document and the
  // open shadow roots), none that restyles it (an attribute of it or an
  // ancestor; of a sibling when the page's CSS has sibling combinators; a
  // child list when it has structural pseudo-classes), no change of a state
  // pseudo-class the page's CSS uses (hover, focus, checked…), no animation,
  // load or scroll in it, no listener probe answer that differs, the same
  // walk context, and a box of the same size that moved nowhere off screen.
  // What depends on more than the subtree (refs, whose fingerprints read
  // the ancestors' text; controls, whose values change with no DOM change;
  // names from labels elsewhere) is never taken over, nor are its
  // ancestors: they are walked again, their unchanged children taken over.
  // Anything global (scroll, viewport, style sheets, a modal, :has) makes
  // the walk a whole one.
  let cache = new WeakMap();
  // walkNo numbers the walks that keep what they saw; touchedAt and
  // freshAt stamp an element with the walk before which it (or something
  // in it) last changed, and last restyled with all it holds: a kept visit
  // holds when neither came after it.
  let walkNo = 0;
  const touchedAt = new WeakMap(), freshAt = new WeakMap();
  // controls are the form controls walks visited, with their state then
  let controls = new Map();
  const controlSig = (el, tag) => tag === "SELECT" ? Array.from(el.selectedOptions, (o) => o.index).join(",") :
    el.value + "|" + el.checked + el.indeterminate + (el.files ? el.files.length : "");
  let incState = null; // what the last whole-document walk saw
  let incOff = false; // the document is too big to keep a walk of
  let extOut = null; // the walk's out while it runs (labelName marks ext)
  let recs = [], recOver = false, incObserver = null, hits = [];
  let watched = new WeakSet();
  const OBS = { subtree: true, childList: true, attributes: true, characterData: true };
  const MAX_RECS = 20000, MAX_INC = 60000, MAX_STRS = 20000;
  // MIN_INC: a document with fewer elements is walked whole, keeping
  // nothing: its walk costs less than the keeping (tests keep anyway).
  const MIN_INC = 600;
  const HIT_EVENTS = ["load", "error", "scroll"];
  const onHit = (e) => { if (hits.length < 2000) hits.push(e.target); else recOver = true; };
  function watchRoot(root) {
    if (incObserver && !watched.has(root)) { watched.add(root); incObserver.observe(root, OBS); }
  }
  function startWatch() {
    incObserver = new MutationObserver((rs) => { if (recs.length + rs.length > MAX_RECS) recOver = true; else for (const r of rs) recs.push(r); });
    incObserver.observe(document, OBS);
    for (const k of HIT_EVENTS) document.addEventListener(k, onHit, true);
  }
  // stopWatch forgets what was kept and stops watching for changes.
  function stopWatch() {
    if (incObserver) incObserver.disconnect();
    for (const k of HIT_EVENTS) document.removeEventListener(k, onHit, true);
    incObserver = null;
    incState = null;
    cache = new WeakMap();
    controls = new Map();
    watched = new WeakSet();
    recs = [];
    recOver = false;
    hits = [];
  }
  // up is the element a node is walked under (its slot, its shadow host).
  const up = (n) => n.assignedSlot || n.parentElement || (n.parentNode && n.parentNode.host) || null;
  // cssOf reads what in the page's style sheets decides how far a change
  // reaches, once per set of sheets.
  let cssSig = "", cssSeen = null;
  const STATE = /:(hover|active|focus-within|focus-visible|focus|checked|indeterminate|placeholder-shown|valid|invalid|user-valid|user-invalid|in-range|out-of-range|blank|default|target|autofill|open|popover-open|modal|fullscreen|playing|paused|defined)\b/g;
  function sheetsOf() {
    const list = Array.from(document.styleSheets);
    if (document.adoptedStyleSheets) list.push(...document.adoptedStyleSheets);
    return list;
  }
  function cssOf() {
    const sheets = sheetsOf();
    let sig = "" + sheets.length;
    for (const sh of sheets) { let n = -1; try { n = sh.cssRules.length; } catch (e) { /* another origin */ } sig += "," + n + (sh.disabled ? "d" : ""); }
    if (sig === cssSig && cssSeen) return cssSeen;
    // states: the compound selectors with a state pseudo-class in them
    // (".card:hover"), each with whether a sibling combinator follows it;
    // bare: the pseudo-classes of compounds that cannot be matched alone,
    // or of too many compounds.
    const seen = { sig, sib: false, struct: false, has: false, opaque: false, states: new Map([[":modal", false], [":popover-open", false], [":open", false], [":not(:defined)", false]]) };
    const compounds = new Map(), bare = new Map();
    const note = (c, sib) => {
      const m = c.match(STATE);
      if (!m) return;
      const alone = c.replace(/::?(before|after|first-line|first-letter|marker|placeholder|selection|backdrop|file-selector-button)\b(\([^)]*\))?/g, "") || "*";
      let ok = compounds.size < 40 && !alone.includes("&");
      if (ok) { try { document.querySelector(alone); } catch (e) { ok = false; } }
      if (ok) compounds.set(alone, compounds.get(alone) || sib);
      else for (const p of m) bare.set(p, true);
    };
    const rules = (list) => {
      for (const r of list) {
        if (r.selectorText) {
          const t = r.selectorText;
          const flat = t.replace(/\[[^\]]*\]/g, "").replace(/\([^()]*\)/g, "()");
          if (/[+~]/.test(flat)) seen.sib = true;
          if (/:(nth-|first-|last-|only-|empty)/.test(t)) seen.struct = true;
          if (/:has\(/.test(t)) seen.has = true;
          if (STATE.test(t)) { STATE.lastIndex = 0; splitSelector(t, note); }
          STATE.lastIndex = 0;
        }
        if (r.cssRules) rules(r.cssRules);
      }
    };
    for (const sh of sheets) { try { rules(sh.cssRules); } catch (e) { seen.opaque = true; } }
    // (a sheet of another origin cannot be read: anything may be in it)
    if (seen.opaque) seen.sib = seen.struct = seen.has = true;
    for (const [c, sib] of compounds) seen.states.set(c, sib);
    for (const [p] of bare) seen.states.set(p, true);
    cssSig = sig;
    cssSeen = seen;
    return seen;
  }
  // splitSelector calls fn with each compound selector of a selector list
  // and whether a sibling combinator (+, ~) follows it; what is inside
  // brackets, parentheses and quotes stays whole.
  function splitSelector(text, fn) {
    let depth = 0, quote = "", cur = "";
    const flush = (comb) => { const c = cur.trim(); if (c) fn(c, comb === "+" || comb === "~"); cur = ""; };
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (quote) { cur += ch; if (ch === "\\") cur += text[++i] || ""; else if (ch === quote) quote = ""; continue; }
      if (ch === '"' || ch === "'") { quote = ch; cur += ch; continue; }
      if (ch === "(" || ch === "[") depth++;
      else if (ch === ")" || ch === "]") depth--;
      if (depth > 0 || ch === ")" || ch === "]") { cur += ch; continue; }
      if (ch === "," || ch === ">" || ch === "+" || ch === "~") { flush(ch); continue; }
      if (ch === " " || ch === "\n" || ch === "\t") {
        let j = i;
        while (j < text.length && (text[j] === " " || text[j] === "\n" || text[j] === "\t")) j++;
        const nx = text[j];
        if (nx !== ">" && nx !== "+" && nx !== "~" && nx !== ",") flush(" ");
        i = j - 1;
        continue;
      }
      cur += ch;
    }
    flush("");
  }
  const CHAINED = /:(hover|active|focus-within|focus-visible|focus)\b/;
  // chainOf is the elements under the pointer (hovered, active) and the
  // focused element, with their ancestors (through shadow hosts).
  function chainOf(focus) {
    const out = new Set();
    const add = (e) => { for (; e && !out.has(e); e = up(e)) out.add(e); };
    for (const e of deepMatch(":hover")) add(e);
    for (const e of deepMatch(":active")) add(e);
    add(focus);
    return out;
  }
  // deepMatch is the elements matching a pseudo-class, in open shadow
  // roots too.
  function deepMatch(sel) {
    const out = new Set();
    const look = (root) => {
      let found;
      try { found = root.querySelectorAll(sel); } catch (e) { return; }
      for (const el of found) { out.add(el); if (el.shadowRoot) look(el.shadowRoot); }
    };
    look(document);
    return out;
  }
  function animTargets() {
    const out = new Set();
    for (const a of document.getAnimations()) { const t = a.effect && a.effect.target; if (t && t.nodeType === 1) out.add(t); }
    return out;
  }
  // prepare says, before a walk of the whole document, what changed since
  // the last one: touched (walked again, their children maybe taken over)
  // and fresh (walked again with all they hold); null when the walk is a
  // whole one, keeping nothing.
  function prepare(out, modal) {
    if (incOff) return null;
    if (!incObserver) startWatch();
    const css = cssOf();
    const now = { sx: out.sx, sy: out.sy, vw: innerWidth, vh: innerHeight, dpr: devicePixelRatio, sig: css.sig, modal, css };
    const prev = incState;
    walkNo++;
    const inc = { now, whole: true, scrolled: !prev || prev.sx !== now.sx || prev.sy !== now.sy, mark: null };
    for (const r of incObserver.takeRecords()) recs.push(r);
    let whole = !prev || recOver || css.has || prev.vw !== now.vw || prev.vh !== now.vh ||
      prev.dpr !== now.dpr || prev.sig !== now.sig || prev.modal !== modal || prev.strs.length > MAX_STRS;
    const mark = inc.mark = (n) => { for (let e = n && (n.nodeType === 1 ? n : up(n)); e && touchedAt.get(e) !== walkNo; e = up(e)) touchedAt.set(e, walkNo); };
    const fresh = { add: (el) => freshAt.set(el, walkNo) };
    const restyle = (el, sib) => { mark(el); fresh.add(sib ? up(el) || el : el); };
    const sheetNode = (n) => n && (n.nodeName === "STYLE" || n.nodeName === "LINK" || (n.parentNode && n.parentNode.nodeName === "STYLE"));
    if (!whole) {
      // (an element taken out and put back into the same parent, a row of
      // a re-sorted table, was moved, not changed: its parent is walked
      // again, and what it gave last time is taken over where its box
      // still stands)
      const from = new Map();
      for (const r of recs) if (r.type === "childList") for (const a of r.removedNodes) if (a.nodeType === 1) from.set(a, r.target);
      for (const r of recs) {
        const t = r.target;
        if (sheetNode(t)) { whole = true; break; }
        if (r.type === "attributes") { if (t.nodeType === 1) restyle(t, css.sib); continue; }
        mark(t);
        if (r.type !== "childList") continue;
        if (css.struct || css.sib || t.nodeName === "DETAILS") fresh.add(t.nodeType === 1 ? t : up(t) || t);
        for (const a of r.addedNodes) {
          if (sheetNode(a)) { whole = true; break; }
          if (a.nodeType === 1 && from.get(a) !== t) fresh.add(a);
        }
        for (const a of r.removedNodes) if (sheetNode(a)) { whole = true; break; }
        if (whole) break;
      }
    }
    recs = [];
    recOver = false;
    // what the walk after this one compares with
    now.focus = out.focus;
    now.states = new Map();
    let chain = null;
    for (const [p] of css.states) {
      // (hover, active and focus match only along the pointer's and the
      // focus's chains of ancestors: those are tried, not the document)
      if (CHAINED.test(p) && !/:not\(/.test(p) && !(p.match(STATE) || []).some((x) => !CHAINED.test(x))) {
        if (!chain) chain = chainOf(out.focus);
        const set = new Set();
        for (const e of chain) { try { if (e.matches(p)) set.add(e); } catch (err) { /* not matchable alone */ } }
        now.states.set(p, set);
      } else {
        now.states.set(p, deepMatch(p));
      }
    }
    now.anims = animTargets();
    if (!whole) {
      for (const [el, sig] of controls) {
        if (!el.isConnected) controls.delete(el);
        else if (controlSig(el, el.tagName) !== sig) { mark(el); fresh.add(el); }
      }
      for (const h of hits) if (h && h.nodeType === 1) { mark(h); fresh.add(h); }
      if (prev.focus !== now.focus) { mark(prev.focus); mark(now.focus); }
      for (const [p, set] of now.states) {
        const old = prev.states.get(p);
        if (!old) { whole = true; break; }
        const sib = css.states.get(p);
        for (const e of set) if (!old.has(e)) restyle(e, sib);
        for (const e of old) if (!set.has(e)) restyle(e, sib);
      }
      for (const e of now.anims) { mark(e); fresh.add(e); }
      for (const e of prev.anims) { mark(e); fresh.add(e); }
    }
    hits = [];
    inc.whole = whole;
    if (whole) {
      cache = new WeakMap();
      controls = new Map();
      out.strs = [];
      out.strIx = new Map();
    } else {
      out.strs = prev.strs;
      out.strIx = prev.strIx;
    }
    return inc;
  }
  // finish keeps what this walk saw for the next one.
  function finish(out, inc) {
    if (!inc) return;
    if (out.stopped || out.seen > MAX_INC) {
      cache = new WeakMap();
      incState = null;
      if (out.seen > MAX_INC) incOff = true;
      return;
    }
    const now = inc.now;
    now.clickers = out.clickers;
    now.droppers = out.droppers;
    now.strs = out.strs;
    now.strIx = out.strIx;
    incState = now;
  }
  // (what a subtree's visit noted, in out.fl: EXT it depends on more
  // than the subtree, OFF an element was off screen, RECTS it read a box,
  // PINNED a box is fixed or sticky)
  const EXT = 1, OFF = 2, RECTS = 4, PINNED = 8;
  // visit is visitOwn, or what it gave last time when that still holds
  // (see above).
  function visit(el, out, ctx) {
    const inc = out.inc;
    if (!inc) return visitOwn(el, out, ctx);
    if (out.stopped) return null;
    if (!inc.whole) {
      // (stamps: the walk in which an element, or something in it, last
      // changed, and last restyled with all it holds)
      const fa = freshAt.get(el);
      if (fa > ctx.freshAt) { ctx = Object.create(ctx); ctx.freshAt = fa; }
      const E = cache.get(el);
      if (E && E.w >= ctx.freshAt && !(touchedAt.get(el) > E.w) && !(E.fl & EXT) && !((E.fl & PINNED) && inc.scrolled) && E.sig === sigOf(el, out, ctx)) {
        let dx = 0, dy = 0, ok = !(E.fl & RECTS);
        if (!ok && E.box) {
          // (boxes in the document's coordinates: the page's scroll moves
          // none but pinned ones)
          const b = el.getBoundingClientRect();
          if (b.width === E.box[2] && b.height === E.box[3]) {
            dx = b.left + out.sx - E.box[0];
            dy = b.top + out.sy - E.box[1];
            ok = !(dx || dy) || (!(E.fl & OFF) && E.minR + dx > 0 && E.minB + dy > 0);
          }
        }
        if (ok) {
          out.hidden += E.h;
          out.inert += E.n;
          out.refs += E.refs;
          out.seen += E.seen;
          out.fl |= E.fl;
          if (E.fl & RECTS) {
            if (E.minR + dx < out.minR) out.minR = E.minR + dx;
            if (E.minB + dy < out.minB) out.minB = E.minB + dy;
          }
          out.reused++;
          return E.r;
        }
      }
    }
    const h = out.hidden, n = out.inert, refs = out.refs, seen = out.seen, fl = out.fl, minR = out.minR, minB = out.minB, pend = out.pend.length, pbox = out.box;
    out.fl = 0;
    out.minR = out.minB = Infinity;
    out.box = null;
    const r = visitOwn(el, out, ctx);
    // what the subtree read of elements outside it (ancestors' text): the
    // ancestors that hold those walk again, not theirs
    let own = out.fl;
    if (out.pend.length > pend) {
      let k = pend;
      for (let i = pend; i < out.pend.length; i++) if (!el.contains(out.pend[i])) out.pend[k++] = out.pend[i];
      if (k > pend) own |= EXT;
      out.pend.length = k;
    }
    // (a small subtree is walked again rather than kept; what was kept of
    // it before goes)
    if (out.seen - seen < 4 || out.stopped) {
      if (!inc.whole) cache.delete(el);
    } else {
      const b = out.box;
      cache.set(el, { r, w: walkNo, sig: sigOf(el, out, ctx), fl: own, h: out.hidden - h, n: out.inert - n, refs: out.refs - refs, seen: out.seen - seen,
        minR: out.minR, minB: out.minB, box: b ? [b.left + out.sx, b.top + out.sy, b.width, b.height] : null });
    }
    out.fl |= fl;
    if (out.minR > minR) out.minR = minR;
    if (out.minB > minB) out.minB = minB;
    out.box = pbox;
    return r;
  }
  // sigOf is what of the walk's context an element's visit depends on.
  const sigOf = (el, out, ctx) => (ctx.visible ? 1 : 0) | (ctx.inWidget ? 2 : 0) | (ctx.inClickable ? 4 : 0) | (ctx.dropText ? 8 : 0) | (ctx.inModal ? 16 : 0) |
    (out.items.has(el) ? 32 : 0) | (out.clickers.has(el) ? 64 : 0) | (out.droppers.has(el) ? 128 : 0) | (ctx.inHeader ? 256 : 0);

  function deepFocus() {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a;
  }

  // human lists what on the page waits for a person, as [kind, what]
  // pairs (browser.HumanSign): a CAPTCHA's widget or challenge on screen
  // (reCAPTCHA, hCaptcha, Cloudflare Turnstile — found by their frames'
  // addresses, which the widgets' scripts set), Cloudflare's check page, a
  // one-time code's field or boxes, a passkey request the page waits on
  // (the main world's hook counts them: probe), and a password field ("login": a
  // sign-in form, which counts only after a navigation that was sent
  // elsewhere). What is hidden, or a widget that only shows a badge (an
  // invisible reCAPTCHA), is not a sign.
  const OTP_NAME = /(^|[^a-z])(otp|totp|2fa|mfa|one[-_ ]?time[-_ ]?(code|pass(code|word)?|pin)|verification[-_ ]?code|auth(entication)?[-_ ]?code|sms[-_ ]?code)([^a-z]|$)/i;
  const PHONE_NAME = /phone|mobile|(^|[^a-z])tel([^a-z]|$)|search/i;
  function shows(el) {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2 || r.right + scrollX < 0 || r.bottom + scrollY < 0) return false;
    const cs = getComputedStyle(el);
    if (cs.visibility !== "visible" || +cs.opacity < 0.05) return false;
    for (let a = el.parentElement; a; a = a.parentElement) if (+getComputedStyle(a).opacity < 0.05) return false;
    return true;
  }
  // (a widget's response field, near its frame or in its box, holds a
  // token once the challenge is passed: solved, no sign)
  function solved(el, field) {
    for (let c = el.parentElement, i = 0; c && i < 4; c = c.parentElement, i++) {
      const r = c.querySelector("[name='" + field + "']");
      if (r) return !!r.value;
    }
    return false;
  }
  const WIDGETS = [
    ["recaptcha", "reCAPTCHA", "g-recaptcha", "g-recaptcha-response"],
    ["hcaptcha", "hCaptcha", "h-captcha", "h-captcha-response"],
    ["turnstile", "Cloudflare Turnstile", "cf-turnstile", "cf-turnstile-response"],
  ];
  // passkeys is how many passkey requests the page waits on, as the main
  // world's hook counts them (0 without probe or hook).
  function passkeys(probe) {
    if (!probe) return 0;
    let n = 0;
    const got = (e) => { if (typeof e.detail === "number") n = e.detail; };
    document.addEventListener(probe + "-passkey-n", got, true);
    try { document.dispatchEvent(new CustomEvent(probe + "-passkey")); } finally { document.removeEventListener(probe + "-passkey-n", got, true); }
    return n;
  }
  // A kind that ends in "-challenge", cloudflare, otp, passkey and login
  // hold the task up (browser.HumanSign.Blocks); a widget (a checkbox to
  // tick before a form is sent) only guards its form.
  function human(probe, pk) {
    const out = [], seen = new Set();
    const add = (kind, what) => { if (!seen.has(kind)) { seen.add(kind); out.push([kind, what]); } };
    for (const f of document.getElementsByTagName("iframe")) {
      let u;
      try { u = new URL(f.src || "about:blank"); } catch (e) { continue; }
      const host = u.hostname.replace(/^www\./, "");
      let w = null, open = false;
      if (/(^|\.)(google\.com|recaptcha\.net)$/.test(host) && /\/recaptcha\/(api2|enterprise)\/(anchor|bframe)/.test(u.pathname)) {
        if (/\/anchor/.test(u.pathname) && (u.searchParams.get("size") === "invisible" || f.closest(".grecaptcha-badge"))) continue;
        w = WIDGETS[0];
        open = /\/bframe/.test(u.pathname);
      } else if (/(^|\.)hcaptcha\.com$/.test(host)) {
        w = WIDGETS[1];
        open = /(^|[#&])frame=challenge/.test(u.hash);
      } else if (host === "challenges.cloudflare.com") {
        w = WIDGETS[2];
      }
      if (!w || !shows(f) || solved(f, w[3])) continue;
      if (open) add(w[0] + "-challenge", w[1] + " challenge, open (iframe from " + host + ")");
      else add(w[0], w[1] + " widget (iframe from " + host + ")");
    }
    // (a widget whose frame is out of reach, in a closed shadow root: its
    // box, drawn and not invisible, known by its class or, rendered
    // explicitly, by the empty response field the script put in it)
    for (const w of WIDGETS) {
      if (seen.has(w[0]) || seen.has(w[0] + "-challenge")) continue;
      const boxes = [...document.getElementsByClassName(w[2])].filter((b) => b.hasAttribute("data-sitekey") && b.getAttribute("data-size") !== "invisible");
      for (const r of document.getElementsByName(w[3])) if (r.parentElement && !boxes.includes(r.parentElement)) boxes.push(r.parentElement);
      for (const box of boxes) {
        if (box.getElementsByTagName("iframe").length) continue;
        const r = box.getBoundingClientRect();
        if (r.width >= 50 && r.height >= 30 && shows(box) && !solved(box.firstElementChild || box, w[3])) { add(w[0], w[1] + " widget (" + (box.classList.contains(w[2]) ? "." + w[2] : "its box") + ")"); break; }
      }
    }
    // (Cloudflare's check page, in any language: its markup, or its title)
    const cf = document.querySelector("#challenge-form, #cf-challenge-running, script[src*='/cdn-cgi/challenge-platform/'][src*='/orchestrate/']");
    if (cf || /^just a moment/i.test(document.title.trim()) && document.getElementById("challenge-stage")) {
      add("cloudflare", "Cloudflare's check page (\"" + cut(document.title.trim(), 60) + "\")");
    }
    const boxes = new Map();
    let password = null;
    for (const el of document.getElementsByTagName("input")) {
      const type = (el.getAttribute("type") || "text").toLowerCase();
      if (!/^(text|tel|number|password|)$/.test(type) || el.disabled) continue;
      const ac = (el.getAttribute("autocomplete") || "").toLowerCase();
      const names = [el.name, el.id, el.getAttribute("aria-label"), el.placeholder];
      // (a phone number's or a search's field is not the code's, whatever
      // its words: "mobile number to receive an OTP")
      const phone = ac.includes("tel") || names.some((s) => s && PHONE_NAME.test(s));
      const named = phone ? undefined : names.find((s) => s && OTP_NAME.test(s.replace(/([a-z0-9])([A-Z])/g, "$1 $2")));
      if (ac.includes("one-time-code") || named) {
        if (shows(el)) add("otp", "one-time code field (" + (ac.includes("one-time-code") ? "autocomplete=one-time-code" : JSON.stringify(cut(named, 40))) + ")");
      } else if (el.maxLength === 1 && el.parentElement && (type === "tel" || type === "number" || /^(numeric|decimal)$/.test(el.inputMode) || /\\d|\[0-9\]/.test(el.pattern))) {
        // (code boxes take digits: a word game's letter boxes do not count)
        const group = el.form || el.parentElement.parentElement || el.parentElement;
        if (!boxes.has(group)) boxes.set(group, []);
        boxes.get(group).push(el);
      } else if (type === "password" && !password && shows(el)) {
        password = el;
      }
    }
    for (const els of boxes.values()) {
      const shown = els.filter(shows);
      if (shown.length >= 4 && shown.length <= 8) { add("otp", "one-time code boxes (" + shown.length + " fields of one digit)"); break; }
    }
    if ((pk === undefined ? passkeys(probe) : pk) > 0) add("passkey", "passkey prompt (the page waits for the person's security key or device)");
    if (password) add("login", "sign-in form (password field)");
    return out;
  }

  function snapshot(root, opts) {
    const out = { hidden: 0, inert: 0, refs: 0, sx: scrollX, sy: scrollY, focus: deepFocus(), clickers: new Set(), droppers: new Set(), items: new WeakSet(),
      seen: 0, stopped: false, strs: [], strIx: new Map(), until: opts && opts.budget > 0 ? performance.now() + opts.budget : Infinity,
      inc: null, fl: 0, minR: Infinity, minB: Infinity, box: null, reused: 0, pend: [], shown: new WeakSet(), shownVal: new Map(),
      popups: new Map(), moved: new Set(), placed: new Set(), top: null, look: null };
    if (opts && opts.probe) {
      // The main world's hook knows the elements with click listeners: it
      // answers the probe event by firing the reply event at each of them.
      const note = (e) => { const t = e.composedPath()[0]; if (t && t.nodeType === 1) out.clickers.add(t); };
      const drop = (e) => { const t = e.composedPath()[0]; if (t && t.nodeType === 1) out.droppers.add(t); };
      document.addEventListener(opts.probe + "-r", note, true);
      document.addEventListener(opts.probe + "-d", drop, true);
      try { document.dispatchEvent(new CustomEvent(opts.probe)); } finally {
        document.removeEventListener(opts.probe + "-r", note, true);
        document.removeEventListener(opts.probe + "-d", drop, true);
      }
    }
    let modal = null;
    try { modal = document.querySelector("dialog:modal"); } catch (e) { modal = null; }
    const ctx = { visible: true, modal: root ? null : modal, inModal: false };
    let items;
    if (root) {
      shownValues(root, out);
      out.top = ctx;
      popupsOf(root, out);
      const r = visit(root, out, ctx);
      items = r === null ? [] : r.block || r.inline !== undefined ? (r.items || (r.text ? [{ t: norm(r.text) }] : [])) : [r];
    } else {
      const whole = opts && opts.whole;
      const all = document.getElementsByTagName("*").length;
      const small = !whole && !(opts && opts.verify) && all < MIN_INC;
      if (small && incObserver) stopWatch();
      // (a first look keeps nothing: what it read depends on the scroll)
      if (opts && opts.look && all >= LOOK_MIN) out.look = { all, hit: lookHits(), skipped: 0 };
      const inc = whole || small || out.look ? null : prepare(out, modal);
      if (inc && !inc.whole) {
        // listener probe answers that changed: those elements walk again
        const prev = incState;
        for (const [a, b] of [[prev.clickers, out.clickers], [prev.droppers, out.droppers]]) {
          for (const e of a) if (!b.has(e)) inc.mark(e);
          for (const e of b) if (!a.has(e)) inc.mark(e);
        }
      }
      out.inc = inc;
      if (document.body) shownValues(document.body, out);
      // (the walk starts below the body: a restyle of it or of the root
      // element reaches everything)
      ctx.freshAt = 0;
      if (inc && !inc.whole) ctx.freshAt = Math.max(freshAt.get(document.body) || 0, freshAt.get(document.documentElement) || 0);
      out.top = ctx;
      popupsOf(document, out);
      extOut = out;
      try {
        items = document.body ? walk(document.body, out, ctx, []) : [];
      } finally { extOut = null; }
      if (!whole) finish(out, inc);
    }
    const res = { doc, title: document.title, url: location.href, hidden: out.hidden, inert: out.inert, modal: !!ctx.modal, c: items, s: out.strs };
    if (out.stopped) res.stopped = out.seen;
    if (out.inc) res.reused = out.reused;
    if (out.look && out.look.skipped) res.look = [out.seen, out.look.all];
    if (!root) {
      const probe = opts && opts.probe, pk = passkeys(probe);
      const h = human(probe, pk);
      // (the wait's check right after a walk reads it from here)
      if (observer) { humanLast = h; humanAt = mutations; humanPk = pk; }
      if (h.length) res.h = h;
    }
    if (opts && opts.verify && !root && !out.stopped && !out.look) {
      // (tests) the walk must give what a whole walk gives
      const w = snapshot(null, { probe: opts.probe, whole: true });
      const flat = (r) => JSON.stringify([r.hidden, r.inert, r.c], (k, v) => (k === "p" && Array.isArray(v) ? [v[0], v[1], v[2], r.s[+v[3]], r.s[+v[4]]] : v));
      const a = flat(res), b = flat(w);
      if (a !== b) {
        let i = 0;
        while (i < a.length && a[i] === b[i]) i++;
        res.verify = "at " + i + ": " + a.slice(Math.max(0, i - 150), i + 150) + "  <<>>  " + b.slice(Math.max(0, i - 150), i + 150);
      }
    }
    return res;
  }

  // resolve finds the element a ref stands for: the same element when it is
  // still in the page, else the one live element matching its fingerprint.
  function resolve(id, fp) {
    const [tag, elid, testid, context, , role, name] = fp;
    const el = get(id);
    if (el) {
      const now = check(id);
      return { id, level: now && now[0] === role && now[1] === name ? "exact" : "stable" };
    }
    let pool;
    if (elid) {
      const e = document.getElementById(elid);
      pool = e ? [e] : [];
    } else {
      pool = Array.from(document.getElementsByTagName(tag));
    }
    const scored = [];
    for (const e of pool) {
      if (!e.isConnected) continue;
      const t = e.tagName.toUpperCase();
      const r = roleOf(e, t);
      const n = nameOf(e, t, r);
      let score = 0;
      if (r === role) score += 2;
      if (cut(n, 400) === name) score += 4;
      if (testid && (e.getAttribute("data-testid") || e.getAttribute("data-test-id")) === testid) score += 2;
      if (context && contextOf(e, n) === context) score += 3;
      scored.push({ e, score, r, n });
    }
    scored.sort((a, b) => b.score - a.score);
    const full = 2 + 4 + (testid ? 2 : 0) + (context ? 3 : 0);
    const best = scored.filter((x) => x.score === full);
    if (best.length === 1) {
      const b = best[0].e;
      return { id: idOf(b), level: "reidentified" };
    }
    return { level: "stale", count: best.length, near: scored.slice(0, 3).filter((x) => x.score > 0).map((x) => x.r + ' "' + cut(x.n, 40) + '"') };
  }

  // take is resolve in one evaluation for a ref still exactly in the page:
  // the element itself; else what resolve found, as JSON text.
  function take(id, fp) {
    const r = resolve(id, fp);
    return r.level === "exact" ? get(r.id) : JSON.stringify(r);
  }

  // styledOver says el is a checkbox or radio input drawn invisible (no
  // size, or clipped) with a visible label in its place: a custom-styled
  // control, which a user operates through the label.
  function styledOver(el, tag) {
    if (tag !== "INPUT" || (el.type !== "checkbox" && el.type !== "radio")) return false;
    if (extOut) extOut.fl |= EXT; // (its labels are elsewhere)
    for (const l of labelsOf(el)) {
      const r = l.getBoundingClientRect();
      if (r.width > 1 && r.height > 1) return true;
    }
    return false;
  }

  // nameOf is an element's accessible name as refs record it.
  function nameOf(el, t, r) {
    let n = labelName(el, t, r);
    if (!n && (FROM_CONTENT.has(r) || !r)) {
      // (as the walk names it: icons, tree items, calendar days)
      n = r === "treeitem" || (r && el.querySelector(ICON_SEL)) ? contentName(el, r) : textOf(el);
      if (r && DAY_ROLES.has(r)) n = dayName(el, norm(n)) || n;
    }
    if (!n) n = fallbackName(el) || labelForBox(el, r);
    return cut(norm(n), 400);
  }

  // check re-reads an element's role and name, to compare with its ref.
  function check(id) {
    const el = get(id);
    if (!el) return null;
    const t = el.tagName.toUpperCase();
    const r = roleOf(el, t);
    return [r, nameOf(el, t, r)];
  }

  // matcher tests a string against a pattern: /re/flags is a regular
  // expression; else a case-insensitive substring, or equality when exact.
  function matcher(pat, exact) {
    const f = matcherOf(pat, exact);
    return hidden ? (s) => f(unsecret(s)) : f;
  }
  function matcherOf(pat, exact) {
    const m = /^\/(.*)\/([dimsuv]*)$/s.exec(pat);
    if (m) {
      if (rxHook) { const h = rxHook; return (s) => h(pat, s); }
      const re = new RegExp(m[1], m[2]); // no g or y: test() would keep state
      return (s) => { rx = pat; const r = re.test(s); rx = null; return r; };
    }
    const p = norm(pat);
    if (exact) return (s) => s === p;
    const lp = p.toLowerCase();
    return (s) => s.toLowerCase().includes(lp);
  }

  // hidden are the forms of the calling client's secrets that may be typed
  // on this document, longest first, as [{f: form, n: name}], set by every
  // call (hide); null: none. Every agent pattern, text and expect is
  // compared with the page's strings only after unsecret has replaced
  // them by <secret:NAME>, so no answer depends on a secret's characters.
  // A part of one shown apart (a third of it, at least 6 characters, as
  // secrets.FragmentLen) reads the same: windows are its pieces.
  let hidden = null, hiddenKey = "", windows = null, firsts = null;
  const hide = (list) => {
    hidden = Array.isArray(list) && list.length ? list : null;
    const key = hidden ? JSON.stringify(hidden) : "";
    if (key === hiddenKey) return;
    hiddenKey = key;
    windows = null;
    if (!hidden) return;
    windows = new Map(); // length → Map(window → name)
    firsts = new Set(); // the windows' first characters
    for (const h of hidden) {
      if (!h.p) continue; // (a secret whose pieces may be ordinary words)
      const cs = Array.from(h.f), k = Math.min(cs.length, Math.max(6, Math.floor((cs.length + 2) / 3)));
      if (k >= cs.length) continue;
      for (let i = 0, at = 0; i + k <= cs.length; at += cs[i].length, i++) {
        const w = cs.slice(i, i + k).join("");
        if (!/[^\p{L}]/u.test(w)) continue; // letters alone: a word
        if (!windows.has(w.length)) windows.set(w.length, new Map());
        if (!windows.get(w.length).has(w)) windows.get(w.length).set(w, { n: h.n, v: h.f, at });
        firsts.add(w[0]);
      }
    }
  };
  // spaced hides a value shown in groups ("4242 4242 4242 4242").
  const SEP = /[ \u00a0-]/;
  const spaced = (s) => {
    if (!SEP.test(s)) return s;
    let sq = "";
    const at = [];
    for (let i = 0; i < s.length; i++) if (!SEP.test(s[i])) { sq += s[i]; at.push(i); }
    const spans = [];
    for (const h of hidden) {
      const v = h.f.replace(/[ \u00a0-]/g, "");
      if (v.length < 4) continue;
      for (let off = sq.indexOf(v); off >= 0; off = sq.indexOf(v, off + v.length)) spans.push([at[off], at[off + v.length - 1] + 1, h.n]);
    }
    if (!spans.length) return s;
    spans.sort((a, b) => a[0] - b[0]);
    let out = "", last = 0;
    for (const [from, to, n] of spans) {
      if (from < last) continue;
      out += s.slice(last, from) + "<secret:" + n + ">";
      last = to;
    }
    return out + s.slice(last);
  };
  const unsecret = (s) => {
    if (!hidden || typeof s !== "string" || !s) return s;
    for (const h of hidden) if (s.includes(h.f)) s = s.split(h.f).join("<secret:" + h.n + ">");
    s = spaced(s);
    if (!windows || !windows.size) return s;
    let cover = null;
    for (const [n, m] of windows) {
      for (let p = 0; p + n <= s.length; p++) {
        if (!firsts.has(s[p])) continue;
        const pc = m.get(s.substr(p, n));
        if (pc === undefined) continue;
        // the run that goes on matching the value
        let from = p, to = p + n;
        for (let i = pc.at - 1; i >= 0 && from > 0 && s[from - 1] === pc.v[i]; i--) from--;
        for (let i = pc.at + n; i < pc.v.length && to < s.length && s[to] === pc.v[i]; i++) to++;
        if (!cover) cover = new Array(s.length).fill("");
        for (let i = from; i < to; i++) if (!cover[i]) cover[i] = pc.n;
      }
    }
    if (!cover) return s;
    let out = "";
    for (let i = 0; i < s.length; ) {
      if (!cover[i]) { out += s[i++]; continue; }
      const name = cover[i];
      while (i < s.length && cover[i]) i++;
      out += "<secret:" + name + ">";
    }
    return out;
  };

  // shown says an element is rendered with a box (or is a checkbox or radio
  // styled over by its visible label) and not hidden from assistive
  // technology.
  function shown(el) {
    if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0 && !styledOver(el, el.tagName.toUpperCase())) return false;
    if ((r.width === 0 || r.height === 0) && clippedAway(el)) return false;
    return !el.closest('[aria-hidden="true"]');
  }

  // clippedAway says an element sits in a box of no area that clips what
  // it holds (a 0×0 listbox kept for assistive technology): no one sees it.
  function clippedAway(el) {
    for (let p = el.parentElement, up = 0; p && up < 4 && p !== document.body; p = p.parentElement, up++) {
      const r = p.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) continue;
      const st = getComputedStyle(p);
      if (st.overflowX !== "visible" || st.overflowY !== "visible") return true;
    }
    return false;
  }

  // each calls fn for every element under node in document order, open
  // shadow roots included; fn returning false skips the element's subtree.
  function each(node, fn) {
    for (let c = node.firstElementChild; c; c = c.nextElementSibling) {
      if (SKIP.has(c.tagName.toUpperCase())) continue;
      if (fn(c) === false) continue;
      if (c.shadowRoot) each(c.shadowRoot, fn);
      each(c, fn);
    }
  }

  // hit describes a matching element for Go: its number, role, name and
  // fingerprint.
  function hit(el) {
    const t = el.tagName.toUpperCase();
    const r = roleOf(el, t);
    const n = nameOf(el, t, r);
    return { id: idOf(el), r: r || t.toLowerCase(), n, p: fingerprint(el, r, n) };
  }

  const ACTABLE = new Set([...WIDGET, "option"]);

  // at is what is at the point (x, y) of the viewport: the innermost
  // element there (through open shadow roots), or rather the nearest one
  // holding it that a user acts on (a widget, a link, a labelled control),
  // as hit gives it, with the viewport's size; in: the element is a frame.
  // Null outside the viewport or over nothing.
  function at(x, y) {
    const vw = document.documentElement.clientWidth || innerWidth, vh = document.documentElement.clientHeight || innerHeight;
    const out = { vw, vh, doc, h: null };
    if (x < 0 || y < 0 || x >= vw || y >= vh) return out;
    let el = document.elementFromPoint(x, y);
    for (let depth = 0; el && el.shadowRoot && depth < 32; depth++) {
      const inner = el.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === el) break;
      el = inner;
    }
    if (!el) return out;
    let a = el;
    for (let e = el; e && e.nodeType === 1; e = up(e)) {
      if (ACTABLE.has(roleOf(e, e.tagName.toUpperCase()))) { a = e; break; }
    }
    out.h = hit(a);
    out.in = a.tagName === "IFRAME" || a.tagName === "FRAME";
    return out;
  }

  // query finds the elements a locator names under root (the document when
  // null): {text} matches the innermost elements whose text (or a button
  // input's value) matches; {role, name} matches computed roles and
  // accessible names. It returns the count, up to 11 hits, how many matches
  // are not shown (unseen, when any: not counted, not hits) and, when none
  // match, the nearest elements.
  function query(q, root) {
    root = root || document.body || document.documentElement;
    const hits = [];
    let count = 0, unseen = 0;
    const take = (el) => { count++; if (hits.length < 11) hits.push(hit(el)); };
    // frames: the shown iframes of the document, for a search of every
    // frame; noted in the same pass as the matching
    const frames = q.frames ? [] : null;
    const noteFrame = (el, t) => { if (frames && (t === "IFRAME" || t === "FRAME") && shown(el)) frames.push(idOf(el)); };
    const nm = q.name !== undefined && q.name !== null && q.name !== "" ? matcher(q.name, q.exact) : null;
    if (q.text !== undefined && q.text !== null && q.text !== "") {
      const test = matcher(q.text, q.exact);
      // post-order: an element matches only when none of its children does
      const visit = (node) => {
        let inner = false;
        const kidsOf = [];
        for (let c = node.firstElementChild; c; c = c.nextElementSibling) kidsOf.push(c);
        if (node.shadowRoot) for (let c = node.shadowRoot.firstElementChild; c; c = c.nextElementSibling) kidsOf.push(c);
        for (const c of kidsOf) {
          if (SKIP.has(c.tagName.toUpperCase())) continue;
          if (visit(c)) inner = true;
        }
        if (inner || node === root && root === document.body) return inner;
        const t = node.tagName.toUpperCase();
        noteFrame(node, t);
        const v = t === "INPUT" && /^(button|submit|reset)$/i.test(node.type) ? norm(node.value) : textOf(node);
        if (!v || !test(v)) return false;
        // A hidden match is not taken, and its ancestors do not match
        // through it either.
        if (shown(node)) take(node);
        else unseen++;
        return true;
      };
      visit(root);
    } else if (q.role && q.contains) {
      // containers: the elements of the role whose text holds the text
      const test = matcher(q.contains, false);
      const ms = [];
      each(root, (el) => {
        const t = el.tagName.toUpperCase();
        noteFrame(el, t);
        if (roleOf(el, t) !== q.role || !shown(el)) return true;
        const txt = textOf(el);
        if (test(txt)) ms.push([el, txt]);
        return true;
      });
      // the innermost: an outer list item holds the text of its sub-list's
      for (const [el, txt] of ms) {
        if (ms.some(([o]) => o !== el && el.contains(o))) continue;
        count++;
        if (hits.length < 11) {
          const h = hit(el);
          if (!h.n) h.n = cut(txt, 80); // a row is told apart by its text
          hits.push(h);
        }
      }
    } else if (q.role) {
      each(root, (el) => {
        const t = el.tagName.toUpperCase();
        noteFrame(el, t);
        if (roleOf(el, t) !== q.role) return true;
        if (nm && !nm(nameOf(el, t, q.role))) return true;
        if (shown(el)) take(el);
        else unseen++;
        return true;
      });
    }
    const out = { count, hits, doc };
    if (unseen) out.unseen = unseen;
    if (frames) out.frames = frames;
    if (count === 0) {
      // nearest: same role (any name), else actionable elements sharing a word
      const words = norm(String(q.name || q.text || "")).toLowerCase().split(" ").filter((w) => w.length > 1 && !/^\//.test(w));
      const near = [];
      each(root, (el) => {
        const t = el.tagName.toUpperCase();
        const r = roleOf(el, t);
        if (!ACTABLE.has(r) || !shown(el)) return true;
        const n = nameOf(el, t, r).toLowerCase();
        let score = q.role && r === q.role ? 1 : 0;
        for (const w of words) if (n.includes(w)) score += 2;
        if (score > 0) near.push({ el, score });
        return true;
      });
      near.sort((a, b) => b.score - a.score);
      out.near = near.slice(0, 5).map((x) => hit(x.el));
    }
    return out;
  }

  // frameBox is where the content of an iframe element starts in its
  // document's viewport.
  function frameBox(id) {
    const el = get(id);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    const st = getComputedStyle(el);
    return [r.left + el.clientLeft + parseFloat(st.paddingLeft), r.top + el.clientTop + parseFloat(st.paddingTop)];
  }

  // Mutations of the document since quiet() was first asked: their count
  // and the time since the last, for the wait after an action. Then the
  // finite animations (CSS transitions and animations, Web Animations) of
  // the document and its same-process frames that run now and did not when
  // quiet(true) marked the action's start: their count, the ms left of the
  // longest, and what it is. Infinite ones (spinners) are left out, and so
  // are transitions of paint-only properties (a button's hover colour, a
  // focus ring) and a click's ornaments (decorative): they change nothing
  // a snapshot or the next input meets.
  let mutations = 0, lastMutation = 0, observer = null, animsBefore = new WeakSet();
  function animations() {
    const out = [], docs = [document];
    for (let i = 0; i < docs.length && i < 32; i++) {
      try { out.push(...docs[i].getAnimations()); } catch (e) { /* a document going away */ }
      for (const f of docs[i].querySelectorAll("iframe,frame")) {
        try { if (f.contentDocument) docs.push(f.contentDocument); } catch (e) { /* another origin */ }
      }
    }
    return out;
  }
  const PAINT_ONLY = /(color|shadow|^outline|^fill|^stroke)/;
  // decorative says an animated element is a click's ornament (Ant
  // Design's wave, MUI's ripple): it takes no pointer input and holds no
  // content, so nothing a snapshot or the next input meets waits on it.
  function decorative(el) {
    if (!el || el.nodeType !== 1 || el.textContent.trim() || el.querySelector("img,svg,video,canvas,input,button,a,select,textarea")) return false;
    try { return getComputedStyle(el).pointerEvents === "none"; } catch (e) { return false; }
  }
  function animName(a) {
    const el = a.effect && a.effect.target;
    const what = a.transitionProperty ? a.transitionProperty + " transition" : a.animationName ? "animation " + a.animationName : "animation";
    if (!el || !el.tagName) return what;
    const cls = Array.from(el.classList || []).slice(0, 2).map((c) => "." + c).join("");
    return what + " on " + el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + cls;
  }
  // keepalive lists the keepalive fetches the page's documents started since
  // quiet(true) (the hook in their main world tells, with probe the
  // per-process event name).
  let keepalive = [], probed = false;
  function watch() {
    if (observer) return;
    observer = new MutationObserver(() => { mutations++; lastMutation = performance.now(); });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  }
  // sinceMutation is how long ago (ms) the document last changed, 1e9 for
  // never; -1 when nothing watched it yet (the watch starts now).
  function sinceMutation() {
    if (!observer) { watch(); return -1; }
    return lastMutation ? performance.now() - lastMutation : 1e9;
  }
  function quiet(mark, probe) {
    watch();
    if (probe && !probed) {
      probed = true;
      document.addEventListener(probe + "-keepalive", (e) => { if (typeof e.detail === "string" && keepalive.length < 100) keepalive.push(e.detail); }, true);
    }
    const anims = animations();
    if (mark) { animsBefore = new WeakSet(anims); keepalive = []; watchFrames(); }
    let n = 0, left = 0, what = "";
    for (const a of anims) {
      if (animsBefore.has(a) || a.playState !== "running" || !a.effect) continue;
      if (a.transitionProperty && PAINT_ONLY.test(a.transitionProperty)) continue;
      if (decorative(a.effect.target)) continue;
      const t = a.effect.getComputedTiming();
      if (!isFinite(t.endTime)) continue;
      const rest = (t.endTime - (t.localTime || 0)) / Math.abs(a.playbackRate || 1);
      n++;
      if (rest >= left) { left = rest; what = animName(a); }
    }
    const q = queued(probe);
    // ([10] and [11]: quietAfterFrame's; [12]: what waits for a person)
    // (a mark, before the input, needs none: the page is read again after)
    if (mark) humanAt = -1;
    return [mutations, lastMutation ? performance.now() - lastMutation : 1e9, n, left, what, keepalive, location.href, document.title, q, messagesN, null, null, mark ? null : humanNow(probe)];
  }
  // humanNow is human(probe), read again only when the DOM or the passkey
  // requests changed since the last read, or a mark came between: a wait's
  // checks read it every time.
  let humanAt = -1, humanPk = -1, humanLast = [];
  function humanNow(probe) {
    const pk = passkeys(probe);
    if (mutations !== humanAt || pk !== humanPk) { humanLast = human(probe, pk); humanAt = mutations; humanPk = pk; }
    return humanLast;
  }
  // queued is the count of short timers and channel messages the page's
  // main world has queued and not yet run (timers.js answers the probe's
  // event), -1 when nothing answers (a document loaded before the hook).
  let queuedN = -1;
  // (messagesN: how many of them are channel messages, as the same
  // answer said)
  let messagesN = -1;
  function queued(probe) {
    if (!probe) return -1;
    if (!queuedOn) {
      queuedOn = true;
      document.addEventListener(probe + "-timers-n", (e) => { if (typeof e.detail === "number") queuedN = e.detail; }, true);
      document.addEventListener(probe + "-timers-m", (e) => { if (typeof e.detail === "number") messagesN = e.detail; }, true);
    }
    queuedN = messagesN = -1;
    document.dispatchEvent(new CustomEvent(probe + "-timers"));
    return queuedN;
  }
  let queuedOn = false;

  // frame resolves true once the page has drawn its next frame and run
  // the task after it: what an input set off for its next paint
  // (animation-frame callbacks, the style changes that start transitions,
  // zero timers) has happened by then. A frame that began after the
  // action's input, before this call (watchFrames), counts: then it
  // resolves at once. A page that is not visible draws no frames: false at
  // once. At most cap ms (false).
  // drawnAt is when the last frame(cap) saw the frame drawn.
  let drawnAt = 0;
  function frame(cap) {
    if (document.visibilityState !== "visible") return Promise.resolve(false);
    // (the chain of watchFrames has done its work, for this mark only)
    const seen = lastInput && lastFrame > lastInput;
    frameChain++;
    lastInput = lastFrame = 0;
    if (seen) {
      // (a frame began after the page's last input, and its task is over)
      drawnAt = performance.now();
      return Promise.resolve(true);
    }
    return new Promise((done) => {
      const t = setTimeout(() => done(false), cap);
      requestAnimationFrame(() => { drawnAt = performance.now(); setTimeout(() => { clearTimeout(t); done(true); }, 0); });
    });
  }

  // The page's frames after an action's input: from the action's mark
  // (quiet(true)) on, for a second at most, a chain of animation-frame
  // callbacks notes when each frame began (lastFrame), and listeners that
  // capture the input events note when the page last got one (lastInput).
  // A frame that began after the last input has run the page's callbacks
  // and its rendering before any task that comes later: frame() need not
  // wait for another. (An input into another document is not seen: then
  // frame() waits.)
  let lastInput = 0, lastFrame = 0, frameChain = 0, inputWatched = false;
  const INPUT_EVENTS = ["beforeinput", "input", "change", "keydown", "keyup", "pointerdown", "pointerup", "mousedown", "mouseup", "click", "dblclick", "auxclick", "contextmenu", "wheel"];
  const noteInput = () => { lastInput = performance.now(); };
  function watchFrames() {
    if (!inputWatched) {
      inputWatched = true;
      // (passive: a wheel listener that is not would make the page's
      // scrolling wait for its main thread)
      for (const k of INPUT_EVENTS) window.addEventListener(k, noteInput, { capture: true, passive: true });
    }
    lastInput = lastFrame = 0;
    const chain = ++frameChain, until = performance.now() + 1000;
    const tick = () => {
      if (chain !== frameChain) return;
      lastFrame = performance.now();
      if (lastFrame < until) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }

  // quietAfterFrame is quiet(false, probe) once frame(cap) has resolved and
  // at least least ms have passed, with whether a frame was drawn. After a
  // drawn frame it waits after ms more at the least: the short timers the
  // page set in that frame's callbacks (a navigation 5 ms after the next
  // paint) have run by then however late the frame came, since timers run
  // in the order of their deadlines. A page that has settled by its frame
  // (below: such timers would be queued) is read then, least or not.
  // With walk (prewalk's opts and skip), the page is walked too, unless an
  // animation the action started still runs: {q, w, m} as prewalk gives.
  // The walk is taken at once, while the page waits for its frame, and
  // stands if nothing a walk reads changed by the end (walkUnless's
  // test); else the page is walked again then (taking over what did not
  // change). The state ends with whether the frame was drawn and whether
  // the DOM has settled: nothing changed it since that frame and the page
  // has no short timer or channel message queued (queued), so what the
  // input set off has run.
  const quietAfterFrame = (probe, cap, least, walk, after) => {
    const t0 = performance.now();
    const early = walk ? prewalk(walk.opts, walk.skip) : null;
    const settled = (drawn) => drawn && queued(probe) === 0 && lastMutation <= drawnAt;
    return frame(cap).then((drawn) => {
      const rest = settled(drawn) ? 0 : Math.max((least || 0) - (performance.now() - t0), drawn ? after || 0 : 0);
      return rest >= 1 ? new Promise((done) => setTimeout(() => done(drawn), rest)) : drawn;
    }).then((drawn) => {
      const r = quiet(false, probe);
      r[10] = drawn;
      r[11] = drawn && r[8] === 0 && lastMutation <= drawnAt;
      if (!walk) return r;
      if (r[2] > 0) return { q: r, w: null, m: r[0], no: true };
      if (early.w && early.m === mutations && deepFocus() === pwFocus && viewSig() === pwView) return { q: r, w: early.w, m: mutations };
      const w = prewalk(walk.opts, walk.skip);
      w.q = r;
      return w;
    });
  };

  const known = (el) => ids.get(el) || 0;

  // Agent patterns run in a worker, off the page's main thread: a pattern
  // that backtracks for minutes is stopped there (Worker.terminate) when
  // its time is up, which works where Runtime.terminateExecution is not
  // allowed (chrome.debugger). rxHook, when set, answers a pattern's
  // tests instead of running them.
  let rxHook = null;
  const isPattern = (p) => typeof p === "string" && /^\/(.*)\/([dimsuv]*)$/s.test(p);
  const RX_WORKER = "onmessage = (e) => { const out = []; let at = null;" +
    " for (const [p, s] of e.data) { if (p !== at) { at = p; postMessage({ at: p }); }" +
    " const m = /^\\/(.*)\\/([dimsuv]*)$/s.exec(p); out.push(new RegExp(m[1], m[2]).test(s)); }" +
    " postMessage({ res: out }); };";

  // rxAll tests pairs [pattern, string] within ms: {res: [bool…]}, or
  // {busy: pattern} when the time ran out in that pattern. Without a
  // worker (a page's CSP may forbid it) the tests run here.
  function rxAll(pairs, ms) {
    const here = () => ({ res: pairs.map(([p, s]) => matcher(p, false)(s)) });
    if (!pairs.length) return Promise.resolve({ res: [] });
    let w;
    try {
      const src = URL.createObjectURL(new Blob([RX_WORKER], { type: "text/javascript" }));
      try {
        w = new Worker(src);
      } finally {
        URL.revokeObjectURL(src); // the worker has its script; nothing stays registered
      }
    } catch (e) {
      return Promise.resolve(here());
    }
    return new Promise((resolve) => {
      // The budget starts when the worker does: a busy machine can take a
      // while to start one, and that is no fault of the pattern. A worker
      // that does not start in time is given up for the main thread.
      let at = null, timer = setTimeout(() => done(null), Math.max(ms, 3000));
      const done = (v) => { clearTimeout(timer); w.terminate(); resolve(v); };
      w.onmessage = (e) => {
        if (e.data.res) return done({ res: e.data.res });
        if (at === null) { clearTimeout(timer); timer = setTimeout(() => done({ busy: at }), ms); }
        at = e.data.at;
      };
      w.onerror = (e) => { e.preventDefault(); done(null); };
      w.postMessage(pairs);
    }).then((v) => v || here());
  }

  // withPatterns runs fn (a pass that tests agent patterns through
  // matcher) twice when pats hold patterns: first recording the strings
  // each is tested on, then, after rxAll answered for them, with the
  // answers. It resolves to fn's result or {busy: pattern}.
  async function withPatterns(pats, ms, fn) {
    rxHook = null;
    pats = pats.filter(isPattern);
    if (!pats.length) return fn();
    const seen = new Map();
    rxHook = (p, s) => { let set = seen.get(p); if (!set) seen.set(p, (set = new Set())); set.add(s); return false; };
    try { fn(); } finally { rxHook = null; }
    const pairs = [];
    for (const [p, set] of seen) for (const s of set) pairs.push([p, s]);
    const r = await rxAll(pairs, ms);
    if (r.busy) return { busy: r.busy };
    const ans = new Map();
    pairs.forEach(([p, s], i) => ans.set(p + "\u0000" + s, r.res[i]));
    rxHook = (p, s) => ans.get(p + "\u0000" + s) === true;
    try { return fn(); } finally { rxHook = null; }
  }

  // entry wraps an entry point: a pass over the page (bulk) gets a fresh
  // memo, anything else none; a call that was terminated half-way leaves
  // its memo and pattern behind, and they must not leak into the next.
  const entry = (fn, bulk) => function (...a) {
    memo = bulk ? { labels: new Map(), text: new Map() } : null;
    rx = null;
    try { return fn.apply(this, a); } finally { memo = null; }
  };
  // busy is the pattern a terminated evaluation was stuck in, if any.
  const busy = () => { const r = rx; rx = null; return r; };
  // test runs an agent pattern (or text) against a string, marking it as
  // running (for expect, in the same world).
  const test = (pat, s) => { rxHook = null; return matcher(pat, false)(s); };
  // trial runs agent patterns on the page's text as it is now: true, or
  // {busy: pattern}.
  async function trial(pats, ms) {
    const texts = [document.title, location.href, document.body ? document.body.innerText : ""].map(unsecret);
    const r = await rxAll(pats.filter(isPattern).flatMap((p) => texts.map((s) => [p, s])), ms);
    return r.busy ? { busy: r.busy } : true;
  }
  // prewalk is the page's walk (snapshot) taken while an action's DOM
  // changes settle, with the quiet state at its end (quiet(false, probe))
  // and the mutation count it saw: it stands for the snapshot after the
  // action as long as the document does not change (walkUnless). A
  // document named by skip is not walked (one too big for the budget).
  const S = entry(snapshot, true);
  const prewalk = (opts, skip) => {
    const w = doc === skip ? null : S(null, opts);
    if (w) { pwView = viewSig(); pwFocus = deepFocus(); }
    return { q: quiet(false, opts.probe), w, m: mutations };
  };
  // viewSig is what a walk depends on that no mutation reports: the
  // scroll, the viewport, and the values of the form controls (up to
  // 2,000 of them: past that, a string no later read equals). pwView and
  // pwFocus are the last prewalk's.
  let pwView = "", pwFocus = null;
  function viewSig() {
    const parts = [scrollX, scrollY, innerWidth, innerHeight];
    let n = 0;
    for (const tag of ["input", "textarea", "select"]) {
      for (const el of document.getElementsByTagName(tag)) {
        if (++n > 2000) return Math.random() + "";
        parts.push(tag === "input" && (el.type === "checkbox" || el.type === "radio") ? el.checked : el.value);
      }
    }
    return parts.join("\u0000");
  }
  // walkUnless is null while the walker's document is d and has not
  // changed since its mutation count was m, nor its focus and viewSig
  // since the last prewalk; else the page's walk.
  const walkUnless = (d, m, opts) => (d === doc && observer && mutations === m && deepFocus() === pwFocus && viewSig() === pwView ? null : S(null, opts));
  const Q = entry(query, true);
  // find is query with its patterns tested in a worker, within ms.
  const find = (q, root, ms) => withPatterns([q.text, q.name], ms, () => Q(q, root));

  // seek looks for what q names in the page's scrolled lists, where a
  // virtualised list (react-window, rc-virtual-list, a data grid) renders
  // only the rows in view: each list-like box that scrolls (not the page
  // itself) is scrolled a box at a time, from where it is to its end and
  // then from its top, until q matches one element, within ms. The box
  // stays where the element is; one that does not hold it goes back to
  // where it was. {count, box}: count as query's (0: nowhere).
  async function seek(q, ms) {
    const until = performance.now() + ms;
    // (the scroll event is sent at once, not at the next frame, and a
    // virtual list's render it schedules has run a task later)
    const task = () => new Promise((r) => { const ch = new MessageChannel(); ch.port1.onmessage = () => r(); ch.port2.postMessage(0); });
    const frame = (box) => { box.dispatchEvent(new Event("scroll")); return task().then(task); };
    for (const box of listScrollers()) {
      const start = box.scrollTop, step = Math.max(20, box.clientHeight * 0.9), end = box.scrollHeight - box.clientHeight;
      const stops = [];
      for (let y = start + step; y < end + step && stops.length < 400; y += step) stops.push(Math.min(y, end));
      for (let y = 0; y < start && stops.length < 800; y += step) stops.push(y);
      for (const y of stops) {
        if (performance.now() > until) { box.scrollTop = start; return { count: 0, timeout: true }; }
        box.scrollTop = y;
        await frame(box);
        const r = Q(q, box); // (the list's rows only: the page's others were looked at)
        if (r.count > 0) return { count: r.count, box: idOf(box) };
      }
      box.scrollTop = start;
      await frame(box);
    }
    return { count: 0 };
  }

  // listScrollers are the boxes of the page, not the page itself nor a box
  // nearly as tall as the window (an app's main pane, a feed), that scroll
  // down and hold a list: rows, options or items, or the inline overflow
  // style a virtual list sets on its box (a virtual list that draws its own
  // scrollbar hides the box's). In the document order of their first
  // items, at most 8.
  function listScrollers() {
    const found = new Set();
    const scrolls = (el) => {
      if (el === document.scrollingElement || el === document.body || el === document.documentElement) return false;
      if (el.scrollHeight <= el.clientHeight + 1 || el.clientHeight === 0 || el.clientHeight > innerHeight * 0.8) return false;
      const o = getComputedStyle(el).overflowY;
      // (rc-virtual-list hides the box's own scrollbar, draws its own and
      // follows the box's scroll position)
      return o === "auto" || o === "scroll" || (o === "hidden" && /overflow/.test(el.getAttribute("style") || "") && el.scrollHeight > 2 * el.clientHeight);
    };
    const items = document.querySelectorAll('[role=option],[role=row],[role=treeitem],[role=listitem],[role=gridcell],li,tr,[style*="overflow"]');
    for (let i = 0; i < items.length && i < 3000 && found.size < 8; i++) {
      for (let el = items[i], up = 0; el && up < 8; el = el.parentElement, up++) {
        if (found.has(el)) break;
        if (el.nodeType === 1 && scrolls(el)) { found.add(el); break; }
      }
    }
    return Array.from(found);
  }

  // onPress hands each pointerdown to f until the function it returns is
  // called, from a listener added when the walker came in (at the start of
  // the document, before the page's own listeners, which may stop the
  // event): where a click's press landed (pressWatchJS in pointer.go).
  const pressers = new Set();
  addEventListener("pointerdown", (e) => { for (const f of Array.from(pressers)) f(e); }, true);
  const onPress = (f) => { pressers.add(f); return () => pressers.delete(f); };

  globalThis.__webpilot = {
    snapshot: S, prewalk, walkUnless, human, get, resolve: entry(resolve, true), take: entry(take, true), check: entry(check, false), frameBox, known,
    query: Q, find, seek, idOf, hit: entry(hit, false), at: entry(at, false), quiet, sinceMutation, quietAfterFrame, doc, busy, test, trial, rxAll, isPattern,
    hide, unsecret, onPress,
  };
  return globalThis.__webpilot;
})()
