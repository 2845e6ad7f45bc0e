// Command fixtureserver serves a directory of fixture pages over HTTP on a
// loopback port, for the scripts that drive webpilot from outside a Go test
// (scripts/conformance.sh). It prints the base URL ("http://127.0.0.1:PORT/")
// as its only line on stdout once it listens, and serves until it is killed.
//
// Usage:
//
//	fixtureserver [-dir testdata/pages] [-listen 127.0.0.1:0]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fixtureserver:", err)
		os.Exit(1)
	}
}

// run parses the flags, listens and serves until SIGINT or SIGTERM.
func run(args []string) error {
	fs := flag.NewFlagSet("fixtureserver", flag.ContinueOnError)
	dir := fs.String("dir", "testdata/pages", "directory to serve")
	listen := fs.String("listen", "127.0.0.1:0", "loopback host:port to listen on (port 0: a free one)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
		return fmt.Errorf("-dir %s: not a directory", *dir)
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return fmt.Errorf("-listen %q: %w", *listen, err)
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("-listen %s: only loopback addresses are served", *listen)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *listen, err)
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(*dir)), ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("http://%s/\n", ln.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
