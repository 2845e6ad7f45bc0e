// The bridge port travels with the pairing: a code that ends in "@<port>" (or the popup's port
// field) is paired on that port, the port is stored with the secret, and every later dial —
// reconnects, alarms, a restarted worker — goes there. A code without a port means the default.

import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import test from "node:test";

import { DEFAULT_PORT, parsePairing } from "../protocol.js";
import { NONCE, SECRET, eventually, flush, handshake, rig, samples } from "./fakes.mjs";

const all = samples();
const NEW_SECRET = Buffer.alloc(32, 7).toString("base64");
const hmac = (secretB64, nonceB64) =>
  createHmac("sha256", Buffer.from(secretB64, "base64")).update(Buffer.from(nonceB64, "base64")).digest("base64");
const url = (port) => `ws://127.0.0.1:${port}/bridge`;

test("parsePairing: the code's @port, else the port field, else the default", () => {
  for (const [typed, field, want] of [
    ["K7Q4-M2XD", undefined, { code: "K7Q4-M2XD", port: DEFAULT_PORT }],
    ["  k7q4-m2xd ", "", { code: "k7q4-m2xd", port: DEFAULT_PORT }],
    ["K7Q4-M2XD@47318", undefined, { code: "K7Q4-M2XD", port: 47318 }],
    [" K7Q4-M2XD @ 47318 ", "  ", { code: "K7Q4-M2XD", port: 47318 }],
    ["K7Q4-M2XD@47218", undefined, { code: "K7Q4-M2XD", port: 47218 }],
    ["K7Q4-M2XD", "47400", { code: "K7Q4-M2XD", port: 47400 }],
    ["K7Q4-M2XD", 47400, { code: "K7Q4-M2XD", port: 47400 }],
    ["K7Q4-M2XD@47400", "47400", { code: "K7Q4-M2XD", port: 47400 }],
    ["K7Q4-M2XD@65535", null, { code: "K7Q4-M2XD", port: 65535 }],
  ]) {
    assert.deepEqual(parsePairing(typed, field), want, `${JSON.stringify(typed)} ${JSON.stringify(field)}`);
  }
});

test("parsePairing: what is wrong is said, and nothing is guessed", () => {
  for (const [typed, field, want] of [
    ["", undefined, /type the code that `webpilot pair` prints/],
    ["   ", "47318", /type the code/],
    ["@47318", undefined, /type the code/],
    [undefined, undefined, /type the code/],
    ["K7Q4-M2XD@", undefined, /the port after "@" must be a number from 1 to 65535, not ""/],
    ["K7Q4-M2XD@0", undefined, /the port after "@" must be a number from 1 to 65535, not "0"/],
    ["K7Q4-M2XD@65536", undefined, /not "65536"/],
    ["K7Q4-M2XD@47x18", undefined, /not "47x18"/],
    ["K7Q4-M2XD", "port", /the port must be a number from 1 to 65535, not "port"/],
    ["K7Q4-M2XD", "-1", /the port must be a number/],
    ["K7Q4-M2XD@47318", "47400", /the code says port 47318 but the port field says 47400: clear the port field/],
  ]) {
    const got = parsePairing(typed, field);
    assert.equal(got.code, undefined, JSON.stringify(typed));
    assert.match(got.error, want, `${JSON.stringify(typed)} ${JSON.stringify(field)}`);
  }
});

// Plays the server of a pairing on the newest socket: challenge, the pair message, paired.
async function pairOn(r, index) {
  const s = await eventually(() => r.net.sockets[index], "the pairing's dial");
  s.accept();
  s.push(all.challenge.json);
  const msg = await eventually(() => s.sent[0], "the pair message");
  s.push({ type: "paired", secret: NEW_SECRET });
  return { sock: s, msg };
}

test("a code with @port pairs on that port, stores it with the secret, and every later dial goes there", async () => {
  const r = rig({ stored: { profile_id: "p1" } });
  await r.bridge.start();
  assert.equal(r.net.sockets.length, 0, "unpaired: nothing dialled");
  const outcome = r.bridge.pair(" k7q4-m2xd@47318 ");
  await eventually(() => r.net.sockets[0], "dial");
  assert.equal(r.net.sockets[0].url, url(47318), "the pairing dials the code's port");
  assert.equal(r.bridge.status().port, 47318, "the popup shows the port being dialled");
  assert.equal(r.bridge.status().url, url(47318));
  const { msg } = await pairOn(r, 0);
  assert.equal(msg.type, "pair");
  assert.equal(msg.code, "k7q4-m2xd", "the port is not part of the code on the wire");
  assert.deepEqual(await outcome, { ok: true, message: "paired" });
  await eventually(() => r.storage.data.secret === NEW_SECRET, "the secret stored");
  assert.equal(r.storage.data.port, 47318, "the port is stored with the secret");

  // Reconnects at once, to the paired port, with hello.
  const { sock, hello } = await handshake(r);
  assert.equal(sock.url, url(47318));
  assert.equal(hello.proof, hmac(NEW_SECRET, NONCE));
  let st = r.bridge.status();
  assert.equal(st.port, 47318);
  assert.equal(st.defaultPort, DEFAULT_PORT);
  assert.match(st.message, /on port 47318/);

  // The connection drops: the backoff loop dials the same port.
  sock.hangUp(1006);
  await flush();
  assert.equal(r.bridge.status().state, "retrying");
  await r.clock.advance(500);
  assert.equal(r.net.last.url, url(47318), "the retry dials the paired port");
  r.net.last.refuse();
  await r.clock.advance(1000);
  assert.equal(r.net.last.url, url(47318));
  r.net.last.refuse();
  // The alarm too.
  await r.bridge.wake("alarm");
  assert.equal(r.net.last.url, url(47318), "the alarm dials the paired port");
  await handshake(r);
  r.bridge.stop();

  // A restarted worker (a new Bridge on the same storage), and a Chrome restart, dial it too.
  const r2 = rig({ stored: r.storage.data });
  await r2.bridge.start();
  assert.equal(r2.net.last.url, url(47318), "a restarted worker dials the paired port");
  st = r2.bridge.status();
  assert.equal(st.port, 47318);
  const { hello: again } = await handshake(r2);
  assert.equal(again.proof, hmac(NEW_SECRET, NONCE));
  r2.bridge.stop();
});

test("a code without a port pairs on the default port, as before, whatever port was stored", async () => {
  const r = rig({ stored: { port: 47318, secret: SECRET, profile_id: "p1" } });
  await r.bridge.start();
  await handshake(r);
  assert.equal(r.net.last.url, url(47318));
  const outcome = r.bridge.pair("K7Q4-M2XD");
  await eventually(() => r.net.sockets[1], "the pairing's dial");
  assert.equal(r.net.sockets[1].url, url(DEFAULT_PORT));
  const { msg } = await pairOn(r, 1);
  assert.equal(msg.code, "K7Q4-M2XD");
  assert.deepEqual(await outcome, { ok: true, message: "paired" });
  await eventually(() => r.storage.data.secret === NEW_SECRET);
  assert.equal(r.storage.data.port, DEFAULT_PORT);
  const { sock } = await handshake(r);
  assert.equal(sock.url, url(DEFAULT_PORT));
  assert.equal(r.bridge.status().port, DEFAULT_PORT);
  r.bridge.stop();
});

test("the popup's port field gives the port of a code without one (text or number)", async () => {
  for (const field of ["47400", 47400]) {
    const r = rig({ stored: { profile_id: "p1" } });
    await r.bridge.start();
    const outcome = r.bridge.pair("K7Q4-M2XD", field);
    await eventually(() => r.net.sockets[0]);
    assert.equal(r.net.sockets[0].url, url(47400));
    await pairOn(r, 0);
    assert.equal((await outcome).ok, true);
    await eventually(() => r.storage.data.port === 47400, "the field's port stored");
    const { sock } = await handshake(r);
    assert.equal(sock.url, url(47400));
    r.bridge.stop();
  }
});

test("a code or port that cannot be read is refused before anything is dialled", async () => {
  const r = rig();
  await r.bridge.start();
  const { sock } = await handshake(r);
  for (const [code, port, want] of [
    ["K7Q4-M2XD@70000", undefined, /the port after "@"/],
    ["K7Q4-M2XD", "abc", /the port must be a number/],
    ["K7Q4-M2XD@47318", "47400", /the code says port 47318/],
    ["@47318", undefined, /type the code/],
  ]) {
    const got = await r.bridge.pair(code, port);
    assert.equal(got.ok, false);
    assert.match(got.message, want);
  }
  assert.equal(r.net.sockets.length, 1, "nothing dialled");
  assert.ok(!sock.closed, "the connection there was stays");
  assert.equal(r.bridge.status().state, "connected");
  assert.equal(r.storage.data.port, 5555);
  r.bridge.stop();
});

test("a failed pairing on another port keeps the pairing there was: its secret and its port", async () => {
  const r = rig(); // paired on port 5555
  await r.bridge.start();
  await handshake(r);
  const outcome = r.bridge.pair("NOPE-NOPE@6000");
  const s = await eventually(() => r.net.sockets[1]);
  assert.equal(s.url, url(6000));
  s.accept();
  s.push(all.challenge.json);
  await eventually(() => s.sent[0]);
  s.push(all["refused-pairing"].json);
  assert.equal((await outcome).ok, false);
  await eventually(() => r.bridge.status().state === "retrying");
  assert.equal(r.bridge.status().port, 5555, "the popup shows the stored port again");
  await r.clock.advance(500);
  const { sock, hello } = await handshake(r);
  assert.equal(sock.url, url(5555));
  assert.equal(hello.proof, hmac(SECRET, NONCE));
  assert.equal(r.storage.data.port, 5555);
  assert.equal(r.storage.data.secret, SECRET);
  r.bridge.stop();
});

test("webpilot not listening on the code's port: the popup hears which URL it tried", async () => {
  const r = rig({ stored: {} });
  await r.bridge.start();
  const outcome = r.bridge.pair("ABCD-EFGH@47318");
  (await eventually(() => r.net.sockets[0])).refuse();
  const o = await outcome;
  assert.equal(o.ok, false);
  assert.match(o.message, /not reachable at ws:\/\/127\.0\.0\.1:47318\/bridge/);
  assert.equal(r.storage.data.port, undefined, "nothing stored");
  assert.equal(r.bridge.status().port, DEFAULT_PORT);
});
