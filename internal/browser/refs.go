package browser

import (
	"fmt"
	"strconv"
	"strings"
)

// refEntry is what a ref stands for: an element of one document of one
// frame (by the walker's number for it), and the fingerprint it had when the
// ref was issued.
type refEntry struct {
	ref   string
	frame *frameRefs
	wid   int      // the walker's number of the element in its document
	fp    []string // tag, id, test id, context text, ancestor path, role, name
}

func (e *refEntry) role() string { return fpField(e.fp, 5) }
func (e *refEntry) name() string { return fpField(e.fp, 6) }

func fpField(fp []string, i int) string {
	if i < len(fp) {
		return fp[i]
	}
	return ""
}

// frameRefs holds the refs of one frame of a tab. The main frame's refs are
// "e1", "e2", …; a child frame's carry its key: "f1e3".
type frameRefs struct {
	key     string // "" for the main frame, else "f1", "f2", …
	frameID string
	sess    *loop  // the session the frame's document lives in
	doc     string // the walker's document token; a new one drops the refs
	next    int    // the next ref number; refs below it were issued
	byWid   map[int]*refEntry
	// parent and owner place a child frame: the iframe element (walker
	// number owner) in the parent frame's document.
	parent *frameRefs
	owner  int
}

// refTable maps refs to elements for the frames of one tab. The same element
// keeps its ref across snapshots of its document; a new document drops the
// frame's refs but its counter keeps going, so a ref is never reused.
type refTable struct {
	frames  map[string]*frameRefs // by frame id
	byKey   map[string]*frameRefs // by key
	byRef   map[string]*refEntry
	nframes int
}

func newRefTable() *refTable {
	return &refTable{frames: make(map[string]*frameRefs), byKey: make(map[string]*frameRefs), byRef: make(map[string]*refEntry)}
}

// frame returns the refs of the frame, switching them to the document doc.
// main says the frame is the tab's main frame.
func (rt *refTable) frame(frameID string, main bool, sess *loop, doc string) *frameRefs {
	f := rt.frames[frameID]
	if f == nil {
		f = &frameRefs{frameID: frameID, next: 1, byWid: make(map[int]*refEntry)}
		if !main {
			rt.nframes++
			f.key = "f" + strconv.Itoa(rt.nframes)
		}
		rt.frames[frameID] = f
		rt.byKey[f.key] = f
	}
	f.sess = sess
	if f.doc != doc {
		for _, e := range f.byWid {
			delete(rt.byRef, e.ref)
		}
		f.byWid = make(map[int]*refEntry)
		f.doc = doc
	}
	return f
}

// refFor returns the element's ref, issuing one when it has none, and keeps
// its latest fingerprint.
func (rt *refTable) refFor(f *frameRefs, wid int, fp []string) string {
	if e, ok := f.byWid[wid]; ok {
		if len(fp) > 0 {
			e.fp = fp
		}
		return e.ref
	}
	e := &refEntry{ref: f.key + "e" + strconv.Itoa(f.next), frame: f, wid: wid, fp: fp}
	f.next++
	f.byWid[wid] = e
	rt.byRef[e.ref] = e
	return e.ref
}

// rebind points an existing ref at another element of the same document
// (a reidentified node).
func (rt *refTable) rebind(e *refEntry, wid int) {
	delete(e.frame.byWid, e.wid)
	e.wid = wid
	e.frame.byWid[wid] = e
}

// parseRef splits "f2e7" into ("f2", 7) and "e7" into ("", 7).
func parseRef(ref string) (string, int, bool) {
	key := ""
	rest := ref
	if strings.HasPrefix(ref, "f") {
		i := strings.IndexByte(ref, 'e')
		if i < 2 {
			return "", 0, false
		}
		if _, err := strconv.Atoi(ref[1:i]); err != nil {
			return "", 0, false
		}
		key, rest = ref[:i], ref[i:]
	}
	n, err := strconv.Atoi(strings.TrimPrefix(rest, "e"))
	if !strings.HasPrefix(rest, "e") || err != nil || n <= 0 {
		return "", 0, false
	}
	return key, n, true
}

// lookup finds a ref. A ref issued for an earlier document of its frame is
// STALE_REF; one never issued is TARGET_NOT_FOUND.
func (rt *refTable) lookup(ref string) (*refEntry, error) {
	ref = strings.TrimSpace(ref)
	if e, ok := rt.byRef[ref]; ok {
		return e, nil
	}
	key, n, ok := parseRef(ref)
	if !ok {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%q is not a ref", ref),
			Hint: `refs look like "e3" (or "f1e3" inside a frame) and come from browser_snapshot`}
	}
	if f := rt.byKey[key]; f != nil && n < f.next {
		return nil, &Error{Code: CodeStaleRef, Message: fmt.Sprintf("ref %s belongs to a page that is no longer loaded", ref),
			Hint: "the page navigated or reloaded since that snapshot; take a new browser_snapshot and use its refs"}
	}
	return nil, &Error{Code: CodeTargetNotFound, Message: fmt.Sprintf("ref %s was never issued in this tab", ref),
		Hint: "use a ref from the latest browser_snapshot of this tab"}
}

// IsRef says whether s is written like a ref ("e3", "f1e3").
func IsRef(s string) bool {
	_, _, ok := parseRef(s)
	return ok
}
