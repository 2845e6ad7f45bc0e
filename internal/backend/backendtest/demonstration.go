package backendtest

import (
	"context"
	"fmt"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
)

// OrderDemonstration is what a user does on testdata/pages/record/
// order.html (served at base) while a recording runs: a choice, a check
// through its label, a radio, a file chosen, Save and a wait for "Order
// saved", a wheel scroll until the list loaded item 10, a click on item 8,
// "Sizing help" (a new tab), "Got it" there once followed() says the
// recording follows that tab, then back in the first tab a click on item
// 9. The file chosen is testdata/pages/basic.html, named from a package
// two folders below the repository.
func OrderDemonstration(ctx context.Context, b backend.Backend, base string, followed func() bool) error {
	u, err := NewUser(ctx, b, base+"/record/order.html")
	if err != nil {
		return err
	}
	defer u.Close()
	steps := []func() error{
		func() error { return u.Eval(ctx, `document.getElementById("size").focus()`, nil) },
		func() error { return u.Press(ctx, "ArrowDown") },
		func() error { return u.Click(ctx, `label[for=gift]`, 1) },
		func() error { return u.Click(ctx, `#d-exp`, 1) },
		func() error { return u.SetFiles(ctx, "#photo", []string{"../../testdata/pages/basic.html"}) },
		func() error { return u.Click(ctx, "#save", 1) },
		func() error { return u.WaitFor(ctx, `document.querySelector("#status strong")`) },
		func() error { return u.WheelUntil(ctx, `document.querySelectorAll("#feed li").length >= 10`) },
		func() error { return u.Click(ctx, "#feed li:nth-child(8) button", 1) },
		func() error { return u.Click(ctx, "#help", 1) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("order demonstration, step %d: %w", i+1, err)
		}
	}
	pop, err := WaitUser(ctx, b, base+"/record/help.html")
	if err != nil {
		return err
	}
	defer pop.Close()
	if err := pop.WaitFor(ctx, `document.readyState === "complete"`); err != nil {
		return err
	}
	for deadline := time.Now().Add(Timeout(10 * time.Second)); !followed(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			return fmt.Errorf("order demonstration: the recording never followed the new tab")
		}
	}
	for i, step := range []func() error{
		func() error { return pop.Activate(ctx) }, // the new tab in front, as it opened for the person
		func() error { return pop.Click(ctx, "#ok", 1) },
		func() error { return pop.WaitFor(ctx, `document.getElementById("ok").textContent === "Thanks"`) },
		func() error { return u.Activate(ctx) },
		func() error { return u.WaitFor(ctx, `document.visibilityState === "visible"`) },
		func() error { return u.Click(ctx, "#feed li:nth-child(9) button", 1) },
	} {
		if err := step(); err != nil {
			return fmt.Errorf("order demonstration, in the new tab and back, step %d: %w", i+1, err)
		}
	}
	return nil
}
