// The person's approvals in the extension: questions, answers kept as rules, revokes.

import assert from "node:assert/strict";
import { test } from "node:test";

import { APPROVALS_KEY, Approvals, checkRequest, liveClient, ruleKey } from "../protocol.js";
import { FakeStorage } from "./fakes.mjs";

function approvals() {
  let n = 0;
  const local = new FakeStorage();
  const session = new FakeStorage();
  return { a: new Approvals({ local, session, newId: () => `a-${++n}`, now: () => 1000 + n }), local, session };
}

const q = { client: "Claude Code", session: "c-1", site: "example.com", url: "https://shop.example.com/", bind: false, title: "" };

test("a question is shown once; the same one asked again gets the same id", async () => {
  const { a } = approvals();
  const first = await a.ask(q);
  assert.deepEqual(first, { ask: "a-1", created: true });
  assert.deepEqual(await a.ask(q), { ask: "a-1", created: false });
  // Another session, another client or a bind is another question.
  assert.equal((await a.ask({ ...q, session: "c-2" })).ask, "a-2");
  assert.equal((await a.ask({ ...q, client: "Codex" })).ask, "a-3");
  assert.equal((await a.ask({ ...q, bind: true, tabId: 7 })).ask, "a-4");
  assert.equal(Object.keys(await a.asks()).length, 4);
});

test("always and deny are kept as rules that answer at once; once is not", async () => {
  const { a, local } = approvals();
  const once = await a.ask(q);
  assert.equal((await a.answer(once.ask, "once")).ok, true);
  assert.deepEqual(await a.rules(), {});
  const again = await a.ask(q);
  assert.ok(again.ask && again.ask !== once.ask, "once is not remembered: asked again");
  await a.answer(again.ask, "always");
  assert.deepEqual(await a.ask(q), { answer: "always" });
  assert.equal(local.data[APPROVALS_KEY][ruleKey("Claude Code", "example.com")].answer, "always");
  const other = await a.ask({ ...q, client: "Codex" });
  await a.answer(other.ask, "deny");
  assert.deepEqual(await a.ask({ ...q, client: "Codex", session: "c-9" }), { answer: "deny" });
});

test("a bind always asks, and its denial is not a rule for the site", async () => {
  const { a } = approvals();
  const site = await a.ask(q);
  await a.answer(site.ask, "always");
  const bind = await a.ask({ ...q, bind: true, tabId: 7, title: "Inbox" });
  assert.ok(bind.ask, "a bind is asked even when the site has a rule");
  await a.answer(bind.ask, "deny");
  assert.deepEqual(await a.ask(q), { answer: "always" }, "the bind's denial left the site's rule");
});

test("an answer to a question no longer open, or not an answer, is refused", async () => {
  const { a } = approvals();
  const x = await a.ask(q);
  assert.equal((await a.answer(x.ask, "maybe")).ok, false);
  assert.equal((await a.answer(x.ask, "once")).ok, true);
  assert.equal((await a.answer(x.ask, "once")).ok, false);
});

test("a revoke forgets the rule: the next use asks again", async () => {
  const { a } = approvals();
  const x = await a.ask(q);
  await a.answer(x.ask, "deny");
  assert.equal((await a.revoke("Claude Code", "example.com")).ok, true);
  assert.equal((await a.revoke("Claude Code", "example.com")).ok, false);
  assert.ok((await a.ask(q)).ask);
});

test("approval.ask and live.show check their params", () => {
  assert.throws(() => checkRequest("approval.ask", { ...q, site: "" }), /site/);
  assert.throws(() => checkRequest("approval.ask", { ...q, url: "x".repeat(301) }), /url/);
  assert.throws(() => checkRequest("approval.ask", { ...q, bind: true }), /tabId/);
  assert.deepEqual(checkRequest("approval.ask", { ...q, tabId: 3 }), { ...q, tabId: 3 });
  assert.throws(() => checkRequest("live.show", { clients: [{}] }), /id/);
  assert.throws(() => checkRequest("live.show", {}), /clients/);
  const c = liveClient({ id: "c-1", name: "", state: "weird", calls: "x", sessions: [{ name: "s", group: 3 }, "junk"] });
  assert.deepEqual(c, { id: "c-1", name: "(unnamed client)", state: "running", calls: 0, last: "", lastAt: 0, sessions: [{ name: "s", group: "", url: "" }] });
});

test("a withdrawn question goes; the same one asked later is new", async () => {
  const { a } = approvals();
  const x = await a.ask(q);
  assert.equal(await a.withdraw(x.ask), true);
  assert.equal(await a.withdraw(x.ask), false);
  assert.deepEqual(await a.asks(), {});
  assert.equal((await a.answer(x.ask, "once")).ok, false);
  assert.notEqual((await a.ask(q)).ask, x.ask);
});
