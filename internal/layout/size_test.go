package layout

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bounds of product code (STYLE.md): a type with more methods, or a file
// with more lines, usually holds two ideas; split it where the names get
// clearer.
const (
	maxMethods   = 30
	maxFileLines = 600
)

// Offenders when the bounds came in, each at most its count here. The
// lists only shrink: an entry that grows fails, and one back within the
// bound fails until it is taken off. Nothing new joins them.
var (
	methodsAllowed = map[string]int{}
	linesAllowed   = map[string]int{}
)

// TestNoLargeTypes fails when a product type (its methods counted over
// every file of its package) has more than maxMethods methods.
func TestNoLargeTypes(t *testing.T) {
	methods := map[string]int{}
	walkProduct(t, func(rel string, src []byte, f *ast.File) {
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv != nil {
				if name, _, ok := strings.Cut(funcName(fn), "."); ok {
					methods[filepath.ToSlash(filepath.Dir(rel))+"."+name]++
				}
			}
		}
	})
	checkBound(t, "methods", maxMethods, methods, methodsAllowed)
}

// TestNoLongFiles fails when a product Go file has more than
// maxFileLines lines.
func TestNoLongFiles(t *testing.T) {
	lines := map[string]int{}
	walkProduct(t, func(rel string, src []byte, _ *ast.File) {
		lines[rel] = bytes.Count(src, []byte("\n"))
	})
	checkBound(t, "lines", maxFileLines, lines, linesAllowed)
}

// checkBound holds each measure to max, or to its allowance.
func checkBound(t *testing.T, what string, max int, got, allowed map[string]int) {
	t.Helper()
	for name, n := range got {
		ceiling, listed := allowed[name]
		switch {
		case n > max && !listed:
			t.Errorf("%s has %d %s, more than %d: split it by concern", name, n, what, max)
		case listed && n > ceiling:
			t.Errorf("%s has %d %s, more than the %d it had when the bound came in: split it instead of growing it", name, n, what, ceiling)
		case listed && n <= max:
			t.Errorf("%s has %d %s, within the bound: take it off the allow-list", name, n, what)
		}
	}
	for name := range allowed {
		if _, ok := got[name]; !ok {
			t.Errorf("%s is allow-listed but no longer exists: take it off the list", name)
		}
	}
}

// walkProduct calls fn with every non-test Go file of product code
// (productTrees and the production libraries of internal/), its path
// relative to the repository root.
func walkProduct(t *testing.T, fn func(rel string, src []byte, f *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	for _, tree := range withProductionLibs(productTrees) {
		walkGo(t, fset, tree, fn)
	}
}

// withProductionLibs is trees and the production libraries of internal/
// (internalKinds).
func withProductionLibs(trees []string) []string {
	out := append([]string{}, trees...)
	for rel, k := range internalKinds {
		if k == production {
			out = append(out, rel)
		}
	}
	return out
}

// walkGo calls fn with each non-test Go file under tree (relative to the
// repository root, testdata and node_modules left out), parsed into fset,
// and its path relative to the repository root.
func walkGo(t *testing.T, fset *token.FileSet, tree string, fn func(rel string, src []byte, f *ast.File)) {
	t.Helper()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(filepath.Join(root, tree), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rel, _ := filepath.Rel(root, path)
		fn(filepath.ToSlash(rel), src, f)
		return nil
	})
	if err != nil {
		t.Fatalf("reading %s: %v", tree, err)
	}
}
