// The connection state machine of protocol.js on a fake network, clock, storage and api:
// handshake, pairing, refusals, backoff, heartbeat, requests and events.

import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import test from "node:test";

import { AgentTabs, BridgeError, tabInfo } from "../protocol.js";
import { NONCE, SECRET, ask, chromeTab, eventually, flush, handshake, rig, samples } from "./fakes.mjs";

const all = samples();
const hmac = (secretB64, nonceB64) =>
  createHmac("sha256", Buffer.from(secretB64, "base64")).update(Buffer.from(nonceB64, "base64")).digest("base64");
const NEW_SECRET = Buffer.alloc(32, 7).toString("base64");

test("handshake: hello proves the secret with HMAC-SHA256 of the nonce", async () => {
  const r = rig();
  await r.bridge.start();
  assert.equal(r.net.sockets.length, 1);
  assert.equal(r.net.last.url, "ws://127.0.0.1:5555/bridge");
  assert.equal(r.bridge.status().state, "connecting");
  const { hello } = await handshake(r);
  assert.deepEqual(hello, {
    type: "hello",
    protocol: 5,
    extension_version: "0.1.0",
    profile_id: "p1",
    profile_name: "chromium-p1", // no brands in the rig: the default name
    user_agent: "Mozilla/5.0 HeadlessChrome/156.0.0.0",
    proof: hmac(SECRET, NONCE),
  });
  assert.ok(!JSON.stringify(r.net.last.sent).includes(SECRET), "the secret went over the wire");
  const s = r.bridge.status();
  assert.equal(s.state, "connected");
  assert.equal(s.paired, true);
  assert.equal(s.server, "webpilot/0.1.0");
  assert.match(s.message, /port 5555/);
  r.bridge.stop();
});

test("a fresh nonce gives a fresh proof", async () => {
  const r = rig();
  await r.bridge.start();
  const nonce = Buffer.alloc(32, 1).toString("base64");
  const { hello } = await handshake(r, { nonce });
  assert.equal(hello.proof, hmac(SECRET, nonce));
  assert.notEqual(hello.proof, hmac(SECRET, NONCE));
  r.bridge.stop();
});

test("the profile id is generated once, stored, and sent in every hello", async () => {
  const r = rig({ stored: { secret: SECRET } });
  await r.bridge.start();
  const id = r.storage.data.profile_id;
  assert.match(id, /^[0-9a-f]{32}$/);
  assert.equal(r.net.last.url, "ws://127.0.0.1:47218/bridge", "default port");
  const { hello } = await handshake(r);
  assert.equal(hello.profile_id, id);
  await r.bridge.wake();
  assert.equal(r.storage.data.profile_id, id);
  r.bridge.stop();
});

test("an unpaired extension dials nobody, even on alarms", async () => {
  const r = rig({ stored: {} });
  await r.bridge.start();
  assert.equal(r.bridge.status().state, "unpaired");
  assert.equal(r.bridge.status().paired, false);
  await r.bridge.wake("alarm");
  await r.clock.advance(120_000);
  assert.equal(r.net.sockets.length, 0);
  assert.deepEqual(r.clock.pending(), []);
});

test("pairing: pair → paired → secret stored → reconnect → hello with the new secret", async () => {
  const r = rig({ stored: { port: 5555, profile_id: "p1" } });
  await r.bridge.start();
  const outcome = r.bridge.pair("  k7qf-92xm ");
  const s1 = await eventually(() => r.net.sockets[0], "dial");
  s1.accept();
  s1.push(all.challenge.json);
  const p = await eventually(() => s1.sent[0], "pair");
  assert.deepEqual(p, {
    type: "pair",
    protocol: 5,
    code: "k7qf-92xm",
    extension_version: "0.1.0",
    profile_id: "p1",
    user_agent: "Mozilla/5.0 HeadlessChrome/156.0.0.0",
  });
  assert.equal(r.bridge.status().pairing, true);
  s1.push({ type: "paired", secret: NEW_SECRET });
  assert.deepEqual(await outcome, { ok: true, message: "paired" });
  assert.equal(r.storage.data.secret, NEW_SECRET);
  // Reconnects at once (no timer), this time with hello.
  const s2 = await eventually(() => r.net.sockets[1], "reconnect");
  assert.ok(s1.closed);
  s2.accept();
  s2.push({ type: "challenge", protocol: 5, nonce: NONCE, server: "webpilot/0.1.0" });
  const hello = await eventually(() => s2.sent[0], "hello");
  assert.equal(hello.type, "hello");
  assert.equal(hello.proof, hmac(NEW_SECRET, NONCE));
  s2.push({ type: "welcome", protocol: 5 });
  await eventually(() => r.bridge.status().state === "connected");
  assert.equal(r.bridge.status().paired, true);
  r.bridge.stop();
});

test("pairing: the server closing right after paired still counts as paired", async () => {
  const r = rig({ stored: { port: 5555, profile_id: "p1" } });
  await r.bridge.start();
  const outcome = r.bridge.pair("K7QF-92XM");
  const s1 = await eventually(() => r.net.sockets[0]);
  s1.accept();
  s1.push(all.challenge.json);
  await eventually(() => s1.sent[0]);
  s1.push({ type: "paired", secret: NEW_SECRET });
  s1.hangUp(1000, "paired"); // same tick: before the secret is written to storage
  assert.deepEqual(await outcome, { ok: true, message: "paired" });
  const s2 = await eventually(() => r.net.sockets[1], "reconnect");
  s2.accept();
  s2.push({ type: "challenge", protocol: 5, nonce: NONCE, server: "webpilot/0.1.0" });
  const first = await eventually(() => s2.sent[0]);
  assert.equal(first.type, "hello", "sent the pairing code again");
  assert.equal(first.proof, hmac(NEW_SECRET, NONCE));
  await eventually(() => r.storage.data.secret === NEW_SECRET);
  assert.equal(r.net.sockets.length, 2);
  r.bridge.stop();
});

test("pairing a connected extension replaces the connection", async () => {
  const r = rig();
  await r.bridge.start();
  const { sock } = await handshake(r);
  const outcome = r.bridge.pair("ABCD");
  assert.ok(sock.closed);
  const s2 = await eventually(() => r.net.sockets[1]);
  s2.accept();
  s2.push(all.challenge.json);
  await eventually(() => s2.sent[0]?.type === "pair");
  s2.push({ type: "paired", secret: NEW_SECRET });
  assert.equal((await outcome).ok, true);
  await eventually(() => r.net.sockets[2]);
  r.bridge.stop();
});

test("pairing refused: the popup hears why and the extension stays unpaired", async () => {
  const r = rig({ stored: { profile_id: "p1" } });
  await r.bridge.start();
  const outcome = r.bridge.pair("WRONG");
  const s = await eventually(() => r.net.sockets[0]);
  s.accept();
  s.push(all.challenge.json);
  await eventually(() => s.sent[0]);
  s.push(all["refused-pairing"].json);
  assert.deepEqual(await outcome, { ok: false, message: all["refused-pairing"].json.message });
  await eventually(() => s.closed);
  await flush();
  const st = r.bridge.status();
  assert.equal(st.state, "unpaired");
  assert.match(st.message, /pairing failed/);
  assert.equal(r.storage.data.secret, undefined);
  await r.clock.advance(60_000);
  assert.equal(r.net.sockets.length, 1, "redialled without a secret");
});

test("pairing with webpilot not running says so", async () => {
  const r = rig({ stored: {} });
  await r.bridge.start();
  const outcome = r.bridge.pair("ABCD");
  (await eventually(() => r.net.sockets[0])).refuse();
  const o = await outcome;
  assert.equal(o.ok, false);
  assert.match(o.message, /not reachable at ws:\/\/127\.0\.0\.1:47218\/bridge/);
  assert.equal(r.bridge.status().state, "unpaired");
  assert.deepEqual(await r.bridge.pair(" "), { ok: false, message: "type the code that `webpilot pair` prints" });
});

test("a failed pairing keeps an existing secret and reconnects with hello", async () => {
  const r = rig();
  await r.bridge.start();
  await handshake(r);
  const outcome = r.bridge.pair("NOPE");
  const s = await eventually(() => r.net.sockets[1]);
  s.accept();
  s.push(all.challenge.json);
  await eventually(() => s.sent[0]);
  s.push(all["refused-pairing"].json);
  assert.equal((await outcome).ok, false);
  await eventually(() => r.bridge.status().state === "retrying");
  await r.clock.advance(500);
  await handshake(r);
  assert.equal(r.storage.data.secret, SECRET);
  r.bridge.stop();
});

for (const reason of ["unauthorized", "version"]) {
  test(`refused ${reason}: no hammering; a storage change or the alarm tries again`, async () => {
    const r = rig();
    await r.bridge.start();
    const s = r.net.last;
    s.accept();
    s.push(all.challenge.json);
    await eventually(() => s.sent[0]);
    const refusal = all[`refused-${reason}`].json;
    s.push(refusal);
    await eventually(() => r.bridge.status().state === "refused");
    const st = r.bridge.status();
    assert.equal(st.reason, reason);
    assert.equal(st.message, refusal.message);
    assert.ok(s.closed);
    await r.clock.advance(10 * 60_000);
    assert.equal(r.net.sockets.length, 1, "retried on its own");

    await r.bridge.wake("alarm"); // the chrome.alarms alarm
    assert.equal(r.net.sockets.length, 2);
    const s2 = r.net.last;
    s2.accept();
    s2.push(all.challenge.json);
    await eventually(() => s2.sent[0]);
    s2.push(refusal);
    await eventually(() => r.bridge.status().state === "refused");

    await r.storage.set({ secret: NEW_SECRET }); // chrome.storage.onChanged
    await r.bridge.reconfigure();
    assert.equal(r.net.sockets.length, 3);
    const { hello } = await handshake(r);
    assert.equal(hello.proof, hmac(NEW_SECRET, NONCE));
    r.bridge.stop();
  });
}

test("refused extension (an id this webpilot does not pin), in place of the challenge: no hammering", async () => {
  const r = rig();
  await r.bridge.start();
  const s = r.net.last;
  s.accept();
  const refusal = all["refused-extension"].json;
  s.push(refusal);
  await eventually(() => r.bridge.status().state === "refused");
  const st = r.bridge.status();
  assert.equal(st.reason, "extension");
  assert.equal(st.message, refusal.message);
  assert.ok(s.closed);
  assert.equal(s.sent.length, 0, "nothing was sent to a server that refused the extension");
  await r.clock.advance(10 * 60_000);
  assert.equal(r.net.sockets.length, 1, "retried on its own");
  r.bridge.stop();
});

test("refused duplicate: retried with backoff", async () => {
  const r = rig();
  await r.bridge.start();
  const s = r.net.last;
  s.accept();
  s.push(all.challenge.json);
  await eventually(() => s.sent[0]);
  s.push(all["refused-duplicate"].json);
  await eventually(() => r.bridge.status().state === "retrying");
  assert.equal(r.bridge.status().reason, "duplicate");
  await r.clock.advance(499);
  assert.equal(r.net.sockets.length, 1);
  await r.clock.advance(1);
  assert.equal(r.net.sockets.length, 2);
  r.bridge.stop();
});

test("reconnect backoff: 0.5 s doubling to 10 s, back to 0.5 s after a welcome", async () => {
  const r = rig();
  await r.bridge.start();
  const delays = [500, 1000, 2000, 4000, 8000, 10000, 10000, 10000];
  for (const [i, d] of delays.entries()) {
    r.net.last.refuse();
    await flush();
    const st = r.bridge.status();
    assert.equal(st.state, "retrying");
    assert.equal(st.reason, "unreachable");
    assert.match(st.message, /not reachable/);
    assert.equal(st.retryAt - r.clock.now(), d, `retry ${i}`);
    await r.clock.advance(d - 1);
    assert.equal(r.net.sockets.length, i + 1, `retry ${i} came early`);
    await r.clock.advance(1);
    assert.equal(r.net.sockets.length, i + 2, `retry ${i} did not come`);
  }
  const { sock } = await handshake(r);
  sock.hangUp(1001, "going away");
  await flush();
  const st = r.bridge.status();
  assert.equal(st.state, "retrying");
  assert.match(st.message, /connection to webpilot lost \(close 1001: going away\)/);
  assert.equal(st.retryAt - r.clock.now(), 500);
  r.bridge.stop();
});

test("the alarm dials at once while a retry is pending", async () => {
  const r = rig();
  await r.bridge.start();
  r.net.last.refuse();
  await flush();
  assert.equal(r.bridge.status().state, "retrying");
  await r.bridge.wake("alarm");
  assert.equal(r.net.sockets.length, 2);
  await r.bridge.wake("alarm"); // already dialling: nothing more
  assert.equal(r.net.sockets.length, 2);
  r.bridge.stop();
});

test("no answer to the handshake: closed after 15 s and retried", async () => {
  const r = rig();
  await r.bridge.start();
  const s = r.net.last;
  s.accept();
  await r.clock.advance(14_999);
  assert.ok(!s.closed);
  await r.clock.advance(1);
  assert.ok(s.closed);
  assert.match(r.bridge.status().message, /no answer from webpilot/);
  assert.equal(r.bridge.status().state, "retrying");
  r.bridge.stop();
});

test("a bad handshake message closes the connection", async () => {
  const r = rig();
  await r.bridge.start();
  const s = r.net.last;
  s.accept();
  s.push({ type: "welcome", protocol: 5 }); // welcome before challenge
  await flush();
  assert.ok(s.closed);
  assert.match(r.bridge.status().message, /expected a challenge/);
  r.bridge.stop();
});

test("heartbeat: a ping every 20 s; silence for 60 s closes the connection", async () => {
  const r = rig();
  await r.bridge.start();
  const { sock } = await handshake(r);
  const pings = () => sock.sent.filter((m) => m.type === "ping");
  await r.clock.advance(19_999);
  assert.equal(pings().length, 0);
  await r.clock.advance(1);
  assert.deepEqual(pings(), [{ type: "ping", ts: r.clock.now() }]);
  sock.push({ type: "pong", ts: pings()[0].ts });
  await r.clock.advance(20_000);
  assert.equal(pings().length, 2);
  sock.push({ type: "pong", ts: pings()[1].ts });
  await r.clock.advance(40_000);
  assert.equal(pings().length, 4);
  assert.ok(!sock.closed, "closed while pongs came");
  // No more pongs: at the first tick 60 s after the last message, it gives up.
  await r.clock.advance(20_000);
  assert.ok(sock.closed);
  assert.match(r.bridge.status().message, /has not answered for 60 s/);
  assert.equal(r.bridge.status().state, "retrying");
  r.bridge.stop();
});

test("every op in the samples reaches the api with its params", async () => {
  const r = rig();
  await r.bridge.start();
  const { sock } = await handshake(r);
  const expectCall = {
    "tabs.list": undefined,
    "tabs.query": undefined,
    "tabs.bind": { tabId: 31 },
    "tabs.unbind": { tabId: 31 },
    "tabs.create": { url: "https://example.com/" },
    "tabs.close": { tabId: 14 },
    "tabs.activate": { tabId: 12 },
    "tabs.update": { tabId: 12, url: "data:text/html,<h1>hi</h1>" },
    "debugger.attach": { tabId: 12 },
    "debugger.send": { tabId: 12, method: "Runtime.evaluate", params: { expression: "1+1", returnByValue: true } },
    "debugger.detach": { tabId: 12 },
    "handoff.start": { tabId: 12, message: "Sign in to your bank, then press Done.", session: "agent-1" },
    "handoff.end": { tabId: 12 },
    "approval.ask": { client: "Claude Code", session: "c-3f9a2b71", site: "example.com", url: "https://shop.example.com/cart", bind: false, title: "", tabId: 12 },
    "approval.rules": undefined,
    "approval.end": { ask: "a-7k2m9q" },
    "live.show": {
      clients: [
        {
          id: "c-3f9a2b71",
          name: "Claude Code",
          state: "running",
          calls: 7,
          last: "browser_action click e4 → ok",
          lastAt: 1796640000000,
          sessions: [{ name: "c-3f9a2b71", group: "Claude Code · c-3f9a2b71", url: "https://shop.example.com/cart" }],
        },
      ],
    },
  };
  // downloads.find is the Bridge's own (see the downloads tests).
  const requests = Object.entries(all).filter(([n]) => n.startsWith("request-") && n !== "request-downloads.find");
  assert.equal(requests.length, 18);
  for (const [name, { json }] of requests) {
    r.calls.length = 0;
    const reply = await ask(sock, json);
    assert.ok("result" in reply, `${name}: ${JSON.stringify(reply)}`);
    assert.equal(r.calls.length, 1, name);
    const [op, params] = r.calls[0];
    assert.equal(op, json.op);
    if (name === "request-debugger.send-child") {
      assert.deepEqual(params, { tabId: 12, sessionId: "6A1B7C5D0E9F48A3B2C1D0E9F8A7B6C5", method: "Runtime.enable", params: {} });
    } else {
      assert.deepEqual(params, expectCall[json.op], name);
    }
  }
  // Results have the protocol's shapes.
  const list = await ask(sock, { id: 100, op: "tabs.list", params: {} });
  assert.deepEqual(list.result, { tabs: [tabInfo(chromeTab(12)), tabInfo(chromeTab(14, { windowId: 5, openerTabId: 12 }))] });
  const created = await ask(sock, { id: 101, op: "tabs.create", params: { url: "https://example.com/" } });
  assert.deepEqual(created.result, { tabId: 12, windowId: 3, url: "https://example.com/", title: "", active: true });
  const closed = await ask(sock, { id: 102, op: "tabs.close", params: { tabId: 14 } });
  assert.deepEqual(closed, { id: 102, result: all["result-tabs.close"].json.result });
  const sent = await ask(sock, { id: 7, op: "debugger.send", params: { tabId: 12, method: "Runtime.evaluate", params: {} } });
  assert.deepEqual(sent, all["result-debugger.send"].json);
  r.bridge.stop();
});

test("unknown ops and bad params are refused as bad_request without calling the api", async () => {
  const r = rig();
  await r.bridge.start();
  const { sock } = await handshake(r);
  const bad = [
    { id: 1, op: "tabs.move", params: {} },
    { id: 2, op: "debugger.getTargets", params: {} },
    { id: 3, op: "__proto__", params: {} },
    { id: 4, op: "constructor", params: {} },
    { id: 5, op: "runtime.reload" },
    { id: 6, op: "tabs.close", params: { tabId: "12" } },
    { id: 7, op: "debugger.send", params: { tabId: 12 } },
    { id: 8, op: 5, params: {} }, // not even a string: still answered
    { id: 9, op: "tabs.list", params: "x" },
  ];
  for (const req of bad) {
    const reply = await ask(sock, req);
    assert.equal(reply.error.code, "bad_request", JSON.stringify(req));
    assert.equal(typeof reply.error.message, "string");
  }
  assert.match((await ask(sock, { id: 10, op: "tabs.move" })).error.message, /unknown op "tabs.move"/);
  assert.deepEqual(r.calls, []);
  r.bridge.stop();
});

test("api errors are mapped to the protocol's codes", async () => {
  const table = [
    [new Error("No tab with id: 99."), "no_tab"],
    [new Error("Debugger is not attached to the tab with id: 12."), "detached"],
    [new Error("Another debugger is already attached to the tab with id: 12."), "not_allowed"],
    [new Error("Cannot access a chrome:// URL"), "not_allowed"],
    [new Error('{"code":-32000,"message":"Not allowed"}'), "not_allowed"],
    [new BridgeError("not_allowed", "tab 5 is not a webpilot tab"), "not_allowed"],
    [new Error("something else"), "failed"],
  ];
  for (const [i, [err, code]] of table.entries()) {
    const r = rig({ behaviour: { "debugger.send": err } });
    await r.bridge.start();
    const { sock } = await handshake(r);
    const reply = await ask(sock, { id: i, op: "debugger.send", params: { tabId: 12, method: "Runtime.evaluate" } });
    assert.equal(reply.error.code, code, err.message);
    assert.ok(reply.error.message.length > 0);
    r.bridge.stop();
  }
});

test("events are forwarded when connected, debugger events only for attached tabs", async () => {
  const r = rig();
  await r.bridge.start();
  assert.equal(r.bridge.sendEvent("tabs.removed", { tabId: 12 }), false, "sent before welcome");
  const { sock } = await handshake(r);
  const events = () => sock.sent.filter((m) => "event" in m);

  assert.equal(r.bridge.debuggerEvent({ tabId: 12 }, "Page.loadEventFired", { timestamp: 1 }), false);
  await ask(sock, { id: 1, op: "debugger.attach", params: { tabId: 12 } });
  assert.deepEqual(r.attachedChanges.at(-1), [12]);
  r.bridge.debuggerEvent({ tabId: 12 }, "Page.loadEventFired", { timestamp: 81234.567891 });
  r.bridge.debuggerEvent({ tabId: 12, sessionId: "6A1B7C5D0E9F48A3B2C1D0E9F8A7B6C5" }, "Runtime.executionContextCreated",
    all["event-debugger.event-child"].json.params.params);
  r.bridge.debuggerEvent({ tabId: 13 }, "Page.loadEventFired", {}); // not ours
  r.bridge.debuggerDetached({ tabId: 12 }, "canceled_by_user");
  r.bridge.debuggerEvent({ tabId: 12 }, "Page.loadEventFired", {}); // detached now
  r.bridge.debuggerDetached({ tabId: 12 }, "target_closed"); // twice: once is enough
  r.bridge.sendEvent("tabs.created", tabInfo(chromeTab(14, { windowId: 5, url: "", title: "", openerTabId: 12 })));
  r.bridge.sendEvent("tabs.updated", all["event-tabs.updated"].json.params);
  r.bridge.sendEvent("tabs.removed", { tabId: 14 });
  assert.deepEqual(events(), [
    all["event-debugger.event"].json,
    all["event-debugger.event-child"].json,
    all["event-debugger.detached"].json,
    all["event-tabs.created"].json,
    all["event-tabs.updated"].json,
    all["event-tabs.removed"].json,
  ]);
  assert.deepEqual(r.attachedChanges.at(-1), []);
  assert.throws(() => r.bridge.sendEvent("tabs.moved", {}));
  r.bridge.stop();
});

// A chrome.downloads item as Chrome lists it.
function downloadItem(id, extra = {}) {
  return {
    id,
    url: "https://example.com/report",
    finalUrl: "https://example.com/report",
    filename: `/home/u/Downloads/report${id}.csv`,
    mime: "text/csv",
    state: "complete",
    bytesReceived: 8,
    totalBytes: 8,
    fileSize: 8,
    danger: "safe",
    exists: true,
    paused: false,
    incognito: false,
    startTime: new Date(1_764_694_920_000 - 200).toISOString(),
    ...extra,
  };
}

test("downloads.find describes the download an attached tab began, once it has ended", async () => {
  const items = [downloadItem(7, { state: "in_progress", fileSize: 0, bytesReceived: 3 })];
  const r = rig({ behaviour: { "downloads.search": () => structuredClone(items) } });
  await r.bridge.start();
  const { sock } = await handshake(r);
  const req = all["request-downloads.find"].json;
  const guid = req.params.guid;
  // Not attached yet: its download is not remembered, and nothing is described.
  r.bridge.debuggerEvent({ tabId: 12 }, "Page.downloadWillBegin", { guid, url: "https://example.com/report", suggestedFilename: "report.csv" });
  let reply = await ask(sock, req);
  assert.equal(reply.error.code, "not_allowed");
  assert.deepEqual(r.calls, []);

  await ask(sock, { id: 1, op: "debugger.attach", params: { tabId: 12 } });
  r.bridge.debuggerEvent({ tabId: 12 }, "Page.downloadWillBegin", { guid, url: "https://example.com/report", suggestedFilename: "report.csv" });
  // Another tab's guid stays private.
  reply = await ask(sock, { ...req, id: 2, params: { ...req.params, tabId: 14 } });
  assert.equal(reply.error.code, "not_allowed");

  // Running: the answer waits, looking again every 100 ms, until the item has ended.
  sock.push({ ...req, id: 3 });
  await flush();
  assert.ok(!sock.sent.some((m) => m.id === 3), "answered while running");
  await r.clock.advance(300);
  assert.ok(!sock.sent.some((m) => m.id === 3), "answered while running");
  items[0] = downloadItem(7);
  await r.clock.advance(100);
  reply = await eventually(() => sock.sent.find((m) => m.id === 3), "the answer");
  assert.deepEqual(reply, { ...all["result-downloads.find"].json, id: 3, result: { ...all["result-downloads.find"].json.result, filename: "/home/u/Downloads/report7.csv" } });
  const [op, query] = r.calls.at(-1);
  assert.equal(op, "downloads.search");
  assert.ok(Date.parse(query.startedAfter) <= r.clock.now() - 60_000, JSON.stringify(query));
  r.bridge.stop();
});

test("downloads.find: two downloads of one URL get one item each, oldest first; none is a failure", async () => {
  const items = [downloadItem(9, { startTime: new Date(1_764_694_920_000 - 100).toISOString() }), downloadItem(8)];
  const r = rig({ behaviour: { "downloads.search": () => structuredClone(items) } });
  await r.bridge.start();
  const { sock } = await handshake(r);
  await ask(sock, { id: 1, op: "debugger.attach", params: { tabId: 12 } });
  for (const guid of ["g1", "g2", "g3"]) {
    r.bridge.debuggerEvent({ tabId: 12 }, "Page.downloadWillBegin", { guid, url: "https://example.com/report" });
  }
  const find = (id, guid, timeoutMs) => ask(sock, { id, op: "downloads.find", params: { tabId: 12, guid, timeoutMs } });
  assert.equal((await find(2, "g1", 0)).result.id, 8);
  assert.equal((await find(3, "g2", 0)).result.id, 9);
  assert.equal((await find(4, "g1", 0)).result.id, 8, "a download keeps its item");
  sock.push({ id: 5, op: "downloads.find", params: { tabId: 12, guid: "g3", timeoutMs: 500 } });
  await r.clock.advance(600);
  const reply = await eventually(() => sock.sent.find((m) => m.id === 5), "the answer");
  assert.equal(reply.error.code, "failed");
  assert.match(reply.error.message, /no download of https:\/\/example.com\/report/);
  for (const bad of [{ tabId: 12 }, { tabId: 12, guid: "" }, { tabId: 12, guid: "g1", timeoutMs: 60_001 }, { tabId: 12, guid: "g1", timeoutMs: 1.5 }]) {
    assert.equal((await ask(sock, { id: 6, op: "downloads.find", params: bad })).error.code, "bad_request", JSON.stringify(bad));
    sock.sent.length = 0;
  }
  r.bridge.stop();
});

test("debugger sessions end with the connection, and stale ones before the next requests", async () => {
  const r = rig();
  r.bridge.restoreAttached([5]); // attached before a service worker restart
  await r.bridge.start();
  const { sock } = await handshake(r);
  const reply = await ask(sock, { id: 1, op: "debugger.attach", params: { tabId: 12 } });
  assert.deepEqual(reply, { id: 1, result: {} });
  assert.deepEqual(r.calls.slice(0, 2), [
    ["debugger.detach", { tabId: 5 }],
    ["debugger.attach", { tabId: 12 }],
  ]);
  r.calls.length = 0;
  sock.hangUp(1006);
  await eventually(() => r.calls.length === 1);
  assert.deepEqual(r.calls, [["debugger.detach", { tabId: 12 }]]);
  assert.deepEqual(r.attachedChanges.at(-1), []);
  r.bridge.stop();
});

test("attaching a tab this extension still holds succeeds", async () => {
  const r = rig({ behaviour: { "debugger.attach": new Error("Another debugger is already attached to the tab with id: 12.") } });
  await r.bridge.start();
  const { sock } = await handshake(r);
  assert.equal((await ask(sock, { id: 1, op: "debugger.attach", params: { tabId: 12 } })).error.code, "not_allowed");
  r.bridge.attached.add(12);
  assert.deepEqual(await ask(sock, { id: 2, op: "debugger.attach", params: { tabId: 12 } }), { id: 2, result: {} });
  r.bridge.stop();
});

test("a storage change reconnects with the new port; an unchanged one does nothing", async () => {
  const r = rig();
  await r.bridge.start();
  const { sock } = await handshake(r);
  await r.bridge.reconfigure();
  assert.equal(r.net.sockets.length, 1);
  assert.equal(r.bridge.status().state, "connected");
  await r.storage.set({ port: 6001 });
  await r.bridge.reconfigure();
  assert.ok(sock.closed);
  assert.equal(r.net.sockets.length, 2);
  assert.equal(r.net.last.url, "ws://127.0.0.1:6001/bridge");
  await handshake(r);
  r.bridge.stop();
});

test("a storage change while starting does not drop the fresh connection", async () => {
  // The tests provision the extension by writing {port, secret} right after the worker starts:
  // onChanged may run while start() is still loading the same values.
  const r = rig();
  await Promise.all([r.bridge.start(), r.bridge.reconfigure(), r.bridge.wake("alarm")]);
  assert.equal(r.net.sockets.length, 1);
  const { sock } = await handshake(r);
  await r.bridge.reconfigure();
  await flush();
  assert.ok(!sock.closed);
  assert.equal(r.net.sockets.length, 1);
  r.bridge.stop();
});

test("unpair forgets the secret and disconnects", async () => {
  const r = rig();
  await r.bridge.start();
  const { sock } = await handshake(r);
  await r.bridge.unpair();
  assert.ok(sock.closed);
  assert.equal(r.storage.data.secret, undefined);
  assert.equal(r.bridge.status().state, "unpaired");
  assert.equal(r.bridge.status().paired, false);
  await r.clock.advance(60_000);
  assert.equal(r.net.sockets.length, 1);
});

test("garbage frames after the welcome do not break the connection", async () => {
  const r = rig();
  await r.bridge.start();
  const { sock } = await handshake(r);
  sock.push("not json");
  sock.push({ id: 3, op: "tabs.list", params: [] });
  await eventually(() => sock.sent.find((m) => m.id === 3));
  assert.equal(sock.sent.find((m) => m.id === 3).error.code, "bad_request");
  assert.equal(r.bridge.status().state, "connected");
  assert.deepEqual((await ask(sock, { id: 4, op: "tabs.close", params: { tabId: 14 } })).result, {});
  r.bridge.stop();
});

test("the status reports what the popup shows", async () => {
  const r = rig();
  await r.bridge.start();
  const s = r.bridge.status();
  assert.equal(s.port, 5555);
  assert.equal(s.url, "ws://127.0.0.1:5555/bridge");
  assert.equal(s.extensionVersion, "0.1.0");
  assert.equal(s.protocol, 5);
  assert.equal(s.profileId, "p1");
  assert.ok(r.statuses.some((x) => x.state === "connecting"));
  r.bridge.stop();
  assert.equal(r.bridge.status().state, "stopped");
});

test("the test hook detaches a tab and reports it as the user's cancel", async () => {
  const r = rig();
  await r.bridge.start();
  const { sock } = await handshake(r);
  const detached = () => sock.sent.filter((m) => m.event === "debugger.detached").map((m) => m.params);
  await assert.rejects(r.bridge.cancelDebuggingForTest(12), /not attached/);
  await ask(sock, { id: 1, op: "debugger.attach", params: { tabId: 12 } });

  // Chrome reports nothing for a detach the extension asked for: the hook sends the cancel.
  let out = await r.bridge.cancelDebuggingForTest(12);
  assert.deepEqual(out, { chromeReported: null });
  assert.deepEqual(r.calls.at(-1), ["debugger.detach", { tabId: 12 }]);
  assert.deepEqual(detached(), [{ tabId: 12, reason: "canceled_by_user" }]);
  assert.deepEqual(r.attachedChanges.at(-1), []);

  // Should Chrome report the detach with another reason, the server still hears a cancel, once.
  await ask(sock, { id: 2, op: "debugger.attach", params: { tabId: 12 } });
  r.api.debugger.detach = async ({ tabId }) => {
    r.bridge.debuggerDetached({ tabId }, "target_closed");
  };
  out = await r.bridge.cancelDebuggingForTest(12);
  assert.deepEqual(out, { chromeReported: { tabId: 12, reason: "target_closed" } });
  assert.deepEqual(detached(), [
    { tabId: 12, reason: "canceled_by_user" },
    { tabId: 12, reason: "canceled_by_user" },
  ]);
  // A real detach afterwards keeps its own reason.
  await ask(sock, { id: 3, op: "debugger.attach", params: { tabId: 12 } });
  r.bridge.debuggerDetached({ tabId: 12 }, "target_closed");
  assert.equal(detached().at(-1).reason, "target_closed");
  r.bridge.stop();
});

test("tabs.unbind detaches the debugger from the bound tab and forgets it", async () => {
  const r = rig();
  await r.bridge.start();
  const { sock } = await handshake(r);
  const bound = await ask(sock, { id: 1, op: "tabs.bind", params: { tabId: 31 } });
  assert.deepEqual(bound.result, tabInfo(chromeTab(31, { windowId: 1 })));
  await ask(sock, { id: 2, op: "debugger.attach", params: { tabId: 31 } });
  assert.deepEqual(r.attachedChanges.at(-1), [31]);
  r.calls.length = 0;
  const released = await ask(sock, { id: 3, op: "tabs.unbind", params: { tabId: 31 } });
  assert.deepEqual(released, { id: 3, result: {} });
  assert.deepEqual(r.calls, [
    ["debugger.detach", { tabId: 31 }],
    ["tabs.unbind", { tabId: 31 }],
  ]);
  assert.deepEqual(r.attachedChanges.at(-1), []);
  // Not attached any more: a second unbind detaches nothing.
  r.calls.length = 0;
  await ask(sock, { id: 4, op: "tabs.unbind", params: { tabId: 31 } });
  assert.deepEqual(r.calls, [["tabs.unbind", { tabId: 31 }]]);
  const query = await ask(sock, { id: 5, op: "tabs.query", params: {} });
  assert.deepEqual(query.result.tabs, [
    { ...tabInfo(chromeTab(31, { windowId: 1 })), focused: true },
    tabInfo(chromeTab(32, { windowId: 1, active: false })),
  ]);
  r.bridge.stop();
});

test("a tab the user takes out of webpilot's group is detached and reported released_by_user", async () => {
  const r = rig();
  await r.bridge.start();
  const { sock } = await handshake(r);
  await ask(sock, { id: 1, op: "debugger.attach", params: { tabId: 12 } });
  r.calls.length = 0;
  await r.bridge.releaseByUser(12);
  assert.deepEqual(r.calls, [["debugger.detach", { tabId: 12 }]]);
  assert.deepEqual(r.attachedChanges.at(-1), []);
  assert.deepEqual(sock.sent.filter((m) => m.event === "debugger.detached"), [
    { event: "debugger.detached", params: { tabId: 12, reason: "released_by_user" } },
  ]);
  await r.bridge.releaseByUser(12); // not attached any more: nothing
  assert.equal(sock.sent.filter((m) => m.event === "debugger.detached").length, 1);
  r.bridge.stop();
});

test("AgentTabs: a released agent tab is the user's (popups it opened before stay webpilot's)", () => {
  const a = new AgentTabs();
  const tabs = [chromeTab(12), chromeTab(13), chromeTab(20, { windowId: 9, openerTabId: 13 })];
  a.reset(3, tabs);
  assert.deepEqual(a.refresh(tabs).map((t) => t.id), [12, 13, 20]);
  a.release(13);
  assert.deepEqual(a.refresh(tabs).map((t) => t.id), [12, 20]);
  assert.equal(a.isAgent(chromeTab(13)), false);
  assert.equal(a.isAgent(chromeTab(21, { windowId: 9, openerTabId: 13 })), false, "a new popup of the released tab");
});
