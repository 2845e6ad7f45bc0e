package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
)

// RootMissing is UploadRootProblem's answer for a directory that does not
// exist (yet: the output directory is made on its first use).
const RootMissing = "does not exist"

// UploadRootProblem checks a directory offered as an upload root (the
// working directory, the output directory, a client's root) and returns its
// resolved path, or why it may not be a root:
//   - the filesystem root (/, a drive root on Windows), the user's home
//     directory itself, or a directory above home: they hold everything
//     (a subdirectory of home is fine);
//   - a symbolic link: the root itself must be a real directory, so a
//     link to /etc named as the output directory does not open /etc. Links
//     in the components above it are resolved (macOS's /var and /tmp are
//     links), and the resolved directory is checked again;
//   - missing or not a directory.
func UploadRootProblem(dir string) (resolved, problem string) {
	if dir == "" {
		return "", "no directory named"
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err.Error()
	}
	if p := tooWide(abs); p != "" {
		return "", p
	}
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", RootMissing
	case err != nil:
		return "", err.Error()
	case fi.Mode()&os.ModeSymlink != 0:
		target, _ := filepath.EvalSymlinks(abs)
		return "", fmt.Sprintf("is a symbolic link (to %s); name a real directory", target)
	case !fi.IsDir():
		return "", "is not a directory"
	}
	ev, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err.Error()
	}
	if p := tooWide(ev); p != "" {
		return "", fmt.Sprintf("resolves to %s, which %s", ev, p)
	}
	return ev, ""
}

// tooWide says why an absolute directory holds too much to upload from:
// it is a filesystem root, the home directory, or above it.
func tooWide(abs string) string {
	abs = filepath.Clean(abs)
	if filepath.Dir(abs) == abs {
		return "is the root of the filesystem"
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	homes := []string{filepath.Clean(home)}
	if ev, err := filepath.EvalSymlinks(home); err == nil {
		homes = append(homes, ev)
	}
	for _, h := range homes {
		if abs == h {
			return "is the home directory (name a project directory under it)"
		}
		if within(abs, h) {
			return fmt.Sprintf("holds the home directory %s", h)
		}
	}
	// By identity too: on a file system that ignores case (macOS, Windows)
	// /users/me is the home directory /Users/me under another spelling.
	ai, err := os.Stat(abs)
	if err != nil {
		return ""
	}
	for _, h := range homes {
		for d := h; ; d = filepath.Dir(d) {
			if di, err := os.Stat(d); err == nil && os.SameFile(di, ai) {
				if d == h {
					return "is the home directory (name a project directory under it)"
				}
				return fmt.Sprintf("holds the home directory %s", h)
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return ""
}

// within says path is dir or inside it (both absolute and clean).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// checkUploadPaths resolves files (absolute, or relative to the working
// directory) and requires each to be an existing regular file inside one of
// the roots, symbolic links followed: webpilot's own roots (not under a
// dot-file or dot-directory) or the client's. Roots that UploadRootProblem
// refuses are left out (and logged); with none left every upload is
// refused. A file with more than one hard link is refused unless it is in
// outputDir (which webpilot writes itself): a hard link inside a root can
// name a file from anywhere on the same filesystem. It returns the resolved
// paths.
func checkUploadPaths(files, ownRoots, clientRoots []string, outputDir string, log *slog.Logger) ([]string, error) {
	if len(files) == 0 {
		return nil, &Error{Code: CodeInvalidArgument, Message: "upload needs files", Hint: `e.g. {"action":"upload","ref":"e5","files":["report.pdf"]}`}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var real, ignored []string
	nDefault := 0
	for i, r := range append(append([]string(nil), ownRoots...), clientRoots...) {
		if r == "" {
			continue
		}
		ev, why := UploadRootProblem(r)
		if why != "" {
			own := i < len(ownRoots)
			if why != RootMissing { // an output dir not written yet
				ignored = append(ignored, r+" ("+why+")")
				log.Info("upload root ignored", "root", r, "why", why, "client_root", !own)
			}
			continue
		}
		real = append(real, ev)
		if i < len(ownRoots) {
			nDefault = len(real)
		}
	}
	outReal, _ := UploadRootProblem(outputDir)
	if len(real) == 0 {
		msg := "uploads are refused: there is no directory they may come from"
		if len(ignored) > 0 {
			msg += "; not used: " + strings.Join(ignored, "; ")
		}
		hint := "start webpilot in a project directory (not / or your home directory), or have the MCP client declare the project as a root"
		if outputDir != "" {
			hint += ", or copy the files into the output directory " + outputDir
		}
		return nil, &Error{Code: CodeInvalidArgument, Message: msg, Hint: hint}
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
			if !within(r, ev) {
				continue
			}
			if i < nDefault && hidden(mustRel(r, ev)) {
				// webpilot's own roots never give out dot-files and
				// dot-directories (.ssh, .env, .aws): only a root the client
				// named does.
				continue
			}
			inside = true
			break
		}
		if !inside {
			hint := "uploads may come from: " + strings.Join(real, ", ") + " (the working directory, the output directory and the client's roots; dot-files only from a client root)"
			if len(ignored) > 0 {
				hint += "; not used: " + strings.Join(ignored, "; ")
			}
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s is outside the directories uploads may come from", abs), Hint: hint}
		}
		if n := linkCount(st); n > 1 && (outReal == "" || !within(outReal, ev)) {
			hint := "copy the file (a copy, not a link) into the working directory"
			if outputDir != "" {
				hint += " or the output directory " + outputDir
			}
			return nil, &Error{Code: CodeInvalidArgument,
				Message: fmt.Sprintf("%s has %d hard links: a hard link can bring a file from outside the upload directories into them, so such files are not uploaded", abs, n),
				Hint:    hint + ", then upload the copy"}
		}
		out = append(out, ev)
	}
	return out, nil
}

// mustRel is filepath.Rel for a path known to be inside dir.
func mustRel(dir, path string) string {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return path
	}
	return rel
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
const chooserWait = 3 * time.Second

// upload sets files on a file input, or on the input of the file chooser
// that clicking the target opens (the chooser is intercepted, never shown),
// and reads the names back.
func (ac actor) upload(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	s := ac.s
	files, err := s.localFiles(a.Files, false, a.Roots)
	if err != nil {
		return err
	}
	// A file from the output dir stays while the browser takes it.
	for _, f := range files {
		release, err := s.pol.out.Hold(f)
		if err != nil {
			return fmt.Errorf("hold %s: %w", f, err)
		}
		defer release()
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
		names, err := ac.chooseFiles(ctx, t, el, a, files)
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
func (ac actor) chooseFiles(ctx context.Context, t *Tab, el *element, a Action, files []string) ([]string, error) {
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
	if _, err := t.pointer.pointerInput(ctx, el, a.Target, gestureOf("click"), false); err != nil {
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
	sess.holdsObjects()
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

// localFiles is the one way a call hands webpilot local files to read
// (uploads, a route's fulfill file, a state file, raw CDP's file inputs):
// each must pass checkUploadPaths — inside the calling client's upload
// roots or clientRoots (its MCP roots), or the output directory when
// withOut — and a file of the output directory written for another client
// of this process (Caller.Client) is refused. It returns the resolved
// paths.
func (s *Session) localFiles(files []string, withOut bool, clientRoots []string) ([]string, error) {
	own := s.link.caller.UploadRoots
	if own == nil {
		own = s.m.opts.UploadRoots
	}
	if withOut {
		own = append(slices.Clone(own), s.pol.OutputDir())
	}
	real, err := checkUploadPaths(files, own, clientRoots, s.pol.OutputDir(), s.m.log)
	if err != nil {
		return nil, err
	}
	for i, p := range real {
		owner, err := s.pol.out.OwnerOf(p)
		if err != nil {
			return nil, s.pol.outputError(err)
		}
		if owner != "" && owner != s.link.caller.Client {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s was written for another client of this webpilot: it is not given to this one", files[i]),
				Hint: "use files of your own: those your calls wrote, or files in your project"}
		}
	}
	return real, nil
}
