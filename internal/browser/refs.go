package browser

import (
	"fmt"
	"strconv"
	"strings"
)

// refEntry is what a ref stands for: a DOM node of one document, and the
// fingerprint it had when the ref was issued.
type refEntry struct {
	ref       string
	backendID int64
	role      string
	name      string
}

// refTable maps refs to DOM nodes for the current document of one tab. Refs
// are keyed on the document's loader id and the node's backend id, so the
// same node keeps its ref across snapshots; a new document empties the table
// but the counter keeps going, so a ref is never reused within a tab.
type refTable struct {
	loaderID string
	next     int // the next ref number; refs below it were issued
	byNode   map[int64]*refEntry
	byRef    map[string]*refEntry
}

func newRefTable() *refTable {
	return &refTable{next: 1, byNode: make(map[int64]*refEntry), byRef: make(map[string]*refEntry)}
}

// document switches the table to the document with loaderID, dropping the
// refs of any other document.
func (rt *refTable) document(loaderID string) {
	if rt.loaderID == loaderID {
		return
	}
	rt.loaderID = loaderID
	rt.byNode = make(map[int64]*refEntry)
	rt.byRef = make(map[string]*refEntry)
}

// refFor returns the node's ref, issuing one when it has none.
func (rt *refTable) refFor(backendID int64, role, name string) string {
	if e, ok := rt.byNode[backendID]; ok {
		e.role, e.name = role, name
		return e.ref
	}
	e := &refEntry{ref: "e" + strconv.Itoa(rt.next), backendID: backendID, role: role, name: name}
	rt.next++
	rt.byNode[backendID] = e
	rt.byRef[e.ref] = e
	return e.ref
}

// lookup finds a ref of the current document. A ref issued for an earlier
// document is STALE_REF; one never issued is TARGET_NOT_FOUND.
func (rt *refTable) lookup(ref string) (*refEntry, error) {
	ref = strings.TrimSpace(ref)
	if e, ok := rt.byRef[ref]; ok {
		return e, nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(ref, "e"))
	if !strings.HasPrefix(ref, "e") || err != nil || n <= 0 {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%q is not a ref", ref),
			Hint: `refs look like "e3" and come from browser_snapshot`}
	}
	if n < rt.next {
		return nil, &Error{Code: CodeStaleRef, Message: fmt.Sprintf("ref %s belongs to a page that is no longer loaded", ref),
			Hint: "the page navigated or reloaded since that snapshot; take a new browser_snapshot and use its refs"}
	}
	return nil, &Error{Code: CodeTargetNotFound, Message: fmt.Sprintf("ref %s was never issued in this tab", ref),
		Hint: "use a ref from the latest browser_snapshot of this tab"}
}
