package abischema

import (
	"bytes"
	"flag"
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
	for file, v := range Documents {
		want, err := Generate(file, v)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, file)
		if *update {
			os.MkdirAll(dir, 0o755)
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
