package backendtest_test

import (
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

func TestFakePassesTheSuite(t *testing.T) {
	f := backendtest.NewFake()
	t.Cleanup(func() { _ = f.Close() })
	backendtest.Run(t, f)
}

// TestRealBackendPassesTheSuite runs the contract on the backend named by
// WEBPILOT_TEST_BACKEND.
func TestRealBackendPassesTheSuite(t *testing.T) {
	backendtest.Run(t, backendtest.New(t))
}
