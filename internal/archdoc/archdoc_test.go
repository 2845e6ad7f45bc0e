package archdoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every span of ARCHITECTURE.md has a key a test computes.
func TestArchitectureSpans(t *testing.T) {
	path, err := Path()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if n := strings.Count(doc, "<!-- gen:"); n != len(Spans(doc)) {
		t.Errorf("%s has %d gen markers but %d well-formed spans <!-- gen:key -->text<!-- /gen --> on one line", File, n, len(Spans(doc)))
	}
	for _, s := range Spans(doc) {
		owner, _, _ := strings.Cut(s.Key, ".")
		if Owners[owner] == "" {
			t.Errorf("%s:%d: gen:%s: no test computes keys starting %q (Owners)", File, s.Line, s.Key, owner)
		}
	}
}

func TestCheck(t *testing.T) {
	const doc = "core <!-- gen:tools.core -->16<!-- /gen --> tools,\nagain <!-- gen:tools.core -->16<!-- /gen -->; " +
		"click <!-- gen:cdp.click -->17<!-- /gen -->\n"
	tests := []struct {
		name    string
		got     map[string]string
		update  bool
		wantErr string // a part of the error; "" for none
		wantDoc string // the document after; "" for unchanged
	}{
		{name: "same", got: map[string]string{"tools.core": "16", "tools.full": "23"}},
		{name: "drift", got: map[string]string{"tools.core": "17"}, wantErr: `ARCHITECTURE.md says "16" for tools.core, the code has "17"; run go test ./internal/mcpserver`},
		{name: "unknown key", got: map[string]string{"tools.full": "23"}, wantErr: "gen:tools.core is no number the code computes"},
		{name: "update", got: map[string]string{"tools.core": "17"}, update: true,
			wantDoc: strings.ReplaceAll(doc, "tools.core -->16", "tools.core -->17")},
		{name: "other owner untouched", got: map[string]string{"tools.core": "16", "cdp.click": "12"}, update: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), File)
			if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			err := Check(path, "tools", tt.got, tt.update)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error %v, want one with %q", err, tt.wantErr)
			}
			b, _ := os.ReadFile(path)
			want := tt.wantDoc
			if want == "" {
				want = doc
			}
			if string(b) != want {
				t.Errorf("document now\n%s\nwant\n%s", b, want)
			}
		})
	}
}

func TestInt(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0"}, {16, "16"}, {999, "999"}, {2995, "2,995"}, {1234567, "1,234,567"}, {-3000, "-3,000"}} {
		if got := Int(tt.n); got != tt.want {
			t.Errorf("Int(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// TestCheckReadsDocsPages: a span in a page of docs/ beside the document is
// checked and rewritten like one in the document.
func TestCheckReadsDocsPages(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, File)
	page := filepath.Join(dir, "docs", "page.md")
	if err := os.MkdirAll(filepath.Dir(page), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("n = <!-- gen:tools.n -->3<!-- /gen -->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, []byte("intro\nn = <!-- gen:tools.n -->2<!-- /gen -->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{"tools.n": "3"}
	err := Check(path, "tools", got, false)
	if err == nil || !strings.Contains(err.Error(), filepath.Join("docs", "page.md")+":2:") {
		t.Fatalf("Check = %v, want the docs page's stale span named", err)
	}
	if err := Check(path, "tools", got, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(page); !strings.Contains(string(b), "-->3<!--") {
		t.Errorf("the page was not rewritten: %s", b)
	}
	if err := Check(path, "tools", got, false); err != nil {
		t.Errorf("after the rewrite: %v", err)
	}
}
