package layout

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An internal package is one of three kinds. Product code (the layers, the
// command and the plugins) may import only the production libraries; the
// test helpers and the bench harness reach it through _test.go files and
// through each other, never through a build of the product.
type kind int

const (
	production   kind = iota // linked into the product: wasmwright or a plugin
	testHelper               // fixtures and fakes for tests and benchmarks
	benchHarness             // the programs behind `make bench`
)

// internalKinds classifies every package under internal/. A new package
// there fails TestInternalPackagesAreClassified until it is added here.
var internalKinds = map[string]kind{
	"internal/abischema":    production, // cmd/wasmwright prints the ABI's schemas
	"internal/atomicfile":   production, // a file written whole or not at all (plugins, grants, captures, the driver's layout)
	"internal/procfs":       production, // reads Linux /proc; the bench harness measures with it
	"internal/privatedir":   production, // the vault's and the grants' folders
	"internal/secretforms":  production, // hostfuncs/browser's masking; plugins/secretmask's tables are written from it
	"internal/spans":        production, // timing spans of a call (WASMWRIGHT_SPANS), for finding where its time goes
	"internal/snapactive":   production, // a focus move in a compacted snapshot: the host's pipeline and the browser's patches
	"internal/wait":         production, // bounding a wait on a call that may never return (the browser and its rooms)
	"internal/configdoc":    testHelper, // go run: writes docs/configuration.md from the config types
	"internal/tooldoc":      testHelper, // go run: writes docs/tool-reference.md from the built plugins
	"internal/reporoot":     testHelper, // the doc generators' repository root
	"internal/corpus":       testHelper,
	"internal/layout":       testHelper, // holds only tests
	"internal/listentest":   testHelper, // floods a front-end's listener (frontend/listen)
	"internal/logrec":       testHelper,
	"internal/leakforms":    testHelper, // a value as HTML references and JSON escapes (the masker's tests and benchmark)
	"internal/testenv":      testHelper, // a missing part skips, or fails in CI
	"internal/testkit":      testHelper, // small helpers several packages' tests share (a wait on notifications, dark pixels)
	"internal/visiontest":   testHelper,
	"internal/mcptest":      testHelper, // MCP clients and the operator browser for tests
	"internal/plugintest":   testHelper, // a first-party plugin built, loaded and hooked as its own tests drive it
	"internal/wasmbuild":    testHelper,
	"internal/servetest":    testHelper,   // the MCP URL a started serve prints (cmd/wasmwright tests, the bench)
	"internal/seleniumgrid": testHelper,   // a Selenium Grid in network namespaces (grid tests, the grid bench)
	"internal/bench":        benchHarness, // and every package under it
}

// kindOf is rel's kind (rel relative to the module), and whether it is
// classified; rel is a package under internal/.
func kindOf(rel string) (kind, bool) {
	for p := rel; p != "." && p != "/"; p = filepath.Dir(p) {
		if k, ok := internalKinds[p]; ok && (p == rel || k == benchHarness) {
			return k, true
		}
	}
	return 0, false
}

// productRoots are the folders whose non-test builds are the product.
var productRoots = []string{"abi", "capability", "sandbox", "plugin-sdk", "hostfuncs", "host", "frontend", "distribute", "cmd"}

func TestInternalPackagesAreClassified(t *testing.T) {
	for _, d := range deps(t, "", "internal") {
		rel, ok := strings.CutPrefix(d, mod+"/")
		if !ok || !strings.HasPrefix(rel, "internal/") {
			continue
		}
		if _, ok := kindOf(rel); !ok {
			t.Errorf("%s is not in internalKinds: say whether it is a production library, a test helper or bench harness", rel)
		}
	}
}

// A non-test build of the product links no test helper, no bench harness
// and no package testing. Imports from _test.go files do not count: go
// list -deps without -test leaves them out.
func TestProductionImportsNoTestHelper(t *testing.T) {
	for _, root := range withProductionLibs(productRoots) {
		checkProductDeps(t, root, deps(t, "", root))
	}
}

// The plugins are modules of their own, built for wasip1; the same fence
// holds for them (they reach internal/ through their replace directive).
func TestPluginsImportNoTestHelper(t *testing.T) {
	mods, _ := filepath.Glob("../../plugins/*/go.mod")
	more, _ := filepath.Glob("../../examples/*/go.mod")
	for _, m := range append(mods, more...) {
		dir := filepath.Dir(m)
		cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./...")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list in %s: %v\n%s", dir, err, out)
		}
		rel, _ := filepath.Rel("../..", dir)
		checkProductDeps(t, rel, strings.Fields(string(out)))
	}
}

func checkProductDeps(t *testing.T, root string, deps []string) {
	t.Helper()
	for _, d := range deps {
		if d == "testing" {
			t.Errorf("%s links package testing outside its tests", root)
			continue
		}
		rel, ok := strings.CutPrefix(d, mod+"/")
		if !ok || !strings.HasPrefix(rel, "internal/") {
			continue
		}
		switch k, ok := kindOf(rel); {
		case !ok:
			t.Errorf("%s imports %s, which internalKinds does not classify", root, rel)
		case k == testHelper:
			t.Errorf("%s imports the test helper %s outside its tests", root, rel)
		case k == benchHarness:
			t.Errorf("%s imports the bench harness %s", root, rel)
		}
	}
}

func TestKindOf(t *testing.T) {
	for rel, want := range map[string]kind{
		"internal/bench/sut": benchHarness,
		"internal/corpus":    testHelper,
		"internal/procfs":    production,
	} {
		if got, ok := kindOf(rel); !ok || got != want {
			t.Errorf("kindOf(%s) = %v, %v; want %v", rel, got, ok, want)
		}
	}
	if _, ok := kindOf("internal/corpus/sub"); ok {
		t.Error("a new package under a test helper must be classified itself")
	}
}
