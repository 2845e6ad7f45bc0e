// Test doubles for protocol.js: a fake WebSocket network, a fake clock, fake storage and a fake
// api that records its calls. Node runs every .mjs file under test/ as a test file; this one
// only exports.

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Bridge } from "../protocol.js";

export const SAMPLES_DIR = fileURLToPath(new URL("../../testdata/bridge/", import.meta.url));

/** {name: {text, json}} for every testdata/bridge/*.json. */
export function samples() {
  const out = {};
  for (const f of readdirSync(SAMPLES_DIR).sort()) {
    if (!f.endsWith(".json")) continue;
    const text = readFileSync(SAMPLES_DIR + f, "utf8");
    out[f.slice(0, -".json".length)] = { text, json: JSON.parse(text) };
  }
  return out;
}

/** Lets pending promise callbacks and setImmediate callbacks run. */
export async function flush(rounds = 5) {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}

/** Waits (in real time, at most 2 s) until cond() is truthy. */
export async function eventually(cond, what = "condition") {
  const end = Date.now() + 2000;
  for (;;) {
    const v = cond();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

export class FakeClock {
  constructor(start = 1_764_694_920_000) {
    this.t = start;
    this.timers = new Map();
    this.seq = 0;
    this.now = () => this.t;
    this.setTimeout = (fn, ms) => {
      const id = ++this.seq;
      this.timers.set(id, { id, at: this.t + Math.max(0, ms | 0), fn });
      return id;
    };
    this.clearTimeout = (id) => {
      this.timers.delete(id);
    };
  }

  /** Moves time forward by ms, running due timers in order. */
  async advance(ms) {
    const end = this.t + ms;
    for (;;) {
      await flush();
      let next = null;
      for (const t of this.timers.values()) if (t.at <= end && (!next || t.at < next.at)) next = t;
      if (!next) break;
      this.timers.delete(next.id);
      this.t = next.at;
      next.fn();
    }
    this.t = end;
    await flush();
  }

  /** Delays of the pending timers, shortest first. */
  pending() {
    return [...this.timers.values()].map((t) => t.at - this.t).sort((a, b) => a - b);
  }
}

/** A fake network: every `new WebSocket(url)` lands in `sockets`; the test plays the server. */
export function fakeNet() {
  const sockets = [];
  class FakeWebSocket {
    constructor(url) {
      this.url = url;
      this.readyState = 0;
      this.sent = [];
      this.closedByClient = null;
      sockets.push(this);
    }
    send(data) {
      if (this.readyState !== 1) throw new Error("InvalidStateError: not open");
      this.sent.push(JSON.parse(data));
    }
    close(code = 1005, reason = "") {
      if (this.readyState >= 2) return;
      this.readyState = 3;
      this.closedByClient = { code, reason };
      setImmediate(() => this.onclose?.({ code, reason, wasClean: true }));
    }
    // --- the server side ---
    accept() {
      this.readyState = 1;
      this.onopen?.({});
    }
    push(msg) {
      this.onmessage?.({ data: typeof msg === "string" ? msg : JSON.stringify(msg) });
    }
    /** Connection refused: nothing listens. */
    refuse() {
      this.readyState = 3;
      this.onerror?.({});
      this.onclose?.({ code: 1006, reason: "", wasClean: false });
    }
    /** The server closes. */
    hangUp(code = 1000, reason = "") {
      this.readyState = 3;
      this.onclose?.({ code, reason, wasClean: code !== 1006 });
    }
    get closed() {
      return this.readyState === 3;
    }
  }
  return {
    WebSocket: FakeWebSocket,
    sockets,
    get last() {
      return sockets.at(-1);
    },
  };
}

export class FakeStorage {
  constructor(data = {}) {
    this.data = structuredClone(data);
  }
  async get(keys) {
    const out = {};
    for (const k of [].concat(keys)) if (k in this.data) out[k] = structuredClone(this.data[k]);
    return out;
  }
  async set(items) {
    Object.assign(this.data, structuredClone(items));
  }
  async remove(keys) {
    for (const k of [].concat(keys)) delete this.data[k];
  }
}

export function chromeTab(id, extra = {}) {
  return {
    id,
    windowId: 3,
    index: 0,
    url: `https://example.com/${id}`,
    title: `Tab ${id}`,
    active: true,
    pinned: false,
    status: "complete",
    ...extra,
  };
}

/**
 * An api that records [op, params] for every call. `behaviour[op]` replaces the default
 * answer: a function (params) => value, or an Error to throw.
 */
export function fakeApi(behaviour = {}) {
  const calls = [];
  const defaults = {
    "tabs.list": () => [chromeTab(12), chromeTab(14, { windowId: 5, openerTabId: 12 })],
    "tabs.query": () => [chromeTab(31, { windowId: 1, focused: true }), chromeTab(32, { windowId: 1, active: false })],
    "tabs.bind": (p) => chromeTab(p.tabId, { windowId: 1 }),
    "tabs.unbind": () => undefined,
    "tabs.create": (p) => chromeTab(12, { url: "", pendingUrl: p.url, title: "" }),
    "tabs.close": () => undefined,
    "tabs.activate": () => undefined,
    "tabs.update": (p) => chromeTab(p.tabId, { url: "about:blank", pendingUrl: p.url }),
    "debugger.attach": () => undefined,
    "debugger.detach": () => undefined,
    "debugger.send": () => ({ result: { type: "number", value: 2, description: "2" } }),
    "downloads.search": () => [],
    "handoff.start": (p) => chromeTab(p.tabId, { url: "https://example.com/login", title: "Sign in" }),
    "handoff.end": () => undefined,
    "approval.ask": () => ({ ask: "a-7k2m9q" }),
    "approval.rules": () => [],
    "approval.end": () => undefined,
    "live.show": () => undefined,
  };
  const fn = (op) => async (params) => {
    calls.push([op, params]);
    const b = behaviour[op] ?? defaults[op];
    if (b instanceof Error) throw b;
    return b(params);
  };
  const api = {
    tabs: {
      list: fn("tabs.list"),
      query: fn("tabs.query"),
      bind: fn("tabs.bind"),
      unbind: fn("tabs.unbind"),
      create: fn("tabs.create"),
      close: fn("tabs.close"),
      activate: fn("tabs.activate"),
      update: fn("tabs.update"),
    },
    debugger: { attach: fn("debugger.attach"), detach: fn("debugger.detach"), send: fn("debugger.send") },
    downloads: { search: fn("downloads.search") },
    handoff: { start: fn("handoff.start"), end: fn("handoff.end") },
    approval: { ask: fn("approval.ask"), end: fn("approval.end"), rules: fn("approval.rules") },
    live: { show: fn("live.show") },
  };
  return { api, calls };
}

export const SECRET = "cV7yM2kP9tQ4wZ1xB8nL3aR6eJ0hU5sD7fG2vK4oI9c=";
export const NONCE = "q4Xv0J1mZ2bS8wKc3yT9aP6uL5nR7eH0dG1fQ2jV8oE=";

/** A Bridge on fakes; `stored` is the initial chrome.storage.local. */
export function rig({ stored = { port: 5555, secret: SECRET, profile_id: "p1" }, behaviour } = {}) {
  const clock = new FakeClock();
  const net = fakeNet();
  const storage = new FakeStorage(stored);
  const { api, calls } = fakeApi(behaviour);
  const statuses = [];
  const attachedChanges = [];
  const bridge = new Bridge({
    WebSocket: net.WebSocket,
    setTimeout: clock.setTimeout,
    clearTimeout: clock.clearTimeout,
    now: clock.now,
    storage,
    subtle: globalThis.crypto.subtle,
    getRandomValues: (a) => globalThis.crypto.getRandomValues(a),
    api,
    userAgent: "Mozilla/5.0 HeadlessChrome/156.0.0.0",
    onStatus: (s) => statuses.push(s),
    onAttachedChange: (ids) => attachedChanges.push(ids),
  });
  return { bridge, clock, net, storage, api, calls, statuses, attachedChanges };
}

/** Plays the server through challenge → hello → welcome on the newest socket. */
export async function handshake(r, { nonce = NONCE } = {}) {
  const sock = await eventually(() => r.net.sockets.length >= 1 && r.net.last.readyState === 0 && r.net.last, "a dial");
  sock.accept();
  sock.push({ type: "challenge", protocol: 4, nonce, server: "webpilot/0.1.0" });
  const hello = await eventually(() => sock.sent.find((m) => m.type === "hello"), "hello");
  sock.push({ type: "welcome", protocol: 4 });
  await eventually(() => r.bridge.status().state === "connected", "connected");
  return { sock, hello };
}

/** Sends a request on sock and waits for its reply. */
export async function ask(sock, req) {
  sock.push(req);
  return eventually(() => sock.sent.find((m) => m.id === req.id && ("result" in m || "error" in m)), `reply to ${req.id}`);
}
