package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// Download is a file a tab downloaded, or is downloading.
type Download struct {
	seq      int
	guid     string
	Name     string `json:"name"` // the name the site suggested
	URL      string `json:"url"`
	State    string `json:"state"` // in_progress, completed, canceled
	Bytes    int64  `json:"bytes"`
	Total    int64  `json:"total,omitempty"`
	Path     string `json:"path,omitempty"` // where it is saved; "" when the browser's own folder holds it
	Refused  string `json:"refused,omitempty"`
	finished chan struct{}
}

// downloadCap is how many downloads a tab remembers.
const downloadCap = 50

// downloadWait bounds how long an action waits for a download it started
// to finish before reporting it in progress.
var downloadWait = 3 * time.Second

// saveDownloads makes the browser save the tab's downloads into the output
// directory (named by id, renamed to the suggested name when done), when the
// browser runs on this machine; elsewhere (the bridge: the user's Chrome
// keeps its own download folder and setting) downloads go where the browser
// puts them and are reported without a path.
func (t *Tab) saveDownloads(ctx context.Context, dir string, maxBytes int64) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.log.Warn("downloads: output directory", "err", err)
		return
	}
	err := t.t.Call(ctx, "Browser.setDownloadBehavior", map[string]any{"behavior": "allowAndName", "downloadPath": dir, "eventsEnabled": true}, nil)
	if err != nil {
		t.log.Debug("downloads stay in the browser's folder", "err", err)
		return
	}
	t.mu.Lock()
	t.downloadDir, t.downloadMax = dir, maxBytes
	t.mu.Unlock()
}

// onDownloadBegin records a Page.downloadWillBegin event.
func (t *Tab) onDownloadBegin(raw jsonv2.Value) {
	var ev struct {
		GUID string `json:"guid"`
		URL  string `json:"url"`
		Name string `json:"suggestedFilename"`
	}
	if jsonv2.Unmarshal(raw, &ev) != nil || ev.GUID == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.findDownload(ev.GUID) != nil {
		return
	}
	t.downloadSeq++
	d := &Download{seq: t.downloadSeq, guid: ev.GUID, Name: ev.Name, URL: shorten(ev.URL, 300), State: "in_progress", finished: make(chan struct{})}
	t.downloads = append(t.downloads, d)
	if len(t.downloads) > downloadCap {
		t.downloads = t.downloads[len(t.downloads)-downloadCap:]
	}
	// Progress may come before the beginning (the browser sends them from
	// different places): apply what came.
	if p, ok := t.downloadEarly[ev.GUID]; ok {
		delete(t.downloadEarly, ev.GUID)
		go t.applyProgress(p)
	}
}

// downloadProgress is a Page.downloadProgress event.
type downloadProgress struct {
	GUID     string `json:"guid"`
	Total    int64  `json:"totalBytes"`
	Received int64  `json:"receivedBytes"`
	State    string `json:"state"`
}

// onDownloadProgress records a Page.downloadProgress event; a finished
// download in the output directory gets its suggested name.
func (t *Tab) onDownloadProgress(raw jsonv2.Value) {
	var ev downloadProgress
	if jsonv2.Unmarshal(raw, &ev) != nil || ev.GUID == "" {
		return
	}
	t.applyProgress(ev)
}

func (t *Tab) applyProgress(ev downloadProgress) {
	t.mu.Lock()
	d := t.findDownload(ev.GUID)
	if d == nil {
		// Its beginning has not come yet: keep the latest state for it.
		if t.downloadEarly == nil {
			t.downloadEarly = make(map[string]downloadProgress)
		}
		if _, ok := t.downloadEarly[ev.GUID]; ok || len(t.downloadEarly) < downloadCap {
			t.downloadEarly[ev.GUID] = ev // events of one download come in order
		}
		t.mu.Unlock()
		return
	}
	if d.State != "in_progress" {
		t.mu.Unlock()
		return
	}
	d.Bytes, d.Total = ev.Received, ev.Total
	dir, maxBytes := t.downloadDir, t.downloadMax
	t.mu.Unlock()
	switch ev.State {
	case "completed":
		path, refused := "", ""
		if dir != "" {
			path, refused = finishDownload(dir, ev.GUID, d.Name, maxBytes)
		}
		t.mu.Lock()
		d.State, d.Path, d.Refused = "completed", path, refused
		close(d.finished)
		t.mu.Unlock()
	case "canceled":
		t.mu.Lock()
		d.State = "canceled"
		close(d.finished)
		t.mu.Unlock()
	}
}

// findDownload is the download with that id; t.mu is held.
func (t *Tab) findDownload(guid string) *Download {
	for _, d := range t.downloads {
		if d.guid == guid {
			return d
		}
	}
	return nil
}

// finishDownload renames the file saved under its id to the suggested
// name (made safe and unique) in dir, or removes it when the output
// directory would pass its cap.
func finishDownload(dir, guid, name string, maxBytes int64) (path, refused string) {
	saved := filepath.Join(dir, guid)
	if maxBytes > 0 && dirSize(dir) > maxBytes {
		_ = os.Remove(saved)
		return "", fmt.Sprintf("the output directory passed its %d MB cap, so the file was deleted (raise --output-max-mb or clear %s)", maxBytes>>20, dir)
	}
	base := safeName(name)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for i := 1; i < 1000; i++ {
		cand := base
		if i > 1 {
			cand = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
		target := filepath.Join(dir, cand)
		if _, err := os.Lstat(target); err == nil {
			continue
		}
		if err := os.Rename(saved, target); err != nil {
			return saved, ""
		}
		_ = os.Chmod(target, 0o600)
		return target, ""
	}
	return saved, ""
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
	return name
}

// downloadMark is the sequence number of the newest download.
func (t *Tab) downloadMark() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.downloadSeq
}

// downloadsSince waits (bounded by downloadWait and ctx) for the downloads
// newer than mark to finish, and returns them as they are then.
func (t *Tab) downloadsSince(ctx context.Context, mark int) []Download {
	t.mu.Lock()
	var fresh []*Download
	for _, d := range t.downloads {
		if d.seq > mark {
			fresh = append(fresh, d)
		}
	}
	t.mu.Unlock()
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
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Download, 0, len(fresh))
	for _, d := range fresh {
		out = append(out, *d)
	}
	return out
}

// String says what became of a download, on one line.
func (d Download) String() string {
	size := fmt.Sprintf("%d bytes", d.Bytes)
	if d.Bytes >= 1<<20 {
		size = fmt.Sprintf("%.1f MB", float64(d.Bytes)/(1<<20))
	} else if d.Bytes >= 1<<10 {
		size = fmt.Sprintf("%.1f KB", float64(d.Bytes)/(1<<10))
	}
	switch {
	case d.State == "canceled":
		return fmt.Sprintf("%s: canceled after %s", d.Name, size)
	case d.State == "in_progress" && d.Total > 0:
		return fmt.Sprintf("%s: still downloading (%s of %d bytes)", d.Name, size, d.Total)
	case d.State == "in_progress":
		return fmt.Sprintf("%s: still downloading (%s so far)", d.Name, size)
	case d.Refused != "":
		return fmt.Sprintf("%s (%s): not kept: %s", d.Name, size, d.Refused)
	case d.Path != "":
		return fmt.Sprintf("%s (%s) saved to %s", d.Name, size, d.Path)
	}
	return fmt.Sprintf("%s (%s) saved to the browser's download folder", d.Name, size)
}
