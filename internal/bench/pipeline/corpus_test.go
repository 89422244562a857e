package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/corpus"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// TestCompactKeepsEveryRefOnCorpusPages renders corpus pages with Chromium
// (cached in build/snapshots, as the benchmark does) and runs the
// snapcompact plugin on their snapshots in the sandbox: every interactive
// element stays addressable by ref, in the compacted snapshot or in a fold
// it names (browser_snapshot ref=...). It needs no `make bench` output.
func TestCompactKeepsEveryRefOnCorpusPages(t *testing.T) {
	dir := corpus.Need(t, "pages")
	pages, _, err := loadCorpus(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) > 16 {
		pages = pages[:16]
	}
	rs, err := renderAll(pages, filepath.Join(wasmbuild.Root(), "build", "snapshots"), t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	p := loadPlugin(t, "plugins/snapcompact", noValues)
	compact := func(snap, ref string) string {
		t.Helper()
		req := abi.HookRequest{Role: abi.HookCompact, Tool: "browser_snapshot", Result: &abi.Result{Snapshot: snap}}
		if ref != "" {
			req.Args = json.RawMessage(fmt.Sprintf(`{"ref":%q}`, ref))
		}
		resp, err := callHook(t, p, req)
		if err != nil || resp.Result == nil {
			t.Fatalf("compact (ref %q): %v %+v", ref, err, resp)
		}
		return resp.Result.Snapshot
	}
	refRe := regexp.MustCompile(`- (\w+)(?: "[^\n]*?")?(?: \[[^\]]*\])* \[ref=(\w+)\]`)
	foldRe := regexp.MustCompile(`browser_snapshot ref=(\w+)`)
	checked := 0
	for _, r := range rs {
		if r.Snapshot == "" {
			continue
		}
		checked++
		out := compact(r.Snapshot, "")
		reach := out
		for _, m := range foldRe.FindAllStringSubmatch(out, -1) {
			reach += "\n" + compact(r.Snapshot, m[1])
		}
		for _, m := range refRe.FindAllStringSubmatch(r.Snapshot, -1) {
			if interactiveRoles[m[1]] && !strings.Contains(reach, "[ref="+m[2]+"]") {
				t.Errorf("%s: %s %s is not reachable after compaction", r.Name, m[1], m[2])
				break
			}
		}
	}
	if checked < len(rs)/2 {
		t.Fatalf("only %d of %d pages had a snapshot", checked, len(rs))
	}
}
