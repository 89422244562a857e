package layout

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every plugin build command the docs and the scaffold give an author
// (GOOS=wasip1 ... go build) has -trimpath, so the same source builds the
// same bytes, and the same pin, in any folder; and -buildmode=c-shared,
// without which the host refuses the module.
func TestDocsBuildPluginsWithTrimpath(t *testing.T) {
	root := "../.."
	n := 0
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && (rel == "build" || strings.HasPrefix(d.Name(), ".") && rel != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") && rel != filepath.Join("cmd", "wasmwright", "scaffold.go") {
			return nil
		}
		b, _ := os.ReadFile(path)
		for i, line := range strings.Split(string(b), "\n") {
			if !strings.Contains(line, "GOOS=wasip1") || !strings.Contains(line, "go build") {
				continue
			}
			n++
			if !strings.Contains(line, "-trimpath") || !strings.Contains(line, "-buildmode=c-shared") {
				t.Errorf("%s:%d builds a plugin without -trimpath or -buildmode=c-shared: %s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if n < 3 {
		t.Fatalf("only %d plugin build commands found", n)
	}
}

// The AssemblyScript kit's README points at the UTF-8 output rule, which
// abi/README.md states.
func TestASReadmePointsAtUTF8Rule(t *testing.T) {
	as, err := os.ReadFile("../../plugin-sdk/assemblyscript/README.md")
	if err != nil {
		t.Fatal(err)
	}
	abi, _ := os.ReadFile("../../abi/README.md")
	const rule = "Pitfall: `Host.outputString`"
	if !strings.Contains(string(abi), "**"+rule) {
		t.Fatalf("abi/README.md no longer has the section %q", rule)
	}
	for _, want := range []string{"UTF-8", "Host.output(Uint8Array.wrap(String.UTF8.encode(", rule} {
		if !strings.Contains(string(as), want) {
			t.Errorf("plugin-sdk/assemblyscript/README.md does not say %q", want)
		}
	}
}
