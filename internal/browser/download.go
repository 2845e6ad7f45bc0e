package browser

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// Download is a file a tab downloaded, or is downloading.
type Download struct {
	seq   int
	guid  string
	batch *dlBatch
	// finishing is set while a completed download is put in place.
	finishing bool
	// fullURL is the URL uncut (URL is shortened for display), when it is
	// short enough to repeat in a hint.
	fullURL  string
	Name     string `json:"name"` // the name the site suggested
	URL      string `json:"url"`
	State    string `json:"state"` // in_progress, completed, canceled
	Bytes    int64  `json:"bytes"`
	Total    int64  `json:"total,omitempty"`
	Path     string `json:"path,omitempty"` // where it is saved in the output directory
	MIMEType string `json:"mime,omitempty"`
	Refused  string `json:"refused,omitempty"` // why it was not saved there
	// Elsewhere says where the file is when it is not in the output
	// directory (a browser on another machine).
	Elsewhere string `json:"elsewhere,omitempty"`
	finished  chan struct{}
}

// dlBatch is the downloads of one call: they land in one fresh folder of
// the output directory, made when the first of them finishes.
type dlBatch struct {
	mark  int    // the call's downloadList.mark; 0 for a download begun outside a call
	owner string // the client its files are for (sessionLink.clientID)
	mu    sync.Mutex
	dir   string
}

// folder is the batch's folder, made on first use.
func (b *dlBatch) folder(m *Policy) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir == "" {
		dir, err := m.newOutputFolder(b.owner, "downloads")
		if err != nil {
			return "", err
		}
		b.dir = dir
	}
	return b.dir, nil
}

// maxHintURL is the longest download URL a result repeats whole.
const maxHintURL = 2000

// downloadCap is how many downloads a tab remembers.
const downloadCap = 50

// downloadWait bounds how long an action waits for a download it started
// to finish before reporting it in progress.
const downloadWait = 3 * time.Second

// Downloads are the held tab's downloads: the files its page downloads
// (each action reports those it started) and the files browser_download
// fetches (Fetch).
type Downloads struct{ h *Held }

// findWait bounds how long a finished download is looked for in the
// browser's own folder (the bridge).
const findWait = 15 * time.Second

// downloadList is a tab's downloads feature: the files its page
// downloads, which its loop follows and its workers put in the output
// directory, and the settings of browser_download's fetches.
type downloadList struct {
	t *Tab
	// Set before the loop starts (the session's policy, t.link.pol, keeps
	// the downloads in its output directory): find finds a finished one in
	// the browser's own folder (backend.DownloadFinder), or is nil;
	// remote: the browser runs on another machine, which keeps the files;
	// maxFetch bounds one file browser_download fetches (0: the default,
	// DefaultMaxFetchBytes).
	find     func(ctx context.Context, guid string) (backend.DownloadFile, error)
	remote   bool
	maxFetch int64

	mu    sync.Mutex
	list  []*Download // the newest downloadCap downloads
	seq   int
	dir   string                      // the staging folder the browser saves them in ("" its own folder)
	early map[string]downloadProgress // progress that came before its download's beginning
	batch *dlBatch                    // the running call's downloads (mark), or nil
}

// The events the downloads follow.
const (
	evDownloadBegin    = "Page.downloadWillBegin"
	evDownloadProgress = "Page.downloadProgress"
)

func (l *downloadList) events() []string { return []string{evDownloadBegin, evDownloadProgress} }

func (l *downloadList) apply(g *loop, ev cdp.Event) {
	switch ev.Method {
	case evDownloadBegin:
		if p, ok := l.onBegin(ev.Params); ok {
			l.progress(g, p)
		}
	case evDownloadProgress:
		var p downloadProgress
		if jsonv2.Unmarshal(ev.Params, &p) == nil && p.GUID != "" {
			l.progress(g, p)
		}
	}
}

// progress applies a download's progress; what takes long (copying a
// finished file, cancelling one past the budget) goes to a worker.
func (l *downloadList) progress(g *loop, p downloadProgress) {
	switch todo, d := l.applyProgress(p); todo {
	case downloadFinish:
		g.spawn(func(context.Context) { l.finish(d) })
	case downloadCancel:
		g.spawn(func(ctx context.Context) { l.cancel(ctx, d.guid) })
	}
}

// save makes the browser save the tab's downloads into the output
// directory's staging folder (named by id; moved into the call's folder
// when done), when the browser runs on this machine and lets webpilot
// choose (launch, an endpoint on loopback).
func (l *downloadList) save(ctx context.Context, m *Policy) {
	dir := m.downloadStaging()
	err := l.t.page.Call(ctx, "Browser.setDownloadBehavior", map[string]any{"behavior": "allowAndName", "downloadPath": dir, "eventsEnabled": true}, nil)
	if err != nil {
		l.t.log.Debug("downloads stay in the browser's folder", "err", err)
		return
	}
	l.mu.Lock()
	l.dir = dir
	l.mu.Unlock()
}

// onBegin records a Page.downloadWillBegin event; ok: progress of it came
// before it, p, to apply now.
func (l *downloadList) onBegin(raw jsonv2.Value) (p downloadProgress, ok bool) {
	var ev struct {
		GUID string `json:"guid"`
		URL  string `json:"url"`
		Name string `json:"suggestedFilename"`
	}
	if jsonv2.Unmarshal(raw, &ev) != nil || ev.GUID == "" {
		return p, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.findLocked(ev.GUID) != nil {
		return p, false
	}
	l.seq++
	batch := l.batch
	if batch == nil {
		batch = &dlBatch{owner: l.ownerID()} // begun outside a call: a folder of its own
	}
	d := &Download{seq: l.seq, guid: ev.GUID, batch: batch, Name: ev.Name, URL: shorten(ev.URL, 300), State: "in_progress", finished: make(chan struct{})}
	if len(ev.URL) <= maxHintURL {
		d.fullURL = ev.URL
	}
	l.list = append(l.list, d)
	if len(l.list) > downloadCap {
		l.list = l.list[len(l.list)-downloadCap:]
	}
	// Progress may come before the beginning (the browser sends them from
	// different places): apply what came.
	p, ok = l.early[ev.GUID]
	delete(l.early, ev.GUID)
	return p, ok
}

// downloadProgress is a Page.downloadProgress event.
type downloadProgress struct {
	GUID     string `json:"guid"`
	Total    int64  `json:"totalBytes"`
	Received int64  `json:"receivedBytes"`
	State    string `json:"state"`
}

// What applyProgress leaves to a worker.
const (
	downloadNothing = iota
	downloadFinish  // finish: find, move or copy the file
	downloadCancel  // cancel: it passed the output directory's budget
)

// applyProgress records a download's progress and says what is left to do
// off the loop.
func (l *downloadList) applyProgress(ev downloadProgress) (int, *Download) {
	l.mu.Lock()
	d := l.findLocked(ev.GUID)
	if d == nil {
		// Its beginning has not come yet: keep the latest state for it.
		if l.early == nil {
			l.early = make(map[string]downloadProgress)
		}
		if _, ok := l.early[ev.GUID]; ok || len(l.early) < downloadCap {
			l.early[ev.GUID] = ev // events of one download come in order
		}
		l.mu.Unlock()
		return downloadNothing, nil
	}
	if d.State != "in_progress" || d.finishing {
		l.mu.Unlock()
		return downloadNothing, nil
	}
	if ev.State != "canceled" || ev.Received > 0 {
		d.Bytes, d.Total = ev.Received, ev.Total // a cancel reports 0 bytes
	}
	switch ev.State {
	case "completed":
		d.finishing = true
		l.mu.Unlock()
		// Off the loop: finding and copying the file must not hold up the
		// tab's events.
		return downloadFinish, d
	case "canceled":
		if staging := l.dir; staging != "" {
			// What the browser wrote before it stopped goes too (before
			// the download reads as cancelled).
			_ = os.Remove(filepath.Join(staging, d.guid))
			_ = os.Remove(filepath.Join(staging, d.guid+".crdownload"))
		}
		d.State = "canceled"
		close(d.finished)
		l.mu.Unlock()
		return downloadNothing, nil
	default:
		// A download into the output directory's staging folder stops as
		// soon as it passes the directory's whole budget: it could never
		// be kept, and an endless stream would fill the disk.
		budget := int64(0)
		if l.dir != "" && l.t.link.pol != nil {
			budget = l.t.link.pol.opts.OutputMaxBytes
		}
		over := budget > 0 && ev.Received > budget && d.Refused == ""
		if over {
			d.Refused = fmt.Sprintf("it passed the output directory's budget of %s while downloading, and webpilot cancelled it (raise --output-max-mb)", byteSize(budget))
		}
		l.mu.Unlock()
		if over {
			return downloadCancel, d
		}
		return downloadNothing, nil
	}
}

// cancel asks the browser to stop a download.
func (l *downloadList) cancel(ctx context.Context, guid string) {
	ctx, cancel := context.WithTimeout(ctx, handleTimeout)
	defer cancel()
	if err := l.t.page.Call(ctx, "Browser.cancelDownload", map[string]any{"guid": guid}, nil); err != nil {
		l.t.log.Warn("could not cancel a download past the budget", "guid", guid, "err", err)
	}
}

// finish puts a completed download into its call's folder of the
// output directory: moved from the staging folder when the browser saved it
// there, copied from the browser's own folder on this machine (the
// bridge), or else described where it is. The file is looked for even
// when the tab closes meanwhile (a download link that opened a tab of its
// own, which closed).
func (l *downloadList) finish(d *Download) {
	l.mu.Lock()
	staging, find, m, remote := l.dir, l.find, l.t.link.pol, l.remote
	name, guid := d.Name, d.guid
	l.mu.Unlock()
	var (
		path, mimeType, refused, elsewhere string
		size                               int64 = -1
	)
	keep := func(src outputFile) {
		folder, err := d.batch.folder(m)
		if err == nil {
			path, size, err = m.putOutputFile(folder, name, src)
		}
		if err != nil {
			refused = downloadRefusal(err)
		}
	}
	switch {
	case m == nil:
	case staging != "":
		keep(outputFile{moveFrom: filepath.Join(staging, guid)})
		if path != "" {
			mimeType = FileMIME(path)
		}
	case find != nil:
		ctx, cancel := context.WithTimeout(context.Background(), findWait)
		f, err := find(ctx, guid)
		cancel()
		switch {
		case err != nil:
			refused = "webpilot could not find it in the browser's download folder (" + err.Error() + ")"
		case f.State != "complete":
			refused = fmt.Sprintf("the browser reports it %s", strings.ReplaceAll(f.State, "_", " "))
			if f.Error != "" {
				refused += " (" + f.Error + ")"
			}
			if f.Danger != "" && f.Danger != "safe" && f.Danger != "accepted" {
				refused += "; Chrome holds it as dangerous (" + f.Danger + ") until its user keeps it"
			}
		default:
			if name == "" {
				name = filepath.Base(f.Path)
			}
			keep(outputFile{copyOf: f.Path})
			mimeType = f.MIMEType
			if mimeType == "" && path != "" {
				mimeType = FileMIME(path)
			}
			if refused != "" {
				refused += "; it stays at " + f.Path
			}
		}
	case remote:
		elsewhere = "on the browser's machine, in its download folder, not here"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	d.State, d.Path, d.MIMEType, d.Refused, d.Elsewhere = "completed", path, mimeType, refused, elsewhere
	if size >= 0 {
		d.Bytes = size
	}
	close(d.finished)
}

// downloadRefusal says why a finished download is not in the output
// directory.
func downloadRefusal(err error) string {
	if we, ok := AsError(err); ok && we.Code == CodeLimitExceeded {
		return we.Message + " (raise --output-max-mb or delete files there)"
	}
	return err.Error()
}

// FileMIME is a file's type, by its extension, else by its first bytes
// ("" when it cannot be read).
func FileMIME(path string) string {
	if t := mime.TypeByExtension(filepath.Ext(path)); t != "" {
		return t
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := f.Read(head)
	return http.DetectContentType(head[:n])
}

// findLocked is the download with that id; l.mu is held.
func (l *downloadList) findLocked(guid string) *Download {
	for _, d := range l.list {
		if d.guid == guid {
			return d
		}
	}
	return nil
}

// safeName turns a suggested file name into one plain file name.
func safeName(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.Map(func(r rune) rune {
		if r < 32 || r == '/' || r == ':' {
			return '_'
		}
		return r
	}, name)
	name = strings.TrimLeft(name, ".")
	if name == "" {
		name = "download"
	}
	// File systems take 255 bytes a name: a longer one is cut (in whole
	// characters, the extension kept, room left for " (2)").
	if len(name) > maxNameBytes {
		ext := filepath.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		stem := strings.TrimSuffix(name, ext)
		cut := maxNameBytes - len(ext) - len("…")
		for cut > 0 && !utf8.RuneStart(stem[cut]) {
			cut--
		}
		name = stem[:cut] + "…" + ext
	}
	return name
}

// maxNameBytes is the longest name safeName gives, in bytes.
const maxNameBytes = 200

// mark is the sequence number of the newest download. It opens a batch
// for the call that asks: the downloads begun until end share one folder.
func (l *downloadList) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.batch = &dlBatch{mark: l.seq, owner: l.ownerID()}
	return l.seq
}

// end closes the batch mark opened: later downloads get folders of their
// own.
func (l *downloadList) end(mark int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.batch != nil && l.batch.mark == mark {
		l.batch = nil
	}
}

// now are the downloads newer than mark, as they are now.
func (l *downloadList) now(mark int) []Download {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Download
	for _, d := range l.list {
		if d.seq > mark {
			out = append(out, *d)
		}
	}
	return out
}

// since waits (bounded by downloadWait and ctx) for the downloads newer
// than mark to finish, and returns them as they are then.
func (l *downloadList) since(ctx context.Context, mark int) []Download {
	l.mu.Lock()
	var fresh []*Download
	for _, d := range l.list {
		if d.seq > mark {
			fresh = append(fresh, d)
		}
	}
	l.mu.Unlock()
	if len(fresh) == 0 {
		return nil
	}
	timer := time.NewTimer(downloadWait)
	defer timer.Stop()
wait:
	for _, d := range fresh {
		select {
		case <-d.finished:
		case <-timer.C:
			break wait
		case <-ctx.Done():
			break wait
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Download, 0, len(fresh))
	for _, d := range fresh {
		out = append(out, *d)
	}
	return out
}

// await waits (within downloadWait) until the tab's loop has recorded
// each download of guids.
func (l *downloadList) await(ctx context.Context, guids []string) {
	if len(guids) == 0 {
		return
	}
	deadline := time.Now().Add(downloadWait)
	for {
		l.mu.Lock()
		all := true
		for _, g := range guids {
			all = all && l.findLocked(g) != nil
		}
		l.mu.Unlock()
		if all || time.Now().After(deadline) || ctx.Err() != nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// String says what became of a download, on one line.
func (d Download) String() string {
	size := byteSize(d.Bytes)
	switch {
	case d.State == "canceled" && d.Refused != "":
		return fmt.Sprintf("%s: canceled after %s: %s", d.Name, size, d.Refused)
	case d.State == "canceled":
		return fmt.Sprintf("%s: canceled after %s", d.Name, size)
	case d.State == "in_progress" && d.Total > 0:
		return fmt.Sprintf("%s: still downloading (%s of %d bytes)", d.Name, size, d.Total)
	case d.State == "in_progress":
		return fmt.Sprintf("%s: still downloading (%s so far)", d.Name, size)
	case d.Refused != "":
		return fmt.Sprintf("%s (%s): not kept: %s", d.Name, size, d.Refused)
	case d.Path != "":
		what := size
		if d.MIMEType != "" {
			what += ", " + d.MIMEType
		}
		return fmt.Sprintf("%s (%s) saved to %s", d.Name, what, d.Path)
	case d.Elsewhere != "" && d.fullURL != "":
		return fmt.Sprintf("%s (%s) saved %s; browser_download {\"urls\":[%q]} fetches it into the output directory", d.Name, size, d.Elsewhere, d.fullURL)
	case d.Elsewhere != "":
		return fmt.Sprintf("%s (%s) saved %s; browser_download with its URL (%s) fetches it into the output directory", d.Name, size, d.Elsewhere, d.URL)
	}
	return fmt.Sprintf("%s (%s) saved to the browser's download folder", d.Name, size)
}

// byteSize is n bytes for a person: 4 bytes, 1.5 KB, 2.0 MB.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// downloadFinder is how a tab finds its finished downloads in the
// browser's own folder (backend.DownloadFinder), or nil.
func downloadFinder(be backend.Backend, tab string) func(ctx context.Context, guid string) (backend.DownloadFile, error) {
	f, ok := be.(backend.DownloadFinder)
	if !ok {
		return nil
	}
	return func(ctx context.Context, guid string) (backend.DownloadFile, error) {
		return f.FindDownload(ctx, tab, guid)
	}
}

// ownerID is the client the tab's output files are for ("": any).
func (l *downloadList) ownerID() string {
	return l.t.link.clientID()
}
