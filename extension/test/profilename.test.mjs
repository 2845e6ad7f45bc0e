// The profile's name: its default from the browser's brand and the profile id, the user's own
// name from storage or the popup's rename, and the optional hello field that carries it.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  browserBrand,
  build,
  checkProfileName,
  defaultProfileName,
  hello,
  loadProfileName,
  parseMessage,
  ProtocolError,
  PROFILE_NAME_MAX,
} from "../protocol.js";
import { FakeStorage, handshake, rig, SECRET } from "./fakes.mjs";

const brands = (...names) => names.map((brand) => ({ brand, version: "156" }));

test("the default name is the browser's brand and the start of the profile id", () => {
  const cases = [
    [brands("Not)A;Brand", "Google Chrome", "Chromium"), "chrome"],
    [brands("Microsoft Edge", "Chromium", "Not)A;Brand"), "edge"],
    [brands("Brave", "Chromium"), "brave"],
    [brands("Chromium", "Not)A;Brand"), "chromium"],
    [[], "chromium"],
    [undefined, "chromium"],
  ];
  for (const [b, want] of cases) assert.equal(browserBrand(b), want, JSON.stringify(b));
  assert.equal(defaultProfileName(brands("Google Chrome"), "1a2b3c4d5e6f"), "chrome-1a2b");
  assert.equal(defaultProfileName(brands("Microsoft Edge"), "9f00aa"), "edge-9f00");
});

test("checkProfileName takes letters, digits, -_. and spaces, trimmed, at most 64", () => {
  assert.deepEqual(checkProfileName("  Work laptop "), { name: "Work laptop" });
  assert.deepEqual(checkProfileName("chrome-1a2b_x.y"), { name: "chrome-1a2b_x.y" });
  assert.deepEqual(checkProfileName("Büro"), { name: "Büro" });
  assert.deepEqual(checkProfileName(""), { name: "" });
  assert.deepEqual(checkProfileName("n".repeat(PROFILE_NAME_MAX)), { name: "n".repeat(PROFILE_NAME_MAX) });
  for (const bad of ["n".repeat(PROFILE_NAME_MAX + 1), "a/b", "x<y>", "tab\there", "quote\"", 42, null]) {
    assert.ok(checkProfileName(bad).error, `${JSON.stringify(bad)} was taken`);
  }
});

test("a stored name wins over the default; an invalid one is ignored and reported", async () => {
  const b = brands("Google Chrome");
  assert.deepEqual(await loadProfileName(new FakeStorage({}), b, "1a2b3c"), { profileName: "chrome-1a2b", problem: null });
  assert.deepEqual(await loadProfileName(new FakeStorage({ profile_name: " work " }), b, "1a2b3c"), { profileName: "work", problem: null });
  const bad = await loadProfileName(new FakeStorage({ profile_name: "a/b" }), b, "1a2b3c");
  assert.equal(bad.profileName, "chrome-1a2b");
  assert.match(bad.problem, /stored profile name "a\/b" is invalid/);
});

test("hello carries profile_name only when there is one; it parses and round-trips", () => {
  const base = { profileId: "p", userAgent: "u", proof: "x" };
  assert.ok(!("profile_name" in hello(base)), "an unnamed hello has no profile_name");
  const named = hello({ ...base, profileName: "work" });
  assert.equal(named.profile_name, "work");
  const parsed = parseMessage(JSON.stringify(named));
  assert.equal(parsed.profileName, "work");
  assert.deepEqual(build(parsed), named);
  assert.deepEqual(build(parseMessage(JSON.stringify(hello(base)))), hello(base));
  assert.throws(() => parseMessage(JSON.stringify({ ...hello(base), profile_name: 5 })), ProtocolError);
});

test("the extension says its name in hello and in its status", async () => {
  const r = rig({ stored: { port: 5555, secret: SECRET, profile_id: "3f9c1e7a" } });
  r.bridge.d.brands = brands("Google Chrome", "Chromium");
  await r.bridge.start();
  const { hello: h } = await handshake(r);
  assert.equal(h.profile_name, "chrome-3f9c");
  assert.equal(r.bridge.status().profileName, "chrome-3f9c");
  r.bridge.stop();
});

test("rename stores the name and reconnects so that webpilot learns it", async () => {
  const r = rig();
  await r.bridge.start();
  const first = await handshake(r);
  assert.equal(first.hello.profile_name, "chromium-p1");

  const refused = await r.bridge.rename("a/b");
  assert.equal(refused.ok, false);
  assert.match(refused.message, /only letters, digits/);
  assert.equal(r.net.sockets.length, 1, "a refused name reconnected");

  const renamed = r.bridge.rename("  Work laptop ");
  const second = await handshake(r);
  const out = await renamed;
  assert.equal(out.ok, true, out.message);
  assert.equal(r.storage.data.profile_name, "Work laptop");
  assert.ok(first.sock.readyState !== 1, "the connection with the old name stayed open");
  assert.equal(second.hello.profile_name, "Work laptop");
  assert.equal(r.bridge.status().profileName, "Work laptop");

  // An empty name goes back to the default.
  const reset = r.bridge.rename("");
  const third = await handshake(r);
  assert.equal((await reset).ok, true);
  assert.ok(!("profile_name" in r.storage.data));
  assert.equal(third.hello.profile_name, "chromium-p1");
  r.bridge.stop();
});
