// What the popup relies on: the sessions list (sessionsOf), the optional session of tabs.bind,
// the user's Disconnect (kept across wakes and worker restarts until Connect) and Revoke.

import assert from "node:assert/strict";
import test from "node:test";

import { DISCONNECTED_KEY, PROTOCOL_VERSION, groupSession, sessionsOf } from "../protocol.js";
import { NONCE, ask, chromeTab, handshake, rig } from "./fakes.mjs";

test("groupSession reads the session from webpilot's group titles only", () => {
  for (const [title, want] of [
    ["webpilot · research", "research"],
    ["webpilot · a · b", "a · b"],
    ["webpilot", ""],
    ["Work", null],
    ["webpilotx", null],
    [undefined, null],
  ]) {
    assert.equal(groupSession(title), want, JSON.stringify(title));
  }
});

test("sessionsOf: agent tabs by their group, popups by their opener, bound tabs by who bound them", () => {
  const groups = [
    { id: 1, title: "webpilot · research" },
    { id: 2, title: "webpilot · shop" },
    { id: 3, title: "Work" },
  ];
  const tabs = [
    chromeTab(10, { groupId: 1, title: "Docs", url: "https://docs.example/a" }),
    chromeTab(11, { groupId: 2, title: "Cart", url: "https://shop.example/cart" }),
    chromeTab(12, { groupId: -1, openerTabId: 10, title: "Popup", url: "", pendingUrl: "https://login.example/" }),
    chromeTab(13, { groupId: -1, openerTabId: 12, title: "Popup's popup" }),
    chromeTab(20, { windowId: 1, groupId: 3, title: "Mail", url: "https://mail.example/" }),
    chromeTab(21, { windowId: 1, groupId: -1, title: "News" }),
    chromeTab(14, { groupId: -1, title: "Lost" }),
  ];
  const got = sessionsOf({ tabs, groups, bound: new Set([20, 21]), boundSessions: { 20: "research" } });
  assert.deepEqual(got, [
    { session: "", tabs: [{ tabId: 21, title: "News", url: "https://example.com/21", bound: true }, { tabId: 14, title: "Lost", url: "https://example.com/14", bound: false }] },
    {
      session: "research",
      tabs: [
        { tabId: 10, title: "Docs", url: "https://docs.example/a", bound: false },
        { tabId: 12, title: "Popup", url: "https://login.example/", bound: false },
        { tabId: 13, title: "Popup's popup", url: "https://example.com/13", bound: false },
        { tabId: 20, title: "Mail", url: "https://mail.example/", bound: true },
      ],
    },
    { session: "shop", tabs: [{ tabId: 11, title: "Cart", url: "https://shop.example/cart", bound: false }] },
  ]);
  assert.deepEqual(sessionsOf({ tabs: [] }), []);
});

test("tabs.bind passes the optional session to the api; a bad one is bad_request", async () => {
  const r = rig();
  await r.bridge.start();
  const { sock } = await handshake(r);
  let reply = await ask(sock, { id: 1, op: "tabs.bind", params: { tabId: 31, session: "research" } });
  assert.ok("result" in reply, JSON.stringify(reply));
  reply = await ask(sock, { id: 2, op: "tabs.bind", params: { tabId: 32 } });
  assert.ok("result" in reply, JSON.stringify(reply));
  reply = await ask(sock, { id: 3, op: "tabs.bind", params: { tabId: 33, session: 7 } });
  assert.equal(reply.error?.code, "bad_request");
  assert.deepEqual(
    r.calls.filter(([op]) => op === "tabs.bind"),
    [
      ["tabs.bind", { tabId: 31, session: "research" }],
      ["tabs.bind", { tabId: 32 }],
    ],
  );
  r.bridge.stop();
});

test("Disconnect closes the connection and stays disconnected through wakes and a worker restart; Connect dials", async () => {
  const r = rig();
  await r.bridge.start();
  const { sock } = await handshake(r);
  await r.bridge.disconnect();
  assert.ok(sock.closed, "the connection is closed");
  assert.equal(r.storage.data[DISCONNECTED_KEY], true);
  let st = r.bridge.status();
  assert.equal(st.state, "disconnected");
  assert.equal(st.disconnected, true);
  assert.equal(st.paired, true, "Disconnect keeps the pairing");

  await r.bridge.wake("alarm");
  await r.bridge.wake("idle");
  await r.bridge.reconfigure();
  await r.clock.advance(120_000);
  assert.equal(r.net.sockets.length, 1, "nothing dialled after Disconnect");
  assert.equal(r.bridge.status().state, "disconnected");

  // The worker restarts: a new Bridge on the same storage.
  const r2 = rig({ stored: r.storage.data });
  await r2.bridge.start();
  await r2.bridge.wake("startup");
  await r2.clock.advance(60_000);
  assert.equal(r2.net.sockets.length, 0, "a restarted worker does not dial either");
  assert.equal(r2.bridge.status().state, "disconnected");

  await r2.bridge.resume();
  assert.equal(r2.storage.data[DISCONNECTED_KEY], undefined);
  await handshake(r2);
  st = r2.bridge.status();
  assert.equal(st.state, "connected");
  assert.equal(st.disconnected, false);
  r.bridge.stop();
  r2.bridge.stop();
});

test("Disconnect while retrying cancels the retry", async () => {
  const r = rig();
  await r.bridge.start();
  r.net.last.refuse();
  assert.equal(r.bridge.status().state, "retrying");
  await r.bridge.disconnect();
  await r.clock.advance(60_000);
  assert.equal(r.net.sockets.length, 1);
  assert.equal(r.bridge.status().state, "disconnected");
});

test("Disconnect detaches the debugger from the tabs it had attached", async () => {
  const r = rig();
  await r.bridge.start();
  const { sock } = await handshake(r);
  await ask(sock, { id: 1, op: "debugger.attach", params: { tabId: 12 } });
  await r.bridge.disconnect();
  await r.clock.advance(0);
  assert.ok(r.calls.some(([op, p]) => op === "debugger.detach" && p.tabId === 12));
  assert.deepEqual(r.attachedChanges.at(-1), []);
});

test("pairing after Disconnect connects (the pairing asks for it)", async () => {
  const r = rig();
  await r.bridge.start();
  await handshake(r);
  await r.bridge.disconnect();
  const outcome = r.bridge.pair("ABCD-EFGH");
  const sock = await (async () => {
    for (;;) {
      if (r.net.sockets.length === 2) return r.net.last;
      await new Promise((res) => setImmediate(res));
    }
  })();
  sock.accept();
  sock.push({ type: "challenge", protocol: PROTOCOL_VERSION, nonce: NONCE, server: "webpilot/0.1.0" });
  sock.push({ type: "paired", secret: Buffer.alloc(32, 9).toString("base64") });
  assert.deepEqual(await outcome, { ok: true, message: "paired" });
  assert.equal(r.storage.data[DISCONNECTED_KEY], undefined);
  await handshake(r);
  assert.equal(r.bridge.status().state, "connected");
  r.bridge.stop();
});

test("Revoke pairing forgets the secret: Not paired, and no wake dials", async () => {
  const r = rig();
  await r.bridge.start();
  const { sock } = await handshake(r);
  await r.bridge.disconnect();
  await r.bridge.unpair();
  assert.ok(sock.closed);
  assert.equal(r.storage.data.secret, undefined);
  const st = r.bridge.status();
  assert.equal(st.state, "unpaired", "revoked wins over disconnected: the popup says Not paired");
  assert.equal(st.paired, false);
  await r.bridge.wake("alarm");
  await r.bridge.resume(); // Connect without a pairing: still nothing to dial
  await r.clock.advance(60_000);
  assert.equal(r.net.sockets.length, 1);
  assert.equal(r.bridge.status().state, "unpaired");
});
