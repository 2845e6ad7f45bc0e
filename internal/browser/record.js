// The recorder: what the person at the browser does, told to webpilot as it
// happens. Runs in webpilot's isolated world (beside the walker) of the top
// document of a recorded tab, installed for every new document; only
// trusted events count (what the user did, never what the page's scripts
// did). Each step describes its element at the moment of the event (heal.js
// 'describe': the candidates a recipe step keeps), before the page's own
// listeners can change or remove it.
//
// Go fills in three placeholders (record.go: follow): the binding the steps
// go through (one JSON string each), the options ({secret: [labels or
// selectors the user marked secret], banner, message}) and heal.js.
(() => {
  if (window !== window.top) return;
  const OPTS = __OPTS__;
  // A recorder an older recording left in this document (one back from
  // the back/forward cache) gives way to this one.
  const older = globalThis.__webpilotRecorder;
  if (older) {
    if (older.id === OPTS.id) return;
    older.end();
  }
  const heal = __HEAL__;
  const BIND = "__BINDING__";
  const send = (m) => {
    const b = globalThis[BIND];
    if (typeof b === "function") b(JSON.stringify(m));
  };
  const norm = (s) => String(s || "").replace(/[\s\u00a0\u200b]+/g, " ").trim();
  const offs = [];
  const on = (target, type, fn) => {
    target.addEventListener(type, fn, true);
    offs.push(() => target.removeEventListener(type, fn, true));
  };
  let banner = null; // the host of the banner (headed launch): not recorded
  // describeNow takes the element's candidates now (describe has no
  // await: the value is computed before the page's listeners run); the
  // promise only carries it.
  const describeNow = (el) => {
    const W = globalThis.__webpilot;
    if (!W || !el || !el.isConnected) return Promise.resolve(null);
    return heal(W, "describe", el, null).then((d) => scrub(d, el), () => null);
  };
  // scrub takes out of a description what was typed into a secret
  // editable element (whose text, unlike a field's value, is in its own
  // text and name and in its ancestors' text, other elements' context).
  const secretTexts = new Set();
  // secretValues are what the user typed into secret fields (read here,
  // in webpilot's world, and never sent): a page that echoes one into its
  // text (a strength meter) must not bring it, or the part typed so far,
  // into a description.
  const secretValues = new Map();
  const cutTyped = (s, v) => {
    if (!v || v.length < 3) return s;
    // (a prefix as long as a third of the value, at least 6 characters:
    // "Sub" of a password is no reason to cut "Submit")
    const ls = s.toLowerCase(), lv = v.toLowerCase(), least = Math.min(lv.length, Math.max(6, Math.ceil(lv.length / 3)));
    let out = "";
    for (let i = 0; i < s.length; ) {
      let j = 0;
      while (j < lv.length && i + j < ls.length && ls[i + j] === lv[j]) j++;
      if (j >= least) {
        i += j;
        continue;
      }
      out += s[i];
      i++;
    }
    return out;
  };
  const anySecret = () => secretTexts.size > 0 || secretValues.size > 0;
  const hide = (v) => {
    let out = String(v || "");
    for (const t of secretTexts) out = out.split(t).join("");
    for (const t of secretValues.values()) out = cutTyped(out, t);
    return out;
  };
  const scrub = (d, el) => {
    if (!d) return d;
    if (el.isContentEditable && marked(el)) {
      delete d.text;
      d.fingerprint.name = el.getAttribute("aria-label") || "";
      d.fingerprint.context = "";
    }
    if (anySecret()) {
      if (d.text) d.text = hide(d.text);
      d.fingerprint.name = hide(d.fingerprint.name);
      d.fingerprint.context = hide(d.fingerprint.context);
    }
    return d;
  };
  const emit = (m, c) => {
    m.id = OPTS.id;
    m.t = Date.now();
    m.u = location.href;
    if (c === undefined) {
      send(m);
      return Promise.resolve();
    }
    return c.then((cand) => {
      m.c = cand;
      send(m);
    });
  };
  // Steps go out in the order they happened, each after the one before
  // (its description settles first).
  let chain = Promise.resolve();
  const queue = (m, el) => {
    const c = el ? describeNow(el) : undefined;
    chain = chain.then(() => emit(m, c));
    lastStep = Date.now();
    appeared = null;
    return chain;
  };

  const INTERACTIVE = 'a[href],button,input,select,textarea,summary,label,option,[role=button],[role=link],[role=menuitem],[role=menuitemcheckbox],[role=menuitemradio],[role=option],[role=tab],[role=checkbox],[role=radio],[role=switch],[role=treeitem],[role=combobox],[onclick],[contenteditable=""],[contenteditable=true]';
  const lift = (e) => {
    const path = e.composedPath();
    for (let i = 0; i < path.length && i < 8; i++) {
      const n = path[i];
      if (n && n.nodeType === 1 && n.matches(INTERACTIVE)) return n;
    }
    return path[0] && path[0].nodeType === 1 ? path[0] : null;
  };
  const inBanner = (e) => banner && e.composedPath().includes(banner);
  const textLike = (el) =>
    el && ((el.tagName === "INPUT" && !/^(button|submit|reset|checkbox|radio|file|image|range|color|hidden)$/i.test(el.type)) || el.tagName === "TEXTAREA" || el.isContentEditable);
  const toggle = (el) => el && el.tagName === "INPUT" && /^(checkbox|radio)$/i.test(el.type);
  // A field once secret stays secret (a "show password" button turns it
  // into a text field; its value is still the password).
  const secretEls = new WeakSet();
  const marked = (el) => {
    if (secretEls.has(el)) return true;
    if (markedNow(el)) {
      secretEls.add(el);
      return true;
    }
    return false;
  };
  const markedNow = (el) => {
    if (el.tagName === "INPUT" && el.type === "password") return true;
    if (/(current|new)-password|one-time-code|cc-number|cc-csc/i.test(el.getAttribute("autocomplete") || "")) return true;
    const W = globalThis.__webpilot;
    const name = W ? norm(W.hit(el).n).toLowerCase() : "";
    for (const s of OPTS.secret || []) {
      if (norm(s).toLowerCase() === name && name) return true;
      try {
        if (el.matches(s)) return true;
      } catch (x) {
        // not a selector: a label only
      }
    }
    return false;
  };

  // Typed text: one fill per field, sent when the user leaves the field
  // (another step, focus elsewhere, the page going away).
  let editing = null; // {el, c, secret}
  const flush = () => {
    if (!editing) return chain;
    const e = editing;
    editing = null;
    const m = { k: "fill" };
    let c = e.c;
    if (e.secret || marked(e.el)) {
      m.secret = true;
      if (e.el.isContentEditable) {
        const t = norm(e.el.innerText);
        if (t.length >= 2) secretTexts.add(t);
      }
      c = c.then((d) => scrub(d, e.el));
    } else m.value = e.typed !== undefined ? e.typed : e.el.isContentEditable ? e.el.innerText : e.el.value;
    chain = chain.then(() => emit(m, c));
    lastStep = Date.now();
    appeared = null;
    return chain;
  };

  // Scrolling counts only when the element used next was not on the page
  // before the user scrolled to it (a list that loads as it scrolls).
  const addedAt = new WeakMap();
  let scrolled = null; // {t, y}: the first user scroll since the last step
  let lastStep = Date.now();
  // appeared: text that came onto the page a while after the last step
  // (the user waited for it), unless its place keeps changing.
  let appeared = null;
  const churn = new WeakMap();
  const mo = new MutationObserver((list) => {
    const now = Date.now();
    for (const r of list) {
      if (r.type !== "childList") continue;
      const n = (churn.get(r.target) || 0) + 1;
      churn.set(r.target, n);
      for (const a of r.addedNodes) {
        if (a.nodeType !== 1 || a === banner) continue;
        addedAt.set(a, now);
        // The first text to come a while after the last step, before
        // the user scrolled (which loads things of its own).
        if (appeared || now - lastStep < 400 || n > 3 || scrolled) continue;
        const t = norm(a.innerText);
        if (t.length >= 2 && t.length <= 80) appeared = { text: t, t: now, el: a };
      }
    }
  });
  mo.observe(document, { childList: true, subtree: true });
  const addedSince = (el, t) => {
    for (let n = el, i = 0; n && i < 40; n = n.parentNode || n.host, i++) {
      const a = addedAt.get(n);
      if (a !== undefined && a >= t) return true;
    }
    return false;
  };
  // before runs ahead of each step on el: the scroll that brought it, the
  // text the user waited for.
  const before = (el) => {
    waitFor(el);
    if (scrolled && el && addedSince(el, scrolled.t)) {
      const m = { k: "scroll", direction: window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 4 ? "bottom" : window.scrollY >= scrolled.y ? "down" : "up" };
      chain = chain.then(() => emit(m));
    }
    scrolled = null;
  };
  const waitFor = (el) => {
    const a = appeared;
    appeared = null;
    if (!a || !a.el.isConnected || (el && a.el.contains(el))) return;
    if (anySecret() && hide(a.text) !== a.text) return;
    if (a.el.checkVisibility && !a.el.checkVisibility()) return;
    chain = chain.then(() => emit({ k: "wait", text: a.text }));
  };
  const userScroll = () => {
    if (!scrolled) scrolled = { t: Date.now(), y: window.scrollY };
  };

  // Clicks: described at the press (a widget may act on it and remove the
  // element), sent at the click; a press whose click never came (the
  // element went away) is sent as the click a moment later.
  let press = null;
  let keyAt = 0; // when the last key step was taken
  on(window, "pointerdown", (e) => {
    if (!e.isTrusted || e.button !== 0 || inBanner(e)) return;
    const el = lift(e);
    if (editing && editing.el !== el) flush();
    if (!el || textLike(el) || toggle(el) || el.tagName === "SELECT" || el.tagName === "OPTION") {
      press = null;
      return;
    }
    before(el);
    press = { el, c: describeNow(el), at: Date.now(), x: e.clientX, y: e.clientY };
  });
  on(window, "dragstart", () => {
    press = null;
  });
  on(window, "pointerup", (e) => {
    if (!e.isTrusted || !press) return;
    const p = press;
    if (Math.abs(e.clientX - p.x) > 10 || Math.abs(e.clientY - p.y) > 10) {
      press = null; // a drag, not a click
      return;
    }
    setTimeout(() => {
      if (press !== p) return;
      press = null;
      chain = chain.then(() => emit({ k: "click" }, p.c));
      lastStep = Date.now();
    }, 400);
  });
  on(window, "click", (e) => {
    if (!e.isTrusted || inBanner(e)) return;
    const el = lift(e);
    const p = press;
    press = null;
    // A click no pointer made, just after a key webpilot recorded: the
    // key's own doing (Enter submitting a form clicks its button).
    if (!p && e.detail === 0 && Date.now() - keyAt < 100) return;
    if (!el || textLike(el) || toggle(el) || el.tagName === "SELECT" || el.tagName === "OPTION") return;
    if (el.tagName === "LABEL" && el.control && (toggle(el.control) || textLike(el.control) || el.control.tagName === "SELECT")) return;
    if (editing && editing.el !== el) flush();
    // Pressed on one element and released off it, the click goes to an
    // ancestor of both: that is no click on what was pressed.
    if (p && p.el !== el && !p.el.contains(el) && el.contains(p.el)) return;
    const c = p && (p.el === el || p.el.contains(el)) ? p.c : (before(el), describeNow(el));
    chain = chain.then(() => emit({ k: "click" }, c));
    lastStep = Date.now();
    appeared = null;
  });
  on(window, "dblclick", (e) => {
    if (!e.isTrusted || inBanner(e)) return;
    const el = lift(e);
    if (!el || textLike(el)) return;
    queue({ k: "dblclick" }, el);
  });
  // typedNow is the field's value as the user's input left it: what a
  // fill records, whatever the page writes into the field afterwards.
  const typedNow = (el) => {
    if (el.isContentEditable) return undefined;
    if (marked(el)) {
      if (el.value) secretValues.set(el, el.value);
      return undefined;
    }
    return el.value;
  };
  on(window, "input", (e) => {
    if (!e.isTrusted) return;
    const el = e.composedPath()[0];
    if (!textLike(el)) return;
    if (editing && editing.el === el) {
      editing.typed = typedNow(el);
      return;
    }
    flush();
    before(el);
    editing = { el, c: describeNow(el), secret: marked(el), typed: typedNow(el) };
  });
  on(window, "focusout", (e) => {
    if (editing && e.composedPath()[0] === editing.el) flush();
  });
  on(window, "change", (e) => {
    if (!e.isTrusted) return;
    const el = e.composedPath()[0];
    if (!el || el.nodeType !== 1) return;
    if (editing && editing.el === el) {
      flush();
      return;
    }
    if (toggle(el)) {
      flush();
      before(el);
      queue({ k: el.type === "radio" || el.checked ? "check" : "uncheck" }, el);
    } else if (el.tagName === "SELECT") {
      flush();
      before(el);
      queue({ k: "select", values: Array.from(el.selectedOptions).map((o) => norm(o.label || o.text)) }, el);
    } else if (el.tagName === "INPUT" && el.type === "file") {
      flush();
      before(el);
      queue({ k: "upload", files: Array.from(el.files || []).map((f) => f.name) }, el);
    }
  });
  on(window, "keydown", (e) => {
    if (!e.isTrusted || inBanner(e)) return;
    if (/^(PageDown|PageUp|End|Home|ArrowDown|ArrowUp| )$/.test(e.key) && !textLike(e.composedPath()[0])) userScroll();
    const el = e.composedPath()[0];
    const mods = (e.ctrlKey ? "Control+" : "") + (e.metaKey ? "Meta+" : "") + (e.altKey ? "Alt+" : "") + (e.shiftKey ? "Shift+" : "");
    let key = "";
    if (e.key === "Enter" && !(el && (el.tagName === "TEXTAREA" || el.isContentEditable) && !mods)) key = mods + "Enter";
    else if (e.key === "Escape") key = mods + "Escape";
    if (!key || e.isComposing) return;
    keyAt = Date.now();
    flush();
    const target = el && el.nodeType === 1 && el !== document.body && el !== document.documentElement ? el : null;
    if (target) before(target);
    queue({ k: "press", key }, target);
  });
  on(window, "wheel", (e) => {
    if (e.isTrusted) userScroll();
  });
  on(window, "touchmove", (e) => {
    if (e.isTrusted) userScroll();
  });
  on(window, "pagehide", () => {
    flush();
  });
  // Focus going into a frame: what the user does there is not recorded
  // (the recorder runs in the top document); webpilot says so.
  // (The focus moving into a frame fires nothing here when the window
  // itself has no focus, as in a browser in the background: look.)
  let inFrame = null;
  const frameCheck = () => {
    const f = document.activeElement;
    const now = f && (f.tagName === "IFRAME" || f.tagName === "FRAME") ? f : null;
    if (now && now !== inFrame) send({ id: OPTS.id, k: "frame", text: now.title || now.name || now.id || now.getAttribute("src") || "" });
    inFrame = now;
  };
  on(window, "blur", () => setTimeout(frameCheck, 0));
  const frameTimer = setInterval(frameCheck, 300);
  offs.push(() => clearInterval(frameTimer));

  if (OPTS.banner) {
    const host = document.createElement("div");
    banner = host;
    // Only its Stop button takes the pointer: a click on the rest of the
    // banner goes to the page beneath it, as if it were not there.
    host.style.cssText = "all:initial;position:fixed;z-index:2147483647;top:8px;right:8px;pointer-events:none;";
    const root = host.attachShadow({ mode: "closed" });
    const box = document.createElement("div");
    box.style.cssText = "font:13px system-ui,sans-serif;background:rgba(176,0,32,.85);color:#fff;padding:6px 10px;border-radius:6px;box-shadow:0 2px 8px rgba(0,0,0,.3);display:flex;gap:8px;align-items:center;pointer-events:none";
    const label = document.createElement("span");
    label.textContent = "● webpilot is recording" + (OPTS.message ? ": " + OPTS.message : "");
    const stop = document.createElement("button");
    stop.textContent = "Stop";
    stop.style.cssText = "font:inherit;padding:2px 10px;border:0;border-radius:4px;background:#fff;color:#b00020;cursor:pointer;pointer-events:auto";
    stop.addEventListener("click", (e) => {
      if (!e.isTrusted) return;
      flush().then(() => send({ id: OPTS.id, k: "stop" }));
    });
    box.append(label, stop);
    root.append(box);
    const place = () => (document.documentElement || document).appendChild(host);
    if (document.documentElement) place();
    else document.addEventListener("DOMContentLoaded", place, { once: true });
    globalThis.__webpilotBanner = host;
  }

  globalThis.__webpilotRecorder = {
    // flush sends what is pending (a field being typed in, text the user
    // waited for), then the mark, so webpilot knows it has everything.
    flush(mark) {
      frameCheck();
      flush();
      waitFor(null);
      return chain.then(() => send({ id: OPTS.id, k: "mark", mark }));
    },
    // end stops recording this document: listeners, observer, banner.
    end() {
      for (const off of offs) off();
      mo.disconnect();
      if (banner) banner.remove();
      delete globalThis.__webpilotBanner;
      delete globalThis.__webpilotRecorder;
    },
  };
})();
