package backendtest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/extension"
	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/bridge"
	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
)

// bridgeRig is a bridge backend wired to a headless Chromium that loaded
// the real extension: the Backend under test, and what must close with it.
type bridgeRig struct {
	*bridge.Backend
	browser *launch.Backend
	dir     string
	secret  []byte // the pairing secret the extension was provisioned with
	// downloads stands for the user's download folder: the browser saves
	// there rather than in the home directory of whoever runs the tests.
	downloads string
}

// Close closes the bridge, then the browser.
func (r *bridgeRig) Close() error {
	err := r.Backend.Close()
	err = errors.Join(err, r.browser.Close())
	_ = os.RemoveAll(r.dir)
	if r.downloads != "" {
		_ = os.RemoveAll(r.downloads)
	}
	return err
}

// DownloadDir is the folder the bridge's browser saves downloads in, as a
// user's Chrome saves into the user's download folder.
func (r *bridgeRig) DownloadDir() string { return r.downloads }

// Browser is the launched Chromium behind the bridge (for tests that stop
// the extension's service worker or inspect the browser).
func (r *bridgeRig) Browser() *launch.Backend { return r.browser }

// startBridge starts a bridge server on a free loopback port, a headless
// Chromium with the extension loaded, and provisions the extension with the
// port and the pairing secret by writing its storage through CDP on its
// service worker — the same storage the popup writes after pairing. No
// test-only path exists in the extension.
func startBridge(ctx context.Context) (*bridgeRig, error) {
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	srv, err := bridge.Listen(bridge.Options{Addr: "127.0.0.1:0", ExtensionIDs: extension.IDs(), Secret: secret, ServerVersion: "test"})
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "webpilot-extension-*")
	if err != nil {
		srv.Close()
		return nil, err
	}
	if err := os.CopyFS(dir, extension.Files); err != nil {
		srv.Close()
		return nil, fmt.Errorf("write the extension: %w", err)
	}
	br := withExtension(dir)
	rig := &bridgeRig{Backend: bridge.New(srv, bridge.BackendOptions{CloseServer: true, ConnectWait: Timeout(20 * time.Second)}), browser: br, dir: dir, secret: secret}
	fail := func(err error) (*bridgeRig, error) {
		_ = rig.Close()
		return nil, err
	}
	if err := br.Start(ctx); err != nil {
		return fail(err)
	}
	if rig.downloads, err = os.MkdirTemp("", "webpilot-user-downloads-*"); err != nil {
		return fail(err)
	}
	bs, err := br.BrowserSession(ctx)
	if err != nil {
		return fail(err)
	}
	// The browser's own folder setting, made from its own debugging
	// connection (the extension cannot: chrome.debugger refuses Browser.*).
	if err := bs.Call(ctx, "Browser.setDownloadBehavior", map[string]any{"behavior": "allow", "downloadPath": rig.downloads}, nil); err != nil {
		return fail(fmt.Errorf("set the browser's download folder: %w", err))
	}
	if err := ProvisionExtension(ctx, br, srv.Port(), secret); err != nil {
		return fail(err)
	}
	// Wait for a connection that stays up: a worker that was still starting
	// when provisioned may reconnect once with the new configuration.
	wctx, cancel := context.WithTimeout(ctx, Timeout(30*time.Second))
	defer cancel()
	for {
		r, err := srv.Relay(wctx, "")
		if err != nil {
			return fail(fmt.Errorf("the extension did not connect to the bridge: %w", err))
		}
		select {
		case <-r.Done():
			continue
		case <-time.After(300 * time.Millisecond):
			return rig, nil
		}
	}
}

// withExtension is a headless Chromium on a temporary profile of its own
// that loads the unpacked extension in dir.
func withExtension(dir string) *launch.Backend {
	return launch.New(launch.Options{Headless: true, Isolated: true, Env: os.Getenv,
		ExtraArgs: []string{"--load-extension=" + dir, "--disable-extensions-except=" + dir, "--enable-unsafe-extension-debugging",
			// No "started debugging" infobar: it comes and goes as tests attach
			// and detach tabs, and resizes every viewport when it does.
			"--silent-debugger-extension-api"}})
}

// BridgeBrowser is the headless Chromium behind the test bridge b (the
// first profile); the test fails when b is not the test bridge.
func BridgeBrowser(t testing.TB, b backend.Backend) *launch.Backend {
	t.Helper()
	rig, ok := b.(*bridgeRig)
	if !ok {
		t.Fatalf("backend %T is not the test bridge", b)
	}
	return rig.browser
}

// StartProfile starts another headless Chromium with the extension, on a
// profile of its own (a second Chrome profile of the same user), provisions
// it with the test bridge's port and secret and with name as its profile
// name (what the popup's Rename stores), and waits until that profile is
// connected to the bridge besides the first. Close the browser when done.
func StartProfile(ctx context.Context, b backend.Backend, name string) (*launch.Backend, error) {
	rig, ok := b.(*bridgeRig)
	if !ok {
		return nil, fmt.Errorf("backend %T is not the test bridge", b)
	}
	br := withExtension(rig.dir)
	if err := br.Start(ctx); err != nil {
		return nil, err
	}
	if err := provision(ctx, br, map[string]any{"port": rig.Server().Port(), "secret": base64.StdEncoding.EncodeToString(rig.secret), "profile_name": name}); err != nil {
		_ = br.Close()
		return nil, err
	}
	deadline := time.Now().Add(Timeout(30 * time.Second))
	for {
		for _, h := range rig.Server().Profiles() {
			if h.ProfileName == name {
				return br, nil
			}
		}
		if time.Now().After(deadline) {
			_ = br.Close()
			return nil, fmt.Errorf("profile %q did not connect to the bridge (connected: %s)", name, bridge.DescribeProfiles(rig.Server().Profiles()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ProvisionExtension writes the bridge port and secret into the extension's
// storage through a CDP session on its service worker.
func ProvisionExtension(ctx context.Context, br *launch.Backend, port int, secret []byte) error {
	return provision(ctx, br, map[string]any{"port": port, "secret": base64.StdEncoding.EncodeToString(secret)})
}

// provision writes items into the extension's chrome.storage.local through
// a CDP session on its service worker.
func provision(ctx context.Context, br *launch.Backend, items map[string]any) error {
	sw, err := extensionWorker(ctx, br)
	if err != nil {
		return err
	}
	js, err := json.Marshal(items)
	if err != nil {
		return err
	}
	// A worker that has just started has no extension bindings yet: wait
	// for chrome.storage before writing.
	expr := fmt.Sprintf(`(typeof chrome === "object" && chrome.storage) ? chrome.storage.local.set(%s).then(() => "ok") : "starting"`, js)
	if _, err := evalWhenReady(ctx, sw, expr, "provision the extension", "chrome.storage"); err != nil {
		return err
	}
	return nil
}

// caller is a CDP session as these helpers use it.
type caller interface {
	Call(ctx context.Context, method string, params, result any) error
}

// evalWhenReady evaluates expr (which answers "starting" while the API it
// needs is not there yet) until it answers something else, at most the
// scaled 15 s, and returns that answer. doing and api name the failures.
func evalWhenReady(ctx context.Context, sess caller, expr, doing, api string) (string, error) {
	deadline := time.Now().Add(Timeout(15 * time.Second))
	for {
		var res struct {
			Result struct {
				Value string `json:"value"`
			} `json:"result"`
			ExceptionDetails json.RawMessage `json:"exceptionDetails"`
		}
		if err := sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &res); err != nil {
			return "", fmt.Errorf("%s: %w", doing, err)
		}
		switch {
		case res.ExceptionDetails != nil:
			return "", fmt.Errorf("%s: %s", doing, res.ExceptionDetails)
		case res.Result.Value != "starting":
			return res.Result.Value, nil
		case time.Now().After(deadline):
			return "", fmt.Errorf("%s: the extension never got the %s API", doing, api)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// extensionWorker attaches to the extension's service worker, waiting for it
// to appear.
func extensionWorker(ctx context.Context, br *launch.Backend) (interface {
	Call(ctx context.Context, method string, params, result any) error
}, error) {
	bs, err := br.BrowserSession(ctx)
	if err != nil {
		return nil, err
	}
	id, err := ExtensionWorkerID(ctx, br)
	if err != nil {
		return nil, err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := bs.Call(ctx, "Target.attachToTarget", map[string]any{"targetId": id, "flatten": true}, &att); err != nil {
		return nil, fmt.Errorf("attach to the extension's worker: %w", err)
	}
	return bs.Conn().Session(att.SessionID), nil
}

// ExtensionWorkerID finds the target id of the extension's service worker.
func ExtensionWorkerID(ctx context.Context, br *launch.Backend) (string, error) {
	id, _, err := extensionWorkerTarget(ctx, br)
	return id, err
}

// ExtensionOrigin is chrome-extension://<id> of the extension br loaded: the
// unpacked one's (extension.Origin), or another id for the same files
// loaded without the manifest key (the store zip's).
func ExtensionOrigin(ctx context.Context, br *launch.Backend) (string, error) {
	_, url, err := extensionWorkerTarget(ctx, br)
	if err != nil {
		return "", err
	}
	rest, _ := strings.CutPrefix(url, "chrome-extension://")
	id, _, _ := strings.Cut(rest, "/")
	return "chrome-extension://" + id, nil
}

// extensionWorkerTarget waits for the service worker of the extension br
// loaded (the only one: the browser loads no other) and says its target id
// and URL.
func extensionWorkerTarget(ctx context.Context, br *launch.Backend) (id, url string, err error) {
	bs, err := br.BrowserSession(ctx)
	if err != nil {
		return "", "", err
	}
	deadline := time.Now().Add(Timeout(15 * time.Second))
	for {
		infos, err := targetInfos(ctx, bs)
		if err != nil {
			return "", "", err
		}
		for _, ti := range infos {
			if ti.Type == "service_worker" && strings.HasPrefix(ti.URL, "chrome-extension://") && strings.HasSuffix(ti.URL, "/background.js") {
				return ti.TargetID, ti.URL, nil
			}
		}
		if time.Now().After(deadline) {
			return "", "", fmt.Errorf("the webpilot extension's service worker did not start (targets: %v)", infos)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var _ backend.Backend = (*bridgeRig)(nil)

// StopExtensionWorker closes the extension's service worker target from the
// browser's own debugging connection (as Chrome stops an idle worker) and
// waits until the bridge connection, and the CDP sessions over it, have
// dropped.
func StopExtensionWorker(ctx context.Context, b backend.Backend) error {
	rig, ok := b.(*bridgeRig)
	if !ok {
		return fmt.Errorf("backend %T is not the test bridge", b)
	}
	relay, _ := rig.Server().Current("")
	lost := rig.Backend.Disconnected("")
	id, err := ExtensionWorkerID(ctx, rig.browser)
	if err != nil {
		return err
	}
	bs, err := rig.browser.BrowserSession(ctx)
	if err != nil {
		return err
	}
	if err := bs.Call(ctx, "Target.closeTarget", map[string]any{"targetId": id}, nil); err != nil {
		return fmt.Errorf("stop the extension's worker: %w", err)
	}
	if relay != nil {
		select {
		case <-relay.Done():
		case <-ctx.Done():
			return errors.New("the bridge connection outlived the stopped worker")
		}
	}
	if lost != nil {
		// The backend's sessions end just after the connection.
		select {
		case <-lost:
		case <-ctx.Done():
			return errors.New("the bridge's CDP sessions outlived the stopped worker")
		}
	}
	return nil
}

// CancelDebugging ends the debugging of one of the bridge's tabs (id as the
// backend names it) as the user's Cancel on Chrome's debugging bar does,
// through the extension's test hook (Bridge.cancelDebuggingForTest): the
// detach is real, the reason canceled_by_user is simulated (Chrome gives it
// only for the bar's button, which headless Chrome does not show). It
// returns what Chrome itself reported for the detach ("" for nothing).
func CancelDebugging(ctx context.Context, b backend.Backend, id string) (string, error) {
	rig, ok := b.(*bridgeRig)
	if !ok {
		return "", fmt.Errorf("backend %T is not the test bridge", b)
	}
	n, err := strconv.Atoi(id)
	if err != nil {
		return "", fmt.Errorf("cancel debugging: tab id %q: %w", id, err)
	}
	sw, err := extensionWorker(ctx, rig.browser)
	if err != nil {
		return "", err
	}
	var res struct {
		Result struct {
			Value struct {
				ChromeReported *struct {
					Reason string `json:"reason"`
				} `json:"chromeReported"`
			} `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	expr := fmt.Sprintf("webpilotTest.cancelDebugging(%d)", n)
	if err := sw.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &res); err != nil {
		return "", fmt.Errorf("cancel debugging of tab %s: %w", id, err)
	}
	if res.ExceptionDetails != nil {
		return "", fmt.Errorf("cancel debugging of tab %s: %s", id, res.ExceptionDetails)
	}
	if r := res.Result.Value.ChromeReported; r != nil {
		return r.Reason, nil
	}
	return "", nil
}

// RestartBrowser quits the bridge's browser as a user quits Chrome
// (Browser.close, so the profile and the extension's storage are written
// out) and starts it again on the same profile. Nothing provisions the
// extension again: it reconnects from the port and secret it stored when it
// was paired.
func RestartBrowser(ctx context.Context, b backend.Backend) error {
	rig, ok := b.(*bridgeRig)
	if !ok {
		return fmt.Errorf("backend %T is not the test bridge", b)
	}
	relay, _ := rig.Server().Current("")
	lost := rig.Backend.Disconnected("")
	bs, err := rig.browser.BrowserSession(ctx)
	if err != nil {
		return err
	}
	_ = bs.Call(ctx, "Browser.close", nil, nil) // the connection may end before the reply
	select {
	case <-bs.Conn().Done():
	case <-ctx.Done():
		return errors.New("the browser did not close")
	}
	for _, done := range []<-chan struct{}{relayDone(relay), lost} {
		if done == nil {
			continue
		}
		select {
		case <-done:
		case <-ctx.Done():
			return errors.New("the bridge connection outlived the browser")
		}
	}
	if err := rig.browser.Start(ctx); err != nil {
		return fmt.Errorf("start the browser again: %w", err)
	}
	return nil
}

func relayDone(r *bridge.Relay) <-chan struct{} {
	if r == nil {
		return nil
	}
	return r.Done()
}

// ExtensionBrowser starts a headless Chromium that loads the extension,
// unpaired, with port as the bridge port it dials (as a user's Chrome with
// the extension installed and nothing paired yet). Close it when done; the
// extension's folder goes with it.
func ExtensionBrowser(ctx context.Context, port int) (*launch.Backend, func(), error) {
	dir, err := os.MkdirTemp("", "webpilot-extension-*")
	if err != nil {
		return nil, nil, err
	}
	if err := os.CopyFS(dir, extension.Files); err != nil {
		_ = os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("write the extension: %w", err)
	}
	br, done, err := ExtensionBrowserFrom(ctx, dir, port)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, nil, err
	}
	return br, func() { done(); _ = os.RemoveAll(dir) }, nil
}

// ExtensionBrowserFrom is ExtensionBrowser for the unpacked extension in
// dir (the store zip's files, say); dir stays.
func ExtensionBrowserFrom(ctx context.Context, dir string, port int) (*launch.Backend, func(), error) {
	br := withExtension(dir)
	if err := br.Start(ctx); err != nil {
		return nil, nil, err
	}
	done := func() { _ = br.Close() }
	if err := provision(ctx, br, map[string]any{"port": port}); err != nil {
		done()
		return nil, nil, err
	}
	return br, done, nil
}

// PopupMessage sends msg to the extension's background as its popup does
// (chrome.runtime.sendMessage from the popup page, opened in a tab of br)
// and returns the answer as JSON: {"type": "pair", "code": …} types a
// pairing code, {"type": "status"} reads the connection state.
func PopupMessage(ctx context.Context, br *launch.Backend, msg map[string]any) (string, error) {
	bs, err := br.BrowserSession(ctx)
	if err != nil {
		return "", err
	}
	origin, err := ExtensionOrigin(ctx, br)
	if err != nil {
		return "", err
	}
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := bs.Call(ctx, "Target.createTarget", map[string]any{"url": origin + "/popup.html"}, &created); err != nil {
		return "", fmt.Errorf("open the extension's popup: %w", err)
	}
	defer func() {
		_ = bs.Call(context.WithoutCancel(ctx), "Target.closeTarget", map[string]any{"targetId": created.TargetID}, nil)
	}()
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := bs.Call(ctx, "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &att); err != nil {
		return "", fmt.Errorf("attach to the extension's popup: %w", err)
	}
	js, err := json.Marshal(msg)
	if err != nil {
		return "", err
	}
	expr := fmt.Sprintf(`(typeof chrome === "object" && chrome.runtime && chrome.runtime.sendMessage) ? chrome.runtime.sendMessage(%s).then(r => JSON.stringify(r)) : "starting"`, js)
	return evalWhenReady(ctx, bs.Conn().Session(att.SessionID), expr, "message the extension", "chrome.runtime")
}
