// Installed with the click hook in the main world of every document: it
// counts the page's passkey (WebAuthn) requests that wait for the person —
// navigator.credentials.get or create with publicKey, not yet settled, not
// the conditional kind that only fills a field's autofill — so
// that the walker can say a person is needed (W.human). The walker's world
// asks with the event __PROBE__-passkey on the document; the hook answers
// at once with __PROBE__-passkey-n, whose detail is the count (a number: an
// event's detail crosses from the page's world to the walker's only as a
// primitive).
(() => {
  const c = globalThis.navigator && navigator.credentials;
  if (!c || typeof c.get !== "function") return;
  let waiting = 0;
  const proto = Object.getPrototypeOf(c);
  for (const name of ["get", "create"]) {
    const orig = proto[name];
    if (typeof orig !== "function") continue;
    proto[name] = {
      [name](o) {
        const p = orig.apply(this, arguments);
        // (conditional mediation — passkeys offered in a field's autofill
        // while the page goes on — waits for nobody)
        if (o && o.publicKey && o.mediation !== "conditional" && p && typeof p.then === "function") {
          waiting++;
          let done = false;
          const end = () => { if (!done) { done = true; waiting--; } };
          p.then(end, end);
        }
        return p;
      },
    }[name];
  }
  document.addEventListener("__PROBE__-passkey", () => {
    document.dispatchEvent(new CustomEvent("__PROBE__-passkey-n", { detail: waiting }));
  }, true);
})();
