// Installed with the click hook in the main world of every document: it
// tells the walker's world (the wait after an action) about keepalive
// fetches, which outlive their page and never hold an action, but which
// the browser reports as plain fetches. The event goes to the top document
// when it can be reached (same origin), where the main frame's walker
// listens; __PROBE__ is the per-process event name.
(() => {
  const orig = globalThis.fetch;
  if (typeof orig !== "function") return;
  const tell = (url) => {
    let doc = document;
    try { if (top.document) doc = top.document; } catch (e) { /* another origin: its own document */ }
    try { doc.dispatchEvent(new CustomEvent("__PROBE__-keepalive", { detail: url })); } catch (e) { /* nothing to tell */ }
  };
  globalThis.fetch = {
    fetch(input, init) {
      try {
        const req = input instanceof Request ? input : null;
        if ((init && init.keepalive) || (req && req.keepalive && !(init && init.keepalive === false))) {
          tell(new URL(req ? req.url : String(input), location.href).href);
        }
      } catch (e) { /* a bad URL: fetch itself will say so */ }
      return orig.apply(this, arguments);
    },
  }.fetch;
})();
