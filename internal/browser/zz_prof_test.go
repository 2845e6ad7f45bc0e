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
	call := fmt.Sprintf(`(() => { const o=JSON.parse(%q); const z=performance.now(); document.body.offsetHeight; for (const el of document.querySelectorAll('*')) getComputedStyle(el).display; const a=performance.now(); W.snapshot(null,o); const b=performance.now(); const zz1=globalThis.__zzt; W.snapshot(null,o); const c=performance.now(); for(let i=0;i<10;i++) W.snapshot(null,o); const d=performance.now(); return [zz1, a-z, b-a, c-b, (d-c)/10]; })()`, os.Getenv("ZZOPTS"))
	for i := 0; i < 5; i++ {
		e.navigate(page)
		_ = e.do(func(ctx context.Context, h *browser.Held) error {
			v, err := browser.ZZEval(ctx, h.Tab(), call)
			fmt.Println("first, second, avg-after:", v, err)
			return nil
		})
	}
}
