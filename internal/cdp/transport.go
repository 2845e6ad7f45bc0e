package cdp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/coder/websocket"
)

// MaxMessageSize bounds one CDP message. Accessibility trees and DOM snapshots
// of large pages run to tens of megabytes.
const MaxMessageSize = 256 << 20

// Transport carries whole CDP messages. ReadMessage is called from one
// goroutine; WriteMessage calls are serialized by the Conn; Close may be
// called concurrently with both and must unblock them.
type Transport interface {
	ReadMessage() ([]byte, error)
	WriteMessage([]byte) error
	Close() error
}

// pipeTransport speaks Chromium's --remote-debugging-pipe framing: JSON
// messages terminated by a NUL byte, read from fd 4 and written to fd 3 of
// the browser.
type pipeTransport struct {
	r  *bufio.Reader
	rc io.Closer
	w  io.WriteCloser

	once sync.Once
}

// NewPipeTransport frames messages over the browser's pipe: r reads what the
// browser writes (its fd 4), w writes what it reads (its fd 3).
func NewPipeTransport(r io.ReadCloser, w io.WriteCloser) Transport {
	return &pipeTransport{r: bufio.NewReaderSize(r, 1<<16), rc: r, w: w}
}

func (p *pipeTransport) ReadMessage() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := p.r.ReadSlice(0)
		if len(buf)+len(chunk) > MaxMessageSize {
			return nil, fmt.Errorf("cdp: message over %d bytes", MaxMessageSize)
		}
		switch {
		case err == nil:
			if buf == nil {
				return bytes.Clone(chunk[:len(chunk)-1]), nil
			}
			return append(buf, chunk[:len(chunk)-1]...), nil
		case errors.Is(err, bufio.ErrBufferFull):
			buf = append(buf, chunk...)
		default:
			if n := len(buf) + len(chunk); n > 0 && errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("cdp: pipe closed mid-message after %d bytes: %w", n, io.ErrUnexpectedEOF)
			}
			return nil, err
		}
	}
}

func (p *pipeTransport) WriteMessage(msg []byte) error {
	frame := make([]byte, 0, len(msg)+1)
	frame = append(append(frame, msg...), 0)
	_, err := p.w.Write(frame)
	return err
}

func (p *pipeTransport) Close() error {
	var err error
	p.once.Do(func() { err = errors.Join(p.w.Close(), p.rc.Close()) })
	return err
}

// wsTransport carries one message per WebSocket text frame.
type wsTransport struct {
	c      *websocket.Conn
	ctx    context.Context
	cancel context.CancelFunc
}

// DialWebSocket connects to a CDP WebSocket URL (ws:// or wss://) with the
// extra request headers.
func DialWebSocket(ctx context.Context, url string, header http.Header) (Transport, error) {
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		return nil, fmt.Errorf("cdp: dial %s: %w", url, err)
	}
	return NewWebSocketTransport(c), nil
}

// NewWebSocketTransport wraps an open WebSocket connection.
func NewWebSocketTransport(c *websocket.Conn) Transport {
	c.SetReadLimit(MaxMessageSize)
	ctx, cancel := context.WithCancel(context.Background())
	return &wsTransport{c: c, ctx: ctx, cancel: cancel}
}

func (w *wsTransport) ReadMessage() ([]byte, error) {
	_, data, err := w.c.Read(w.ctx)
	return data, err
}

func (w *wsTransport) WriteMessage(msg []byte) error {
	return w.c.Write(w.ctx, websocket.MessageText, msg)
}

func (w *wsTransport) Close() error {
	w.cancel()
	return w.c.CloseNow()
}
