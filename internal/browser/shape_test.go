package browser_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"sort"
	"strings"
	"testing"
)

// The engine's shape: a tab is a small core (at most maxTabFields fields)
// and no type of the package carries more than maxMethods methods (what
// grows past it belongs to a feature, a noun or a view of its own).
const (
	maxTabFields = 20
	maxMethods   = 30
)

// TestEngineShape parses the package's code and checks its shape: Tab's
// fields and every type's method set, unexported methods included.
func TestEngineShape(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]int{}
	tabFields := -1
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil || len(d.Recv.List) == 0 {
						continue
					}
					typ := d.Recv.List[0].Type
					if s, ok := typ.(*ast.StarExpr); ok {
						typ = s.X
					}
					if id, ok := typ.(*ast.Ident); ok {
						methods[id.Name]++
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						ts, ok := s.(*ast.TypeSpec)
						if !ok || ts.Name.Name != "Tab" {
							continue
						}
						st, ok := ts.Type.(*ast.StructType)
						if !ok {
							continue
						}
						tabFields = 0
						for _, fl := range st.Fields.List {
							tabFields += max(1, len(fl.Names))
						}
					}
				}
			}
		}
	}
	if tabFields < 0 {
		t.Fatal("no struct type Tab in the package")
	}
	if tabFields > maxTabFields {
		t.Errorf("Tab has %d fields, want at most %d: a feature's state goes in the feature's type", tabFields, maxTabFields)
	}
	var over []string
	for name, n := range methods {
		if n > maxMethods {
			over = append(over, name)
		}
	}
	sort.Strings(over)
	for _, name := range over {
		t.Errorf("%s has %d methods, want at most %d: split it by what its methods are about", name, methods[name], maxMethods)
	}
	if len(methods) < 20 {
		t.Errorf("found methods on only %d types: is the parse reading the package?", len(methods))
	}
}
