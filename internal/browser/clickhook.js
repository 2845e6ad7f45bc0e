// Installed in the main world of every document before the page's scripts:
// it remembers the elements given click or drop listeners, so that snapshots can
// give them refs. The walker (in its isolated world) fires the probe event;
// the hook answers by firing the reply event at each remembered element.
// The probe name is random per process; nothing else is exposed.
// An element that listens to many kinds of events is a framework's root
// delegating everything (React attaches every event type, drop and click
// included, to the app's container): it is neither clickable nor a drop
// zone itself, so it is not reported.
(() => {
  const K = "__PROBE__";
  const TYPES = new Set(["click", "mousedown", "mouseup", "pointerdown", "pointerup", "dblclick"]);
  const DROP = new Set(["drop", "dragover"]);
  const refs = [];
  const seen = new WeakSet();
  const drops = new WeakSet();
  // kinds counts, per element, the event types it listens to (up to DELEGATE).
  const kinds = new WeakMap();
  const DELEGATE = 12;
  const add = (el) => {
    if (el instanceof Element && !seen.has(el)) {
      seen.add(el);
      refs.push(new WeakRef(el));
    }
  };
  const proto = EventTarget.prototype;
  const orig = proto.addEventListener;
  proto.addEventListener = {
    addEventListener(type, listener, options) {
      if (this instanceof Element) {
        let k = kinds.get(this);
        if (!k) kinds.set(this, (k = new Set()));
        if (k.size < DELEGATE) k.add(type);
      }
      if (TYPES.has(type)) add(this);
      else if (DROP.has(type) && this instanceof Element) { drops.add(this); add(this); }
      return orig.call(this, type, listener, options);
    },
  }.addEventListener;
  const d = Object.getOwnPropertyDescriptor(HTMLElement.prototype, "onclick");
  if (d && d.set) {
    Object.defineProperty(HTMLElement.prototype, "onclick", {
      configurable: true, enumerable: d.enumerable, get: d.get,
      set(v) { if (v) add(this); return d.set.call(this, v); },
    });
  }
  orig.call(document, K, () => {
    for (let i = refs.length - 1; i >= 0; i--) {
      const el = refs[i].deref();
      if (!el) { refs.splice(i, 1); continue; }
      const k = kinds.get(el);
      if (k && k.size >= DELEGATE) continue;
      if (el.isConnected) el.dispatchEvent(new CustomEvent(K + (drops.has(el) ? "-d" : "-r"), { bubbles: true, composed: true }));
    }
  }, true);
})();
