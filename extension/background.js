// The service worker: wiring only. It builds the `api` the relay calls from chrome.tabs,
// chrome.windows, chrome.tabGroups, chrome.debugger and chrome.downloads, and feeds Chrome's events to the Bridge
// of protocol.js, which holds all the logic. Listeners are registered synchronously at the top
// level, so Chrome can wake a stopped worker for them.

import {
  ALARM_NAME,
  ALARM_PERIOD_MINUTES,
  AgentTabs,
  Approvals,
  CONTROLS,
  Bridge,
  BridgeError,
  GROUP_TITLE,
  groupTitle,
  STORAGE_KEYS,
  sessionsOf,
  tabInfo,
} from "./protocol.js";

const SESSION_WINDOW = "agent_window_id"; // chrome.storage.session: survives worker restarts
const SESSION_ATTACHED = "attached_tabs";
const SESSION_BOUND = "bound_tabs"; // user tabs webpilot bound (tabs.bind)
const SESSION_HANDOFFS = "handoffs"; // tabs waiting for the user (handoff.start), by tab id
const HANDOFF_NOTIFICATION = "webpilot-handoff-"; // + tab id
const SESSION_BOUND_SESSIONS = "bound_sessions"; // {tabId: session} as tabs.bind was told
const SESSION_LIVE = "live"; // the daemon's record of its clients (live.show), for the popup
const APPROVAL_NOTIFICATION = "webpilot-approval-"; // + question id

const agent = new AgentTabs();
const boundSessions = {}; // tabId -> the session that bound it (for the popup)
let windowPromise = null; // the agent window being created, so concurrent creates share it

// ready: the agent window and tabs as they were before this worker started.
const ready = (async () => {
  const s = await chrome.storage.session.get([SESSION_WINDOW, SESSION_ATTACHED, SESSION_BOUND, SESSION_BOUND_SESSIONS]);
  for (const id of s[SESSION_BOUND] ?? []) agent.bound.add(id);
  Object.assign(boundSessions, s[SESSION_BOUND_SESSIONS] ?? {});
  let windowId = s[SESSION_WINDOW] ?? null;
  if (windowId !== null) {
    try {
      await chrome.windows.get(windowId);
    } catch {
      windowId = null;
    }
  }
  agent.reset(windowId, await chrome.tabs.query({}));
  return s[SESSION_ATTACHED] ?? [];
})();

async function setAgentWindow(windowId) {
  agent.windowId = windowId;
  if (windowId === null) await chrome.storage.session.remove(SESSION_WINDOW);
  else await chrome.storage.session.set({ [SESSION_WINDOW]: windowId });
}

// Makes sure the agent window exists. Returns {windowId, tab}: tab is set when this call
// created the window, whose one tab was opened on url. The window is created unfocused
// (its tabs stay rendered, and the user's window keeps the focus).
async function agentWindow(url) {
  if (agent.windowId !== null) {
    try {
      await chrome.windows.get(agent.windowId);
      return { windowId: agent.windowId, tab: null };
    } catch {
      await setAgentWindow(null);
    }
  }
  if (!windowPromise) {
    windowPromise = (async () => {
      const win = await chrome.windows.create({ focused: false, url });
      await setAgentWindow(win.id);
      const tab = win.tabs?.[0] ?? (await chrome.tabs.query({ windowId: win.id }))[0];
      return { windowId: win.id, tab };
    })().finally(() => {
      windowPromise = null;
    });
    return windowPromise;
  }
  const { windowId } = await windowPromise; // another call is creating it: add a tab
  return { windowId, tab: null };
}

const grouping = new Set(); // group() calls running: a group's title is set just after it is made

// Puts tab into its session's group (`webpilot · <session>`) of its window. Failures are only
// logged.
async function group(tab, title) {
  const run = (async () => {
    const [existing] = await chrome.tabGroups.query({ windowId: tab.windowId, title });
    const groupId = existing
      ? await chrome.tabs.group({ tabIds: [tab.id], groupId: existing.id })
      : await chrome.tabs.group({ tabIds: [tab.id], createProperties: { windowId: tab.windowId } });
    if (!existing) await chrome.tabGroups.update(groupId, { title, color: "blue" });
  })();
  grouping.add(run);
  try {
    await run;
  } catch (e) {
    console.warn("webpilot: cannot group tab", tab.id, e?.message ?? e);
  } finally {
    grouping.delete(run);
  }
}

// An agent tab the user dragged out of webpilot's groups (or out of the agent window) is the
// user's from then on: released, detached.
async function checkTaken(tabId, movedOut) {
  await Promise.allSettled([...grouping]);
  if (!agent.has(tabId) || agent.bound.has(tabId)) return;
  if (!movedOut) {
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    if (!tab || tab.windowId !== agent.windowId) return;
    if (tab.groupId !== -1) {
      const g = await chrome.tabGroups.get(tab.groupId).catch(() => null);
      if (g && (g.title ?? "").startsWith(GROUP_TITLE)) return;
    }
  }
  agent.release(tabId);
  await bridge.releaseByUser(tabId);
}

// A new tab opened by an agent or bound tab is relayed too. One opened by a bound tab (the user's)
// is bound itself: webpilot may follow it (an OAuth popup) but never closes it.
function noteAgentTab(tab) {
  if (!agent.add(tab)) return;
  const opener = tab.openerTabId;
  if (opener !== undefined && agent.bound.has(opener)) {
    agent.bind(tab.id);
    if (boundSessions[opener]) boundSessions[tab.id] = boundSessions[opener];
    saveBound().catch(() => {});
  }
  bridge.sendEvent("tabs.created", tabInfo(tab));
}

// The tab must be an agent tab: the extension never touches the user's own tabs.
async function own(tabId) {
  await ready;
  if (agent.has(tabId)) return;
  agent.refresh(await chrome.tabs.query({}));
  if (agent.has(tabId)) return;
  try {
    await chrome.tabs.get(tabId);
  } catch {
    throw new BridgeError("no_tab", `No tab with id: ${tabId}.`);
  }
  throw new BridgeError("not_allowed", `tab ${tabId} is not a webpilot tab (not in the agent window)`);
}

// --- hand-off: the user takes over a tab (handoff.start) and says when done ------------------

// handoffs: tab id → {tabId, message, session, since, kind}; kind "record" is a recording (its
// button is Stop), else a hand-off (Done). Kept in chrome.storage.session so a
// restarted worker (and the popup) still knows who waits.
async function handoffs() {
  const s = await chrome.storage.session.get(SESSION_HANDOFFS);
  return s[SESSION_HANDOFFS] ?? {};
}

// updateHandoffs changes the list through fn, one change at a time: two notices started at once
// (recordings in two tabs) must not each write back the list as it was before the other's.
let handoffQueue = Promise.resolve();
function updateHandoffs(fn) {
  const run = handoffQueue.then(async () => {
    const all = await handoffs();
    const out = fn(all);
    await showHandoffs(all);
    return out;
  });
  handoffQueue = run.catch(() => {});
  return run;
}

async function showHandoffs(all) {
  const waiting = Object.values(all);
  await chrome.storage.session.set({ [SESSION_HANDOFFS]: all });
  // The latest notice names the title; a recording anywhere shows REC (it must not hide behind
  // a hand-off in another tab).
  await showBadge(waiting, Object.values(await approvals.asks()));
}

// showBadge: a recording shows REC (it must not hide behind a hand-off in another tab), a
// hand-off "!", a question of webpilot's "?"; the title says the latest.
async function showBadge(waiting, asks) {
  const last = waiting.reduce((a, h) => (!a || h.since >= a.since ? h : a), null);
  const recording = waiting.some((h) => h.kind === "record");
  const text = recording ? "REC" : last ? "!" : asks.length ? "?" : "";
  let title = "webpilot";
  if (last) title = last.kind === "record" ? `webpilot is recording: ${last.message}` : `webpilot is waiting for you: ${last.message}`;
  else if (asks.length) title = `webpilot asks you: ${question(asks[asks.length - 1])}`;
  await Promise.allSettled([
    chrome.action.setBadgeText({ text }),
    chrome.action.setBadgeBackgroundColor({ color: recording ? "#b00020" : last ? "#b35900" : "#0b57d0" }),
    chrome.action.setTitle({ title }),
  ]);
}

async function startHandoff({ tabId, message, session, kind }) {
  await own(tabId);
  const tab = await chrome.tabs.get(tabId);
  const recording = kind === "record";
  await updateHandoffs((all) => {
    all[tabId] = { tabId, message, session: session ?? null, since: Date.now(), kind: recording ? "record" : "handoff" };
  });
  // The tab to the front: active in its window, the window focused.
  await chrome.tabs.update(tabId, { active: true });
  await chrome.windows.update(tab.windowId, { focused: true, drawAttention: true }).catch(() => {});
  // The notice: a notification with a Done button (not possible everywhere: no notification
  // server, headless), the badge, and the popup's entry when the user opens it. The popup is not
  // opened for them: it would close at their first click in the page anyway, and one left open
  // in the agent window when its last tab closed took the extension's worker down with it.
  chrome.notifications
    ?.create(HANDOFF_NOTIFICATION + tabId, {
      type: "basic",
      iconUrl: "icon.png",
      title: recording ? "webpilot is recording" : "webpilot is waiting for you",
      message,
      buttons: [{ title: recording ? "Stop" : "Done" }],
      requireInteraction: true,
    })
    .catch(() => {});
  return chrome.tabs.get(tabId);
}

async function endHandoff({ tabId }) {
  const had = await updateHandoffs((all) => {
    if (!(tabId in all)) return false;
    delete all[tabId];
    return true;
  });
  if (had) chrome.notifications?.clear(HANDOFF_NOTIFICATION + tabId).catch(() => {});
  return had;
}

// The user says the hand-off is done (the popup's or the notification's Done button).
async function handoffDone(tabId) {
  if (!(await endHandoff({ tabId }))) return { ok: false, message: "nothing is waiting for you on that tab" };
  bridge.sendEvent("handoff.done", { tabId });
  return { ok: true };
}

async function handoffList() {
  const out = [];
  for (const h of Object.values(await handoffs())) {
    const tab = await chrome.tabs.get(h.tabId).catch(() => null);
    out.push({ ...h, title: tab?.title ?? "", url: tab?.url ?? "" });
  }
  return out;
}

// --- the person in charge: approvals per client and site, and the live view -----------------

const approvals = new Approvals({
  local: chrome.storage.local,
  session: chrome.storage.session,
  newId: () => "a-" + crypto.randomUUID().slice(0, 8),
  now: () => Date.now(),
});

// question is how the popup and the notification ask the person.
function question(q) {
  const who = q.client || "An agent";
  return q.bind ? `${who} wants to use your tab “${q.title || q.url}” (${q.site})` : `${who} wants to use ${q.site}`;
}

async function refreshBadge() {
  await showBadge(Object.values(await handoffs()), Object.values(await approvals.asks()));
}

// approval.ask: a rule answers at once; else the person is asked (popup, notification, badge)
// and the answer comes later as the event approval.answered.
async function askApproval(q) {
  const out = await approvals.ask(q);
  if (out.answer) return { answer: out.answer };
  if (out.created) {
    await refreshBadge();
    chrome.notifications
      ?.create(APPROVAL_NOTIFICATION + out.ask, {
        type: "basic",
        iconUrl: "icon.png",
        title: "webpilot asks you",
        message: `${question(q)}. Open webpilot's popup to allow it always.`,
        buttons: [{ title: "Allow once" }, { title: "Deny" }],
        requireInteraction: true,
      })
      .catch(() => {});
  }
  return { ask: out.ask };
}

// The person answered a question (the popup's buttons or the notification's).
async function answerApproval(ask, answer) {
  const r = await approvals.answer(ask, answer);
  if (!r.ok) return r;
  chrome.notifications?.clear(APPROVAL_NOTIFICATION + ask).catch(() => {});
  await refreshBadge();
  const q = r.question;
  bridge.sendEvent("approval.answered", { ask, answer, client: q.client, session: q.session, site: q.site, bind: q.bind });
  return { ok: true };
}

async function revokeApproval(client, site) {
  const r = await approvals.revoke(client, site);
  if (r.ok) bridge.sendEvent("approval.changed", { client, site });
  return r;
}

async function approvalList() {
  return { asks: Object.values(await approvals.asks()), rules: Object.values(await approvals.rules()) };
}

// The person's Pause, Resume or Stop of a client: the daemon does it; the popup shows the
// daemon's record, which follows.
async function controlClient(client, action) {
  if (typeof client !== "string" || client === "" || !CONTROLS.includes(action)) return { ok: false, message: "no such client or action" };
  if (!bridge.sendEvent("client.control", { client, action })) return { ok: false, message: "webpilot is not connected" };
  return { ok: true };
}

async function liveList() {
  const s = await chrome.storage.session.get(SESSION_LIVE);
  return s[SESSION_LIVE] ?? [];
}

async function saveBound() {
  for (const id of Object.keys(boundSessions)) if (!agent.bound.has(Number(id))) delete boundSessions[id];
  await chrome.storage.session.set({ [SESSION_BOUND]: [...agent.bound], [SESSION_BOUND_SESSIONS]: boundSessions });
}

const api = {
  tabs: {
    // The user's tabs: those of normal windows that are neither agent tabs nor bound. `focused`
    // marks the active tab of the last-focused normal window (never the agent window).
    async query() {
      await ready;
      agent.refresh(await chrome.tabs.query({}));
      const tabs = (await chrome.tabs.query({ windowType: "normal" })).filter((t) => !agent.isAgent(t));
      let focusedWindow = null;
      try {
        const w = await chrome.windows.getLastFocused({ windowTypes: ["normal"] });
        if (w.id !== agent.windowId) focusedWindow = w.id;
      } catch {
        // no normal window
      }
      return tabs.map((t) => ({ ...t, focused: Boolean(t.active) && t.windowId === focusedWindow }));
    },
    // Only the server's bind makes a user's tab one the extension relays.
    async bind({ tabId, session }) {
      await ready;
      let tab;
      try {
        tab = await chrome.tabs.get(tabId);
      } catch {
        throw new BridgeError("no_tab", `No tab with id: ${tabId}.`);
      }
      const win = await chrome.windows.get(tab.windowId);
      if (win.type !== "normal") throw new BridgeError("not_allowed", `tab ${tabId} is not in a normal window`);
      agent.refresh(await chrome.tabs.query({}));
      if (!agent.isAgent(tab)) {
        agent.bind(tabId);
        if (session) boundSessions[tabId] = session;
        await saveBound();
      }
      return tab;
    },
    async unbind({ tabId }) {
      await ready;
      if (agent.unbind(tabId)) await saveBound();
    },
    async list() {
      await ready;
      return agent.refresh(await chrome.tabs.query({}));
    },
    async create({ url, session }) {
      await ready;
      let created = await agentWindow(url);
      let tab = created.tab;
      if (!tab) {
        try {
          tab = await chrome.tabs.create({ windowId: created.windowId, url, active: true });
        } catch (e) {
          // The agent window closed between the check and the create (its last tab was
          // just closed): make a new one, once.
          if (!/No window with id/i.test(String(e?.message ?? e))) throw e;
          if (agent.windowId === created.windowId) await setAgentWindow(null);
          created = await agentWindow(url);
          tab = created.tab ?? (await chrome.tabs.create({ windowId: created.windowId, url, active: true }));
        }
      }
      noteAgentTab(tab);
      await group(tab, groupTitle(session));
      return (await chrome.tabs.get(tab.id).catch(() => null)) ?? tab;
    },
    async close({ tabId }) {
      await own(tabId);
      if (agent.bound.has(tabId)) throw new BridgeError("not_allowed", `tab ${tabId} is the user's tab (bound): webpilot never closes it`);
      await chrome.tabs.remove(tabId);
    },
    async activate({ tabId }) {
      await own(tabId);
      await chrome.tabs.update(tabId, { active: true }); // active in its window; never focuses it
    },
    async update({ tabId, url }) {
      await own(tabId);
      if (/^\s*data:/i.test(url)) {
        // Chromium 156 accepts chrome.tabs.update to a data: URL (the tab gets a pendingUrl) but
        // never navigates; Page.navigate answers net::ERR_ABORTED. Only a new tab
        // (chrome.tabs.create) opens a data: URL. Say so rather than pretend.
        throw new BridgeError(
          "not_allowed",
          "Chromium does not navigate an existing tab to a data: URL from an extension " +
            "(chrome.tabs.update is ignored, Page.navigate is aborted); open it with tabs.create",
        );
      }
      return chrome.tabs.update(tabId, { url });
    },
  },
  debugger: {
    async attach({ tabId }) {
      await own(tabId);
      await chrome.debugger.attach({ tabId }, "1.3");
    },
    async detach({ tabId }) {
      await chrome.debugger.detach({ tabId });
    },
    async send({ tabId, sessionId, method, params }) {
      return chrome.debugger.sendCommand(sessionId ? { tabId, sessionId } : { tabId }, method, params);
    },
  },
  handoff: {
    start: startHandoff,
    end: endHandoff,
  },
  approval: {
    ask: askApproval,
    async end({ ask }) {
      if (await approvals.withdraw(ask)) {
        chrome.notifications?.clear(APPROVAL_NOTIFICATION + ask).catch(() => {});
        await refreshBadge();
      }
    },
    async rules() {
      return Object.values(await approvals.rules()).map(({ client, site, answer }) => ({ client, site, answer }));
    },
  },
  live: {
    async show({ clients }) {
      await chrome.storage.session.set({ [SESSION_LIVE]: clients });
    },
  },
  downloads: {
    // Only ever asked for the downloads of agent tabs (Bridge.findDownload matches them).
    async search(query) {
      return chrome.downloads.search(query);
    },
  },
};

const bridge = new Bridge({
  WebSocket,
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (t) => clearTimeout(t),
  now: () => Date.now(),
  storage: chrome.storage.local,
  subtle: crypto.subtle,
  getRandomValues: (a) => crypto.getRandomValues(a),
  api,
  userAgent: navigator.userAgent,
  brands: navigator.userAgentData?.brands ?? [],
  logger: console,
  onAttachedChange: (ids) => {
    chrome.storage.session.set({ [SESSION_ATTACHED]: ids }).catch(() => {});
  },
});

// The test rig's hook (see Bridge.cancelDebuggingForTest): reachable only from a DevTools
// session on this worker, never from the wire or a web page.
globalThis.webpilotTest = { cancelDebugging: (tabId) => bridge.cancelDebuggingForTest(tabId) };

// --- Chrome events ---------------------------------------------------------------------------

chrome.debugger.onEvent.addListener((source, method, params) => bridge.debuggerEvent(source, method, params));
chrome.debugger.onDetach.addListener((source, reason) => bridge.debuggerDetached(source, reason));

chrome.tabs.onCreated.addListener(async (tab) => {
  await ready;
  noteAgentTab(tab);
});
chrome.tabs.onUpdated.addListener(async (tabId, change, tab) => {
  await ready;
  if (!agent.has(tabId)) return;
  if ("groupId" in change) await checkTaken(tabId, false);
  if ("url" in change || "title" in change || "status" in change) bridge.sendEvent("tabs.updated", tabInfo(tab));
});
chrome.tabs.onRemoved.addListener(async (tabId) => {
  await ready;
  await endHandoff({ tabId });
  const known = agent.remove(tabId);
  if (agent.unbind(tabId)) await saveBound();
  if (known) bridge.sendEvent("tabs.removed", { tabId });
});
chrome.tabs.onDetached.addListener(async (tabId, info) => {
  await ready;
  if (info.oldWindowId === agent.windowId) await checkTaken(tabId, true);
});
chrome.windows.onRemoved.addListener(async (windowId) => {
  await ready;
  if (windowId === agent.windowId) await setAgentWindow(null);
});

chrome.notifications?.onButtonClicked.addListener((id, button) => {
  if (id.startsWith(HANDOFF_NOTIFICATION)) handoffDone(Number(id.slice(HANDOFF_NOTIFICATION.length)));
  if (id.startsWith(APPROVAL_NOTIFICATION)) answerApproval(id.slice(APPROVAL_NOTIFICATION.length), button === 0 ? "once" : "deny");
});

chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === ALARM_NAME) bridge.wake("alarm");
});
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && (STORAGE_KEYS.port in changes || STORAGE_KEYS.secret in changes || STORAGE_KEYS.profileName in changes)) {
    bridge.reconfigure();
  }
});
chrome.idle.onStateChanged.addListener((state) => {
  if (state === "active") bridge.wake("idle");
});
chrome.runtime.onStartup.addListener(() => bridge.wake("startup"));
chrome.runtime.onInstalled.addListener(() => bridge.wake("installed"));

// --- the popup ------------------------------------------------------------------------------

// webpilot's tabs by session: agent tabs from their tab groups, bound tabs from tabs.bind.
async function popupSessions() {
  await ready;
  const tabs = agent.refresh(await chrome.tabs.query({}));
  const groups = await chrome.tabGroups.query({});
  return sessionsOf({ tabs, groups, bound: agent.bound, boundSessions });
}

// The popup's Release: the tab is the user's from now on. An agent tab leaves its group (the
// same path as the user dragging it out: onUpdated → checkTaken); a bound tab is unbound and
// detached. Either way the server hears debugger.detached, reason released_by_user.
async function popupRelease(tabId) {
  await ready;
  if (!Number.isInteger(tabId) || !agent.has(tabId)) return { ok: false, message: `tab ${tabId} is not webpilot's` };
  if (agent.bound.has(tabId)) {
    agent.unbind(tabId);
    await saveBound();
    await bridge.releaseByUser(tabId);
    return { ok: true };
  }
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  if (tab && tab.groupId !== -1) await chrome.tabs.ungroup(tabId);
  else {
    agent.release(tabId); // a popup in no group: nothing to drag out of
    await bridge.releaseByUser(tabId);
  }
  return { ok: true };
}

// The popup asks for the status, the sessions and the hand-offs waiting; pairs, unpairs,
// disconnects, releases tabs, says Done and renames the profile.
chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id) return false; // only our own pages (no content scripts exist)
  (async () => {
    await started;
    switch (msg?.type) {
      case "status":
        return bridge.status();
      case "pair": {
        // The code may carry the port ("K7Q4-M2XD@47318"); msg.port is the popup's port field.
        const outcome = await bridge.pair(msg.code, msg.port);
        return { ...outcome, status: bridge.status() };
      }
      case "unpair":
        await bridge.unpair();
        return { ok: true, status: bridge.status() };
      case "disconnect":
        await bridge.disconnect();
        return { ok: true, status: bridge.status() };
      case "connect":
        await bridge.resume();
        return { ok: true, status: bridge.status() };
      case "sessions":
        return popupSessions();
      case "release":
        return popupRelease(msg.tabId);
      case "handoffs":
        return handoffList();
      case "handoff.done":
        return handoffDone(msg.tabId);
      case "approvals":
        return approvalList();
      case "approval.answer":
        return answerApproval(msg.ask, msg.answer);
      case "approval.revoke":
        return revokeApproval(msg.client, msg.site);
      case "live":
        return liveList();
      case "client.control":
        return controlClient(msg.client, msg.action);
      case "rename": {
        const outcome = await bridge.rename(msg.name);
        return { ...outcome, status: bridge.status() };
      }
      default:
        return { ok: false, message: `unknown popup message ${JSON.stringify(msg?.type)}` };
    }
  })().then(sendResponse, (e) => sendResponse({ ok: false, message: String(e?.message ?? e) }));
  return true; // answered asynchronously
});

// --- start -----------------------------------------------------------------------------------

chrome.alarms.get(ALARM_NAME).then((a) => {
  if (!a) chrome.alarms.create(ALARM_NAME, { periodInMinutes: ALARM_PERIOD_MINUTES });
});

const started = ready.then((attached) => {
  bridge.restoreAttached(attached);
  return bridge.start();
});
started.catch((e) => console.error("webpilot: start failed", e));
