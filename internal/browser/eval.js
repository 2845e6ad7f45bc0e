// browser_eval's result, as JSON text, in the page's own world: called with
// this bound to the value (an object) or with the value as the first
// argument (a primitive: hasArg), and max, the characters to send back.
// Values JSON cannot hold are described rather than lost: DOM nodes
// ("HTMLDivElement div#x.box"), functions, symbols, bigints, errors, maps
// and sets, cycles. Characters are code points (an emoji is one, as Go
// counts them), and the text is never cut inside one. The walk stops once
// the JSON it has built is well past max characters, so its work follows
// max, not the value's size. Answers {url, text, len, atLeast}: the frame's
// URL, the first max characters of the JSON, and its whole length — or,
// when the walk stopped early (atLeast), a length it is at least.
function (arg, hasArg, max) {
  const v = hasArg ? arg : this;
  const tagOf = (x) => Object.prototype.toString.call(x).slice(8, -1);
  const short = (s, n) => (s.length > n ? s.slice(0, n) + "…" : s);
  const squash = (s) => String(s || "").replace(/\s+/g, " ").trim();
  // The walk's bounds: values visited, and est, a running lower bound of
  // the length of the JSON built so far in UTF-16 units (escapes and some
  // nulls are not counted; closing brackets once written). Once est is
  // past limit (max characters of up to two units each, and a margin),
  // the remaining elements of every container are left out, marked "…";
  // exact is est then: the JSON's first exact units are the whole value's.
  let budget = 100000;
  let est = 0;
  let exact = -1;
  const limit = 2 * max + 64;
  const more = () => {
    if (est <= limit && budget > 0) return true;
    if (exact < 0) exact = est;
    return false;
  };
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

  // conv is the value as JSON can hold it, counted in est.
  function conv(x, depth) {
    budget--;
    const r = convert(x, depth);
    switch (typeof r) {
      case "string":
        est += r.length + 2;
        break;
      case "number":
        est += String(r).length;
        break;
      case "boolean":
        est += r ? 4 : 5;
        break;
      case "object":
        if (r === null) est += 4;
        break;
    }
    return r;
  }

  function convert(x, depth) {
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
        est += 8; // {"Map":[
        for (const [k, val] of x) {
          if (!more()) { out.push("…"); break; }
          est += out.length ? 3 : 2; // a comma, [ and ,
          out.push([conv(k, depth + 1), conv(val, depth + 1)]);
          est++; // ]
        }
        est += 2; // ]}
        return { Map: out };
      }
      if (Array.isArray(x) || x instanceof Set || ArrayBuffer.isView(x) ||
          (typeof NodeList === "function" && x instanceof NodeList) ||
          (typeof HTMLCollection === "function" && x instanceof HTMLCollection)) {
        const out = [];
        est++; // [
        for (const e of (Array.isArray(x) || ArrayBuffer.isView(x) ? Array.prototype.values.call(x) : x)) {
          if (!more()) { out.push("…"); break; }
          if (out.length) est++; // a comma
          let r = conv(e, depth + 1);
          if (r === undefined) {
            r = null;
            est += 4;
          }
          out.push(r);
        }
        est++; // ]
        return out;
      }
      if (typeof x.toJSON === "function") {
        try {
          return convert(x.toJSON(), depth + 1); // counted by the conv that called this
        } catch (e) {
          return "[toJSON threw " + String(e) + "]";
        }
      }
      const out = {};
      let n = 0;
      est++; // {
      for (const k of Object.keys(x)) {
        if (!more()) { out["…"] = "…"; break; }
        let r;
        try {
          r = conv(x[k], depth + 1);
        } catch (e) {
          r = conv("[threw " + String(e) + "]", depth + 1);
        }
        if (r !== undefined) {
          out[k] = r;
          est += k.length + 3 + (n++ ? 1 : 0); // "k": and a comma
        }
      }
      est++; // }
      return out;
    } finally {
      ancestors.pop();
    }
  }

  // chars is how many UTF-16 units of s, from its start, hold at most n
  // code points and end on a code point's boundary (stopping at end), and
  // how many code points they are.
  function chars(s, n, end) {
    let i = 0, k = 0;
    while (i < end && k < n) {
      const c = s.charCodeAt(i);
      i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
      k++;
    }
    return { units: Math.min(i, s.length), count: k };
  }

  const c = conv(v, 0);
  const s = c === undefined ? "undefined" : JSON.stringify(c);
  const text = s.slice(0, chars(s, max, s.length).units);
  if (exact < 0) return { url: location.href, text, len: chars(s, Infinity, s.length).count, atLeast: false };
  // Stopped early: the JSON is at least as long as its exact part, and
  // longer than what is shown.
  const shown = chars(text, Infinity, text.length).count;
  const len = Math.max(chars(s, Infinity, Math.min(exact, s.length)).count, shown + 1);
  return { url: location.href, text, len, atLeast: true };
}
