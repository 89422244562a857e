package layout

import (
	"fmt"
	"go/ast"
	"go/token"
	"testing"
)

// maxFuncLines bounds a function of product code (STYLE.md): a longer one
// is broken into named steps.
const maxFuncLines = 80

// productTrees are the folders of product code the bound holds in: the
// layers, the plugins and their SDK, and the production libraries of
// internal/ (internalKinds). Tests and testdata are not product code.
var productTrees = []string{"abi", "capability", "sandbox", "hostfuncs", "host", "frontend", "distribute", "cmd", "plugin-sdk", "plugins", "examples"}

func TestNoLongFunctions(t *testing.T) {
	for _, tree := range withProductionLibs(productTrees) {
		for _, long := range longFuncs(t, tree) {
			t.Errorf("%s: break it into named steps of at most %d lines", long, maxFuncLines)
		}
	}
}

// longFuncs lists the functions over maxFuncLines in the non-test Go files
// under tree (relative to the repository root).
func longFuncs(t *testing.T, tree string) []string {
	t.Helper()
	fset := token.NewFileSet()
	var out []string
	walkGo(t, fset, tree, func(rel string, _ []byte, f *ast.File) {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFuncLines {
				out = append(out, fmt.Sprintf("%s: %s is %d lines", rel, funcName(fn), n))
			}
		}
	})
	return out
}

// funcName is fn's name, with its receiver's type for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
