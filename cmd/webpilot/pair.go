package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"math/big"
	"time"

	"github.com/webpilot-mcp/webpilot/extension"
	"github.com/webpilot-mcp/webpilot/internal/backend/bridge"
)

// pairTTL is how long a pairing code is valid.
const pairTTL = 5 * time.Minute

// codeAlphabet leaves out look-alikes (0/O, 1/I/L).
const codeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

// runPair prints a one-time code, waits for the extension to present it,
// and stores the secret they agree on.
func runPair(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("webpilot pair", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("bridge-port", bridge.DefaultPort, "loopback port the extension connects to")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	srv, err := bridge.Listen(bridge.Options{Addr: fmt.Sprintf("127.0.0.1:%d", *port), ExtensionID: extension.ID, ServerVersion: version})
	if err != nil {
		return fmt.Errorf("pair: %w (stop the running webpilot, whose MCP clients hold the port, then pair again)", err)
	}
	defer srv.Close()
	code := newCode()
	done := srv.ArmPairing(code, pairTTL)
	fmt.Fprintf(stdout, "Pairing code: %s\n\nIn Chrome, click the webpilot extension's icon, type this code and press Pair.\n(No extension yet? `webpilot extension --out DIR`, then chrome://extensions → Developer mode → Load unpacked → DIR.)\nThe code is valid for %s. Waiting…\n", code, pairTTL)
	select {
	case secret, ok := <-done:
		if !ok {
			return fmt.Errorf("pair: the code expired; run `webpilot pair` again")
		}
		path, err := writeSecret(secret)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Paired. The secret is stored in %s (readable by you only).\nwebpilot now drives this Chrome profile (backend auto → bridge).\n", path)
		return nil
	case <-ctx.Done():
		return fmt.Errorf("pair: %w", ctx.Err())
	}
}

// newCode makes a code like K7Q4-M2XD.
func newCode() string {
	b := make([]byte, 0, 9)
	for i := range 8 {
		if i == 4 {
			b = append(b, '-')
		}
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(codeAlphabet))))
		b = append(b, codeAlphabet[n.Int64()])
	}
	return string(b)
}
