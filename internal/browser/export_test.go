package browser

import "context"

// EvalWalkerWorld evaluates call (with W, the walker) in the main frame's
// walker world, the way snapshots and queries do: when ctx ends first, the
// script is stopped in the page.
func EvalWalkerWorld(ctx context.Context, t *Tab, call string) error {
	fr, err := t.mainFrame(ctx)
	if err != nil {
		return err
	}
	var out any
	_, err = frameWorld{sess: t.t, frameID: fr.ID}.eval(ctx, call, &out)
	return err
}

// DownloadsNow are the tab's downloads as they are now.
func DownloadsNow(t *Tab) []Download { return t.downloadsNow(0) }
