package main

import (
	"context"
	"github.com/wasmwright/wasmwright/internal/reporoot"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/internal/testenv"
)

// The page is what the built plugins describe: a tool added, renamed, or
// given another argument, risk or description without the page
// regenerated fails here.
func TestPageMatchesPlugins(t *testing.T) {
	root, err := reporoot.Find()
	if err != nil {
		t.Fatal(err)
	}
	dir := pluginsDir(root)
	_, statErr := os.Stat(filepath.Join(dir, "browser.wasm"))
	testenv.Require(t, statErr == nil, "the built plugins in "+dir+" (make plugins)")
	tools, err := listTools(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) < 30 {
		t.Fatalf("the reference host offers only %d tools: a grant or a plugin is missing from fullConfig", len(tools))
	}
	b, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	want, got := strings.Split(render(tools), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(want) || i < len(got); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			t.Fatalf("%s is stale at line %d: run `go run ./internal/tooldoc -w` (after make plugins)\nthe plugins give: %s\nthe page has:     %s", page, i+1, w, g)
		}
	}
}
