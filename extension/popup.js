// The popup: shows the connection state and webpilot's sessions with their tabs; pairs,
// disconnects, connects and revokes the pairing through the service worker, which owns the
// connection (see background.js).

import { DEFAULT_PORT, parsePairing } from "./protocol.js";

const $ = (id) => document.getElementById(id);

function ask(msg) {
  return chrome.runtime.sendMessage(msg);
}

function show(s) {
  if (!s || typeof s !== "object") return;
  const state = $("state");
  if (s.state === "connected") {
    state.textContent = "Connected";
    state.className = "connected";
  } else if (s.state === "unpaired" || !s.paired) {
    state.textContent = s.pairing ? "Pairing…" : "Not paired";
    state.className = "unpaired";
  } else if (s.state === "disconnected") {
    state.textContent = "Disconnected by you";
    state.className = "disconnected";
  } else {
    state.textContent = s.state === "connecting" ? "Connecting…" : "Not connected";
    state.className = "notconnected";
  }
  let detail = s.message ?? "";
  if (s.state === "retrying" && s.retryAt) {
    const secs = Math.max(0, Math.round((s.retryAt - Date.now()) / 1000));
    detail += ` — retrying in ${secs} s`;
  }
  $("detail").textContent = detail;
  // The port the extension dials: the one stored with its pairing (`webpilot pair` on another
  // bridge port puts it in the code), else the default.
  const def = s.defaultPort ?? DEFAULT_PORT;
  $("port").textContent = s.port === def ? String(s.port) : `${s.port} (not the default ${def})`;
  if (s.url) $("port").title = `the extension dials ${s.url}`;
  $("version").textContent = `${s.extensionVersion} (protocol ${s.protocol})`;
  showConnButtons(s);
}

// The hand-offs waiting for the user: each with the agent's message, the tab, and Done; a
// recording reads "Recording — <message>" with Stop.
function showHandoffs(list) {
  const box = $("handofflist");
  const waiting = Array.isArray(list) ? list : [];
  $("handoffs").className = waiting.length ? "waiting" : "";
  const key = JSON.stringify(waiting.map((h) => [h.tabId, h.kind, h.message, h.title, h.url]));
  if (box.dataset.key === key) return; // unchanged: keep the buttons the user may be pressing
  box.dataset.key = key;
  box.replaceChildren(
    ...waiting.map((h) => {
      const row = document.createElement("div");
      const recording = h.kind === "record";
      row.className = recording ? "handoff recording" : "handoff";
      const msg = document.createElement("div");
      msg.className = "msg";
      msg.textContent = recording ? `Recording — ${h.message}` : h.message;
      const where = document.createElement("div");
      where.className = "where";
      where.textContent = `${h.title || "(untitled)"} — ${h.url}${h.session ? ` · session ${h.session}` : ""}`;
      const done = document.createElement("button");
      done.type = "button";
      done.className = "done";
      done.dataset.tab = String(h.tabId);
      done.textContent = recording ? "Stop" : "Done";
      done.addEventListener("click", async () => {
        done.disabled = true;
        const r = await ask({ type: "handoff.done", tabId: h.tabId });
        if (!r?.ok) $("result").textContent = r?.message ?? "could not tell webpilot";
        refresh();
      });
      row.append(msg, where, done);
      return row;
    }),
  );
}

async function refresh() {
  try {
    showHandoffs(await ask({ type: "handoffs" }));
    show(await ask({ type: "status" }));
  } catch (e) {
    $("detail").textContent = `service worker not answering: ${e.message ?? e}`;
  }
}

function sentence(text) {
  return text.charAt(0).toUpperCase() + text.slice(1) + ".";
}

// Pair: the code as `webpilot pair` printed it — "K7Q4-M2XD", or "K7Q4-M2XD@47318" when webpilot
// uses another bridge port — or the code and the port in the Advanced field. The extension pairs
// on that port and dials it from then on.
$("pairform").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const out = $("result");
  const typed = parsePairing($("code").value, $("pairport").value);
  if (typed.error) {
    out.textContent = sentence(typed.error);
    out.className = "bad";
    return;
  }
  $("pair").disabled = true;
  out.textContent = typed.port === DEFAULT_PORT ? "Pairing…" : `Pairing on port ${typed.port}…`;
  out.className = "";
  try {
    const r = await ask({ type: "pair", code: typed.code, port: typed.port });
    if (r.ok) out.textContent = typed.port === DEFAULT_PORT ? "Paired." : `Paired on port ${typed.port}: the extension dials it from now on.`;
    else out.textContent = `Pairing failed: ${r.message}`;
    out.className = r.ok ? "good" : "bad";
    if (r.ok) {
      $("code").value = "";
      $("pairport").value = "";
    }
    show(r.status);
  } catch (e) {
    out.textContent = `Pairing failed: ${e.message ?? e}`;
    out.className = "bad";
  } finally {
    $("pair").disabled = false;
  }
});

// --- Disconnect / Connect / Revoke pairing ---------------------------------------------------

let revokeArmed = null; // the timer of the Revoke button's confirm step

function showConnButtons(s) {
  const off = s.disconnected || s.state === "disconnected";
  $("disconnect").hidden = off;
  $("connect").hidden = !off;
  $("disconnect").disabled = !s.paired;
  $("connect").disabled = !s.paired;
  $("unpair").disabled = !s.paired;
  if (!s.paired) disarmRevoke();
}

function disarmRevoke() {
  if (revokeArmed !== null) clearTimeout(revokeArmed);
  revokeArmed = null;
  $("unpair").textContent = "Revoke pairing";
}

async function connButton(type, done) {
  try {
    const r = await ask({ type });
    $("result").textContent = r.ok ? done : r.message;
    $("result").className = r.ok ? "" : "bad";
    show(r.status);
  } catch (e) {
    $("result").textContent = `${type} failed: ${e.message ?? e}`;
    $("result").className = "bad";
  }
}

$("disconnect").addEventListener("click", () => connButton("disconnect", ""));
$("connect").addEventListener("click", () => connButton("connect", ""));

// Revoke asks once more: the first click arms it for a few seconds, the second revokes.
$("unpair").addEventListener("click", async () => {
  if (revokeArmed === null) {
    $("unpair").textContent = "Click again to revoke";
    revokeArmed = setTimeout(disarmRevoke, 5000);
    return;
  }
  disarmRevoke();
  await connButton("unpair", "Pairing revoked: the secret is forgotten. Run `webpilot pair` to pair again.");
});

// --- profile name ---------------------------------------------------------------------------
// What webpilot calls this browser profile when several are connected (--browser-profile NAME).

let profileNameShown = false; // filled once, so the refresh never overwrites what the user types

function showProfileName(s) {
  if (!s || typeof s !== "object" || profileNameShown || !s.profileName) return;
  $("profilename").value = s.profileName;
  profileNameShown = true;
}

$("renameform").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const out = $("renameresult");
  try {
    const r = await ask({ type: "rename", name: $("profilename").value });
    out.textContent = r.message;
    out.className = r.ok ? "" : "bad";
    if (r.ok && r.status) $("profilename").value = r.status.profileName;
  } catch (e) {
    out.textContent = `Rename failed: ${e.message ?? e}`;
    out.className = "bad";
  }
});

ask({ type: "status" }).then(showProfileName, () => {});

// --- Sessions and their tabs -----------------------------------------------------------------

let shownSessions = ""; // what the list shows (JSON), so an unchanged list is not redrawn

function host(url) {
  try {
    const u = new URL(url);
    return u.host || u.protocol.replace(/:$/, "");
  } catch {
    return url;
  }
}

function el(tag, props = {}, ...children) {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}

function showSessions(list) {
  if (!Array.isArray(list)) return;
  const json = JSON.stringify(list);
  if (json === shownSessions) return;
  shownSessions = json;
  const box = $("sessionlist");
  if (list.length === 0) {
    box.replaceChildren(el("small", { textContent: "No webpilot tabs." }));
    return;
  }
  box.replaceChildren(
    ...list.map((s) =>
      el(
        "div",
        { className: "session" },
        el("h3", { textContent: s.session || "(no session name)" }),
        el(
          "ul",
          {},
          ...s.tabs.map((t) => {
            const release = el("button", { type: "button", textContent: "Release", title: "Give this tab back to you: webpilot stops using it" });
            release.dataset.tabId = String(t.tabId);
            release.addEventListener("click", () => releaseTab(t.tabId, release));
            const info = el(
              "span",
              { className: "tab", title: t.url },
              el("span", { className: "title", textContent: t.title || t.url || "(untitled)" }),
              el("span", { className: "host", textContent: host(t.url) }),
            );
            if (t.bound) info.append(el("span", { className: "mark", textContent: "your tab (bound)" }));
            const li = el("li", {}, info, release);
            li.dataset.tabId = String(t.tabId);
            return li;
          }),
        ),
      ),
    ),
  );
}

async function releaseTab(tabId, button) {
  button.disabled = true;
  try {
    const r = await ask({ type: "release", tabId });
    if (!r.ok) {
      $("result").textContent = `Release failed: ${r.message}`;
      $("result").className = "bad";
    }
  } finally {
    button.disabled = false;
    refreshSessions();
  }
}

async function refreshSessions() {
  try {
    showSessions(await ask({ type: "sessions" }));
  } catch {
    // the status line already says when the service worker does not answer
  }
}

// --- webpilot asks you: may this agent use this site (or your tab)? --------------------------

function question(q) {
  const who = q.client || "An agent";
  return q.bind ? `${who} wants to use your tab “${q.title || q.url}” (${q.site})` : `${who} wants to use ${q.site}`;
}

function answerButton(q, answer, label, title) {
  const b = el("button", { type: "button", textContent: label, title, className: `answer-${answer}` });
  b.dataset.ask = q.ask;
  b.addEventListener("click", async () => {
    b.disabled = true;
    const r = await ask({ type: "approval.answer", ask: q.ask, answer });
    if (!r?.ok) $("result").textContent = r?.message ?? "could not tell webpilot";
    refreshPerson();
  });
  return b;
}

function showAsks(list) {
  const box = $("asklist");
  const asks = Array.isArray(list) ? list : [];
  $("asks").className = asks.length ? "waiting" : "";
  const key = JSON.stringify(asks.map((q) => q.ask));
  if (box.dataset.key === key) return; // unchanged: keep the buttons the user may be pressing
  box.dataset.key = key;
  box.replaceChildren(
    ...asks.map((q) => {
      const row = el(
        "div",
        { className: "ask" },
        el("div", { className: "q", textContent: question(q) }),
        el("div", { className: "where", textContent: `${q.url}${q.session ? ` · session ${q.session}` : ""}` }),
        el(
          "div",
          { className: "buttons" },
          answerButton(q, "once", "Allow once", "Allow it for this agent session only"),
          answerButton(q, "always", q.bind ? "Allow (and the site always)" : "Always allow", `Allow ${q.client || "this agent"} on ${q.site} from now on (revoke it below)`),
          answerButton(q, "deny", "Deny", q.bind ? "Keep your tab to yourself" : `Deny ${q.site} to ${q.client || "this agent"} (revoke it below)`),
        ),
      );
      row.dataset.ask = q.ask;
      return row;
    }),
  );
}

function showRules(list) {
  const box = $("rulelist");
  const rules = (Array.isArray(list) ? list : []).slice().sort((a, b) => (a.site + a.client).localeCompare(b.site + b.client));
  const key = JSON.stringify(rules);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  if (!rules.length) {
    box.replaceChildren(el("small", { textContent: "None yet: webpilot asks the first time an agent uses a site." }));
    return;
  }
  box.replaceChildren(
    ...rules.map((r) => {
      const revoke = el("button", { type: "button", textContent: "Revoke", className: "revoke", title: "Forget this answer: webpilot asks again next time" });
      revoke.dataset.client = r.client;
      revoke.dataset.site = r.site;
      revoke.addEventListener("click", async () => {
        revoke.disabled = true;
        const out = await ask({ type: "approval.revoke", client: r.client, site: r.site });
        if (!out?.ok) $("result").textContent = out?.message ?? "could not revoke";
        refreshPerson();
      });
      const row = el(
        "div",
        { className: "rule" },
        el("span", { className: "what", textContent: `${r.site} — ${r.client || "(unnamed agent)"}`, title: `${r.client} on ${r.site}` }),
        el("span", { className: r.answer === "deny" ? "deny" : "allow", textContent: r.answer === "deny" ? "denied" : "allowed" }),
        revoke,
      );
      row.dataset.site = r.site;
      return row;
    }),
  );
}

// --- Agents: the daemon's record of its clients, with Pause, Resume and Stop -----------------

function since(ms) {
  if (!ms) return "";
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return s < 60 ? `${s} s ago` : `${Math.round(s / 60)} min ago`;
}

function controlButton(c, action, label, title) {
  const b = el("button", { type: "button", textContent: label, title, className: action });
  b.dataset.client = c.id;
  b.addEventListener("click", async () => {
    b.disabled = true;
    const r = await ask({ type: "client.control", client: c.id, action });
    if (!r?.ok) $("result").textContent = r?.message ?? "could not tell webpilot";
  });
  return b;
}

let shownAgents = "";

function showAgents(list, connected) {
  const clients = connected && Array.isArray(list) ? list : [];
  const json = JSON.stringify(clients.map((c) => ({ ...c, lastAt: since(c.lastAt) })));
  if (json === shownAgents) return;
  shownAgents = json;
  const box = $("agentlist");
  if (!clients.length) {
    box.replaceChildren(el("small", { textContent: connected ? "No agent is connected." : "Not connected to webpilot." }));
    return;
  }
  box.replaceChildren(
    ...clients.map((c) => {
      const buttons = c.state === "running" ? [controlButton(c, "pause", "Pause", "Its next calls wait until you press Resume"), controlButton(c, "stop", "Stop", "Its calls fail and its tabs close")] : [controlButton(c, "resume", "Resume", "Let it go on")];
      if (c.state === "paused") buttons.push(controlButton(c, "stop", "Stop", "Its calls fail and its tabs close"));
      const row = el(
        "div",
        { className: `agent ${c.state}` },
        el("div", { className: "head" }, el("span", { className: "name", textContent: c.name, title: c.id }), el("span", { className: "state", textContent: c.state }), ...buttons),
        el("div", { className: "last", textContent: c.last ? `${c.last} · ${since(c.lastAt)}` : "no action yet", title: c.last }),
        ...c.sessions.map((ses) =>
          el("div", { className: "ses", title: ses.url, textContent: `webpilot · ${ses.group || ses.name}${ses.url ? ` — on ${host(ses.url)}` : ""}` }),
        ),
      );
      row.dataset.client = c.id;
      return row;
    }),
  );
}

async function refreshPerson() {
  try {
    const [a, live, st] = await Promise.all([ask({ type: "approvals" }), ask({ type: "live" }), ask({ type: "status" })]);
    showAsks(a?.asks);
    showRules(a?.rules);
    showAgents(live, st?.state === "connected");
  } catch {
    // the status line already says when the service worker does not answer
  }
}

function tick() {
  refresh();
  refreshSessions();
  refreshPerson();
}

tick();
setInterval(tick, 1000);
