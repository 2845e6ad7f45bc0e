// browser_download's page side: the media of an element (this), as absolute URLs with what
// each is. An <img> (its current source, else src, else the first srcset candidate), a
// <video> or <audio> (current source, src, or its <source>s; a video's poster), an
// <input type=image>; any other element: the media inside it, in document order; nothing
// there: its own CSS background image. At most `max` entries, without repeats.
function (max) {
  const out = [];
  const seen = new Set();
  const add = (url, kind) => {
    if (!url || out.length >= max) return;
    let abs;
    try {
      abs = new URL(url, document.baseURI).href;
    } catch {
      return;
    }
    if (seen.has(abs)) return;
    seen.add(abs);
    out.push({ url: abs, kind });
  };
  const firstSrcset = (s) => (s || "").trim().split(/\s+/)[0] || "";
  const one = (el) => {
    switch (el.localName) {
      case "img":
        add(el.currentSrc || el.src || firstSrcset(el.getAttribute("srcset")), "img");
        return true;
      case "input":
        if ((el.type || "").toLowerCase() !== "image") return false;
        add(el.src, "img");
        return true;
      case "video":
      case "audio": {
        const own = el.currentSrc || el.src;
        if (own) add(own, el.localName);
        else for (const s of el.querySelectorAll("source[src]")) add(s.src, el.localName);
        if (el.localName === "video" && el.poster) add(el.poster, "poster");
        return true;
      }
    }
    return false;
  };
  const tag = this.localName || "";
  if (!one(this)) {
    const inner = this.querySelectorAll ? this.querySelectorAll("img, video, audio, input[type=image]") : [];
    for (const el of inner) {
      if (out.length >= max) break;
      one(el);
    }
    if (out.length === 0 && this.nodeType === 1) {
      const bg = getComputedStyle(this).backgroundImage || "";
      const m = /url\(\s*(['"]?)(.*?)\1\s*\)/.exec(bg);
      if (m) add(m[2], "background");
    }
  }
  return { tag, media: out };
}
