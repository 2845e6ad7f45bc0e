package browser

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// patternBudget bounds the tests of an agent's regular expressions in a
// page: JavaScript's backtracking engine can run for minutes on a pattern
// such as /(a+)+b/. The walker runs them in a worker, stopped at the
// budget (counted from the worker's start, which may take up to 3 s on a
// busy machine); where a page forbids workers they run on its main thread,
// and the evaluation is stopped (Runtime.terminateExecution) at three
// times the budget.
const patternBudget = 2 * time.Second

// patternMS is patternBudget for the walker, in milliseconds.
func patternMS() string { return strconv.FormatInt(patternBudget.Milliseconds(), 10) }

// hasPattern says one of vs is written /regex/flags.
func hasPattern(vs ...string) bool {
	for _, v := range vs {
		if patternRe.MatchString(v) {
			return true
		}
	}
	return false
}

// evalPatterns runs fn, an evaluation in world w that tests agent
// patterns, within patternBudget (when one of pats is a pattern). Past the
// budget the page's script is stopped (fn's evaluation does that when its
// context ends); if it was inside a pattern's test, the error is
// INVALID_ARGUMENT naming the pattern. A page that was merely slow gets fn
// again with ctx's own time when retry is set, else fn's error.
func (w frameWorld) evalPatterns(ctx context.Context, retry bool, pats []string, fn func(ctx context.Context) error) error {
	if !hasPattern(pats...) {
		return fn(ctx)
	}
	pctx, cancel := context.WithTimeout(ctx, 3*patternBudget)
	err := fn(pctx)
	cancel()
	if err == nil || pctx.Err() == nil || ctx.Err() != nil {
		return err
	}
	if pat := w.busyPattern(ctx); pat != "" {
		return patternError(pat)
	}
	if retry {
		return fn(ctx)
	}
	return err
}

// busyPattern is the agent pattern the walker's world was testing when its
// script was stopped ("" when none).
func (w frameWorld) busyPattern(ctx context.Context) string {
	bctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var busy *string
	if _, err := w.eval(bctx, "W.busy()", &busy); err != nil || busy == nil || *busy == "" {
		return ""
	}
	return *busy
}

func patternError(pat string) *Error {
	return &Error{Code: CodeInvalidArgument,
		Message: fmt.Sprintf("the regular expression %s ran for over %v on this page's text without finishing, and was stopped: it backtracks catastrophically", pat, patternBudget),
		Hint:    "simplify the pattern: avoid nested or overlapping quantifiers such as (a+)+, (a|a)* or (.*)*; or give plain text, which matches as a case-insensitive substring"}
}

// goPattern compiles an agent's /regex/flags value for matching in Go
// (RE2), as browser_find's values are written: flags i, m and s apply, and
// d, u and v (JavaScript's) change nothing for a match. ok is false when v
// is not written as /regex/flags (plain text).
func goPattern(v string) (re *regexp.Regexp, ok bool, err error) {
	m := patternRe.FindStringSubmatch(v)
	if m == nil || len(v) < 2 {
		return nil, false, nil
	}
	pat, flags := m[1], ""
	for _, f := range m[2] {
		if strings.ContainsRune("ims", f) {
			flags += string(f)
		}
	}
	if flags != "" {
		pat = "(?" + flags + ")" + pat
	}
	re, err = regexp.Compile(pat)
	return re, true, err
}
