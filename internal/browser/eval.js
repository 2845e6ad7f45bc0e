// browser_eval's result, as JSON text, in the page's own world: called with
// this bound to the value (an object) or with the value as the first
// argument (a primitive: hasArg), and max, the characters to send back.
// Values JSON cannot hold are described rather than lost: DOM nodes
// ("HTMLDivElement div#x.box"), functions, symbols, bigints, errors, maps
// and sets, cycles. Answers {url, text, len}: the frame's URL, the first max
// characters of the JSON and its whole length.
function (arg, hasArg, max) {
  const v = hasArg ? arg : this;
  const tagOf = (x) => Object.prototype.toString.call(x).slice(8, -1);
  const short = (s, n) => (s.length > n ? s.slice(0, n) + "…" : s);
  const squash = (s) => String(s || "").replace(/\s+/g, " ").trim();
  let budget = 100000; // values visited: a huge structure is cut, not walked whole
  const ancestors = [];

  function node(n) {
    const tag = tagOf(n);
    if (n.nodeType === 1) {
      let d = tag + " " + n.localName;
      if (n.id) d += "#" + n.id;
      const cls = typeof n.className === "string" ? n.className.trim().split(/\s+/).filter(Boolean) : [];
      if (cls.length) d += "." + cls.slice(0, 3).join(".");
      const text = squash(n.innerText !== undefined ? n.innerText : n.textContent);
      if (text) d += ' "' + short(text, 40) + '"';
      if (!n.isConnected) d += " (detached)";
      return d;
    }
    if (n.nodeType === 9) return tag + " " + (n.URL || "");
    if (n.nodeType === 3 || n.nodeType === 8) return tag + ' "' + short(squash(n.data), 40) + '"';
    return tag + " " + n.nodeName;
  }

  function conv(x, depth) {
    switch (typeof x) {
      case "string":
      case "boolean":
        return x;
      case "number":
        return Number.isFinite(x) ? x : String(x);
      case "bigint":
        return x + "n";
      case "undefined":
        return undefined;
      case "symbol":
        return x.toString();
      case "function":
        return "function " + (x.name || "(anonymous)");
    }
    if (x === null) return null;
    if (--budget < 0) return "…";
    if (typeof Node === "function" && x instanceof Node) return node(x);
    if (typeof Window === "function" && x instanceof Window) {
      try {
        return "Window " + x.location.href;
      } catch (e) {
        return "Window (another origin)";
      }
    }
    if (ancestors.includes(x)) return "[circular]";
    if (x instanceof Error) return String(x);
    if (x instanceof Date) return isNaN(x) ? "Invalid Date" : x.toISOString();
    if (x instanceof RegExp) return String(x);
    if (typeof Promise === "function" && x instanceof Promise) return "Promise";
    if (x instanceof WeakMap || x instanceof WeakSet) return tagOf(x);
    if (depth >= 20) return "[" + tagOf(x) + "]";
    ancestors.push(x);
    try {
      if (x instanceof Map) {
        const out = [];
        for (const [k, val] of x) {
          if (budget < 0) { out.push("…"); break; }
          out.push([conv(k, depth + 1), conv(val, depth + 1)]);
        }
        return { Map: out };
      }
      if (Array.isArray(x) || x instanceof Set || ArrayBuffer.isView(x) ||
          (typeof NodeList === "function" && x instanceof NodeList) ||
          (typeof HTMLCollection === "function" && x instanceof HTMLCollection)) {
        const out = [];
        for (const e of (Array.isArray(x) || ArrayBuffer.isView(x) ? Array.prototype.values.call(x) : x)) {
          if (budget < 0) { out.push("…"); break; }
          const r = conv(e, depth + 1);
          out.push(r === undefined ? null : r);
        }
        return out;
      }
      if (typeof x.toJSON === "function") {
        try {
          return conv(x.toJSON(), depth + 1);
        } catch (e) {
          return "[toJSON threw " + String(e) + "]";
        }
      }
      const out = {};
      for (const k of Object.keys(x)) {
        if (budget < 0) { out["…"] = "…"; break; }
        let r;
        try {
          r = conv(x[k], depth + 1);
        } catch (e) {
          r = "[threw " + String(e) + "]";
        }
        if (r !== undefined) out[k] = r;
      }
      return out;
    } finally {
      ancestors.pop();
    }
  }

  const c = conv(v, 0);
  const s = c === undefined ? "undefined" : JSON.stringify(c);
  return { url: location.href, text: s.slice(0, max), len: s.length };
}
