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

async function refresh() {
  try {
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

refresh();
setInterval(refresh, 1000);
