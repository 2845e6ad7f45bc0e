package browser

import "testing"

// A popup listed blank shows the URL its window was asked on, the oldest
// first; one listed on a URL answers the window asked on it, and leaves the
// others for the popups still blank.
func TestOpenURLsTake(t *testing.T) {
	var o openURLs
	for _, u := range []string{"https://a.test/1", "https://b.test/2", "https://c.test/3"} {
		o.add(u)
	}
	for _, c := range []struct{ listed, want string }{
		{"https://b.test/2", "https://b.test/2"},
		{"", "https://a.test/1"},
		{"about:blank", "https://c.test/3"},
		{"", ""}, // none left: as listed
		{"https://d.test/", "https://d.test/"},
	} {
		if got := o.take(c.listed); got != c.want {
			t.Errorf("take(%q) = %q, want %q", c.listed, got, c.want)
		}
	}
	// A page that opens many windows keeps only the latest.
	for i := range maxOpenURLs + 5 {
		o.add("https://e.test/" + string(rune('a'+i)))
	}
	if n := len(o.urls); n != maxOpenURLs {
		t.Errorf("%d URLs kept, want %d", n, maxOpenURLs)
	}
	if got := o.take(""); got != "https://e.test/"+string(rune('a'+5)) {
		t.Errorf("oldest kept = %q", got)
	}
}

// Windows asked for that no listed popup answered are forgotten, not
// handed to the next popup.
func TestOpenURLsClear(t *testing.T) {
	var o openURLs
	o.add("https://refused.test/")
	o.clear()
	o.add("https://b.test/")
	if got := o.take(""); got != "https://b.test/" {
		t.Errorf("take after clear = %q", got)
	}
}
