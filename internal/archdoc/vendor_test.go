package archdoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every library vendored for the browser fixtures (testdata/pages/vendor)
// keeps its licence beside its files, and the widget pages built on one
// say what they hold.
func TestVendoredLibrariesHaveLicences(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "pages", "vendor")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no vendored library")
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, d.Name()))
		if err != nil {
			t.Fatal(err)
		}
		licensed := false
		for _, f := range files {
			n := strings.ToUpper(f.Name())
			if strings.HasPrefix(n, "LICENSE") || strings.HasPrefix(n, "THIRD_PARTY_LICENSES") {
				if st, err := f.Info(); err == nil && st.Size() > 100 {
					licensed = true
				}
			}
		}
		if !licensed {
			t.Errorf("testdata/pages/vendor/%s has no licence file", d.Name())
		}
		if pages := filepath.Join("..", "..", "testdata", "pages", "widgets", d.Name()); exists(pages) && !exists(filepath.Join(pages, "README.md")) {
			t.Errorf("testdata/pages/widgets/%s has no README.md saying what its pages hold", d.Name())
		}
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }
