// Installed with the click hook in the main world of every document: it
// counts the page's work queued to run soon — short timers (setTimeout of
// at most SHORT ms) that have not run, and MessageChannel messages not yet
// delivered (how React's scheduler and others queue a render in slices) —
// so that the wait after an action knows whether what the input set off
// has more to do. The walker's world asks with the
// event __PROBE__-timers on the document; the hook answers at once with
// __PROBE__-timers-n, whose detail is the count. Longer timers (a
// debounce, a poll) are not counted: the wait treats them as it treats a
// page without the hook.
(() => {
  const SHORT = 50;
  const set = globalThis.setTimeout, clear = globalThis.clearTimeout;
  if (typeof set !== "function" || typeof clear !== "function") return;
  const pending = new Set();
  globalThis.setTimeout = {
    setTimeout(fn, ms, ...args) {
      if (typeof fn !== "function" || (Number(ms) || 0) > SHORT) return set.apply(this, arguments);
      const id = set.call(this, function () {
        pending.delete(id);
        return fn.apply(this, arguments);
      }, ms, ...args);
      pending.add(id);
      return id;
    },
  }.setTimeout;
  globalThis.clearTimeout = {
    clearTimeout(id) {
      pending.delete(id);
      return clear.apply(this, arguments);
    },
  }.clearTimeout;
  // A message posted to a channel's port is in flight until the other
  // port's listeners run; the hook's own listener, added first, takes it
  // off (a listener does not start a port: the page's onmessage or start()
  // does, so nothing is delivered that would not have been).
  const MC = globalThis.MessageChannel, post = globalThis.MessagePort && MessagePort.prototype.postMessage;
  let posted = 0;
  const others = new WeakMap();
  if (typeof MC === "function" && typeof post === "function") {
    globalThis.MessageChannel = class MessageChannel extends MC {
      constructor() {
        super();
        for (const [a, b] of [[this.port1, this.port2], [this.port2, this.port1]]) {
          others.set(a, b);
          b.addEventListener("message", () => { if (posted > 0) posted--; });
        }
      }
    };
    MessagePort.prototype.postMessage = {
      postMessage() {
        if (others.has(this)) posted++;
        return post.apply(this, arguments);
      },
    }.postMessage;
  }
  document.addEventListener("__PROBE__-timers", () => {
    document.dispatchEvent(new CustomEvent("__PROBE__-timers-n", { detail: pending.size + posted }));
  }, true);
})();
