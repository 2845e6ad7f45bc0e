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

function tick() {
  refresh();
  refreshSessions();
}

tick();
setInterval(tick, 1000);
