package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmwright/wasmwright/internal/reporoot"
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
	if n, w, g := reporoot.FirstDiff(render(tools), string(b)); n > 0 {
		t.Fatalf("%s is stale at line %d: run `go run ./internal/tooldoc -w` (after make plugins)\nthe plugins give: %s\nthe page has:     %s", page, n, w, g)
	}
}
