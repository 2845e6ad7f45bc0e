package main

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tiktoken-go/tokenizer"
)

// benchCall is one tool call of the bench's long-lived server: the result's
// text and the client-side ms.
type benchCall func(tool string, args map[string]any) (string, float64, error)

// extractWay is one way an agent gets the first 50 products of
// snap/shop300.html (300 cards: title, text, price, "Add to cart", a
// Details link) into its context: the calls, in order, from the navigate on.
type extractWay struct {
	name string
	run  func(call benchCall, url string) (texts []string, ms float64, calls int, err error)
}

// shopFields are the fields of a product card of snap/shop300.html.
var shopFields = []any{
	map[string]any{"name": "title", "selector": "h3"},
	map[string]any{"name": "price", "selector": ".price"},
	map[string]any{"name": "url", "selector": "a", "property": "href"},
}

// extractWays are the three ways of issue 12: one browser_collect, one
// browser_flow (navigate and collect in one call), and what an agent does
// without them — a snapshot to see the page, then reads of the list until
// the 50th product is in.
var extractWays = []extractWay{
	{"navigate + collect", func(call benchCall, url string) ([]string, float64, int, error) {
		_, d1, err := call("browser_navigate", map[string]any{"url": url, "snapshot": "none"})
		if err != nil {
			return nil, 0, 0, err
		}
		text, d2, err := call("browser_collect", map[string]any{"selector": "#list li", "fields": shopFields, "limit": 50})
		if err != nil {
			return nil, 0, 0, err
		}
		return []string{text}, d1 + d2, 2, nil
	}},
	{"flow (navigate, collect)", func(call benchCall, url string) ([]string, float64, int, error) {
		text, d, err := call("browser_flow", map[string]any{"steps": []any{
			map[string]any{"do": "navigate", "url": url, "snapshot": "none"},
			map[string]any{"do": "collect", "selector": "#list li", "fields": shopFields, "limit": 50},
		}})
		if err != nil {
			return nil, 0, 0, err
		}
		return []string{text}, d, 1, nil
	}},
	{"navigate + snapshot + reads", func(call benchCall, url string) ([]string, float64, int, error) {
		nav, d, err := call("browser_navigate", map[string]any{"url": url})
		if err != nil {
			return nil, 0, 0, err
		}
		texts, calls := []string{nav}, 1
		// The compact snapshot folds the cards; the list is read as
		// markdown (titles, prices and links), page by page.
		next := regexp.MustCompile(`offset=(\d+)`)
		offset := 0
		for calls < 20 {
			text, dr, err := call("browser_read", map[string]any{"what": "markdown", "selector": "#list", "max_chars": 4000, "offset": offset})
			if err != nil {
				return nil, 0, 0, err
			}
			texts, d, calls = append(texts, text), d+dr, calls+1
			m := next.FindStringSubmatch(text)
			if strings.Contains(text, "model 49") || m == nil {
				break
			}
			offset, _ = strconv.Atoi(m[1])
		}
		return texts, d, calls, nil
	}},
}

// benchExtract prints the tokens and time to get the first 50 products of
// snap/shop300.html three ways (median ms over runs; tokens of the results
// the agent reads), and puts them into rec.
func benchExtract(stdout io.Writer, enc tokenizer.Codec, call benchCall, url string, runs int, rec histRows) error {
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "extract 50 products (snap/shop300.html)\tcalls\ttokens read\tms\t")
	for _, w := range extractWays {
		var times []float64
		var tokens, calls int
		for range runs {
			texts, d, n, err := w.run(call, url)
			if err != nil {
				return fmt.Errorf("bench: extract %s: %w", w.name, err)
			}
			if !strings.Contains(strings.Join(texts, "\n"), "model 49") {
				return fmt.Errorf("bench: extract %s: the 50th product is not in the results", w.name)
			}
			tokens = 0
			for _, t := range texts {
				n, _ := enc.Count(t)
				tokens += n
			}
			times, calls = append(times, d), n
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t\n", w.name, calls, tokens, median(times))
		rec.add("dev: extract 50 products, "+w.name, "ms", median(times), 0)
		rec.add("dev: extract 50 products tokens read, "+w.name, "tokens", float64(tokens), 0)
	}
	return tw.Flush()
}
