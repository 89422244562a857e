package host

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/logrec"
)

// TestFocusMoveAnswersFromTheCompactionHeld: a snapshot that is the last
// one with only its [active] mark moved (a Tab) is answered without
// calling the compactor (snapcompact declares abi.FeatureActiveMark): the
// mark moves in the answer held. A snapshot whose page changed besides
// its focus is compacted, and the answer shows the change.
func TestFocusMoveAnswersFromTheCompactionHeld(t *testing.T) {
	f := newFixture(t, map[string]string{"snapcompact": "plugins/snapcompact"})
	cfg, err := ParseConfig(fmt.Sprintf(`[host]
plugins_dir = %q
cache_dir = %q
default_personality = "default"
[plugins.snapcompact]
[personalities.default]
plugins = ["snapcompact"]
hooks = { compact = "snapcompact" }
`, f.plugins, testCache), "test.toml", f.dir)
	if err != nil {
		t.Fatal(err)
	}
	var logs logrec.Buffer
	h, err := New(context.Background(), cfg, Options{NoBrowser: true, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	p, err := h.roster.get("default")
	if err != nil {
		t.Fatal(err)
	}
	if p.hooks[abi.HookCompact] == nil {
		t.Fatalf("the personality has no compactor: %v", p.problems)
	}
	// The browser's tools as the pipeline reads them: an action (typing)
	// and a key press (the browser itself is not started here).
	p.tools["browser_type"] = &route{spec: abi.ToolSpec{Name: "browser_type"}}
	p.tools["browser_press"] = &route{spec: abi.ToolSpec{Name: "browser_press"}}
	const page = `- main [ref=e1]:
  - textbox "Name" [ref=e2]: ada
  - link "Help" [ref=e3] [cursor=pointer]:
    - /url: /help
  - paragraph [ref=e4]: Hello`
	focus := func(snap, line, withMark string) string { return strings.Replace(snap, line, withMark, 1) }
	typed := focus(page, `textbox "Name" [ref=e2]`, `textbox "Name" [active] [ref=e2]`)
	tabbed := focus(page, `link "Help" [ref=e3]`, `link "Help" [active] [ref=e3]`)
	changed := strings.Replace(tabbed, "Hello", "Saved", 1)
	compacts := func() int { return strings.Count(logs.String(), "role=compact") }
	call := func(tool, args, snap string) string {
		t.Helper()
		req := Request{Personality: p.name, Session: "s1", Tool: tool, Args: json.RawMessage(args)}
		res, err := h.pipeline(context.Background(), p, req, &abi.Result{Source: "https://site.test/", Snapshot: snap}, nil)
		if err != nil || res == nil {
			t.Fatalf("pipeline: %v", err)
		}
		return res.Snapshot + res.SnapshotDiff
	}
	// Typing's answer: the action's ref is its target, not a scope, so
	// it is compacted as the page is and the Tab after it finds it.
	call("browser_type", `{"ref":"e2","text":"ada"}`, typed)
	if n := compacts(); n != 1 {
		t.Fatalf("the first snapshot was compacted %d times, want 1", n)
	}
	out := call("browser_press", `{"key":"Tab"}`, tabbed)
	if n := compacts(); n != 1 {
		t.Fatalf("a focus move ran the compactor (%d calls, want 1):\n%s", n, out)
	}
	if !strings.Contains(out, `link "Help" [active] [ref=e3]`) || strings.Contains(out, `textbox "Name" [active]`) {
		t.Fatalf("the focus move's answer does not show the mark moved:\n%s", out)
	}
	out = call("browser_press", `{"key":"Tab"}`, changed)
	if n := compacts(); n != 2 {
		t.Fatalf("a page that changed besides its focus was not compacted (%d calls, want 2):\n%s", n, out)
	}
	if !strings.Contains(out, "Saved") {
		t.Fatalf("the changed page's answer does not show the change:\n%s", out)
	}
}
