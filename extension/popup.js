// The popup: shows the connection state and pairs or unpairs through the service worker,
// which owns the connection (see background.js).

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
  $("port").textContent = String(s.port);
  $("version").textContent = `${s.extensionVersion} (protocol ${s.protocol})`;
  $("unpair").disabled = !s.paired;
}

// The hand-offs waiting for the user: each with the agent's message, the tab, and Done.
function showHandoffs(list) {
  const box = $("handofflist");
  const waiting = Array.isArray(list) ? list : [];
  $("handoffs").className = waiting.length ? "waiting" : "";
  const key = JSON.stringify(waiting.map((h) => [h.tabId, h.message, h.title, h.url]));
  if (box.dataset.key === key) return; // unchanged: keep the buttons the user may be pressing
  box.dataset.key = key;
  box.replaceChildren(
    ...waiting.map((h) => {
      const row = document.createElement("div");
      row.className = "handoff";
      const msg = document.createElement("div");
      msg.className = "msg";
      msg.textContent = h.message;
      const where = document.createElement("div");
      where.className = "where";
      where.textContent = `${h.title || "(untitled)"} — ${h.url}${h.session ? ` · session ${h.session}` : ""}`;
      const done = document.createElement("button");
      done.type = "button";
      done.className = "done";
      done.dataset.tab = String(h.tabId);
      done.textContent = "Done";
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

$("pairform").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const code = $("code").value.trim();
  const out = $("result");
  if (!code) {
    out.textContent = "Type the code that `webpilot pair` prints.";
    out.className = "bad";
    return;
  }
  $("pair").disabled = true;
  out.textContent = "Pairing…";
  out.className = "";
  try {
    const r = await ask({ type: "pair", code });
    out.textContent = r.ok ? "Paired." : `Pairing failed: ${r.message}`;
    out.className = r.ok ? "good" : "bad";
    if (r.ok) $("code").value = "";
    show(r.status);
  } catch (e) {
    out.textContent = `Pairing failed: ${e.message ?? e}`;
    out.className = "bad";
  } finally {
    $("pair").disabled = false;
  }
});

$("unpair").addEventListener("click", async () => {
  const r = await ask({ type: "unpair" });
  $("result").textContent = r.ok ? "Unpaired: the secret is forgotten." : r.message;
  $("result").className = r.ok ? "" : "bad";
  show(r.status);
});

refresh();
setInterval(refresh, 1000);
