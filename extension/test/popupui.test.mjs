// popup.js itself, on a small fake DOM built from popup.html's ids and a fake service worker:
// the port it shows, and what its Pair form sends — the code typed (which may end in "@<port>")
// and the Advanced port field, read by parsePairing; a code or port it cannot read is refused
// before the worker is asked.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";

const HTML = readFileSync(new URL("../popup.html", import.meta.url), "utf8");

class FakeElement {
  constructor(tag, id = "") {
    this.tagName = tag.toUpperCase();
    this.id = id;
    this.textContent = "";
    this.value = "";
    this.className = "";
    this.title = "";
    this.hidden = false;
    this.disabled = false;
    this.dataset = {};
    this.children = [];
    this.listeners = {};
  }
  addEventListener(type, fn) {
    (this.listeners[type] ??= []).push(fn);
  }
  append(...nodes) {
    this.children.push(...nodes);
  }
  replaceChildren(...nodes) {
    this.children = nodes;
  }
  /** Runs the listeners of type and waits for the async ones. */
  async fire(type) {
    const ev = { type, preventDefault() {} };
    await Promise.all((this.listeners[type] ?? []).map((fn) => fn(ev)));
  }
}

const elements = new Map();
for (const [, tag, id] of HTML.matchAll(/<(\w+)\b[^>]*\bid="([^"]+)"/g)) elements.set(id, new FakeElement(tag, id));
const $ = (id) => {
  const e = elements.get(id);
  assert.ok(e, `popup.html has no element #${id}`);
  return e;
};

// The service worker: answers as background.js does, and records what it was asked.
const asked = [];
let status = { state: "unpaired", paired: false, port: 47218, defaultPort: 47218, url: "ws://127.0.0.1:47218/bridge", extensionVersion: "0.1.0", protocol: 4 };
let pairAnswer = (msg) => ({ ok: true, message: "paired", status: { ...status, state: "connected", paired: true, port: msg.port, url: `ws://127.0.0.1:${msg.port}/bridge` } });

globalThis.document = {
  getElementById: (id) => elements.get(id) ?? null,
  createElement: (tag) => new FakeElement(tag),
};
globalThis.chrome = {
  runtime: {
    async sendMessage(msg) {
      asked.push(msg);
      switch (msg.type) {
        case "status":
          return status;
        case "pair":
          return pairAnswer(msg);
        case "connect":
          return { ok: true, status };
        case "sessions":
        case "handoffs":
          return [];
        default:
          return { ok: false, message: "unknown" };
      }
    },
  },
};

// popup.js polls every second; the test drives it instead.
const realSetInterval = globalThis.setInterval;
globalThis.setInterval = () => 0;
await import("../popup.js");
globalThis.setInterval = realSetInterval;
await new Promise((r) => setImmediate(r));

async function submit(code, port = "") {
  $("code").value = code;
  $("pairport").value = port;
  asked.length = 0;
  await $("pairform").fire("submit");
  return asked.filter((m) => m.type === "pair");
}

test("popup.html has the Advanced port field next to the Pair form", () => {
  assert.equal($("pairport").tagName, "INPUT");
  assert.equal($("advanced").tagName, "DETAILS");
  assert.match(HTML, /id="pairport"[^>]*placeholder="47218"/);
  assert.match(HTML, /<script type="module" src="popup.js">/, "popup.js is a module: it imports protocol.js");
});

test("the popup shows the port the extension dials, and says when it is not the default", async () => {
  status = { ...status, port: 47218, url: "ws://127.0.0.1:47218/bridge" };
  await $("connect").fire("click"); // Connect redraws from the worker's answer
  assert.equal($("port").textContent, "47218");
  assert.equal($("port").title, "the extension dials ws://127.0.0.1:47218/bridge");
  status = { ...status, state: "connected", paired: true, port: 47318, url: "ws://127.0.0.1:47318/bridge" };
  await $("connect").fire("click");
  assert.equal($("port").textContent, "47318 (not the default 47218)");
  assert.equal($("port").title, "the extension dials ws://127.0.0.1:47318/bridge");
});

test("a code with @port is sent as the code and the port; the popup says where it paired", async () => {
  const sent = await submit("  abcd-efgh@47318 ");
  assert.deepEqual(sent, [{ type: "pair", code: "abcd-efgh", port: 47318 }]);
  assert.equal($("result").textContent, "Paired on port 47318: the extension dials it from now on.");
  assert.equal($("result").className, "good");
  assert.equal($("code").value, "", "the code is cleared");
  assert.equal($("pairport").value, "", "the port field is cleared");
  assert.equal($("port").textContent, "47318 (not the default 47218)");
});

test("a code without a port pairs on the default port, or on the Advanced field's", async () => {
  assert.deepEqual(await submit("ABCD-EFGH"), [{ type: "pair", code: "ABCD-EFGH", port: 47218 }]);
  assert.equal($("result").textContent, "Paired.");
  assert.equal($("port").textContent, "47218");
  assert.deepEqual(await submit("ABCD-EFGH", " 47400 "), [{ type: "pair", code: "ABCD-EFGH", port: 47400 }]);
  assert.equal($("result").textContent, "Paired on port 47400: the extension dials it from now on.");
});

test("a code or port the popup cannot read is refused there, and the worker is not asked", async () => {
  for (const [code, port, want] of [
    ["", "", "Type the code that `webpilot pair` prints."],
    ["ABCD-EFGH@99999", "", 'The port after "@" must be a number from 1 to 65535, not "99999".'],
    ["ABCD-EFGH", "x", 'The port must be a number from 1 to 65535, not "x".'],
    ["ABCD-EFGH@47318", "47400", "The code says port 47318 but the port field says 47400: clear the port field."],
  ]) {
    assert.deepEqual(await submit(code, port), [], `${code} ${port}`);
    assert.equal($("result").textContent, want);
    assert.equal($("result").className, "bad");
  }
});

test("a failed pairing keeps what the user typed and says why", async () => {
  pairAnswer = () => ({ ok: false, message: "webpilot is not reachable at ws://127.0.0.1:47318/bridge (is it running?)", status });
  const sent = await submit("ABCD-EFGH@47318");
  assert.equal(sent.length, 1);
  assert.equal($("result").textContent, "Pairing failed: webpilot is not reachable at ws://127.0.0.1:47318/bridge (is it running?)");
  assert.equal($("result").className, "bad");
  assert.equal($("code").value, "ABCD-EFGH@47318");
  assert.equal($("pair").disabled, false);
});
