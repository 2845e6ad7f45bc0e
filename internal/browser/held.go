package browser

// Held is a Session as one call holds it, inside Do, and the tab the call
// works on (Tab): the session's operations that may only run while it is
// held are Held's methods. A Held is valid until Do's fn returns.
//
// Held is the tools' contract with the engine, declared here in one
// place: a few core methods, the verbs on the page, and the nouns. A new
// tool that acts on the page as a whole adds a verb; one that works on a
// feature extends that feature's noun, in its file.
//
// The core (this file): Session, Tab (the tab the call works on), Use
// and On (another tab), SetCaller (who calls).
//
// The verbs on the held tab's page:
//
//	Navigate, History      go to a URL, back or forward        navigate.go
//	Act                    one action, in the after-input      envelope.go
//	                       envelope (click, type, press…)
//	FillForm               fill a form's fields                form.go
//	Wait                   wait for conditions                 wait.go
//	Snapshot               the page's accessibility snapshot   snapshot.go
//	Read                   text, markdown, HTML, an attribute  read.go
//	                       or a value of the page or a target
//	Find                   matches on the live page, as refs   find.go
//	Collect                a page's repeated items             collect.go
//	Frames                 the page's frames                   frames.go
//	Eval                   run the agent's JavaScript          eval.go
//	RawCDP                 one raw CDP command                 rawcdp.go
//
// The nouns, each a small value handed out by the method of its name:
//
//	Tabs          the session's tabs: list, open, select,     tabs.go,
//	              close, bind; its browser contexts           bind.go,
//	                                                          contexts.go
//	Network       the session's network log, HAR export      netview.go, har.go
//	Routes        the session's request routes, applied by   route.go
//	              its tabs' loops
//	Storage       cookies, local and session storage,        storage.go
//	              saved and loaded states
//	Console       the held tab's console messages            console.go
//	Dialogs       the held tab's JavaScript dialogs          dialog.go
//	Downloads     the held tab's downloads, and files        download.go,
//	              fetched with its cookies                   fetch.go
//	Emulator      what the session emulates                  emulate.go
//	Screencaster  the held tab recorded as an animated GIF   screencast.go
//	Recorder      the recording of what the user does        record.go
//	              (recipe_record)
//	Heal          elements described and found again;        heal.go
//	              the last flow that ran to its end
//	Capture       the page as a picture or a document:       screenshot.go,
//	              Screenshot, Glance, PrintPDF               glance.go, pdf.go
//	Person        the person at the browser: whether one     person.go,
//	              can see the page, what on it waits for     handoff.go
//	              one (Needed), the tab handed to them
type Held struct {
	s *Session
	t *Tab
}

// Session is the session held.
func (h *Held) Session() *Session {
	if h == nil {
		return nil
	}
	return h.s
}

// Tab is the tab the call works on: the one Use, or one of Tabs' New,
// NewIn, Select, SelectMatching or Bind made it, or nil.
func (h *Held) Tab() *Tab {
	if h == nil {
		return nil
	}
	return h.t
}

// Use makes t the tab the call works on, and so the session's most
// recently used.
func (h *Held) Use(t *Tab) {
	h.t = t
	if t != nil {
		h.s.tabs.recent.use(t.target)
	}
}

// On is the session as h holds it, working on tab t.
func (h *Held) On(t *Tab) *Held { return &Held{s: h.s, t: t} }

// SetCaller tells the session who calls, until the hold ends.
func (h *Held) SetCaller(c Caller) {
	h.s.link.setCaller(c)
}

// Tabs are the session's tabs.
func (h *Held) Tabs() Tabs { return Tabs{h} }

// Network is the session's network log.
func (h *Held) Network() Network { return Network{h} }

// Routes are the session's routes.
func (h *Held) Routes() Routes { return Routes{h} }

// Storage is the session's storage, for the held tab.
func (h *Held) Storage() Storage { return Storage{h} }

// Console is the held tab's console.
func (h *Held) Console() Console { return Console{h} }

// Dialogs are the held tab's dialogs.
func (h *Held) Dialogs() Dialogs { return Dialogs{h} }

// Downloads are the held tab's downloads.
func (h *Held) Downloads() Downloads { return Downloads{h} }

// Emulator is what the held session emulates.
func (h *Held) Emulator() Emulator { return Emulator{h} }

// Screencaster records the held tab.
func (h *Held) Screencaster() Screencaster { return Screencaster{h} }

// Recorder is the held session's recording.
func (h *Held) Recorder() Recorder { return Recorder{h} }

// Heal describes the held tab's elements and finds them again, and keeps
// the session's last flow.
func (h *Held) Heal() Heal { return Heal{h} }

// Capture is the held tab's page as a picture or a document.
func (h *Held) Capture() Capture { return Capture{h} }
