package trace

import (
	"sync"
	"time"
)

// RecentPerSession is how many actions Recent keeps per session.
const RecentPerSession = 20

// recentSessions bounds how many sessions Recent remembers; the one least
// recently used is forgotten first.
const recentSessions = 256

// Action is one call as browser_status lists it.
type Action struct {
	Time    string `json:"time"` // RFC 3339, UTC
	Tool    string `json:"tool"`
	Target  string `json:"target,omitempty"`
	Outcome string `json:"outcome"` // ok, or the error code
}

// Recent keeps each session's last actions, newest last, so an agent whose
// context was reset can see what it did. It is safe for concurrent use.
type Recent struct {
	// Mask is applied to each target kept; nil is the identity.
	Mask func(string) string

	mu   sync.Mutex
	seq  int64
	byID map[string]*recentRing
}

type recentRing struct {
	used    int64
	actions []Action
}

// Add keeps an action of session.
func (r *Recent) Add(session, tool, target, outcome string, at time.Time) {
	if r.Mask != nil {
		target = r.Mask(target)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byID == nil {
		r.byID = make(map[string]*recentRing)
	}
	ring, ok := r.byID[session]
	if !ok {
		if len(r.byID) >= recentSessions {
			r.forgetOldest()
		}
		ring = &recentRing{}
		r.byID[session] = ring
	}
	r.seq++
	ring.used = r.seq
	ring.actions = append(ring.actions, Action{Time: at.UTC().Format(time.RFC3339), Tool: tool, Target: oneLine(target, 120), Outcome: outcome})
	if over := len(ring.actions) - RecentPerSession; over > 0 {
		ring.actions = append([]Action(nil), ring.actions[over:]...)
	}
}

// List is session's last actions, newest last.
func (r *Recent) List(session string) []Action {
	r.mu.Lock()
	defer r.mu.Unlock()
	ring, ok := r.byID[session]
	if !ok {
		return []Action{}
	}
	return append([]Action(nil), ring.actions...)
}

func (r *Recent) forgetOldest() {
	var oldest string
	var at int64 = -1
	for k, v := range r.byID {
		if at < 0 || v.used < at {
			oldest, at = k, v.used
		}
	}
	delete(r.byID, oldest)
}
