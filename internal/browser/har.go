package browser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"
)

// browser_network export writes the session's recorded requests (those a
// list with the same filters shows) as a HAR 1.2 file in the output
// directory: URLs and headers redacted as the list shows them (unless
// --no-redact), the call's secrets masked, no bodies.

// HARExport is a HAR file written.
type HARExport struct {
	Path     string
	Requests int
	Bytes    int
}

type harLog struct {
	Log struct {
		Version string     `json:"version"`
		Creator harCreator `json:"creator"`
		Pages   []any      `json:"pages"`
		Entries []harEntry `json:"entries"`
		Comment string     `json:"comment,omitempty"`
	} `json:"log"`
}

type harCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type harNV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harEntry struct {
	Started  string      `json:"startedDateTime"`
	Time     float64     `json:"time"`
	Request  harRequest  `json:"request"`
	Response harResponse `json:"response"`
	Cache    struct{}    `json:"cache"`
	Timings  harTimings  `json:"timings"`
	Server   string      `json:"serverIPAddress,omitempty"`
	Type     string      `json:"_resourceType,omitempty"`
	ID       string      `json:"_webpilotId"`
	Error    string      `json:"_error,omitempty"`
}

type harRequest struct {
	Method      string       `json:"method"`
	URL         string       `json:"url"`
	HTTPVersion string       `json:"httpVersion"`
	Cookies     []harNV      `json:"cookies"`
	Headers     []harNV      `json:"headers"`
	QueryString []harNV      `json:"queryString"`
	PostData    *harPostData `json:"postData,omitempty"`
	HeadersSize int          `json:"headersSize"`
	BodySize    int          `json:"bodySize"`
}

type harPostData struct {
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
}

type harResponse struct {
	Status      int        `json:"status"`
	StatusText  string     `json:"statusText"`
	HTTPVersion string     `json:"httpVersion"`
	Cookies     []harNV    `json:"cookies"`
	Headers     []harNV    `json:"headers"`
	Content     harContent `json:"content"`
	RedirectURL string     `json:"redirectURL"`
	HeadersSize int        `json:"headersSize"`
	BodySize    int64      `json:"bodySize"`
}

type harContent struct {
	Size     int64  `json:"size"`
	MimeType string `json:"mimeType"`
}

type harTimings struct {
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
}

// ExportHAR writes the requests q selects (no limit) as HAR 1.2. Call
// within Do.
func (nw Network) ExportHAR(q NetworkQuery) (*HARExport, error) {
	s := nw.h.s
	keep, err := nw.filter(q)
	if err != nil {
		return nil, err
	}
	var har harLog
	har.Log.Version = "1.2"
	har.Log.Creator = harCreator{Name: "webpilot", Version: "1"}
	har.Log.Pages = []any{}
	har.Log.Entries = []harEntry{}
	if !s.pol.opts.NoRedact {
		har.Log.Comment = "credentials redacted (Authorization, Cookie, Set-Cookie, token-like query parameters); no bodies"
	}
	l := s.link.net
	l.mu.Lock()
	for _, e := range l.entries {
		if keep(e) {
			har.Log.Entries = append(har.Log.Entries, nw.harEntry(e))
		}
	}
	l.mu.Unlock()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // (a redacted value reads <redacted>)
	enc.SetIndent("", "  ")
	if err := enc.Encode(har); err != nil {
		return nil, fmt.Errorf("encode the HAR: %w", err)
	}
	text := buf.String()
	if m := s.link.caller.Mask; m != nil {
		text = m(text)
	}
	path, err := s.pol.saveOutput(s.link.clientID(), "network", "har", []byte(text))
	if err != nil {
		return nil, err
	}
	return &HARExport{Path: path, Requests: len(har.Log.Entries), Bytes: len(text)}, nil
}

// harEntry is one recorded request as HAR has it (with the buffer's lock
// held).
func (nw Network) harEntry(e *netEntry) harEntry {
	s := nw.h.s
	v := nw.view(e)
	nv := func(hs []Header) []harNV {
		out := make([]harNV, 0, len(hs))
		for _, h := range nw.shownHeaders(hs) {
			out = append(out, harNV{Name: h.Name, Value: h.Value})
		}
		return out
	}
	reqH, respH := e.rawReqHeaders, e.rawRespHeaders
	if reqH == nil {
		reqH = e.reqHeaders
	}
	if respH == nil {
		respH = e.respHeaders
	}
	proto := strings.ToUpper(e.protocol) // http/1.1 → HTTP/1.1
	switch proto {
	case "H2":
		proto = "HTTP/2"
	case "H3", "H3-29":
		proto = "HTTP/3"
	}
	ms := float64(v.Duration) / float64(time.Millisecond)
	out := harEntry{Started: e.wall.UTC().Format(time.RFC3339Nano), Time: ms, Server: e.remote, Type: e.typ, ID: v.ID, Error: e.failed,
		Request: harRequest{Method: e.method, URL: v.URL, HTTPVersion: proto, Cookies: []harNV{}, Headers: nv(reqH), QueryString: []harNV{}, HeadersSize: -1, BodySize: -1},
		Response: harResponse{Status: e.status, StatusText: e.statusText, HTTPVersion: proto, Cookies: []harNV{}, Headers: nv(respH),
			Content: harContent{Size: e.decoded, MimeType: e.mime}, HeadersSize: -1, BodySize: e.encoded},
		Timings: harTimings{Send: 0, Wait: ms, Receive: 0}}
	if u, err := url.Parse(v.URL); err == nil {
		q := u.Query()
		for _, k := range slices.Sorted(maps.Keys(q)) {
			for _, val := range q[k] {
				out.Request.QueryString = append(out.Request.QueryString, harNV{Name: k, Value: val})
			}
		}
	}
	if e.hasPostData {
		out.Request.BodySize = len(e.postData)
		text := e.postData
		if !s.pol.opts.NoRedact {
			text = "" // (a form body may hold credentials; --no-redact shows it)
		}
		out.Request.PostData = &harPostData{MimeType: headerValue(reqH, "Content-Type"), Text: text}
	}
	if e.redirectTo != nil {
		out.Response.RedirectURL = nw.shownURL(e.redirectTo.url)
	}
	return out
}
