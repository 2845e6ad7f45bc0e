package tools

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// StorageIn is browser_storage's input.
type StorageIn struct {
	Action   string  `json:"action" jsonschema:"what to work on" enum:"cookies,local,session,state_save,state_load,clear"`
	Op       string  `json:"op,omitempty" jsonschema:"for cookies, local, session" default:"\"list\"" enum:"list,get,set,delete"`
	Name     string  `json:"name,omitempty" jsonschema:"cookie or item name"`
	Value    string  `json:"value,omitempty" jsonschema:"set: the value"`
	Domain   string  `json:"domain,omitempty" jsonschema:"cookies of this site (default: the page's)"`
	Path     string  `json:"path,omitempty" jsonschema:"cookie path"`
	Expires  float64 `json:"expires,omitempty" jsonschema:"cookie expiry, Unix seconds (default: session)"`
	HTTPOnly bool    `json:"http_only,omitempty" jsonschema:"cookie flag"`
	Secure   bool    `json:"secure,omitempty" jsonschema:"cookie flag"`
	SameSite string  `json:"same_site,omitempty" jsonschema:"cookie flag" enum:"Strict,Lax,None"`
	File     string  `json:"file,omitempty" jsonschema:"state_load: the file state_save wrote"`
	Secret   string  `json:"secret,omitempty" jsonschema:"state file sealed with this secret's value"`
	Force    bool    `json:"force,omitempty" jsonschema:"through the extension: allow state_save, state_load, clear on the user's own data"`
	Session  string  `json:"session,omitempty"`
	Tab      string  `json:"tab,omitempty"`
}

var storageTool = Def(Tool{
	Name:        "browser_storage",
	Description: "Cookies and the page's local/session storage (list, get, set, delete); save or load the whole storage state to a file; clear the site's data.",
	Annotations: Annotations{Destructive: ptr(true)},
	Group:       GroupStorage,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in StorageIn) (*Result, error) {
	o := browser.StorageOptions{Action: in.Action, Op: in.Op, Name: in.Name, Value: in.Value, Domain: in.Domain, Path: in.Path, Expires: in.Expires,
		HTTPOnly: in.HTTPOnly, Secure: in.Secure, SameSite: in.SameSite, File: in.File, Force: in.Force}
	if in.Secret != "" {
		sec, err := h.Secret(in.Secret)
		if err != nil {
			return nil, err
		}
		o.Key, o.KeyName = []byte(sec.Value), in.Secret
	}
	if in.Action == "state_load" {
		o.Roots = h.Roots(ctx)
	}
	res, err := h.Storage().Run(ctx, o)
	if err != nil {
		return nil, err
	}
	return &Result{Text: renderStorage(in, res)}, nil
})

// renderStorage is browser_storage's text.
func renderStorage(in StorageIn, r *browser.StorageResult) string {
	var b strings.Builder
	op := in.Op
	if op == "" {
		op = "list"
	}
	sealed := ""
	if r.Encrypted {
		sealed = fmt.Sprintf(" (sealed with the secret %q)", in.Secret)
	}
	switch in.Action {
	case "cookies":
		switch op {
		case "set":
			fmt.Fprintf(&b, "Cookie %q set.", in.Name)
		case "delete":
			fmt.Fprintf(&b, "Cookie %q: %s.", in.Name, r.Done)
		default:
			where := "the page"
			if in.Domain != "" {
				where = in.Domain
			}
			fmt.Fprintf(&b, "Cookies of %s: %d", where, r.Total)
			if len(r.Cookies) < r.Total {
				fmt.Fprintf(&b, " (the first %d)", len(r.Cookies))
			}
			for _, c := range r.Cookies {
				b.WriteString("\n- " + cookieLine(c, r.Redacted))
			}
			if r.Redacted && len(r.Cookies) > 0 {
				b.WriteString("\n(values redacted; the user's --no-redact shows them)")
			}
		}
	case "local", "session":
		switch op {
		case "set":
			fmt.Fprintf(&b, "%s storage of %s: %q set (%d items).", in.Action, r.Origin, in.Name, r.Total)
		case "delete":
			fmt.Fprintf(&b, "%s storage of %s: %q deleted (%d items left).", in.Action, r.Origin, in.Name, r.Total)
		default:
			fmt.Fprintf(&b, "%s storage of %s: %d items", in.Action, r.Origin, r.Total)
			if len(r.Items) < r.Total && op == "list" {
				fmt.Fprintf(&b, " (the first %d)", len(r.Items))
			}
			for _, it := range r.Items {
				fmt.Fprintf(&b, "\n- %s = %q", it.Name, it.Value)
			}
			if r.Done != "" {
				fmt.Fprintf(&b, "\n(%s)", r.Done)
			}
		}
	case "state_save":
		fmt.Fprintf(&b, "Saved the storage state: %d cookies, the local storage of %d origin(s)%s.\nSaved to %s", r.Total, r.Origins, sealed, r.Path)
		if len(r.Masked) > 0 {
			fmt.Fprintf(&b, "\nNote: %d value(s) held a declared secret and are saved masked, so loading this file does not restore them: %s. Save with secret (a sealed file) to keep them.", len(r.Masked), strings.Join(r.Masked, ", "))
		}
	case "state_load":
		fmt.Fprintf(&b, "Loaded the storage state%s: %d cookies, the local storage of %d origin(s).", sealed, r.Total, r.Origins)
		if len(r.Replaced) > 0 {
			fmt.Fprintf(&b, "\nReplaced %d cookie(s) the browser had: %s.", len(r.Replaced), strings.Join(r.Replaced, ", "))
		}
		if len(r.Skipped) > 0 {
			fmt.Fprintf(&b, "\nNot loaded: %s.", strings.Join(r.Skipped, ", "))
		}
		b.WriteString("\nPages loaded from now on see it; browser_navigate reloads the current one.")
	case "clear":
		fmt.Fprintf(&b, "Cleared %s: %d cookie(s) deleted; local and session storage and the site's other data cleared.", r.Origin, r.Total)
	}
	return b.String()
}

// cookieLine is one cookie: name = value (or its length), domain and
// path, expiry and flags.
func cookieLine(c browser.Cookie, redacted bool) string {
	v := fmt.Sprintf("%q", c.Value)
	if redacted {
		v = fmt.Sprintf("<redacted, %d chars>", utf8.RuneCountInString(c.Value))
	}
	s := fmt.Sprintf("%s = %s · %s%s", c.Name, v, strings.TrimPrefix(c.Domain, "."), c.Path)
	if c.Expires > 0 {
		s += " · expires " + time.Unix(int64(c.Expires), 0).UTC().Format(time.DateOnly)
	} else {
		s += " · session"
	}
	var flags []string
	if c.HTTPOnly {
		flags = append(flags, "HttpOnly")
	}
	if c.Secure {
		flags = append(flags, "Secure")
	}
	if c.SameSite != "" {
		flags = append(flags, "SameSite="+c.SameSite)
	}
	if len(flags) > 0 {
		s += " · " + strings.Join(flags, " ")
	}
	return s
}
