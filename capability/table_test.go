package capability

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// abiHostFuncs reads abi's source for every host-function import name: the
// string constants named Host* (but HostModule) and Import*.
func abiHostFuncs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, af := range sources(t, "../abi/*.go") {
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if n.Name == "HostModule" || !(strings.HasPrefix(n.Name, "Host") || strings.HasPrefix(n.Name, "Import")) || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, _ := strconv.Unquote(lit.Value)
					out[n.Name] = v
				}
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("found only %d host functions in abi: the parser missed them", len(out))
	}
	return out
}

// sources parses the Go files matching glob, but tests, by file name.
func sources(t *testing.T, glob string) map[string]*ast.File {
	t.Helper()
	fset := token.NewFileSet()
	files, _ := filepath.Glob(glob)
	out := map[string]*ast.File{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = af
	}
	if len(out) == 0 {
		t.Fatalf("no Go source matches %s", glob)
	}
	return out
}

// Every host function abi declares has exactly one entry in the table.
func TestHostFuncTableCoversABI(t *testing.T) {
	names := map[string]bool{}
	for c, name := range abiHostFuncs(t) {
		names[name] = true
		if _, ok := ForHostFunc(name); !ok {
			t.Errorf("abi.%s (%s) has no capability in the table", c, name)
		}
	}
	for _, e := range HostFuncs() {
		if !names[e[0]] {
			t.Errorf("table entry %s is not a host function abi declares", e[0])
		}
	}
}

// testdata/hostfuncs.golden pins the whole table: a change of what a host
// function needs is a reviewed change of this file (go test -update).
func TestHostFuncTableGolden(t *testing.T) {
	var b strings.Builder
	for _, e := range HostFuncs() {
		c := e[1]
		if c == "" {
			c = "(no grant)"
		}
		fmt.Fprintf(&b, "%s %s\n", e[0], c)
	}
	const f = "testdata/hostfuncs.golden"
	if *update {
		os.WriteFile(f, []byte(b.String()), 0o644)
		return
	}
	want, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("table changed:\n%s\nwant:\n%s", b.String(), want)
	}
}

// The table is static: package capability has no init, no exported
// package-level variable, and no exported function that writes a table.
func TestTableIsStatic(t *testing.T) {
	for f, af := range sources(t, "*.go") {
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == "init" {
					t.Errorf("%s: func init: the capability table must be static", f)
				}
				if d.Recv == nil && d.Name.IsExported() {
					ast.Inspect(d.Body, func(n ast.Node) bool {
						if as, ok := n.(*ast.AssignStmt); ok {
							for _, l := range as.Lhs {
								if ix, ok := l.(*ast.IndexExpr); ok {
									if id, ok := ix.X.(*ast.Ident); ok && (id.Name == "hostFuncs" || id.Name == "baseImports" || id.Name == "descriptions") {
										t.Errorf("%s: %s writes %s", f, d.Name.Name, id.Name)
									}
								}
							}
						}
						return true
					})
				}
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				for _, s := range d.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						if n.IsExported() {
							t.Errorf("%s: exported variable %s: anyone could change it", f, n.Name)
						}
					}
				}
			}
		}
	}
}

// Every host function has its Extism-convention name, which maps back to
// the same function (and so the same grant); a ww_ name maps to itself.
func TestExtismNamesMapBack(t *testing.T) {
	for _, hf := range HostFuncs() {
		x := abi.ExtismName(hf[0])
		if !strings.HasPrefix(x, abi.ExtismPrefix) || strings.HasPrefix(x, abi.ExtismPrefix+"ww_") {
			t.Errorf("%s: Extism name %s", hf[0], x)
		}
		if back, ext := abi.CanonicalHostFunc(x); back != hf[0] || !ext {
			t.Errorf("%s -> %s -> %s (%v)", hf[0], x, back, ext)
		}
		if back, ext := abi.CanonicalHostFunc(hf[0]); back != hf[0] || ext {
			t.Errorf("%s maps to %s (%v)", hf[0], back, ext)
		}
	}
}

// docs/configuration.md lists, per browser grant (and vision), exactly the
// host functions this table gives it.
func TestDocsListBrowserGrants(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct{ marker, id, prefix string }{
		{"read", "browser.read", "ww_browser_"}, {"act", "browser.act", "ww_browser_"}, {"eval", "browser.eval", "ww_browser_"}, {"vision", "vision", "ww_"},
	} {
		_, rest, _ := strings.Cut(string(b), "<!-- "+g.marker+" -->")
		listed, _, ok := strings.Cut(rest, "<!-- /"+g.marker+" -->")
		if !ok {
			t.Fatalf("docs/configuration.md has no %s list", g.marker)
		}
		var want []string
		for _, hf := range HostFuncs() {
			if name, ok := strings.CutPrefix(hf[0], g.prefix); ok && hf[1] == g.id {
				want = append(want, name)
			}
		}
		if got := strings.Join(want, ", "); listed != got {
			t.Errorf("docs/configuration.md lists for %s: %s\nthe table gives: %s", g.id, listed, got)
		}
	}
}
