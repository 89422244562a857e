package abischema

import (
	"reflect"

	"bytes"
	"flag"
	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

var update = flag.Bool("update", false, "rewrite abi/schema/ from abi's types")

// The published schemas are what abi's types generate: change a type and
// this fails until `go test ./internal/abischema -update` rewrites them.
func TestSchemasInSync(t *testing.T) {
	dir := filepath.Join(wasmbuild.Root(), "abi", "schema")
	published := HostFunctionFiles()
	for file, v := range Documents {
		published[file] = v
	}
	for file, v := range published {
		want, err := Generate(file, v)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, file)
		if *update {
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("abi/schema/%s is not what abi's types generate (%v): run go test ./internal/abischema -update", file, err)
		}
	}
}

// Every host function a plugin can import with JSON in and out has its
// request and response published: the table names exactly capability's
// host functions, less the two raw imports of the fast path.
func TestEveryHostFunctionPublished(t *testing.T) {
	table := HostFunctions()
	raw := map[string]bool{abi.ImportHostTake: true, abi.ImportLog: true}
	for _, hf := range capability.HostFuncs() {
		name := hf[0]
		if raw[name] {
			continue
		}
		if _, ok := table[name]; !ok {
			t.Errorf("host function %s has no published request/response (add it to HostFunctions)", name)
		}
		delete(table, name)
	}
	for name := range table {
		t.Errorf("HostFunctions names %s, which capability does not know", name)
	}
	// A published file that no function documents any more is stale.
	files, _ := filepath.Glob(filepath.Join(wasmbuild.Root(), "abi", "schema", "hostfuncs", "*.json"))
	published := HostFunctionFiles()
	for file, v := range Documents {
		published[file] = v
	}
	for _, f := range files {
		if _, ok := published["hostfuncs/"+filepath.Base(f)]; !ok {
			t.Errorf("abi/schema/hostfuncs/%s documents no host function: remove it", filepath.Base(f))
		}
	}
}

// Declared tells a handler whose types differ from the table.
func TestDeclaredNamesWhatDiffers(t *testing.T) {
	req, resp := reflect.TypeFor[abi.BrowserReadRequest](), reflect.TypeFor[*abi.BrowserReadResponse]()
	if d := Declared(abi.HostBrowserRead, req, resp); d != "" {
		t.Fatalf("a pointer response counts as its element: %s", d)
	}
	if d := Declared(abi.HostBrowserRead, req, reflect.TypeFor[abi.BrowserActResponse]()); d == "" {
		t.Fatal("a different response type passed")
	}
	if d := Declared("ww_nope", req, resp); d == "" {
		t.Fatal("an unknown function passed")
	}
}
