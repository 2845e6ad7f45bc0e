package browser

import (
	"cmp"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/webpilot-mcp/webpilot/internal/backend"
)

// browser_storage reads and changes the session's cookies and the current
// page's local and session storage, and saves or loads a storage state:
// the cookies and each open origin's local storage, in the JSON shape
// Playwright's storageState uses, 0600 in the output directory, sealed
// with a declared secret when asked (AES-256-GCM, the key drawn from the
// secret by HKDF-SHA256). Through the extension the cookies are the
// user's own: wholesale reads and writes (state_save, state_load, clear)
// need force there.

// Cookie is a browser cookie as browser_storage shows and sets it.
type Cookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"` // Unix seconds; -1: a session cookie
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	SameSite string  `json:"sameSite,omitempty"`
}

// StorageItem is a local or session storage entry.
type StorageItem struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// StorageOptions is one browser_storage call.
type StorageOptions struct {
	Action string // cookies, local, session, state_save, state_load, clear
	Op     string // list (default), get, set, delete
	Name   string
	Value  string
	// Cookie fields (set; Domain and Path also filter list, get and
	// delete).
	Domain, Path string
	Expires      float64
	HTTPOnly     bool
	Secure       bool
	SameSite     string
	// File is state_load's file (a name in the output directory, or a
	// path inside the upload roots).
	File string
	// Key seals state_save's file and opens state_load's (from the
	// secret named KeyName); nil: plain JSON.
	Key     []byte
	KeyName string
	Force   bool
	Roots   []string // the client's roots, for File
}

// StorageResult is what a browser_storage call did or found.
type StorageResult struct {
	Origin    string // the page's origin (local, session, clear)
	Cookies   []Cookie
	Items     []StorageItem
	Total     int    // items or cookies there are (listed: at most maxStorageList)
	Path      string // state_save's file
	Origins   int    // origins in a state
	Done      string // what a change did
	Replaced  []string
	Redacted  bool // cookie values are shown redacted
	Skipped   []string
	Encrypted bool
	// Masked are the cookies and local storage items state_save wrote
	// masked: their values held a declared secret.
	Masked []string
}

// storage bounds.
const (
	maxStorageList  = 200
	maxStorageValue = 500    // characters of a value in a list
	maxStorageGet   = 10_000 // characters of one value read
)

// StorageActions are browser_storage's actions.
var StorageActions = []string{"cookies", "local", "session", "state_save", "state_load", "clear"}

// Storage is browser_storage as a held call sees it (Held.Storage): the
// session's cookies, the held tab's page's local and session storage, and
// storage states saved and loaded.
type Storage struct{ h *Held }

// Run runs one browser_storage call on the held tab.
func (sg Storage) Run(ctx context.Context, o StorageOptions) (*StorageResult, error) {
	if !slices.Contains(StorageActions, o.Action) {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown storage action %q", o.Action), Hint: "use one of " + strings.Join(StorageActions, ", ")}
	}
	if o.Op == "" {
		o.Op = "list"
	}
	if (o.Action == "cookies" || o.Action == "local" || o.Action == "session") && !slices.Contains(StorageOps(), o.Op) {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown op %q", o.Op), Hint: "use list, get, set or delete"}
	}
	if (o.Op == "get" || o.Op == "set" || o.Op == "delete") && o.Name == "" && o.Action != "state_save" && o.Action != "state_load" && o.Action != "clear" {
		return nil, &Error{Code: CodeInvalidArgument, Message: o.Op + " needs a name", Hint: `e.g. {"action": "` + o.Action + `", "op": "` + o.Op + `", "name": "theme"}`}
	}
	bridge := sg.h.s.be.Info().Kind == "bridge"
	if bridge && !o.Force && (o.Action == "state_save" || o.Action == "state_load" || o.Action == "clear") {
		what := map[string]string{"state_save": "write every cookie of your Chrome profile to a file", "state_load": "overwrite your Chrome's own cookies with the file's",
			"clear": "delete your Chrome's cookies and storage for this site (signing you out)"}[o.Action]
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("through the extension, %s would %s", o.Action, what),
			Hint: "pass force: true if that is what the user wants"}
	}
	switch o.Action {
	case "cookies":
		return sg.cookies(ctx, o)
	case "local", "session":
		return sg.webStorage(ctx, o)
	case "state_save":
		return sg.saveState(ctx, o)
	case "state_load":
		return sg.loadState(ctx, o)
	}
	return sg.clear(ctx)
}

// pageOrigin is the URL and origin of the page t shows now; a page
// without one (about:blank, data:) is an error.
func pageOrigin(ctx context.Context, t *Tab) (*url.URL, string, error) {
	f, err := t.page.mainFrame(ctx)
	if err != nil {
		return nil, "", backendError("read the page", err)
	}
	u, err := url.Parse(f.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, "", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("the page %s has no web origin to keep storage for", f.URL), Hint: "navigate to the site first"}
	}
	return u, u.Scheme + "://" + u.Host, nil
}

// cookieMatches says c is name's (if given), in domain (itself or a
// subdomain, if given) and under path (if given).
func cookieMatches(c Cookie, name, domain, path string) bool {
	d := strings.TrimPrefix(c.Domain, ".")
	want := strings.TrimPrefix(strings.ToLower(domain), ".")
	return (name == "" || c.Name == name) && (want == "" || d == want || strings.HasSuffix(d, "."+want) || strings.HasSuffix(want, "."+d)) &&
		(path == "" || strings.HasPrefix(c.Path, path))
}

func (sg Storage) cookies(ctx context.Context, o StorageOptions) (*StorageResult, error) {
	t := sg.h.t
	u, _, err := pageOrigin(ctx, t)
	if err != nil && o.Domain == "" {
		return nil, err
	}
	res := &StorageResult{Redacted: !sg.h.s.pol.opts.NoRedact}
	switch o.Op {
	case "set":
		p := map[string]any{"name": o.Name, "value": o.Value, "httpOnly": o.HTTPOnly, "secure": o.Secure}
		if o.Domain != "" {
			p["domain"], p["path"] = o.Domain, cmp.Or(o.Path, "/")
		} else {
			p["url"] = u.String()
			if o.Path != "" {
				p["path"] = o.Path
			}
		}
		target, _ := p["url"].(string)
		if err := sg.h.s.pol.cookieAllowed(o.Domain, target); err != nil {
			return nil, err
		}
		if o.Expires > 0 {
			p["expires"] = o.Expires
		}
		if o.SameSite != "" {
			ss := map[string]string{"strict": "Strict", "lax": "Lax", "none": "None"}[strings.ToLower(o.SameSite)]
			if ss == "" {
				return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("same_site %q", o.SameSite), Hint: "Strict, Lax or None"}
			}
			p["sameSite"] = ss
		}
		var r struct {
			Success bool `json:"success"`
		}
		if err := t.page.Call(ctx, "Network.setCookie", p, &r); err != nil {
			return nil, backendError("set the cookie", err)
		}
		if !r.Success {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("the browser refused the cookie %q", o.Name),
				Hint: "a Secure or SameSite=None cookie needs an https site; the domain must be the page's or a parent of it"}
		}
		res.Done = "set"
	case "delete":
		all, err := sg.cookieList(ctx, u, o.Domain)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, c := range all {
			if !cookieMatches(c, o.Name, o.Domain, o.Path) {
				continue
			}
			if err := t.page.Call(ctx, "Network.deleteCookies", map[string]any{"name": c.Name, "domain": c.Domain, "path": c.Path}, nil); err != nil {
				return nil, backendError("delete the cookie", err)
			}
			n++
		}
		if n == 0 {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("no cookie %q here", o.Name), Hint: "list the cookies (give domain for another site's)"}
		}
		res.Done = fmt.Sprintf("deleted %d", n)
	default:
		all, err := sg.cookieList(ctx, u, o.Domain)
		if err != nil {
			return nil, err
		}
		name := ""
		if o.Op == "get" {
			name = o.Name
		}
		for _, c := range all {
			if cookieMatches(c, name, o.Domain, o.Path) {
				res.Total++
				if len(res.Cookies) < maxStorageList {
					res.Cookies = append(res.Cookies, c)
				}
			}
		}
		if o.Op == "get" && res.Total == 0 {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("no cookie %q here", o.Name), Hint: "list the cookies (give domain for another site's)"}
		}
	}
	return res, nil
}

// cookieList is the cookies the page's URLs get, or, with domain, the
// browser's cookies of that site.
func (sg Storage) cookieList(ctx context.Context, u *url.URL, domain string) ([]Cookie, error) {
	var out struct {
		Cookies []Cookie `json:"cookies"`
	}
	method, params := "Network.getCookies", map[string]any(nil)
	if domain != "" {
		method = "Network.getAllCookies"
	} else if u != nil {
		params = map[string]any{"urls": []string{u.String()}}
	}
	if err := sg.h.t.page.Call(ctx, method, params, &out); err != nil {
		return nil, backendError("read the cookies", err)
	}
	if domain != "" {
		out.Cookies = slices.DeleteFunc(out.Cookies, func(c Cookie) bool { return !cookieMatches(c, "", domain, "") })
	}
	return out.Cookies, nil
}

// webStorageJS runs op on the page's local or session storage (isolated
// world: the same storage as the page's).
const webStorageJS = `((kind, op, name, value, max, cut) => {
  const s = kind === "local" ? localStorage : sessionStorage;
  if (op === "set") { s.setItem(name, value); return {n: s.length}; }
  if (op === "delete") { const had = s.getItem(name) !== null; s.removeItem(name); return {n: s.length, had}; }
  if (op === "get") { const v = s.getItem(name); return {n: s.length, had: v !== null, items: v === null ? [] : [{name, value: v.length > cut ? v.slice(0, cut) : v}], long: v !== null && v.length > cut}; }
  const items = [];
  for (let i = 0; i < s.length && items.length < max; i++) { const k = s.key(i); const v = s.getItem(k) || ""; items.push({name: k, value: v.length > cut ? v.slice(0, cut) + "…" : v}); }
  return {n: s.length, items};
})`

func (sg Storage) webStorage(ctx context.Context, o StorageOptions) (*StorageResult, error) {
	t := sg.h.t
	_, origin, err := pageOrigin(ctx, t)
	if err != nil {
		return nil, err
	}
	mainID, err := t.page.mainFrameID(ctx)
	if err != nil {
		return nil, backendError("read the page", err)
	}
	cut := maxStorageValue
	if o.Op == "get" {
		cut = maxStorageGet
	}
	args, _ := json.Marshal([]any{o.Action, o.Op, o.Name, o.Value, maxStorageList, cut})
	call := webStorageJS + "(..." + string(args) + ")"
	var out struct {
		N     int           `json:"n"`
		Had   bool          `json:"had"`
		Items []StorageItem `json:"items"`
		Long  bool          `json:"long"`
	}
	if _, err := (frameWorld{sess: t.page, frameID: mainID}).eval(ctx, call, &out); err != nil {
		return nil, backendError("read the page's "+o.Action+" storage", err)
	}
	res := &StorageResult{Origin: origin, Items: out.Items, Total: out.N}
	switch o.Op {
	case "get", "delete":
		if !out.Had {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("no %s storage item %q on %s", o.Action, o.Name, origin), Hint: "list the items first"}
		}
		if o.Op == "delete" {
			res.Done = "deleted"
		} else if out.Long {
			res.Done = fmt.Sprintf("cut at %d characters", maxStorageGet)
		}
	case "set":
		res.Done = "set"
	}
	return res, nil
}

// storageState is the file state_save writes (Playwright's storageState).
type storageState struct {
	Cookies []Cookie      `json:"cookies"`
	Origins []stateOrigin `json:"origins"`
}

type stateOrigin struct {
	Origin       string        `json:"origin"`
	LocalStorage []StorageItem `json:"localStorage"`
}

// sealedState is a state sealed with a secret.
type sealedState struct {
	Sealed int    `json:"webpilot_sealed_state"` // 1
	Secret string `json:"secret"`                // the secret's name (never its value)
	Salt   string `json:"salt"`
	Nonce  string `json:"nonce"`
	Data   string `json:"data"`
}

// stateKey draws the AES-256 key for a sealed state from a secret.
func stateKey(secret, salt []byte) ([]byte, error) {
	return hkdf.Key(sha256.New, secret, salt, "webpilot storage state", 32)
}

func (sg Storage) saveState(ctx context.Context, o StorageOptions) (*StorageResult, error) {
	s := sg.h.s
	var st storageState
	var all struct {
		Cookies []Cookie `json:"cookies"`
	}
	if err := sg.h.t.page.Call(ctx, "Network.getAllCookies", nil, &all); err != nil {
		return nil, backendError("read the cookies", err)
	}
	st.Cookies = all.Cookies
	if st.Cookies == nil {
		st.Cookies = []Cookie{}
	}
	st.Origins = []stateOrigin{}
	seen := map[string]bool{}
	for _, t := range s.tabs.all {
		u, origin, err := pageOrigin(ctx, t)
		if err != nil || seen[origin] || u == nil {
			continue
		}
		seen[origin] = true
		mainID, err := t.page.mainFrameID(ctx)
		if err != nil {
			continue
		}
		var items []StorageItem
		call := `(() => { const out = []; for (let i = 0; i < localStorage.length; i++) { const k = localStorage.key(i); out.push({name: k, value: localStorage.getItem(k) || ""}); } return out; })()`
		if _, err := (frameWorld{sess: t.page, frameID: mainID}).eval(ctx, call, &items); err != nil {
			return nil, backendError("read the local storage of "+origin, err)
		}
		if items == nil {
			items = []StorageItem{}
		}
		st.Origins = append(st.Origins, stateOrigin{Origin: origin, LocalStorage: items})
	}
	slices.SortFunc(st.Origins, func(a, b stateOrigin) int { return strings.Compare(a.Origin, b.Origin) })
	// A plain file is one the agent can open: a value that holds a
	// declared secret is written masked (<secret:NAME>), and said by name.
	// A sealed one needs the secret to open, and keeps values as they are.
	var masked []string
	if mask := sg.h.t.mask(); mask != nil && o.Key == nil {
		for i, c := range st.Cookies {
			if m := mask(c.Value); m != c.Value {
				st.Cookies[i].Value = m
				masked = append(masked, "cookie "+c.Name+" ("+strings.TrimPrefix(c.Domain, ".")+")")
			}
		}
		for _, so := range st.Origins {
			for i, it := range so.LocalStorage {
				if m := mask(it.Value); m != it.Value || mask(it.Name) != it.Name {
					so.LocalStorage[i] = StorageItem{Name: mask(it.Name), Value: m}
					masked = append(masked, "local storage "+mask(it.Name)+" ("+so.Origin+")")
				}
			}
		}
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode the storage state: %w", err)
	}
	if o.Key != nil {
		salt, nonce := make([]byte, 16), make([]byte, 12)
		_, _ = rand.Read(salt)
		_, _ = rand.Read(nonce)
		key, err := stateKey(o.Key, salt)
		if err != nil {
			return nil, fmt.Errorf("seal the storage state: %w", err)
		}
		block, _ := aes.NewCipher(key)
		gcm, _ := cipher.NewGCM(block)
		sealed := sealedState{Sealed: 1, Secret: o.KeyName, Salt: base64.StdEncoding.EncodeToString(salt), Nonce: base64.StdEncoding.EncodeToString(nonce),
			Data: base64.StdEncoding.EncodeToString(gcm.Seal(nil, nonce, data, []byte(o.KeyName)))}
		if data, err = json.MarshalIndent(sealed, "", "  "); err != nil {
			return nil, fmt.Errorf("seal the storage state: %w", err)
		}
	}
	path, err := s.pol.saveOutput(s.link.clientID(), "state", "json", data)
	if err != nil {
		return nil, err
	}
	return &StorageResult{Path: path, Total: len(st.Cookies), Origins: len(st.Origins), Encrypted: o.Key != nil, Masked: masked}, nil
}

// readState reads and, when sealed, opens a state file.
func (sg Storage) readState(o StorageOptions) (*storageState, bool, error) {
	if o.File == "" {
		return nil, false, &Error{Code: CodeInvalidArgument, Message: "state_load needs file", Hint: "the path state_save gave (a name in the output directory is enough)"}
	}
	s := sg.h.s
	path := o.File
	if !filepath.IsAbs(path) && !strings.ContainsRune(path, filepath.Separator) {
		path = filepath.Join(s.pol.OutputDir(), path)
	}
	files, err := s.localFiles([]string{path}, true, o.Roots)
	if err != nil {
		var we *Error
		if errors.As(err, &we) {
			we.Message = "state file: " + we.Message
		}
		return nil, false, err
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return nil, false, &Error{Code: CodeInvalidArgument, Message: "read the state file: " + err.Error()}
	}
	var sealed sealedState
	sealedFile := json.Unmarshal(data, &sealed) == nil && sealed.Sealed == 1
	if sealedFile {
		if o.Key == nil {
			return nil, true, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("the state file is sealed with the secret %q", sealed.Secret), Hint: fmt.Sprintf(`pass "secret": %q`, sealed.Secret)}
		}
		salt, err1 := base64.StdEncoding.DecodeString(sealed.Salt)
		nonce, err2 := base64.StdEncoding.DecodeString(sealed.Nonce)
		ct, err3 := base64.StdEncoding.DecodeString(sealed.Data)
		key, err4 := stateKey(o.Key, salt)
		if err := errors.Join(err1, err2, err3, err4); err != nil || len(nonce) != 12 {
			return nil, true, &Error{Code: CodeInvalidArgument, Message: "the sealed state file is damaged"}
		}
		block, _ := aes.NewCipher(key)
		gcm, _ := cipher.NewGCM(block)
		plain, err := gcm.Open(nil, nonce, ct, []byte(sealed.Secret))
		if err != nil {
			return nil, true, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("the state file does not open with the secret %q", o.KeyName), Hint: fmt.Sprintf("it was sealed with the secret %q, whose value must be the same", sealed.Secret)}
		}
		data = plain
	}
	var st storageState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, sealedFile, &Error{Code: CodeInvalidArgument, Message: "the state file is not a storage state: " + err.Error(), Hint: `{"cookies": […], "origins": [{"origin", "localStorage": [{"name", "value"}]}]}`}
	}
	return &st, sealedFile, nil
}

func (sg Storage) loadState(ctx context.Context, o StorageOptions) (*StorageResult, error) {
	st, sealed, err := sg.readState(o)
	if err != nil {
		return nil, err
	}
	t := sg.h.t
	res := &StorageResult{Total: len(st.Cookies), Origins: len(st.Origins), Encrypted: sealed}
	// Cookies for origins the policy refuses are not set (said by name).
	// A value state_save wrote masked is no value: the live one stays.
	st.Cookies = slices.DeleteFunc(st.Cookies, func(c Cookie) bool {
		why := ""
		switch {
		case sg.h.s.pol.cookieAllowed(c.Domain, "") != nil:
			why = "the origin policy refuses it"
		case strings.Contains(c.Value, maskedMark):
			why = "saved masked: it held a declared secret"
		default:
			return false
		}
		res.Skipped = append(res.Skipped, "cookie "+c.Name+" ("+strings.TrimPrefix(c.Domain, ".")+": "+why+")")
		return true
	})
	for i, so := range st.Origins {
		st.Origins[i].LocalStorage = slices.DeleteFunc(so.LocalStorage, func(it StorageItem) bool {
			if !strings.Contains(it.Value, maskedMark) {
				return false
			}
			res.Skipped = append(res.Skipped, "local storage "+it.Name+" ("+so.Origin+": saved masked: it held a declared secret)")
			return true
		})
	}
	if len(st.Cookies) > 0 {
		// What the load replaces: cookies of the same name, domain and path
		// with another value (said by name, never by value).
		var before struct {
			Cookies []Cookie `json:"cookies"`
		}
		if err := t.page.Call(ctx, "Network.getAllCookies", nil, &before); err != nil {
			return nil, backendError("read the cookies", err)
		}
		for _, c := range st.Cookies {
			for _, b := range before.Cookies {
				if b.Name == c.Name && b.Domain == c.Domain && b.Path == c.Path && b.Value != c.Value {
					res.Replaced = append(res.Replaced, c.Name+" ("+strings.TrimPrefix(c.Domain, ".")+")")
				}
			}
		}
		params := make([]map[string]any, 0, len(st.Cookies))
		for _, c := range st.Cookies {
			p := map[string]any{"name": c.Name, "value": c.Value, "domain": c.Domain, "path": cmp.Or(c.Path, "/"), "httpOnly": c.HTTPOnly, "secure": c.Secure}
			if c.Expires > 0 {
				p["expires"] = c.Expires
			}
			if c.SameSite != "" {
				p["sameSite"] = c.SameSite
			}
			params = append(params, p)
		}
		if err := t.page.Call(ctx, "Network.setCookies", map[string]any{"cookies": params}, nil); err != nil {
			return nil, &Error{Code: CodeInvalidArgument, Message: "the browser refused the state's cookies: " + err.Error(), Err: err}
		}
	}
	var origins []stateOrigin
	for _, so := range st.Origins {
		if len(so.LocalStorage) == 0 {
			continue
		}
		u, err := url.Parse(so.Origin)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			res.Skipped = append(res.Skipped, so.Origin+" (not a web origin)")
			continue
		}
		if origin := t.link.origin; origin != nil {
			if perr := origin(u); perr != nil {
				res.Skipped = append(res.Skipped, so.Origin+" (the origin policy refuses it)")
				continue
			}
		}
		origins = append(origins, so)
	}
	if len(origins) > 0 {
		if err := sg.fillLocalStorage(ctx, t.bctx.id, origins); err != nil {
			return nil, err
		}
	}
	res.Done = "loaded"
	return res, nil
}

// fillLocalStorage sets each origin's local storage from a scratch tab of
// the session's browser whose every request is answered with an empty
// page (Fetch), so that no site runs and none is asked for anything; the
// tab is closed after.
func (sg Storage) fillLocalStorage(ctx context.Context, contextID string, origins []stateOrigin) error {
	s := sg.h.s
	var info backend.TabInfo
	var err error
	if cb, ok := s.be.(backend.Contexts); ok && contextID != "" {
		info, err = cb.NewTabIn(ctx, contextID, "about:blank")
	} else {
		info, err = s.be.NewTab(ctx, "about:blank")
	}
	if err != nil {
		return backendError("open a tab for the local storage", err)
	}
	defer func() { _ = s.be.CloseTab(context.WithoutCancel(ctx), info.ID) }()
	sess, err := s.be.Attach(ctx, info.ID)
	if err != nil {
		return backendError("attach to the tab for the local storage", err)
	}
	paused, cancel := sess.Subscribe("Fetch.requestPaused")
	defer cancel()
	if err := sess.Call(ctx, "Fetch.enable", map[string]any{"patterns": []map[string]any{{"urlPattern": "*"}}}, nil); err != nil {
		return backendError("answer the tab's requests", err)
	}
	empty := base64.StdEncoding.EncodeToString([]byte("<!doctype html><title>webpilot</title>"))
	for _, so := range origins {
		nav := make(chan error, 1)
		go func() { nav <- sess.Call(ctx, "Page.navigate", map[string]any{"url": so.Origin + "/"}, nil) }()
		answered := false
		for !answered {
			select {
			case <-ctx.Done():
				return backendError("fill the local storage", ctx.Err())
			case raw, ok := <-paused:
				if !ok {
					return backendError("fill the local storage", errors.New("the tab closed"))
				}
				var p struct {
					RequestID string `json:"requestId"`
				}
				_ = jsonv2.Unmarshal(raw, &p)
				if err := sess.Call(ctx, "Fetch.fulfillRequest", map[string]any{"requestId": p.RequestID, "responseCode": 200,
					"responseHeaders": []map[string]string{{"name": "Content-Type", "value": "text/html"}}, "body": empty}, nil); err != nil {
					return backendError("fill the local storage", err)
				}
				answered = true
			}
		}
		if err := <-nav; err != nil {
			return backendError("open "+so.Origin+" for its local storage", err)
		}
		items, _ := json.Marshal(so.LocalStorage)
		expr := fmt.Sprintf(`(async (want, items) => {
  for (let i = 0; location.origin !== want && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
  if (location.origin !== want) return "the page did not load";
  for (const it of items) localStorage.setItem(it.name, it.value);
  return "";
})(%q, %s)`, so.Origin, items)
		var r struct {
			Result struct {
				Value string `json:"value"`
			} `json:"result"`
		}
		if err := sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &r); err != nil {
			return backendError("fill the local storage of "+so.Origin, err)
		}
		if r.Result.Value != "" {
			return &Error{Code: CodeInternal, Message: fmt.Sprintf("fill the local storage of %s: %s", so.Origin, r.Result.Value)}
		}
	}
	return nil
}

// clear deletes the cookies, local and session storage (and the
// other site data) of the current page's origin.
func (sg Storage) clear(ctx context.Context) (*StorageResult, error) {
	t := sg.h.t
	u, origin, err := pageOrigin(ctx, t)
	if err != nil {
		return nil, err
	}
	before, err := sg.cookieList(ctx, u, "")
	if err != nil {
		return nil, err
	}
	for _, c := range before {
		if err := t.page.Call(ctx, "Network.deleteCookies", map[string]any{"name": c.Name, "domain": c.Domain, "path": c.Path}, nil); err != nil {
			return nil, backendError("delete the cookies", err)
		}
	}
	if err := t.page.Call(ctx, "Storage.clearDataForOrigin", map[string]any{"origin": origin, "storageTypes": "local_storage,indexeddb,cache_storage,service_workers,websql,file_systems"}, nil); err != nil {
		return nil, backendError("clear the site's data", err)
	}
	mainID, err := t.page.mainFrameID(ctx)
	if err == nil {
		_, _ = (frameWorld{sess: t.page, frameID: mainID}).eval(ctx, `(sessionStorage.clear(), localStorage.clear(), 0)`, nil)
	}
	return &StorageResult{Origin: origin, Total: len(before), Done: "cleared"}, nil
}

// maskedMark starts a declared secret's mask (<secret:NAME>) in a value
// state_save wrote.
const maskedMark = "<secret:"
