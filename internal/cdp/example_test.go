package cdp_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"sync"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// fakeBrowser is an in-memory cdp.Transport that plays a browser answering
// every command as Runtime.evaluate of 1+1 would.
type fakeBrowser struct {
	replies chan []byte
	closed  chan struct{}
	once    sync.Once
}

func newFakeBrowser() *fakeBrowser {
	return &fakeBrowser{replies: make(chan []byte, 16), closed: make(chan struct{})}
}

func (b *fakeBrowser) WriteMessage(msg []byte) error {
	var req struct {
		ID        int64  `json:"id"`
		SessionID string `json:"sessionId"`
	}
	if err := jsonv2.Unmarshal(msg, &req); err != nil {
		return err
	}
	reply := fmt.Sprintf(`{"id":%d,"sessionId":%q,"result":{"result":{"type":"number","value":2,"description":"2"}}}`,
		req.ID, req.SessionID)
	select {
	case b.replies <- []byte(reply):
		return nil
	case <-b.closed:
		return net.ErrClosed
	}
}

func (b *fakeBrowser) ReadMessage() ([]byte, error) {
	select {
	case m := <-b.replies:
		return m, nil
	case <-b.closed:
		return nil, net.ErrClosed
	}
}

func (b *fakeBrowser) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}

func Example() {
	conn := cdp.NewConn(newFakeBrowser(), nil)
	defer conn.Close()

	// A session id as returned by Target.attachToTarget with flatten.
	sess := conn.Session("8A4F3C")
	res, err := cdproto.Call(context.Background(), sess, runtime.Evaluate, runtime.EvaluateParams{Expression: "1+1"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Result.Type, string(res.Result.Value))
	// Output: number 2
}
