package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stateTrees are the kernel's layers and the front-ends (which decide who
// logs in): what decides authorization lives there, and none of it may be
// a variable another package can change.
var stateTrees = []string{"abi", "capability", "sandbox", "hostfuncs", "host", "frontend", "distribute"}

// TestNoExportedMutableState fails when a kernel package exports a
// package-level variable (a slice, a map, a default a caller could edit):
// tables that decide what a plugin may do are unexported, behind functions
// that return copies. A sentinel error (errors.New) is the one exception.
func TestNoExportedMutableState(t *testing.T) {
	fset := token.NewFileSet()
	for _, tree := range stateTrees {
		err := filepath.WalkDir(filepath.Join("../..", tree), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				g, ok := decl.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				for _, s := range g.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if n.IsExported() && !sentinelError(vs, i) {
							t.Errorf("%s: exported variable %s: any importer could change it; make it unexported behind a function that returns a copy", strings.TrimPrefix(p, "../../"), n.Name)
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// sentinelError reports whether the i-th name of vs is set by errors.New.
func sentinelError(vs *ast.ValueSpec, i int) bool {
	if i >= len(vs.Values) {
		return false
	}
	call, ok := vs.Values[i].(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "errors" && sel.Sel.Name == "New"
}
