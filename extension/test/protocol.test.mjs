// The pure parts of protocol.js: samples, builders and parsers, the proof, configuration,
// error codes, the op allow-list and the agent tab set.

import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import test from "node:test";

import {
  AgentTabs,
  BridgeError,
  DEFAULT_PORT,
  EVENT_NAMES,
  OP_NAMES,
  ProtocolError,
  build,
  challenge,
  checkRequest,
  classifyError,
  computeProof,
  debuggerDetached,
  debuggerEvent,
  dispatch,
  encode,
  hello,
  loadConfig,
  pair,
  parseMessage,
  tabInfo,
  toWireError,
  userTabInfo,
} from "../protocol.js";
import { FakeStorage, chromeTab, fakeApi, samples } from "./fakes.mjs";

const all = samples();
const kindOf = (name) => name.split("-")[0];

test("every sample in testdata/bridge parses as the kind its name says and round-trips", () => {
  assert.ok(Object.keys(all).length > 20, "samples are missing");
  for (const [name, { text, json }] of Object.entries(all)) {
    const m = parseMessage(text);
    assert.equal(m.kind, kindOf(name), name);
    assert.deepEqual(build(m), json, `${name}: build(parse(x)) != x`);
    assert.deepEqual(parseMessage(encode(build(m))), m, `${name}: parse(encode(build(m))) != m`);
    assert.deepEqual(parseMessage(json), m, `${name}: parsing the object and the text differ`);
  }
});

test("the samples cover every message kind, op and event", () => {
  const kinds = new Set(Object.keys(all).map(kindOf));
  for (const k of ["challenge", "hello", "pair", "paired", "welcome", "refused", "request", "result", "error", "event", "ping", "pong"]) {
    assert.ok(kinds.has(k), `no sample of ${k}`);
  }
  const ops = new Set(Object.values(all).map(({ json }) => json.op).filter(Boolean));
  assert.deepEqual([...ops].sort(), [...OP_NAMES].sort());
  const events = new Set(Object.values(all).map(({ json }) => json.event).filter(Boolean));
  assert.deepEqual([...events].sort(), [...EVENT_NAMES].sort());
  const reasons = new Set(Object.values(all).filter(({ json }) => json.type === "refused").map(({ json }) => json.reason));
  assert.deepEqual([...reasons].sort(), ["duplicate", "extension", "pairing", "unauthorized", "version"]);
  for (const { json } of Object.values(all)) {
    if (json.error) assert.ok(["no_tab", "not_allowed", "detached", "bad_request", "failed"].includes(json.error.code));
    if (json.type === "refused") assert.ok(json.message.length > 0);
  }
});

test("the samples' proof is HMAC-SHA256(secret, nonce), computed independently", async () => {
  const secret = Buffer.from(all.paired.json.secret, "base64");
  const nonce = Buffer.from(all.challenge.json.nonce, "base64");
  assert.equal(secret.length, 32);
  assert.equal(nonce.length, 32);
  const want = createHmac("sha256", secret).update(nonce).digest("base64");
  assert.equal(all.hello.json.proof, want);
  assert.equal(await computeProof(globalThis.crypto.subtle, all.paired.json.secret, all.challenge.json.nonce), want);
});

test("builders write the samples", () => {
  const h = all.hello.json;
  assert.deepEqual(hello({ profileId: h.profile_id, userAgent: h.user_agent, proof: h.proof }), h);
  const p = all.pair.json;
  assert.deepEqual(pair({ code: p.code, profileId: p.profile_id, userAgent: p.user_agent }), p);
  assert.deepEqual(challenge({ nonce: all.challenge.json.nonce, server: "webpilot/0.1.0" }), all.challenge.json);
  assert.deepEqual(
    debuggerEvent({ tabId: 12 }, "Page.loadEventFired", { timestamp: 81234.567891 }),
    all["event-debugger.event"].json,
  );
  const child = all["event-debugger.event-child"].json.params;
  assert.deepEqual(
    debuggerEvent({ tabId: 12, sessionId: child.sessionId }, child.method, child.params),
    all["event-debugger.event-child"].json,
  );
  assert.deepEqual(debuggerDetached({ tabId: 12 }, "canceled_by_user"), all["event-debugger.detached"].json);
  const created = chromeTab(14, { windowId: 5, url: "", title: "", openerTabId: 12, pendingUrl: undefined });
  assert.deepEqual(tabInfo(created), all["event-tabs.created"].json.params);
  // While a navigation starts, url is the old page and pendingUrl where it goes: the tab is
  // reported with the latter. No openerTabId when there is none.
  assert.deepEqual(tabInfo({ id: 1, windowId: 2, url: "about:blank", pendingUrl: "https://a.test/", active: false }), {
    tabId: 1,
    windowId: 2,
    url: "https://a.test/",
    title: "",
    active: false,
  });
});

test("parseMessage refuses frames that break the protocol", () => {
  const bad = [
    "not json",
    "[1,2]",
    "null",
    '"hello"',
    "{}",
    '{"type":"nope"}',
    '{"type":"challenge","protocol":5,"server":"x"}',
    '{"type":"challenge","protocol":"1","nonce":"n","server":"x"}',
    '{"type":"hello","protocol":5,"extension_version":"0.1.0","profile_id":"p","user_agent":"u"}',
    '{"type":"paired"}',
    '{"type":"ping","ts":"now"}',
    '{"id":1,"op":5}',
    '{"id":1,"op":"tabs.list","params":[]}',
    '{"id":{},"op":"tabs.list"}',
    '{"id":1,"error":"boom"}',
    '{"id":1,"error":{"message":"x"}}',
    '{"event":"tabs.removed"}',
    '{"event":"tabs.removed","params":12}',
  ];
  for (const text of bad) assert.throws(() => parseMessage(text), ProtocolError, text);
  // A request without params gets {}.
  assert.deepEqual(parseMessage('{"id":1,"op":"tabs.list"}'), { kind: "request", id: 1, op: "tabs.list", params: {} });
});

test("loadConfig: defaults, stored values, and a profile id made once", async () => {
  const rnd = (a) => globalThis.crypto.getRandomValues(a);
  const s = new FakeStorage();
  const c1 = await loadConfig(s, rnd);
  assert.equal(c1.port, DEFAULT_PORT);
  assert.equal(c1.secret, null);
  assert.match(c1.profileId, /^[0-9a-f]{32}$/);
  assert.equal(s.data.profile_id, c1.profileId);
  const c2 = await loadConfig(s, rnd);
  assert.equal(c2.profileId, c1.profileId, "the profile id changed");

  const secret = all.paired.json.secret;
  const c3 = await loadConfig(new FakeStorage({ port: "40001", secret, profile_id: "x" }), rnd);
  assert.deepEqual(c3, { port: 40001, secret, profileId: "x", problems: [], disconnected: false });

  const c4 = await loadConfig(new FakeStorage({ port: 70000, secret: "not base64!", profile_id: "x" }), rnd);
  assert.equal(c4.port, DEFAULT_PORT);
  assert.equal(c4.secret, null);
  assert.equal(c4.problems.length, 2);
  const c5 = await loadConfig(new FakeStorage({ port: 1.5, secret: btoa("short"), profile_id: "x" }), rnd);
  assert.equal(c5.port, DEFAULT_PORT);
  assert.equal(c5.secret, null);
});

test("Chrome's error messages map to the protocol's codes", () => {
  const table = [
    ["No tab with id: 99.", "no_tab"],
    ["No tab with given id 99.", "no_tab"],
    ["Invalid tab ID: 99", "no_tab"],
    ["Debugger is not attached to the tab with id: 12.", "detached"],
    ["Detached while handling command.", "detached"],
    ["Another debugger is already attached to the tab with id: 12.", "not_allowed"],
    ["Cannot access a chrome:// URL", "not_allowed"],
    ["Cannot access contents of url \"chrome-extension://x/\".", "not_allowed"],
    ["Cannot attach to this target.", "not_allowed"],
    ["Not allowed", "not_allowed"],
    ["Tabs cannot be edited right now (user may be dragging a tab).", "failed"],
    ["No window with id: 3.", "failed"],
    ["boom", "failed"],
  ];
  for (const [msg, code] of table) assert.equal(classifyError(msg), code, msg);

  // CDP errors come as the JSON of the error object; the message is unwrapped.
  assert.deepEqual(toWireError(new Error('{"code":-32000,"message":"Not allowed"}')), { message: "Not allowed", code: "not_allowed" });
  assert.deepEqual(toWireError(new Error(`{"code":-32601,"message":"'Browser.getVersion' wasn't found"}`)), {
    message: "'Browser.getVersion' wasn't found",
    code: "failed",
  });
  assert.deepEqual(toWireError(new BridgeError("no_tab", "gone")), { message: "gone", code: "no_tab" });
  assert.deepEqual(toWireError(new BridgeError("weird", "x")), { message: "x", code: "failed" });
  assert.deepEqual(toWireError("plain string"), { message: "plain string", code: "failed" });
  assert.deepEqual(toWireError(undefined), { message: "unknown error", code: "failed" });
});

test("checkRequest keeps only the allow-listed ops and their params", () => {
  assert.deepEqual(checkRequest("tabs.list", {}), {});
  assert.deepEqual(checkRequest("tabs.create", {}), { url: "about:blank" });
  assert.deepEqual(checkRequest("tabs.create", { url: "https://a.test/", windowId: 1 }), { url: "https://a.test/" });
  assert.deepEqual(checkRequest("tabs.update", { tabId: 3, url: "data:text/html,x", active: true }), {
    tabId: 3,
    url: "data:text/html,x",
  });
  assert.deepEqual(checkRequest("debugger.send", { tabId: 3, method: "Page.enable" }), {
    tabId: 3,
    method: "Page.enable",
    params: {},
  });
  assert.deepEqual(checkRequest("debugger.send", { tabId: 3, sessionId: "S", method: "DOM.enable", params: { a: 1 } }), {
    tabId: 3,
    sessionId: "S",
    method: "DOM.enable",
    params: { a: 1 },
  });
  assert.deepEqual(checkRequest("handoff.start", { tabId: 3, message: "  Sign in, then press Done. ", windowId: 9 }), {
    tabId: 3,
    message: "Sign in, then press Done.",
  });
  assert.deepEqual(checkRequest("handoff.start", { tabId: 3, message: "Do the task, then press Stop", kind: "record" }), {
    tabId: 3,
    message: "Do the task, then press Stop",
    kind: "record",
  });
  const bad = [
    ["handoff.start", { tabId: 3, message: "ok", kind: "other" }],
    ["handoff.start", { tabId: 3 }],
    ["handoff.start", { tabId: 3, message: "   " }],
    ["handoff.start", { tabId: 3, message: "x".repeat(301) }],
    ["handoff.start", { tabId: 3, message: "ok", session: "" }],
    ["handoff.end", {}],
    ["tabs.bind", {}],
    ["__proto__", {}],
    ["constructor", {}],
    ["hasOwnProperty", {}],
    ["debugger.getTargets", {}],
    [undefined, {}],
    ["tabs.close", {}],
    ["tabs.close", { tabId: "12" }],
    ["tabs.close", { tabId: 1.5 }],
    ["tabs.activate", { tabId: -1 }],
    ["tabs.update", { tabId: 1 }],
    ["tabs.update", { tabId: 1, url: "" }],
    ["tabs.create", { url: 5 }],
    ["debugger.send", { tabId: 1 }],
    ["debugger.send", { tabId: 1, method: "evaluate" }],
    ["debugger.send", { tabId: 1, method: "Runtime.evaluate", params: [1] }],
    ["debugger.send", { tabId: 1, sessionId: 5, method: "Runtime.evaluate" }],
    ["tabs.list", []],
  ];
  for (const [op, params] of bad) {
    assert.throws(
      () => checkRequest(op, params),
      (e) => e instanceof BridgeError && e.code === "bad_request",
      `${op} ${JSON.stringify(params)}`,
    );
  }
  assert.throws(
    () => checkRequest("tabs.update", { tabId: 1, url: "javascript:alert(1)" }),
    (e) => e.code === "not_allowed",
  );
});

test("dispatch turns api answers into wire results", async () => {
  const { api, calls } = fakeApi();
  assert.deepEqual(await dispatch(api, "tabs.list", {}), {
    tabs: [tabInfo(chromeTab(12)), tabInfo(chromeTab(14, { windowId: 5, openerTabId: 12 }))],
  });
  assert.deepEqual(await dispatch(api, "tabs.close", { tabId: 14 }), {});
  assert.deepEqual(await dispatch(api, "debugger.send", { tabId: 12, method: "Runtime.evaluate", params: { expression: "1+1" } }), {
    result: { type: "number", value: 2, description: "2" },
  });
  assert.deepEqual(calls.map((c) => c[0]), ["tabs.list", "tabs.close", "debugger.send"]);
  const { api: api2 } = fakeApi({ "debugger.send": () => undefined });
  assert.deepEqual(await dispatch(api2, "debugger.send", { tabId: 12, method: "Page.enable" }), {});
});

test("AgentTabs: the agent window's tabs and the tabs they opened, transitively", () => {
  const tabs = [
    { id: 1, windowId: 1 }, // the user's
    { id: 2, windowId: 1, openerTabId: 1 }, // opened by the user's tab
    { id: 10, windowId: 9 }, // agent window
    { id: 11, windowId: 9, openerTabId: 10 },
    { id: 20, windowId: 20, openerTabId: 11 }, // popup window opened by an agent tab
    { id: 21, windowId: 20, openerTabId: 20 }, // opened by that popup
  ];
  const a = new AgentTabs();
  a.reset(9, tabs);
  assert.deepEqual([...a.ids].sort((x, y) => x - y), [10, 11, 20, 21]);
  assert.deepEqual(a.select(tabs).map((t) => t.id), [10, 11, 20, 21]);
  assert.equal(a.add({ id: 30, windowId: 1, openerTabId: 21 }), true);
  assert.equal(a.add({ id: 30, windowId: 1, openerTabId: 21 }), false, "added twice");
  assert.equal(a.add({ id: 31, windowId: 1, openerTabId: 1 }), false, "a user tab became an agent tab");
  assert.equal(a.add({ id: 32, windowId: 9 }), true);
  assert.equal(a.remove(32), true);
  assert.equal(a.remove(1), false);
  const none = new AgentTabs();
  none.reset(null, tabs);
  assert.equal(none.ids.size, 0);
});

test("AgentTabs: a bound user tab is relayed until unbound", () => {
  const a = new AgentTabs();
  a.reset(3, [chromeTab(12), chromeTab(31, { windowId: 1 }), chromeTab(32, { windowId: 1 })]);
  assert.equal(a.isAgent(chromeTab(31, { windowId: 1 })), false);
  a.bind(31);
  assert.deepEqual(a.refresh([chromeTab(12), chromeTab(31, { windowId: 1 }), chromeTab(32, { windowId: 1 })]).map((t) => t.id), [12, 31]);
  assert.equal(a.has(32), false, "the user's other tab stays out");
  assert.equal(a.unbind(31), true);
  assert.equal(a.unbind(31), false);
  assert.deepEqual(a.refresh([chromeTab(12), chromeTab(31, { windowId: 1 })]).map((t) => t.id), [12]);
});

test("userTabInfo marks the tab the user looks at", () => {
  assert.equal(userTabInfo(chromeTab(31, { focused: true })).focused, true);
  assert.equal("focused" in userTabInfo(chromeTab(32)), false);
});
