// Package layout fences the architecture: arrows point down (the layers
// table in docs/development.md, "How it is built").
package layout

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/wasmwright/wasmwright"

// allowed lists, for each layer, the project packages it may import.
var allowed = map[string][]string{
	"abi":        {},
	"capability": {"abi"},
	"sandbox":    {"abi"},
	"plugin-sdk": {"abi"},
	"hostfuncs":  {"abi", "capability", "sandbox", "hostfuncs"},
	"host":       {"abi", "capability", "sandbox", "hostfuncs", "host"},
}

func deps(t *testing.T, goos, pkg string) []string {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./"+pkg+"/...")
	cmd.Dir = "../.."
	if goos != "" {
		cmd.Env = append(cmd.Environ(), "GOOS="+goos, "GOARCH=wasm")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}

func TestArrowsPointDown(t *testing.T) {
	for layer, ok := range allowed {
		for _, d := range deps(t, "", layer) {
			if !strings.HasPrefix(d, mod+"/") {
				if layer == "abi" && strings.Contains(d, ".") {
					t.Errorf("abi imports %s: abi is standard library only", d)
				}
				continue
			}
			rel := strings.TrimPrefix(d, mod+"/")
			top := strings.SplitN(rel, "/", 2)[0]
			if top == layer || top == "internal" && layer != "abi" && layer != "plugin-sdk" {
				continue
			}
			good := false
			for _, a := range ok {
				good = good || a == top
			}
			if !good {
				t.Errorf("%s imports %s: %s may import only %v", layer, d, layer, ok)
			}
		}
	}
}

// abi and plugin-sdk must build for plugins.
func TestGuestPackagesBuildForWasip1(t *testing.T) {
	for _, pkg := range []string{"abi", "plugin-sdk"} {
		for _, d := range deps(t, "wasip1", pkg) {
			if strings.HasPrefix(d, mod+"/") && !strings.HasPrefix(d, mod+"/abi") && !strings.HasPrefix(d, mod+"/plugin-sdk") {
				t.Errorf("%s pulls %s into plugins", pkg, d)
			}
		}
	}
}
