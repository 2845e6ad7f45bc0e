// Installed with the click hook in the main world of every document: it
// counts the page's work queued to run soon — short timers (setTimeout of
// at most SHORT ms) that have not run, short intervals (setInterval of at
// most SHORT ms: an animation in steps) not cleared, animation-frame
// callbacks not run (a transition started two frames on, an animation
// library's loop), MessageChannel messages not yet delivered (how
// React's scheduler queues a render in slices), and the page's fetches and
// XHRs not yet answered (keepalive fetches aside: they never hold an
// action) — so that the wait after an action knows whether what the input
// set off has more to do, also before the browser's own report of a
// request it started has come (a loaded machine sends it late). The walker's
// world asks with the event __PROBE__-timers on the document; the hook
// answers at once with __PROBE__-timers-m, whose detail is how many of
// those are channel messages (work that ends: a render in slices goes on
// while one is in flight), then __PROBE__-timers-n, whose detail is the
// count, or -1 when the hook came into a document already running (a tab
// loaded before webpilot attached): what was queued before it is unknown.
// (Numbers, not an object: an event's detail crosses from the page's world
// to the walker's only as a primitive.) Longer timers
// (a debounce, a poll) are not counted: the wait treats them as it treats
// a page without the hook.
(() => {
  const SHORT = 50;
  const late = document.readyState !== "loading";
  const g = globalThis;
  const set = g.setTimeout, clear = g.clearTimeout, every = g.setInterval, stop = g.clearInterval;
  const raf = g.requestAnimationFrame, caf = g.cancelAnimationFrame;
  if (typeof set !== "function" || typeof clear !== "function") return;
  const timers = new Set(), intervals = new Set(), frames = new Set();
  const short = (ms) => (Number(ms) || 0) <= SHORT;
  g.setTimeout = {
    setTimeout(fn, ms, ...args) {
      if (typeof fn !== "function" || !short(ms)) return set.apply(this, arguments);
      const id = set.call(this, function () {
        timers.delete(id);
        return fn.apply(this, arguments);
      }, ms, ...args);
      timers.add(id);
      return id;
    },
  }.setTimeout;
  if (typeof every === "function") {
    g.setInterval = {
      setInterval(fn, ms) {
        const id = every.apply(this, arguments);
        if (typeof fn === "function" && short(ms)) intervals.add(id);
        return id;
      },
    }.setInterval;
  }
  // (either clear ends a timeout or an interval)
  const forget = (id) => { timers.delete(id); intervals.delete(id); };
  g.clearTimeout = {
    clearTimeout(id) {
      forget(id);
      return clear.apply(this, arguments);
    },
  }.clearTimeout;
  if (typeof stop === "function") {
    g.clearInterval = {
      clearInterval(id) {
        forget(id);
        return stop.apply(this, arguments);
      },
    }.clearInterval;
  }
  if (typeof raf === "function" && typeof caf === "function") {
    g.requestAnimationFrame = {
      requestAnimationFrame(fn) {
        if (typeof fn !== "function") return raf.apply(this, arguments);
        const id = raf.call(this, function () {
          frames.delete(id);
          return fn.apply(this, arguments);
        });
        frames.add(id);
        return id;
      },
    }.requestAnimationFrame;
    g.cancelAnimationFrame = {
      cancelAnimationFrame(id) {
        frames.delete(id);
        return caf.apply(this, arguments);
      },
    }.cancelAnimationFrame;
  }
  // A message posted to a channel's port is in flight until the other
  // port's listeners run; the hook's own listener, added first, takes it
  // off that port's count (a listener does not start a port: the page's
  // onmessage or start() does, so nothing is delivered that would not have
  // been). A port handed to a worker or a frame keeps its count, which
  // only turns the early end off.
  const MC = g.MessageChannel, post = g.MessagePort && MessagePort.prototype.postMessage;
  const inFlight = new Map(); // receiving port → messages posted to it, not yet delivered
  const other = new WeakMap();
  if (typeof MC === "function" && typeof post === "function") {
    g.MessageChannel = class MessageChannel extends MC {
      constructor() {
        super();
        for (const [a, b] of [[this.port1, this.port2], [this.port2, this.port1]]) {
          other.set(a, b);
          b.addEventListener("message", () => {
            const n = inFlight.get(b);
            if (n > 1) inFlight.set(b, n - 1);
            else inFlight.delete(b);
          });
        }
      }
    };
    MessagePort.prototype.postMessage = {
      postMessage() {
        const r = post.apply(this, arguments);
        const b = other.get(this);
        if (b) inFlight.set(b, (inFlight.get(b) || 0) + 1);
        return r;
      },
    }.postMessage;
  }
  // Requests: a fetch until its answer's headers or its failure, an XHR
  // until loadend.
  let requests = 0;
  const fetchFn = g.fetch;
  if (typeof fetchFn === "function") {
    g.fetch = {
      fetch(input, init) {
        const p = fetchFn.apply(this, arguments);
        if (init && init.keepalive) return p;
        requests++;
        let done = false;
        const end = () => { if (!done) { done = true; requests--; } };
        p.then(end, end);
        return p;
      },
    }.fetch;
  }
  const XHR = g.XMLHttpRequest, send = XHR && XHR.prototype.send;
  if (typeof send === "function") {
    XHR.prototype.send = {
      send() {
        requests++;
        let done = false;
        this.addEventListener("loadend", () => { if (!done) { done = true; requests--; } });
        try {
          return send.apply(this, arguments);
        } catch (e) {
          if (!done) { done = true; requests--; }
          throw e;
        }
      },
    }.send;
  }
  document.addEventListener("__PROBE__-timers", () => {
    let m = 0;
    for (const c of inFlight.values()) m += c;
    document.dispatchEvent(new CustomEvent("__PROBE__-timers-m", { detail: late ? -1 : m }));
    document.dispatchEvent(new CustomEvent("__PROBE__-timers-n", { detail: late ? -1 : timers.size + intervals.size + frames.size + m + requests }));
  }, true);
})();
