// The pure logic of the webpilot extension: configuration, the bridge wire format of
// PROTOCOL.md (builders and parsers), the HMAC proof, the connection state machine and the
// allow-listed relay of requests to an injected `api`. It never touches the `chrome` global:
// background.js passes in everything that talks to the browser, and the Node tests pass fakes.

export const PROTOCOL_VERSION = 5;
export const EXTENSION_VERSION = "0.1.0"; // must match manifest.json and embed.go
export const DEFAULT_PORT = 47218;

export const HEARTBEAT_MS = 20_000; // an MV3 service worker dies after ~30 s without messages
export const SILENCE_MS = 60_000; // nothing heard for this long: the connection is dead
export const HANDSHAKE_TIMEOUT_MS = 15_000; // the server refuses after 10 s itself
export const BACKOFF_MIN_MS = 500;
export const BACKOFF_MAX_MS = 10_000;

// Downloads (downloads.find): how many downloads of agent tabs are remembered, how long before
// the tab's Page.downloadWillBegin reached the extension Chrome's item may have started, how
// often a running one is looked at again, and how long an answer may wait for it to end.
export const DOWNLOADS_REMEMBERED = 100;
export const DOWNLOAD_MATCH_WINDOW_MS = 60_000;
export const DOWNLOAD_POLL_MS = 100;
export const DOWNLOAD_WAIT_DEFAULT_MS = 10_000;
export const DOWNLOAD_WAIT_MAX_MS = 60_000;

export const ALARM_NAME = "webpilot-reconnect";
export const ALARM_PERIOD_MINUTES = 0.5;
export const GROUP_TITLE = "webpilot";

/** The title of a session's tab group in the agent window: `webpilot · <session>`. */
export function groupTitle(session) {
  return session ? `${GROUP_TITLE} · ${session}` : GROUP_TITLE;
}

// Keys in chrome.storage.local. A pairing stores {secret, port} (the port it paired on, dialled
// from then on); tests provision a browser by writing {port, secret}.
export const STORAGE_KEYS = Object.freeze({ port: "port", secret: "secret", profileId: "profile_id", profileName: "profile_name" });
// chrome.storage.local: true while the user keeps the extension disconnected (the popup's
// Disconnect); nothing dials until the popup's Connect (or a new pairing) removes it.
export const DISCONNECTED_KEY = "disconnected";

export const ERROR_CODES = Object.freeze(["no_tab", "not_allowed", "detached", "bad_request", "failed"]);
export const REFUSE_REASONS = Object.freeze(["unauthorized", "version", "duplicate", "pairing", "extension"]);
export const CLOSE_CODES = Object.freeze({ unauthorized: 4001, version: 4002, duplicate: 4003, pairing: 4004 });
export const EVENT_NAMES = Object.freeze([
  "debugger.event",
  "debugger.detached",
  "tabs.created",
  "tabs.updated",
  "tabs.removed",
  "handoff.done",
  "approval.answered",
  "approval.changed",
  "client.control",
]);

/** The person's answers to an approval question (approval.ask). */
export const ANSWERS = Object.freeze(["once", "always", "deny"]);
/** What the person may do to a client in the live view (client.control). */
export const CONTROLS = Object.freeze(["pause", "resume", "stop"]);
/** chrome.storage.local: the person's remembered answers, {"<client>\n<site>": rule}. */
export const APPROVALS_KEY = "approvals";
/** The longest client name, site and URL an approval question carries. */
export const APPROVAL_TEXT_MAX = 300;
/** The most live clients live.show may carry. */
export const LIVE_CLIENTS_MAX = 64;

/** The longest hand-off message the extension shows the user. */
export const HANDOFF_MESSAGE_MAX = 300;

// ---------------------------------------------------------------------------------------------
// Errors

/** A failure with one of the wire error codes of PROTOCOL.md. */
export class BridgeError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "BridgeError";
    this.code = ERROR_CODES.includes(code) ? code : "failed";
  }
}

/** A message that does not follow PROTOCOL.md. */
export class ProtocolError extends Error {
  constructor(message) {
    super(message);
    this.name = "ProtocolError";
  }
}

// Chrome reports failures as plain messages; these are the wordings of chrome.tabs,
// chrome.windows and chrome.debugger (and of CDP errors relayed by sendCommand).
const ERROR_PATTERNS = [
  ["detached", /debugger is not attached|detached while handling|target closed|not attached to/i],
  ["no_tab", /no tab with|invalid tab id|tab not found|no target with given id/i],
  [
    "not_allowed",
    /another debugger is already attached|cannot access|cannot attach|not allowed|permission|cannot be scripted/i,
  ],
];

/** The wire code for a Chrome error message. */
export function classifyError(message) {
  const text = String(message ?? "");
  for (const [code, re] of ERROR_PATTERNS) if (re.test(text)) return code;
  return "failed";
}

/** Turns anything thrown by the api into the wire `{message, code}`. */
export function toWireError(err) {
  let message = err && typeof err === "object" && "message" in err ? err.message : err;
  message = message === undefined || message === null || message === "" ? "unknown error" : String(message);
  // chrome.debugger.sendCommand reports CDP errors as the JSON of the CDP error object.
  let text = message;
  if (message.startsWith("{")) {
    try {
      const cdp = JSON.parse(message);
      if (cdp && typeof cdp.message === "string") text = cdp.message;
    } catch {
      // not JSON: keep the message as it is
    }
  }
  const code = err && ERROR_CODES.includes(err.code) ? err.code : classifyError(text);
  return { message: text, code };
}

// ---------------------------------------------------------------------------------------------
// Bytes

export function bytesToBase64(bytes) {
  let s = "";
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s);
}

export function base64ToBytes(text) {
  if (typeof text !== "string" || text.length === 0) throw new ProtocolError("expected base64 text");
  let raw;
  try {
    raw = atob(text);
  } catch {
    throw new ProtocolError("invalid base64");
  }
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The hello proof: base64 of HMAC-SHA256(key = secret bytes, message = nonce bytes).
 * `subtle` is a WebCrypto SubtleCrypto (crypto.subtle in the service worker and in Node).
 */
export async function computeProof(subtle, secretB64, nonceB64) {
  const key = await subtle.importKey(
    "raw",
    base64ToBytes(secretB64),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await subtle.sign("HMAC", key, base64ToBytes(nonceB64));
  return bytesToBase64(new Uint8Array(mac));
}

// ---------------------------------------------------------------------------------------------
// Configuration

export function bridgeURL(port) {
  return `ws://127.0.0.1:${port}/bridge`;
}

/** A port as stored (number or numeric text); null when it is not a valid TCP port. */
export function parsePort(value) {
  if (value === undefined || value === null || value === "") return null;
  const n = typeof value === "number" ? value : /^\s*\d+\s*$/.test(String(value)) ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : null;
}

/**
 * Reads what the user typed to pair: the code, which ends in "@<port>" when webpilot's bridge
 * port is not DEFAULT_PORT (`webpilot pair --bridge-port N` prints e.g. `K7Q4-M2XD@47318`), and
 * the popup's optional port field. Returns {code, port} — code without the port, port the one to
 * pair on and dial from then on: the code's, else the field's, else DEFAULT_PORT (a code without
 * a port means the default) — or {error} saying what is wrong.
 */
export function parsePairing(typed, portField) {
  let code = typeof typed === "string" ? typed.trim() : "";
  let fromCode = null;
  const at = code.lastIndexOf("@");
  if (at >= 0) {
    const text = code.slice(at + 1).trim();
    fromCode = parsePort(text);
    if (fromCode === null) return { error: `the port after "@" must be a number from 1 to 65535, not ${JSON.stringify(text)}` };
    code = code.slice(0, at).trim();
  }
  if (code === "") return { error: "type the code that `webpilot pair` prints" };
  let fromField = null;
  const field = portField === undefined || portField === null ? "" : String(portField).trim();
  if (field !== "") {
    fromField = parsePort(field);
    if (fromField === null) return { error: `the port must be a number from 1 to 65535, not ${JSON.stringify(field)}` };
  }
  if (fromCode !== null && fromField !== null && fromCode !== fromField) {
    return { error: `the code says port ${fromCode} but the port field says ${fromField}: clear the port field` };
  }
  return { code, port: fromCode ?? fromField ?? DEFAULT_PORT };
}

/** A secret as stored: base64 of at least 16 bytes, else null. */
export function parseSecret(value) {
  if (typeof value !== "string" || value.trim() === "") return null;
  try {
    return base64ToBytes(value.trim()).length >= 16 ? value.trim() : null;
  } catch {
    return null;
  }
}

export function newProfileId(getRandomValues) {
  return hex(getRandomValues(new Uint8Array(16)));
}

// ---------------------------------------------------------------------------------------------
// The profile's name: what webpilot calls this browser profile when several are connected
// (--browser-profile NAME). The user may set one in the popup; otherwise it is the browser's
// brand and the start of the profile id, e.g. "chrome-3f9c".

export const PROFILE_NAME_MAX = 64;

/**
 * Checks a name the user typed: {name} trimmed, or {error} when it is longer than
 * PROFILE_NAME_MAX or has characters other than letters, digits, "-", "_", "." and spaces.
 * An empty name is {name: ""} (back to the default).
 */
export function checkProfileName(value) {
  if (typeof value !== "string") return { error: "the name must be text" };
  const name = value.trim();
  if ([...name].length > PROFILE_NAME_MAX) return { error: `at most ${PROFILE_NAME_MAX} characters` };
  if (!/^[\p{L}\p{N}\-_. ]*$/u.test(name)) return { error: "only letters, digits, -, _, . and spaces" };
  return { name };
}

/** The browser's brand from navigator.userAgentData.brands: chrome, edge, brave or chromium. */
export function browserBrand(brands) {
  const names = (Array.isArray(brands) ? brands : []).map((b) => String(b?.brand ?? ""));
  if (names.includes("Microsoft Edge")) return "edge";
  if (names.includes("Google Chrome")) return "chrome";
  if (names.some((n) => n === "Brave" || n.startsWith("Brave "))) return "brave";
  return "chromium";
}

/** The name of a profile nobody named: brand-<first 4 characters of the profile id>. */
export function defaultProfileName(brands, profileId) {
  return `${browserBrand(brands)}-${String(profileId ?? "").slice(0, 4)}`;
}

/**
 * The profile's name: the one stored under STORAGE_KEYS.profileName when it is valid, else the
 * default. {profileName, problem} — problem says why a stored name was ignored (or null).
 */
export async function loadProfileName(storage, brands, profileId) {
  const stored = ((await storage.get([STORAGE_KEYS.profileName])) ?? {})[STORAGE_KEYS.profileName];
  if (stored === undefined || stored === null || stored === "") return { profileName: defaultProfileName(brands, profileId), problem: null };
  const { name, error } = checkProfileName(stored);
  if (error || name === "") {
    return { profileName: defaultProfileName(brands, profileId), problem: `stored profile name ${JSON.stringify(stored)} is invalid: ${error ?? "empty"}` };
  }
  return { profileName: name, problem: null };
}

/**
 * Reads {port, secret, profileId, disconnected} from `storage` (chrome.storage.local-like: get/set), storing a
 * new profile id the first time. `problems` lists stored values that were ignored.
 */
export async function loadConfig(storage, getRandomValues) {
  const k = STORAGE_KEYS;
  const stored = (await storage.get([k.port, k.secret, k.profileId, DISCONNECTED_KEY])) ?? {};
  const problems = [];
  let port = parsePort(stored[k.port]);
  if (port === null) {
    if (stored[k.port] !== undefined) problems.push(`stored port ${JSON.stringify(stored[k.port])} is invalid`);
    port = DEFAULT_PORT;
  }
  const secret = parseSecret(stored[k.secret]);
  if (secret === null && stored[k.secret] !== undefined) problems.push("stored secret is not base64 of 16+ bytes");
  let profileId = stored[k.profileId];
  if (typeof profileId !== "string" || profileId === "") {
    profileId = newProfileId(getRandomValues);
    await storage.set({ [k.profileId]: profileId });
  }
  return { port, secret, profileId, problems, disconnected: stored[DISCONNECTED_KEY] === true };
}

// ---------------------------------------------------------------------------------------------
// Messages: builders return the wire object; parseMessage returns {kind, ...fields} and
// build(parsed) gives the wire object back.

export function challenge({ nonce, server, protocol = PROTOCOL_VERSION }) {
  return { type: "challenge", protocol, nonce, server };
}

export function hello({ profileId, profileName, userAgent, proof, extensionVersion = EXTENSION_VERSION, protocol = PROTOCOL_VERSION }) {
  const msg = {
    type: "hello",
    protocol,
    extension_version: extensionVersion,
    profile_id: profileId,
    user_agent: userAgent,
    proof,
  };
  if (profileName) msg.profile_name = profileName; // optional: older extensions send none
  return msg;
}

export function pair({ code, profileId, userAgent, extensionVersion = EXTENSION_VERSION, protocol = PROTOCOL_VERSION }) {
  return {
    type: "pair",
    protocol,
    code,
    extension_version: extensionVersion,
    profile_id: profileId,
    user_agent: userAgent,
  };
}

export function paired(secret) {
  return { type: "paired", secret };
}

export function welcome(protocol = PROTOCOL_VERSION) {
  return { type: "welcome", protocol };
}

export function refused(reason, message) {
  return { type: "refused", reason, message };
}

export function ping(ts) {
  return { type: "ping", ts };
}

export function pong(ts) {
  return { type: "pong", ts };
}

export function request(id, op, params = {}) {
  return { id, op, params };
}

export function result(id, value) {
  return { id, result: value === undefined ? {} : value };
}

export function errorReply(id, message, code) {
  return { id, error: { message, code } };
}

export function event(name, params) {
  return { event: name, params };
}

/** The wire `tab` of a chrome.tabs.Tab. */
export function tabInfo(tab) {
  const t = {
    tabId: tab.id ?? tab.tabId,
    windowId: tab.windowId,
    url: tab.pendingUrl || tab.url || "", // pendingUrl: where a starting navigation goes
    title: tab.title ?? "",
  };
  if (tab.openerTabId !== undefined && tab.openerTabId !== null) t.openerTabId = tab.openerTabId;
  t.active = Boolean(tab.active);
  return t;
}

/** The wire `tab` of a user's tab (tabs.query): `focused` marks the tab the user looks at. */
export function userTabInfo(tab) {
  const t = tabInfo(tab);
  if (tab.focused) t.focused = true;
  return t;
}

export function debuggerEvent(source, method, params) {
  const p = { tabId: source.tabId };
  if (source.sessionId) p.sessionId = source.sessionId;
  p.method = method;
  p.params = params ?? {};
  return event("debugger.event", p);
}

export function debuggerDetached(source, reason) {
  return event("debugger.detached", { tabId: source.tabId, reason: String(reason ?? "") });
}

export function encode(msg) {
  return JSON.stringify(msg);
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isInt = (v) => Number.isInteger(v);

function need(ok, what) {
  if (!ok) throw new ProtocolError(what);
}

function str(msg, key, kind) {
  need(typeof msg[key] === "string", `${kind}: "${key}" must be a string`);
  return msg[key];
}

function protocolField(msg, kind) {
  need(isInt(msg.protocol), `${kind}: "protocol" must be an integer`);
  return msg.protocol;
}

function tsField(msg, kind) {
  need(typeof msg.ts === "number" && Number.isFinite(msg.ts), `${kind}: "ts" must be a number`);
  return msg.ts;
}

function idField(msg) {
  need((typeof msg.id === "number" && Number.isFinite(msg.id)) || typeof msg.id === "string", `"id" must be a number`);
  return msg.id;
}

/** hello's optional profile_name: {profileName} when present, {} when not. */
function optionalProfileName(msg) {
  if (!("profile_name" in msg)) return {};
  need(typeof msg.profile_name === "string", `hello: "profile_name" must be a string`);
  return { profileName: msg.profile_name };
}

/** Parses one frame (text or an already decoded object). Throws ProtocolError. */
export function parseMessage(data) {
  let msg = data;
  if (typeof data === "string") {
    try {
      msg = JSON.parse(data);
    } catch {
      throw new ProtocolError("frame is not JSON");
    }
  }
  need(isObject(msg), "frame is not a JSON object");
  if ("type" in msg) {
    const kind = msg.type;
    switch (kind) {
      case "challenge":
        return { kind, protocol: protocolField(msg, kind), nonce: str(msg, "nonce", kind), server: str(msg, "server", kind) };
      case "hello":
        return {
          kind,
          protocol: protocolField(msg, kind),
          extensionVersion: str(msg, "extension_version", kind),
          profileId: str(msg, "profile_id", kind),
          ...optionalProfileName(msg),
          userAgent: str(msg, "user_agent", kind),
          proof: str(msg, "proof", kind),
        };
      case "pair":
        return {
          kind,
          protocol: protocolField(msg, kind),
          code: str(msg, "code", kind),
          extensionVersion: str(msg, "extension_version", kind),
          profileId: str(msg, "profile_id", kind),
          userAgent: str(msg, "user_agent", kind),
        };
      case "paired":
        return { kind, secret: str(msg, "secret", kind) };
      case "welcome":
        return { kind, protocol: protocolField(msg, kind) };
      case "refused":
        return { kind, reason: str(msg, "reason", kind), message: typeof msg.message === "string" ? msg.message : "" };
      case "ping":
      case "pong":
        return { kind, ts: tsField(msg, kind) };
      default:
        throw new ProtocolError(`unknown message type ${JSON.stringify(kind)}`);
    }
  }
  if ("event" in msg) {
    need(typeof msg.event === "string", `"event" must be a string`);
    need(isObject(msg.params), `event: "params" must be an object`);
    return { kind: "event", event: msg.event, params: msg.params };
  }
  if ("id" in msg) {
    const id = idField(msg);
    if ("op" in msg) {
      need(typeof msg.op === "string", `request: "op" must be a string`);
      need(msg.params === undefined || isObject(msg.params), `request: "params" must be an object`);
      return { kind: "request", id, op: msg.op, params: msg.params ?? {} };
    }
    if ("error" in msg) {
      need(isObject(msg.error), `error: "error" must be an object`);
      return { kind: "error", id, message: str(msg.error, "message", "error"), code: str(msg.error, "code", "error") };
    }
    if ("result" in msg) return { kind: "result", id, result: msg.result };
  }
  throw new ProtocolError("frame is neither a typed message, a request, a reply nor an event");
}

/** The wire object of a parsed message. */
export function build(m) {
  switch (m.kind) {
    case "challenge":
      return challenge(m);
    case "hello":
      return hello(m);
    case "pair":
      return pair(m);
    case "paired":
      return paired(m.secret);
    case "welcome":
      return welcome(m.protocol);
    case "refused":
      return refused(m.reason, m.message);
    case "ping":
      return ping(m.ts);
    case "pong":
      return pong(m.ts);
    case "request":
      return request(m.id, m.op, m.params);
    case "result":
      return result(m.id, m.result);
    case "error":
      return errorReply(m.id, m.message, m.code);
    case "event":
      return event(m.event, m.params);
    default:
      throw new ProtocolError(`unknown kind ${JSON.stringify(m.kind)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Requests: the allow-list. Each op checks its params and calls the api with only those.
//
// The api (background.js builds it from chrome.*; tests pass a fake):
//   api.tabs.list()                      -> chrome.tabs.Tab[] (agent and bound tabs only)
//   api.tabs.query()                     -> chrome.tabs.Tab[] with `focused` (the user's tabs)
//   api.tabs.bind({tabId, session?})     -> chrome.tabs.Tab (a user tab, now bound)
//   api.tabs.unbind({tabId})
//   api.tabs.create({url, session?})     -> chrome.tabs.Tab
//   api.tabs.close({tabId})
//   api.tabs.activate({tabId})
//   api.tabs.update({tabId, url})        -> chrome.tabs.Tab
//   api.debugger.attach({tabId})
//   api.debugger.detach({tabId})
//   api.debugger.send({tabId, sessionId?, method, params}) -> CDP result object
//   api.downloads.search(query)          -> chrome.downloads.DownloadItem[]
//   api.handoff.start({tabId, message, session?, kind?}) -> chrome.tabs.Tab (brought to the front)
//   api.handoff.end({tabId})
//   api.approval.ask({client, session, site, url, bind, tabId?, title?}) -> {answer} | {ask}
//   api.approval.end({ask})              -> the question withdrawn (nobody waits for it)
//   api.approval.rules()                 -> {rules: [{client, site, answer}]}
//   api.live.show({clients})             -> the daemon's record, kept for the popup
//
// downloads.find needs the Bridge's record of agent-tab downloads; Bridge.call runs it.

function badRequest(message) {
  return new BridgeError("bad_request", message);
}

function tabIdParam(p) {
  if (!Number.isInteger(p.tabId) || p.tabId < 0) throw badRequest(`"tabId" must be a tab id (integer)`);
  return p.tabId;
}

function urlParam(p, fallback) {
  if (p.url === undefined && fallback !== undefined) return fallback;
  if (typeof p.url !== "string" || p.url === "") throw badRequest(`"url" must be a non-empty string`);
  if (/^\s*javascript:/i.test(p.url)) throw new BridgeError("not_allowed", "javascript: URLs are not relayed");
  return p.url;
}

/** Adds the optional "session" param (the agent session the tab is for) to out. */
function sessionParam(p, out) {
  if (p.session !== undefined && p.session !== null) {
    if (typeof p.session !== "string" || p.session === "" || p.session.length > 100) throw badRequest(`"session" must be a session name`);
    out.session = p.session;
  }
  return out;
}

const OPS = {
  "tabs.list": {
    check: () => ({}),
    call: async (api) => ({ tabs: ((await api.tabs.list()) ?? []).map(tabInfo) }),
  },
  "tabs.query": {
    check: () => ({}),
    call: async (api) => ({ tabs: ((await api.tabs.query()) ?? []).map(userTabInfo) }),
  },
  "tabs.bind": {
    check: (p) => sessionParam(p, { tabId: tabIdParam(p) }),
    call: async (api, p) => tabInfo(await api.tabs.bind(p)),
  },
  "tabs.unbind": {
    check: (p) => ({ tabId: tabIdParam(p) }),
    call: async (api, p) => (await api.tabs.unbind(p), {}),
  },
  "tabs.create": {
    check: (p) => sessionParam(p, { url: urlParam(p, "about:blank") }),
    call: async (api, p) => tabInfo(await api.tabs.create(p)),
  },
  "tabs.close": {
    check: (p) => ({ tabId: tabIdParam(p) }),
    call: async (api, p) => (await api.tabs.close(p), {}),
  },
  "tabs.activate": {
    check: (p) => ({ tabId: tabIdParam(p) }),
    call: async (api, p) => (await api.tabs.activate(p), {}),
  },
  "tabs.update": {
    check: (p) => ({ tabId: tabIdParam(p), url: urlParam(p) }),
    call: async (api, p) => tabInfo(await api.tabs.update(p)),
  },
  "debugger.attach": {
    check: (p) => ({ tabId: tabIdParam(p) }),
    call: async (api, p) => (await api.debugger.attach(p), {}),
  },
  "debugger.detach": {
    check: (p) => ({ tabId: tabIdParam(p) }),
    call: async (api, p) => (await api.debugger.detach(p), {}),
  },
  "debugger.send": {
    check: (p) => {
      const out = { tabId: tabIdParam(p) };
      if (p.sessionId !== undefined && p.sessionId !== null) {
        if (typeof p.sessionId !== "string" || p.sessionId === "") throw badRequest(`"sessionId" must be a string`);
        out.sessionId = p.sessionId;
      }
      if (typeof p.method !== "string" || !/^[A-Za-z]+\.[A-Za-z0-9_]+$/.test(p.method)) {
        throw badRequest(`"method" must be a CDP method such as "Page.navigate"`);
      }
      out.method = p.method;
      if (p.params !== undefined && p.params !== null && !isObject(p.params)) throw badRequest(`"params" must be an object`);
      out.params = p.params ?? {};
      return out;
    },
    call: async (api, p) => (await api.debugger.send(p)) ?? {},
  },
  "handoff.start": {
    check: (p) => {
      const out = { tabId: tabIdParam(p) };
      if (typeof p.message !== "string" || p.message.trim() === "" || p.message.length > HANDOFF_MESSAGE_MAX) {
        throw badRequest(`"message" must be a non-empty string of at most ${HANDOFF_MESSAGE_MAX} characters`);
      }
      out.message = p.message.trim();
      if (p.session !== undefined && p.session !== null) {
        if (typeof p.session !== "string" || p.session === "" || p.session.length > 100) throw badRequest(`"session" must be a session name`);
        out.session = p.session;
      }
      // kind "record": the notice of a recording (REC, Stop) instead of a hand-off's.
      if (p.kind !== undefined && p.kind !== null) {
        if (p.kind !== "record") throw badRequest(`"kind" must be "record" or absent`);
        out.kind = p.kind;
      }
      return out;
    },
    call: async (api, p) => tabInfo(await api.handoff.start(p)),
  },
  "handoff.end": {
    check: (p) => ({ tabId: tabIdParam(p) }),
    call: async (api, p) => (await api.handoff.end(p), {}),
  },
  "approval.ask": {
    check: (p) => {
      const text = (name, optional) => {
        const v = p[name];
        if ((v === undefined || v === null || v === "") && optional) return "";
        if (typeof v !== "string" || v.length > APPROVAL_TEXT_MAX) throw badRequest(`"${name}" must be a string of at most ${APPROVAL_TEXT_MAX} characters`);
        return v;
      };
      const site = text("site");
      if (site === "") throw badRequest(`"site" must name the site`);
      const out = { client: text("client", true), session: text("session", true), site, url: text("url", true), bind: p.bind === true, title: text("title", true) };
      if (p.tabId !== undefined && p.tabId !== null) out.tabId = tabIdParam(p);
      if (out.bind && out.tabId === undefined) throw badRequest(`a bind's question needs its "tabId"`);
      return out;
    },
    call: async (api, p) => api.approval.ask(p),
  },
  "approval.end": {
    check: (p) => {
      if (typeof p.ask !== "string" || p.ask === "" || p.ask.length > 100) throw badRequest(`"ask" must be a question's id`);
      return { ask: p.ask };
    },
    call: async (api, p) => (await api.approval.end(p), {}),
  },
  "approval.rules": {
    check: () => ({}),
    call: async (api) => ({ rules: (await api.approval.rules()) ?? [] }),
  },
  "live.show": {
    check: (p) => {
      if (!Array.isArray(p.clients) || p.clients.length > LIVE_CLIENTS_MAX) throw badRequest(`"clients" must be a list of at most ${LIVE_CLIENTS_MAX} clients`);
      for (const c of p.clients) {
        if (!isObject(c) || typeof c.id !== "string" || c.id === "") throw badRequest(`each client needs its "id"`);
      }
      return { clients: p.clients.map(liveClient) };
    },
    call: async (api, p) => (await api.live.show(p), {}),
  },
  "downloads.find": {
    check: (p) => {
      const out = { tabId: tabIdParam(p) };
      if (typeof p.guid !== "string" || p.guid === "" || p.guid.length > 100) throw badRequest(`"guid" must be a download's guid (string)`);
      out.guid = p.guid;
      if (p.timeoutMs === undefined || p.timeoutMs === null) out.timeoutMs = DOWNLOAD_WAIT_DEFAULT_MS;
      else if (!Number.isInteger(p.timeoutMs) || p.timeoutMs < 0 || p.timeoutMs > DOWNLOAD_WAIT_MAX_MS) {
        throw badRequest(`"timeoutMs" must be an integer from 0 to ${DOWNLOAD_WAIT_MAX_MS}`);
      } else out.timeoutMs = p.timeoutMs;
      return out;
    },
    call: async () => {
      throw new BridgeError("failed", "downloads.find runs in the Bridge");
    },
  },
};

export const OP_NAMES = Object.freeze(Object.keys(OPS));

/** Checks `params` for `op`; returns the params the api gets. Throws BridgeError bad_request. */
export function checkRequest(op, params) {
  if (typeof op !== "string" || !Object.hasOwn(OPS, op)) throw badRequest(`unknown op ${JSON.stringify(op)}`);
  if (params !== undefined && !isObject(params)) throw badRequest(`"params" must be an object`);
  return OPS[op].check(params ?? {});
}

/** Runs one allow-listed op against the api and returns the wire result. */
export async function dispatch(api, op, params) {
  const p = checkRequest(op, params);
  return OPS[op].call(api, p);
}

// ---------------------------------------------------------------------------------------------
// Agent tabs: the agent window's tabs and tabs opened by them (popups), transitively.

export class AgentTabs {
  constructor() {
    this.windowId = null;
    this.ids = new Set();
    this.bound = new Set(); // user tabs webpilot bound (tabs.bind)
    this.released = new Set(); // agent tabs the user took (dragged out of the group or window)
  }

  /** The user took an agent tab: from now on it is the user's. */
  release(tabId) {
    this.ids.delete(tabId);
    this.released.add(tabId);
  }

  /** Binds a user's tab: from now on it is relayed like an agent tab. */
  bind(tabId) {
    this.bound.add(tabId);
    this.ids.add(tabId);
  }

  /** Releases a bound tab; true when it was bound. */
  unbind(tabId) {
    if (!this.bound.delete(tabId)) return false;
    this.ids.delete(tabId);
    return true;
  }

  /** Recomputes the set from every open tab. */
  reset(windowId, allTabs) {
    this.windowId = windowId ?? null;
    this.ids = new Set(this.select(allTabs).map((t) => t.id));
  }

  /** The agent tabs among allTabs (keeps known ids whose opener chain is gone). */
  select(allTabs) {
    const ids = new Set();
    for (const t of allTabs) {
      if (this.released.has(t.id)) continue;
      if ((this.windowId !== null && t.windowId === this.windowId) || this.ids.has(t.id) || this.bound.has(t.id)) ids.add(t.id);
    }
    for (let grew = true; grew; ) {
      grew = false;
      for (const t of allTabs) {
        if (!ids.has(t.id) && !this.released.has(t.id) && t.openerTabId !== undefined && ids.has(t.openerTabId)) {
          ids.add(t.id);
          grew = true;
        }
      }
    }
    return allTabs.filter((t) => ids.has(t.id));
  }

  /** Refreshes the set from every open tab and returns the agent tabs. */
  refresh(allTabs) {
    const tabs = this.select(allTabs);
    this.ids = new Set(tabs.map((t) => t.id));
    return tabs;
  }

  isAgent(tab) {
    if (this.released.has(tab.id)) return false;
    return (
      this.ids.has(tab.id) ||
      (this.windowId !== null && tab.windowId === this.windowId) ||
      (tab.openerTabId !== undefined && this.ids.has(tab.openerTabId))
    );
  }

  /** Adds tab if it belongs to the agent; true when it was not known before. */
  add(tab) {
    if (this.ids.has(tab.id) || !this.isAgent(tab)) return false;
    this.ids.add(tab.id);
    return true;
  }

  has(tabId) {
    return this.ids.has(tabId);
  }

  /** Forgets tabId; true when it was an agent tab. */
  remove(tabId) {
    return this.ids.delete(tabId);
  }
}

// ---------------------------------------------------------------------------------------------
// The popup's list of sessions: webpilot's tabs by the agent session they are for.

/** The session a tab group's title names: "x" for `webpilot · x`, "" for `webpilot`, else null. */
export function groupSession(title) {
  const t = title ?? "";
  if (t === GROUP_TITLE) return "";
  const prefix = `${GROUP_TITLE} · `;
  return t.startsWith(prefix) ? t.slice(prefix.length) : null;
}

/**
 * The popup's sessions: [{session, tabs: [{tabId, title, url, bound}]}], sessions by name, tabs
 * in the order given. tabs are webpilot's tabs (AgentTabs.refresh); groups the tab groups
 * (chrome.tabGroups.query); bound the ids of bound tabs; boundSessions {tabId: session} as
 * tabs.bind was told. An agent tab is its group's session's; one in no webpilot group (a popup
 * an agent tab opened) is its opener's; a bound tab is the session that bound it. "" is a tab
 * with no session name.
 */
export function sessionsOf({ tabs, groups = [], bound = new Set(), boundSessions = {} }) {
  const titles = new Map(groups.map((g) => [g.id, g.title ?? ""]));
  const of = new Map(); // tabId -> session
  const pending = [];
  for (const t of tabs) {
    if (bound.has(t.id)) of.set(t.id, boundSessions[t.id] ?? "");
    else {
      const s = t.groupId !== undefined && t.groupId !== -1 ? groupSession(titles.get(t.groupId)) : null;
      if (s !== null) of.set(t.id, s);
      else pending.push(t);
    }
  }
  // Popups: their opener's session, through chains of openers.
  for (let grew = true; grew && pending.length; ) {
    grew = false;
    for (let i = pending.length - 1; i >= 0; i--) {
      const t = pending[i];
      if (t.openerTabId !== undefined && of.has(t.openerTabId)) {
        of.set(t.id, of.get(t.openerTabId));
        pending.splice(i, 1);
        grew = true;
      }
    }
  }
  for (const t of pending) of.set(t.id, "");
  const bySession = new Map();
  for (const t of tabs) {
    const s = of.get(t.id);
    if (!bySession.has(s)) bySession.set(s, []);
    bySession.get(s).push({ tabId: t.id, title: t.title ?? "", url: t.pendingUrl || t.url || "", bound: bound.has(t.id) });
  }
  return [...bySession.keys()].sort().map((session) => ({ session, tabs: bySession.get(session) }));
}

// ---------------------------------------------------------------------------------------------
// Downloads of agent tabs. chrome.downloads items carry no tab id, so the extension remembers
// the Page.downloadWillBegin events of the tabs it attached (tab, guid, url, when) and matches
// Chrome's items to them by URL (item.url or finalUrl) and start time: the earliest item not
// matched yet that started at most DOWNLOAD_MATCH_WINDOW_MS before the event arrived. Only
// downloads so remembered are ever described to webpilot: the user's other downloads stay
// private.

export class AgentDownloads {
  constructor() {
    this.begun = []; // {tabId, guid, url, at, itemId}, oldest first
  }

  /** Page.downloadWillBegin in attached tab tabId, seen at time at (ms). */
  began(tabId, params, at) {
    if (!isObject(params) || typeof params.guid !== "string" || typeof params.url !== "string") return;
    if (this.get(tabId, params.guid)) return;
    this.begun.push({ tabId, guid: params.guid, url: params.url, at, itemId: null });
    if (this.begun.length > DOWNLOADS_REMEMBERED) this.begun.shift();
  }

  get(tabId, guid) {
    return this.begun.find((r) => r.tabId === tabId && r.guid === guid) ?? null;
  }

  /** The chrome.downloads item among items that is rec's download (claimed for it), or null. */
  match(rec, items) {
    if (rec.itemId !== null) return items.find((i) => i.id === rec.itemId) ?? null;
    const taken = new Set(this.begun.filter((r) => r.itemId !== null).map((r) => r.itemId));
    const from = rec.at - DOWNLOAD_MATCH_WINDOW_MS;
    const started = (i) => Date.parse(i.startTime);
    const cands = items
      .filter((i) => !taken.has(i.id) && (i.url === rec.url || i.finalUrl === rec.url) && started(i) >= from)
      .sort((a, b) => started(a) - started(b) || a.id - b.id);
    if (cands.length === 0) return null;
    rec.itemId = cands[0].id;
    return cands[0];
  }
}

/** What downloads.find answers about a chrome.downloads item. */
export function downloadInfo(item) {
  const out = {
    id: item.id,
    url: item.url ?? "",
    finalUrl: item.finalUrl ?? item.url ?? "",
    filename: item.filename ?? "",
    mime: item.mime ?? "",
    state: item.state ?? "in_progress",
    bytesReceived: item.bytesReceived ?? 0,
    totalBytes: item.totalBytes ?? -1,
    fileSize: item.fileSize ?? -1,
    danger: item.danger ?? "safe",
    exists: item.exists ?? true,
  };
  if (item.error) out.error = item.error;
  return out;
}

// ---------------------------------------------------------------------------------------------
// The connection.

const OPEN = 1;
const DISCONNECTED_MESSAGE = "webpilot cannot use this browser until you press Connect";
const noop = () => {};
const quietLogger = { debug: noop, info: noop, warn: noop, error: noop };

/**
 * Bridge keeps one connection to webpilot: it dials, proves the secret (or pairs), answers
 * requests, forwards events, sends the heartbeat and reconnects.
 *
 * deps:
 *   WebSocket        constructor(url) with onopen/onmessage/onerror/onclose, send, close, readyState
 *   setTimeout, clearTimeout, now
 *   storage          {get(keys), set(items), remove(keys)} — chrome.storage.local
 *   subtle           WebCrypto SubtleCrypto; getRandomValues(typedArray)
 *   api              see dispatch above
 *   userAgent        navigator.userAgent
 *   logger           {debug, info, warn, error} (optional)
 *   onStatus(status) called on every change (optional)
 *   onAttachedChange(tabIds) called when the set of debugger-attached tabs changes (optional)
 *
 * States: "starting", "unpaired" (no secret: nothing to dial), "connecting" (dialled, handshake
 * running), "connected" (welcome received), "retrying" (backoff timer pending), "refused"
 * (unauthorized or version: waits for a storage change or the alarm), "disconnected" (the user
 * pressed Disconnect: nothing dials until Connect), "stopped".
 *
 * Debugger sessions belong to one connection: when it ends, and again when the next one is
 * welcomed, the extension detaches every tab it had attached, so a new server starts clean.
 */
export class Bridge {
  constructor(deps) {
    this.d = {
      logger: quietLogger,
      onStatus: noop,
      onAttachedChange: noop,
      now: () => Date.now(),
      userAgent: "",
      brands: [], // navigator.userAgentData.brands: names the profile by default
      ...deps,
    };
    this.log = this.d.logger;
    this.config = null;
    this.conn = null;
    this.retryTimer = null;
    this.backoff = BACKOFF_MIN_MS;
    this.pending = null; // {code, resolve} while a pairing code waits for its answer
    this.attached = new Set();
    this.simulatedCancels = new Set(); // tabs cancelDebuggingForTest is detaching
    this.lastDetach = null; // the last chrome.debugger.onDetach, as Chrome reported it
    this.downloads = new AgentDownloads();
    this.cleanup = Promise.resolve();
    this.configLock = Promise.resolve();
    this.stopped = false;
    this.st = { state: "starting", message: "starting", reason: null, retryAt: null, server: null };
  }

  // --- public -------------------------------------------------------------------------------

  /** Loads the configuration and connects when it can. */
  async start() {
    await this.reloadConfig();
    this.connect();
  }

  /** Alarm, idle or startup: reload the configuration, then connect unless connected. */
  async wake(why = "wake") {
    if (this.stopped) return;
    await this.reloadConfig();
    if (this.active()) return;
    this.log.debug(`webpilot: ${why}: connecting`);
    this.connect();
  }

  /**
   * chrome.storage changed: reconnect when the connection in use was dialled with another port
   * or secret; dial now when not connected.
   */
  async reconfigure() {
    if (this.stopped) return;
    const c = await this.reloadConfig();
    const conn = this.conn;
    const stale = conn && !conn.done && conn.phase !== "done" && !conn.pairing;
    const renamed = conn && conn.phase === "ready" && conn.profileName !== undefined && conn.profileName !== c.profileName;
    if (stale && (conn.port !== c.port || conn.secret !== c.secret || renamed)) {
      this.drop("configuration changed");
      this.backoff = BACKOFF_MIN_MS;
    }
    if (!this.active()) this.connect();
  }

  /**
   * Dials the pairing's port with a pair message carrying code (see parsePairing: the code may
   * end in "@<port>", port is the popup's port field; neither: DEFAULT_PORT). Resolves {ok,
   * message} once the server answered (or the attempt failed); on success the secret and the port
   * are stored together, and the extension reconnects — to that port, from then on. A failed
   * attempt keeps the pairing (secret and port) there was.
   */
  async pair(code, port) {
    const typed = parsePairing(code, port);
    if (typed.error) return { ok: false, message: typed.error };
    if (!this.config) await this.reloadConfig();
    if (this.config.disconnected) await this.setDisconnected(false); // pairing is asking to connect
    if (this.pending) this.finishPairing(false, "replaced by a newer pairing attempt");
    const outcome = new Promise((resolve) => {
      this.pending = { code: typed.code, port: typed.port, resolve };
    });
    this.drop("pairing");
    this.backoff = BACKOFF_MIN_MS;
    this.stopped = false;
    this.connect();
    return outcome;
  }

  /**
   * Names this profile (the popup's Rename): name is stored and told to webpilot by reconnecting;
   * "" goes back to the default name. Resolves {ok, message}.
   */
  async rename(name) {
    const { name: clean, error } = checkProfileName(name);
    if (error) return { ok: false, message: `not a profile name: ${error}` };
    if (clean === "") await this.d.storage.remove([STORAGE_KEYS.profileName]);
    else await this.d.storage.set({ [STORAGE_KEYS.profileName]: clean });
    await this.reconfigure();
    return { ok: true, message: `this profile is now called ${this.config.profileName}` };
  }

  /** Forgets the secret and disconnects. */
  async unpair() {
    if (this.pending) this.finishPairing(false, "unpaired");
    this.drop("unpaired");
    if (this.config) this.config.secret = null;
    await this.d.storage.remove([STORAGE_KEYS.secret]);
    this.connect(); // no secret: settles in "unpaired"
  }

  /**
   * The popup's Disconnect: closes the connection and stays disconnected — across alarms, idle
   * wakes, storage changes and worker restarts (the flag is in storage) — until resume().
   */
  async disconnect() {
    if (this.pending) this.finishPairing(false, "disconnected by you");
    await this.setDisconnected(true);
    this.drop("disconnected by you");
    this.setState("disconnected", DISCONNECTED_MESSAGE);
  }

  /** The popup's Connect: forgets the user's Disconnect and dials now. */
  async resume() {
    await this.setDisconnected(false);
    this.backoff = BACKOFF_MIN_MS;
    this.connect();
  }

  /** Stores the user's Disconnect (true) or forgets it (false), and reloads the configuration. */
  async setDisconnected(on) {
    if (on) await this.d.storage.set({ [DISCONNECTED_KEY]: true });
    else await this.d.storage.remove([DISCONNECTED_KEY]);
    // Reloading through the lock orders this after any reload already running (a wake's), so
    // none of those can bring back the old flag.
    await this.reloadConfig();
  }

  /** Stops for good (tests). */
  stop() {
    this.stopped = true;
    if (this.pending) this.finishPairing(false, "stopped");
    this.drop("stopped");
    this.setState("stopped", "stopped");
  }

  /** Dials now unless connected, dialling, unpaired or stopped. */
  connect() {
    if (this.stopped || this.active()) return;
    this.clearRetry();
    if (!this.config) {
      this.reloadConfig().then(() => this.connect(), (e) => this.log.error("webpilot: config", e));
      return;
    }
    if (!this.config.secret && !this.pending) {
      this.setState("unpaired", "not paired: run `webpilot pair` and type its code in the extension popup");
      return;
    }
    if (this.config.disconnected && !this.pending) {
      this.setState("disconnected", DISCONNECTED_MESSAGE);
      return;
    }
    this.dial();
  }

  /** Restores the debugger-attached tabs remembered across a service worker restart. */
  restoreAttached(tabIds) {
    for (const id of tabIds ?? []) if (Number.isInteger(id)) this.attached.add(id);
  }

  /** Sends an event when connected; true if sent. */
  sendEvent(name, params) {
    if (!EVENT_NAMES.includes(name)) throw new ProtocolError(`unknown event ${JSON.stringify(name)}`);
    return this.sendReady(event(name, params));
  }

  /** chrome.debugger.onEvent: forwarded only for tabs this extension attached. */
  debuggerEvent(source, method, params) {
    if (!source || !this.attached.has(source.tabId)) return false;
    if (method === "Page.downloadWillBegin") this.downloads.began(source.tabId, params, this.d.now());
    return this.sendReady(debuggerEvent(source, method, params));
  }

  /** chrome.debugger.onDetach: forwarded only for tabs this extension attached. */
  debuggerDetached(source, reason) {
    if (!source) return false;
    this.lastDetach = { tabId: source.tabId, reason: String(reason ?? "") }; // as Chrome said it
    if (!this.attached.has(source.tabId)) return false;
    if (this.simulatedCancels.has(source.tabId)) reason = "canceled_by_user";
    this.setAttached(source.tabId, false);
    return this.sendReady(debuggerDetached(source, reason));
  }

  /**
   * Test hook, not a protocol op (nothing on the wire can call it; a test calls it through a
   * DevTools session on the service worker): ends the debugging of an attached tab as the user's
   * Cancel on Chrome's debugging bar does. What is real: chrome.debugger.detach really detaches
   * the tab. What is simulated: the reason. Chrome reports canceled_by_user only for the bar's
   * button (no API clicks it, and headless Chrome with --silent-debugger-extension-api shows no
   * bar); a detach the extension asks for itself reports no onDetach at all, or (should Chrome
   * report one) another reason. So the server is sent canceled_by_user for this tab either way.
   * Returns what Chrome itself reported (lastDetach: null if nothing).
   */
  async cancelDebuggingForTest(tabId) {
    if (!this.attached.has(tabId)) throw new BridgeError("not_allowed", `tab ${tabId} is not attached`);
    this.lastDetach = null;
    this.simulatedCancels.add(tabId);
    try {
      await this.d.api.debugger.detach({ tabId });
      const reported = this.lastDetach;
      if (this.attached.has(tabId)) this.debuggerDetached({ tabId }, "canceled_by_user");
      return { chromeReported: reported };
    } finally {
      this.simulatedCancels.delete(tabId);
    }
  }

  /**
   * What the popup shows. port is the port dialled: a pairing attempt's while one runs, else the
   * one stored with the pairing (DEFAULT_PORT when none is); defaultPort is DEFAULT_PORT.
   */
  status() {
    const c = this.config;
    const port = this.pending ? this.pending.port : c ? c.port : DEFAULT_PORT;
    return {
      ...this.st,
      paired: Boolean(c && c.secret),
      disconnected: Boolean(c && c.disconnected),
      pairing: Boolean(this.pending),
      port,
      defaultPort: DEFAULT_PORT,
      url: bridgeURL(port),
      profileId: c ? c.profileId : null,
      profileName: c ? c.profileName : null,
      extensionVersion: EXTENSION_VERSION,
      protocol: PROTOCOL_VERSION,
      problems: c ? c.problems : [],
    };
  }

  // --- internals ----------------------------------------------------------------------------

  active() {
    return Boolean(this.conn && !this.conn.done);
  }

  reloadConfig() {
    const next = this.configLock.then(async () => {
      const c = await loadConfig(this.d.storage, this.d.getRandomValues);
      const named = await loadProfileName(this.d.storage, this.d.brands, c.profileId);
      c.profileName = named.profileName;
      if (named.problem) c.problems.push(named.problem);
      for (const p of c.problems) this.log.warn(`webpilot: ${p}`);
      this.config = c;
      return c;
    });
    this.configLock = next.catch(noop);
    return next;
  }

  setState(state, message, extra = {}) {
    this.st = { state, message, reason: extra.reason ?? null, retryAt: extra.retryAt ?? null, server: extra.server ?? null };
    try {
      this.d.onStatus(this.status());
    } catch (e) {
      this.log.error("webpilot: onStatus", e);
    }
  }

  clearRetry() {
    if (this.retryTimer !== null) {
      this.d.clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
  }

  dial() {
    // A pairing attempt dials the port it pairs on; everything else the port stored with the
    // pairing.
    const port = this.pending ? this.pending.port : this.config.port;
    const url = bridgeURL(port);
    const conn = {
      url,
      port, // what this connection was dialled with
      secret: this.config.secret,
      ws: null,
      phase: "challenge", // challenge -> welcome | paired -> ready
      opened: false,
      done: false,
      pairing: this.pending, // the pairing attempt this connection carries, if any
      code: this.pending ? this.pending.code : null,
      lastSeen: this.d.now(),
      timers: new Set(),
      next: null, // what to do after close: "now" | {refused}
      server: null,
    };
    this.conn = conn;
    this.setState("connecting", `connecting to ${url}`);
    let ws;
    try {
      ws = new this.d.WebSocket(url);
    } catch (e) {
      conn.closeMessage = `cannot dial ${url}: ${e.message ?? e}`;
      this.finish(conn, {});
      return;
    }
    conn.ws = ws;
    ws.onopen = () => {
      if (conn.done) return;
      conn.opened = true;
      conn.lastSeen = this.d.now();
    };
    ws.onmessage = (ev) => {
      if (conn.done) return;
      conn.lastSeen = this.d.now();
      this.onFrame(conn, ev.data);
    };
    ws.onerror = () => {}; // the close event follows and says what happened
    ws.onclose = (ev) => this.finish(conn, { code: ev?.code, reason: ev?.reason });
    this.later(conn, HANDSHAKE_TIMEOUT_MS, () => {
      if (conn.phase !== "ready") this.close(conn, `no answer from webpilot at ${url} within ${HANDSHAKE_TIMEOUT_MS / 1000} s`);
    });
  }

  later(conn, ms, fn) {
    const t = this.d.setTimeout(() => {
      conn.timers.delete(t);
      if (!conn.done) fn();
    }, ms);
    conn.timers.add(t);
    return t;
  }

  send(conn, msg) {
    if (conn.done || !conn.ws || conn.ws.readyState !== OPEN) return false;
    try {
      conn.ws.send(encode(msg));
      return true;
    } catch (e) {
      this.log.warn("webpilot: send failed", e);
      return false;
    }
  }

  sendReady(msg) {
    const conn = this.conn;
    if (!conn || conn.phase !== "ready") return false;
    return this.send(conn, msg);
  }

  /** Closes conn on our side with a message that becomes the status. */
  close(conn, message, next = null) {
    if (conn.done) return;
    conn.closeMessage = message;
    if (next) conn.next = next;
    try {
      conn.ws?.close(1000);
    } catch {
      // already closing
    }
    this.finish(conn, {});
  }

  /** Drops the current connection without scheduling anything (a new one follows). */
  drop(why) {
    const conn = this.conn;
    this.clearRetry();
    if (!conn || conn.done) return;
    conn.next = "none";
    this.close(conn, why);
  }

  onFrame(conn, data) {
    let m;
    try {
      m = parseMessage(data);
    } catch (e) {
      if (conn.phase !== "ready") return this.close(conn, `webpilot sent a bad handshake message: ${e.message}`);
      // A request we cannot read but whose id we can see still gets an answer.
      let id;
      try {
        id = JSON.parse(data)?.id;
      } catch {
        // no id
      }
      if (typeof id === "number" || typeof id === "string") this.send(conn, errorReply(id, e.message, "bad_request"));
      else this.log.warn(`webpilot: ignoring bad frame: ${e.message}`);
      return;
    }
    switch (conn.phase) {
      case "challenge":
        if (m.kind === "refused") return this.onRefused(conn, m);
        if (m.kind !== "challenge") return this.close(conn, `expected a challenge from webpilot, got ${m.kind}`);
        conn.server = m.server;
        return this.answerChallenge(conn, m);
      case "welcome":
        if (m.kind === "refused") return this.onRefused(conn, m);
        if (m.kind !== "welcome") return this.close(conn, `expected welcome from webpilot, got ${m.kind}`);
        return this.onWelcome(conn);
      case "paired":
        if (m.kind === "refused") return this.onRefused(conn, m);
        if (m.kind !== "paired") return this.close(conn, `expected paired from webpilot, got ${m.kind}`);
        return this.onPaired(conn, m);
      case "ready":
        if (m.kind === "request") return this.onRequest(conn, m);
        if (m.kind === "pong" || m.kind === "ping") return; // lastSeen is already updated
        if (m.kind === "refused") return this.onRefused(conn, m);
        this.log.warn(`webpilot: ignoring unexpected ${m.kind}`);
        return;
      default:
        return;
    }
  }

  async answerChallenge(conn, m) {
    const c = this.config;
    if (conn.code !== null) {
      conn.phase = "paired";
      this.send(conn, pair({ code: conn.code, profileId: c.profileId, userAgent: this.d.userAgent }));
      return;
    }
    if (!c.secret) return this.close(conn, "not paired", "none");
    let proof;
    try {
      proof = await computeProof(this.d.subtle, c.secret, m.nonce);
    } catch (e) {
      return this.close(conn, `cannot answer the challenge: ${e.message ?? e}`);
    }
    if (conn.done) return;
    conn.phase = "welcome";
    conn.profileName = c.profileName; // what this connection told the server
    this.send(conn, hello({ profileId: c.profileId, profileName: c.profileName, userAgent: this.d.userAgent, proof }));
  }

  onWelcome(conn) {
    conn.phase = "ready";
    this.backoff = BACKOFF_MIN_MS;
    for (const t of conn.timers) this.d.clearTimeout(t);
    conn.timers.clear();
    // A new server knows none of the earlier debugger sessions: end them before any request.
    this.cleanup = this.cleanup.then(() => this.detachAll("new connection"));
    this.setState("connected", `connected to ${conn.server ?? "webpilot"} on port ${conn.port}`, {
      server: conn.server,
    });
    this.log.info(`webpilot: connected to ${conn.url}`);
    this.heartbeat(conn);
  }

  heartbeat(conn) {
    this.later(conn, HEARTBEAT_MS, () => {
      if (this.d.now() - conn.lastSeen >= SILENCE_MS) {
        return this.close(conn, `webpilot has not answered for ${SILENCE_MS / 1000} s`);
      }
      this.send(conn, ping(this.d.now()));
      this.heartbeat(conn);
    });
  }

  onPaired(conn, m) {
    const secret = parseSecret(m.secret);
    if (!secret) return this.close(conn, "webpilot sent an invalid secret");
    // Settle everything before the server's close arrives: the secret and the port paired on
    // are in use from now on, the pairing is done, and whatever closes this socket reconnects at
    // once with hello, to that port.
    this.config.secret = secret;
    this.config.port = conn.port;
    conn.phase = "done";
    conn.next = "now";
    this.finishPairing(true, "paired");
    this.log.info(`webpilot: paired on port ${conn.port}`);
    this.d.storage.set({ [STORAGE_KEYS.secret]: secret, [STORAGE_KEYS.port]: conn.port }).then(
      () => this.close(conn, "paired", "now"),
      (e) => {
        const problem = `paired, but the secret could not be stored (pair again after a browser restart): ${e?.message ?? e}`;
        this.config.problems = [...this.config.problems, problem];
        this.log.error(`webpilot: ${problem}`);
        this.close(conn, "paired", "now");
      },
    );
  }

  onRefused(conn, m) {
    const message = m.message || `refused: ${m.reason}`;
    this.log.warn(`webpilot: refused (${m.reason}): ${message}`);
    if (conn.pairing && this.pending === conn.pairing) this.finishPairing(false, message);
    this.close(conn, message, { refused: m.reason });
  }

  finishPairing(ok, message) {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    p.resolve({ ok, message });
  }

  finish(conn, { code, reason }) {
    if (conn.done) return;
    conn.done = true;
    conn.phase = conn.phase === "ready" ? "closed-ready" : "closed";
    for (const t of conn.timers) this.d.clearTimeout(t);
    conn.timers.clear();
    if (conn.ws) {
      conn.ws.onopen = conn.ws.onmessage = conn.ws.onerror = conn.ws.onclose = null;
    }
    const wasReady = conn.phase === "closed-ready";
    if (wasReady) this.cleanup = this.cleanup.then(() => this.detachAll("connection closed"));
    let message = conn.closeMessage;
    if (!message) {
      if (!conn.opened) message = `webpilot is not reachable at ${conn.url} (is it running?)`;
      else if (wasReady) message = `connection to webpilot lost${code ? ` (close ${code}${reason ? `: ${reason}` : ""})` : ""}`;
      else message = `webpilot closed the connection during the handshake${code ? ` (close ${code})` : ""}`;
    }
    if (conn.pairing && this.pending === conn.pairing) {
      this.finishPairing(false, conn.opened ? message : `${message}; start \`webpilot pair\` and try again`);
    }
    if (this.conn === conn) this.conn = null;
    if (this.stopped || conn.next === "none") return;
    if (conn.next === "now") {
      this.backoff = BACKOFF_MIN_MS;
      this.connect();
      return;
    }
    const refusedReason = conn.next && conn.next.refused;
    if (!this.config.secret && !this.pending) {
      this.setState("unpaired", refusedReason === "pairing" ? `pairing failed: ${message}` : message, {
        reason: refusedReason ?? null,
      });
      return;
    }
    if (refusedReason === "unauthorized" || refusedReason === "version" || refusedReason === "extension") {
      // Do not hammer: a storage change (new secret or port) or the alarm tries again.
      this.setState("refused", message, { reason: refusedReason });
      return;
    }
    this.scheduleRetry(message, refusedReason ?? (conn.opened ? "closed" : "unreachable"));
  }

  scheduleRetry(message, reason) {
    const delay = this.backoff;
    this.backoff = Math.min(this.backoff * 2, BACKOFF_MAX_MS);
    this.clearRetry();
    const retryAt = this.d.now() + delay;
    this.retryTimer = this.d.setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delay);
    this.setState("retrying", message, { reason, retryAt });
  }

  async onRequest(conn, m) {
    await this.cleanup;
    let reply;
    try {
      reply = result(m.id, await this.call(m.op, m.params));
    } catch (e) {
      const w = toWireError(e);
      if (!(e instanceof BridgeError)) this.log.debug(`webpilot: ${m.op} failed: ${w.message}`);
      reply = errorReply(m.id, w.message, w.code);
    }
    this.send(conn, reply);
  }

  async call(op, params) {
    const p = checkRequest(op, params);
    if (op === "debugger.attach") {
      try {
        await dispatch(this.d.api, op, p);
      } catch (e) {
        // Attached by this extension already (say, before a service worker restart): keep it.
        if (!(this.attached.has(p.tabId) && /already attached/i.test(String(e?.message)))) throw e;
      }
      this.setAttached(p.tabId, true);
      return {};
    }
    if (op === "debugger.detach") {
      try {
        return await dispatch(this.d.api, op, p);
      } finally {
        this.setAttached(p.tabId, false);
      }
    }
    if (op === "downloads.find") return this.findDownload(p);
    if (op === "tabs.unbind" && this.attached.has(p.tabId)) {
      // Released: the debugger goes, the tab stays as the user has it.
      try {
        await this.d.api.debugger.detach({ tabId: p.tabId });
      } catch {
        // detached or gone already
      }
      this.setAttached(p.tabId, false);
    }
    return dispatch(this.d.api, op, p);
  }

  /**
   * downloads.find: the chrome.downloads item of a download an agent tab began, once it has
   * ended (complete or interrupted), or as it is when timeoutMs passes.
   */
  async findDownload({ tabId, guid, timeoutMs }) {
    const rec = this.downloads.get(tabId, guid);
    if (!rec) throw new BridgeError("not_allowed", `no download ${guid} began in webpilot tab ${tabId}`);
    const deadline = this.d.now() + timeoutMs;
    const query = { startedAfter: new Date(rec.at - DOWNLOAD_MATCH_WINDOW_MS).toISOString() };
    for (;;) {
      const item = this.downloads.match(rec, (await this.d.api.downloads.search(query)) ?? []);
      if (item && item.state !== "in_progress") return downloadInfo(item);
      if (this.d.now() >= deadline) {
        if (item) return downloadInfo(item);
        throw new BridgeError("failed", `Chrome lists no download of ${rec.url}`);
      }
      await new Promise((resolve) => this.d.setTimeout(resolve, DOWNLOAD_POLL_MS));
    }
  }

  /**
   * The user took an agent tab out of webpilot's group or window: the debugger goes and the
   * server hears `debugger.detached` with reason `released_by_user`.
   */
  async releaseByUser(tabId) {
    if (!this.attached.has(tabId)) return;
    try {
      await this.d.api.debugger.detach({ tabId });
    } catch {
      // gone already
    }
    this.setAttached(tabId, false);
    this.sendEvent("debugger.detached", { tabId, reason: "released_by_user" });
  }

  setAttached(tabId, on) {
    const had = this.attached.has(tabId);
    if (on === had) return;
    if (on) this.attached.add(tabId);
    else this.attached.delete(tabId);
    try {
      this.d.onAttachedChange([...this.attached]);
    } catch (e) {
      this.log.error("webpilot: onAttachedChange", e);
    }
  }

  async detachAll(why) {
    const ids = [...this.attached];
    if (ids.length === 0) return;
    this.log.info(`webpilot: ${why}: detaching the debugger from tabs ${ids.join(", ")}`);
    for (const tabId of ids) {
      try {
        await this.d.api.debugger.detach({ tabId });
      } catch {
        // gone already
      }
      this.setAttached(tabId, false);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The person in charge: approvals per client and site, and the live view of the clients.

/** A live client as the popup shows it: only the known fields, strings bounded. */
export function liveClient(c) {
  const str = (v, max = 200) => (typeof v === "string" ? v.slice(0, max) : "");
  const state = ["running", "paused", "stopped"].includes(c.state) ? c.state : "running";
  const sessions = Array.isArray(c.sessions) ? c.sessions.slice(0, 32) : [];
  return {
    id: str(c.id, 100),
    name: str(c.name, 100) || "(unnamed client)",
    state,
    calls: Number.isInteger(c.calls) ? c.calls : 0,
    last: str(c.last, 300),
    lastAt: Number.isFinite(c.lastAt) ? c.lastAt : 0,
    sessions: sessions.filter(isObject).map((x) => ({ name: str(x.name, 200), group: str(x.group, 200), url: str(x.url, 300) })),
  };
}

/** The key of a rule: a client on a site. */
export function ruleKey(client, site) {
  return `${client}\n${site}`;
}

/**
 * Approvals: the person's remembered answers (rules, in chrome.storage.local) and the questions
 * waiting for them (in chrome.storage.session, so a restarted worker and the popup know them).
 * The storage areas are injected; ids come from newId.
 */
export class Approvals {
  constructor({ local, session, newId, now }) {
    this.local = local;
    this.session = session;
    this.newId = newId;
    this.now = now;
    this.queue = Promise.resolve(); // one change at a time
  }

  serial(fn) {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => {});
    return run;
  }

  async rules() {
    const s = await this.local.get(APPROVALS_KEY);
    return s[APPROVALS_KEY] ?? {};
  }

  async asks() {
    const s = await this.session.get("asks");
    return s.asks ?? {};
  }

  /** approval.ask: a rule's answer at once (never for a bind), else the question's id. */
  ask(q) {
    return this.serial(async () => {
      if (!q.bind) {
        const rule = (await this.rules())[ruleKey(q.client, q.site)];
        if (rule && (rule.answer === "always" || rule.answer === "deny")) return { answer: rule.answer };
      }
      const asks = await this.asks();
      const same = Object.values(asks).find(
        (a) => a.client === q.client && a.session === q.session && a.site === q.site && a.bind === q.bind && (a.tabId ?? null) === (q.tabId ?? null),
      );
      if (same) return { ask: same.ask, created: false };
      const ask = this.newId();
      asks[ask] = { ...q, ask, since: this.now() };
      await this.session.set({ asks });
      return { ask, created: true };
    });
  }

  /** The person answered: the question goes, a rule is kept (always; deny unless a bind). */
  answer(ask, answer) {
    return this.serial(async () => {
      if (!ANSWERS.includes(answer)) return { ok: false, message: `not an answer: ${answer}` };
      const asks = await this.asks();
      const q = asks[ask];
      if (!q) return { ok: false, message: "that question is no longer open" };
      delete asks[ask];
      await this.session.set({ asks });
      if (answer === "always" || (answer === "deny" && !q.bind)) {
        const rules = await this.rules();
        rules[ruleKey(q.client, q.site)] = { client: q.client, site: q.site, answer, at: this.now() };
        await this.local.set({ [APPROVALS_KEY]: rules });
      }
      return { ok: true, question: q };
    });
  }

  /** The server withdrew a question: nobody waits for its answer. */
  withdraw(ask) {
    return this.serial(async () => {
      const asks = await this.asks();
      if (!(ask in asks)) return false;
      delete asks[ask];
      await this.session.set({ asks });
      return true;
    });
  }

  /** The person revoked a rule. */
  revoke(client, site) {
    return this.serial(async () => {
      const rules = await this.rules();
      const key = ruleKey(client, site);
      if (!(key in rules)) return { ok: false, message: "no such rule" };
      delete rules[key];
      await this.local.set({ [APPROVALS_KEY]: rules });
      return { ok: true };
    });
  }
}
