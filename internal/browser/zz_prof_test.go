package browser_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

func TestZZWalkTime(t *testing.T) {
	os.Setenv("WEBPILOT_WALK_VERIFY", "")
	e := newEnv(t, browser.Options{})
	page := os.Getenv("ZZPAGE")
	if page == "" {
		page = "/basic.html"
	}
	pre := os.Getenv("ZZPRE")
	call := fmt.Sprintf(`(async () => { const o=JSON.parse(%q); W.snapshot(null,o); %s; await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0))); const a=performance.now(); W.snapshot(null,o); const b=performance.now(); o.whole=true; W.snapshot(null,o); const c=performance.now(); return [b-a, c-b]; })()`, os.Getenv("ZZOPTS"), pre)
	for i := 0; i < 5; i++ {
		e.navigate(page)
		_ = e.do(func(ctx context.Context, h *browser.Held) error {
			v, err := browser.ZZEval(ctx, h.Tab(), call)
			fmt.Println("inc after change, whole:", v, err)
			return nil
		})
	}
}
