package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
)

// checkUploadPaths resolves files (absolute, or relative to the working
// directory) and requires each to be an existing regular file inside one of
// the roots, symbolic links followed: webpilot's own roots (not under a
// dot-file or dot-directory) or the client's. It returns the resolved paths.
func checkUploadPaths(files, ownRoots, clientRoots []string) ([]string, error) {
	if len(files) == 0 {
		return nil, &Error{Code: CodeInvalidArgument, Message: "upload needs files", Hint: `e.g. {"action":"upload","ref":"e5","files":["report.pdf"]}`}
	}
	var real []string
	nDefault := 0
	for i, r := range append(append([]string(nil), ownRoots...), clientRoots...) {
		if r == "" {
			continue
		}
		if abs, err := filepath.Abs(r); err == nil {
			if ev, err := filepath.EvalSymlinks(abs); err == nil {
				real = append(real, ev)
				if i < len(ownRoots) {
					nDefault = len(real)
				}
			}
		}
	}
	out := make([]string, 0, len(files))
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("bad path %q: %v", f, err)}
		}
		ev, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("no file %s", abs), Hint: "check the path; relative paths start at webpilot's working directory"}
		}
		st, err := os.Stat(ev)
		if err != nil || !st.Mode().IsRegular() {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s is not a regular file", abs), Hint: "upload files, not directories or devices"}
		}
		inside := false
		for i, r := range real {
			rel, err := filepath.Rel(r, ev)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			if i < nDefault && hidden(rel) {
				// webpilot's own roots never give out dot-files and
				// dot-directories (.ssh, .env, .aws): only a root the client
				// named does.
				continue
			}
			inside = true
			break
		}
		if !inside {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s is outside the directories uploads may come from", abs),
				Hint: "uploads may come from: " + strings.Join(real, ", ") + " (the working directory, the output directory and the client's roots; dot-files only from a client root)"}
		}
		out = append(out, ev)
	}
	return out, nil
}

// fileInputJS says whether the element is a file input, whether it takes
// several files, and its files' names.
const fileInputJS = `function(){
  if(this.tagName!=="INPUT"||this.type!=="file") return {file:false};
  return {file:true, multiple:this.multiple, disabled:this.disabled, names:Array.from(this.files||[],f=>f.name)};
}`

type fileInput struct {
	File     bool     `json:"file"`
	Multiple bool     `json:"multiple"`
	Disabled bool     `json:"disabled"`
	Names    []string `json:"names"`
}

// chooserWait bounds the wait for a file chooser after a click.
var chooserWait = 3 * time.Second

// upload sets files on a file input, or on the input of the file chooser
// that clicking the target opens (the chooser is intercepted, never shown),
// and reads the names back.
func (s *Session) upload(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	files, err := checkUploadPaths(a.Files, s.m.opts.UploadRoots, a.Roots)
	if err != nil {
		return err
	}
	var fi fileInput
	if err := t.callEl(ctx, el, fileInputJS, &fi); err != nil {
		return backendError("read "+a.Target.Describe(), err)
	}
	set := map[string]any{"files": files}
	if fi.File {
		if fi.Disabled {
			return &Error{Code: CodeNotActionable, Message: fmt.Sprintf("%s is disabled", a.Target.Describe()), Diagnosis: map[string]any{"failed_check": "enabled"}}
		}
		if len(files) > 1 && !fi.Multiple {
			return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s takes one file, not %d", a.Target.Describe(), len(files)), Hint: "upload one file"}
		}
		set["objectId"] = el.objectID
		if err := el.world.sess.Call(ctx, "DOM.setFileInputFiles", set, nil); err != nil {
			return backendError("set the files", err)
		}
		if err := t.callEl(ctx, el, fileInputJS, &fi); err != nil {
			return backendError("read the files back", err)
		}
	} else {
		names, err := s.chooseFiles(ctx, t, el, a, files)
		if err != nil {
			return err
		}
		fi.Names = names
	}
	res.Value = strings.Join(fi.Names, ", ")
	if len(fi.Names) != len(files) {
		return &Error{Code: CodeNotActionable, Message: fmt.Sprintf("set %d files but the input holds %d", len(files), len(fi.Names)),
			Hint: "the page cleared or limited the input; check it with browser_snapshot", Diagnosis: map[string]any{"failed_check": "files"}}
	}
	res.Outcome = "verified"
	return nil
}

// chooseFiles clicks an element that opens a file chooser, intercepts the
// chooser and sets the files on its input.
func (s *Session) chooseFiles(ctx context.Context, t *Tab, el *element, a Action, files []string) ([]string, error) {
	sess := el.world.sess
	opened, cancel := sess.Subscribe("Page.fileChooserOpened")
	defer cancel()
	if err := sess.Call(ctx, "Page.setInterceptFileChooserDialog", map[string]any{"enabled": true}, nil); err != nil {
		return nil, backendError("intercept the file chooser", err)
	}
	defer func() {
		cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), handleTimeout)
		defer ccancel()
		_ = sess.Call(cctx, "Page.setInterceptFileChooserDialog", map[string]any{"enabled": false}, nil)
	}()
	if err := s.click(ctx, t, el, a.Target); err != nil {
		return nil, err
	}
	var ev struct {
		Mode          string `json:"mode"`
		BackendNodeID int64  `json:"backendNodeId"`
	}
	select {
	case raw, ok := <-opened:
		if !ok || jsonv2.Unmarshal(raw, &ev) != nil {
			return nil, backendError("read the file chooser", errors.New("no event"))
		}
	case <-time.After(chooserWait):
		return nil, &Error{Code: CodeNotActionable, Message: fmt.Sprintf("clicked %s, but no file chooser opened within %v", a.Target.Describe(), chooserWait),
			Hint:      "the click itself reached the page (check it with browser_snapshot); target the <input type=file>, or the button or label that opens the chooser",
			Diagnosis: map[string]any{"failed_check": "file chooser"}}
	case <-ctx.Done():
		return nil, &Error{Code: CodeOutcomeUnknown, Message: fmt.Sprintf("clicked %s and the time ran out waiting for a file chooser", a.Target.Describe()),
			Hint: "the click reached the page; check it with browser_snapshot before trying again", Err: ctx.Err()}
	}
	if len(files) > 1 && ev.Mode != "selectMultiple" {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("the file chooser takes one file, not %d", len(files)), Hint: "upload one file"}
	}
	if err := sess.Call(ctx, "DOM.setFileInputFiles", map[string]any{"files": files, "backendNodeId": ev.BackendNodeID}, nil); err != nil {
		return nil, backendError("set the files", err)
	}
	var rn struct {
		Object struct {
			ObjectID string `json:"objectId"`
		} `json:"object"`
	}
	if err := sess.Call(ctx, "DOM.resolveNode", map[string]any{"backendNodeId": ev.BackendNodeID, "objectGroup": objectGroup}, &rn); err != nil {
		return nil, backendError("read the files back", err)
	}
	var fi fileInput
	if err := callOn(ctx, sess, runtime.RemoteObjectID(rn.Object.ObjectID), fileInputJS, &fi); err != nil {
		return nil, backendError("read the files back", err)
	}
	return fi.Names, nil
}

// hidden says a relative path has a component starting with a dot.
func hidden(rel string) bool {
	for _, p := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(p, ".") && p != "." {
			return true
		}
	}
	return false
}
