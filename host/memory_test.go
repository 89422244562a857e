package host

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// A new host hands back to the OS the heap that loading plugins used and
// dropped (each plugin's bytes and compiled code pass through it): right
// after New, the idle heap the process still holds is small. The check
// runs in a process of its own: other tests' hosts and browsers allocate
// in the background and would be counted.
func TestNewReleasesLoadGarbage(t *testing.T) {
	if os.Getenv("WW_TEST_LOAD_GARBAGE") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNewReleasesLoadGarbage$", "-test.count=1")
		cmd.Env = append(os.Environ(), "WW_TEST_LOAD_GARBAGE=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	f := newFixture(t, map[string]string{"extract_links": "examples/extract_links", "misbehave": "sandbox/testdata/misbehave"})
	cfg := `
[plugins.extract_links]
[plugins.misbehave]
[personalities.p]
plugins = ["extract_links", "misbehave"]
tools = ["*"]
`
	f.host(t, cfg, nil) // compiles both into the shared test cache
	f.host(t, cfg, nil) // reads both from it: the start-up of a warm host
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if held := m.HeapIdle - m.HeapReleased; held > 8<<20 { // 41 MB seen without it; 2-3 MB with
		t.Fatalf("a new host keeps %d MB of idle heap (heap in use %d MB)", held>>20, m.HeapInuse>>20)
	}
}

// A host whose cache holds its plugins' manifests (any start after the
// first, or the first after make build) lists their tools without
// compiling or running them, and compiles a plugin only when a call of a
// personality using it comes: a plugin of a personality nobody calls is
// never compiled (its compiled code, decoded module and instance would
// take tens of MB).
func TestPluginsCompileOnFirstUse(t *testing.T) {
	f := newFixture(t, map[string]string{"extract_links": "examples/extract_links", "misbehave": "sandbox/testdata/misbehave"})
	cfg := `
[plugins.extract_links]
[plugins.misbehave]
[personalities.links]
plugins = ["extract_links"]
tools = ["*"]
grants = ["events"]
[personalities.other]
plugins = ["misbehave"]
tools = ["*"]
`
	f.host(t, cfg, nil) // describes both into the test cache
	h := f.host(t, cfg, nil)
	compiled := func() map[string]bool {
		out := map[string]bool{}
		for _, p := range h.Plugins() {
			if p.Error != nil {
				t.Fatalf("%s: %v", p.Name, p.Error)
			}
			out[p.Name] = p.Compiled
		}
		return out
	}
	if c := compiled(); c["extract_links"] || c["misbehave"] {
		t.Fatalf("compiled at start: %v", c)
	}
	tools, err := h.Tools("links")
	if err != nil || len(tools) == 0 || tools[0].Name != "extract_links" {
		pr, _ := h.Problems("links")
		t.Fatalf("tools of links: %v %v %v", tools, err, pr)
	}
	res, err := h.Call(context.Background(), Request{Personality: "links", Tool: "extract_links", Args: json.RawMessage(`{"html":"<a href='/a'>A</a>"}`)})
	if err != nil || !strings.Contains(res.Text, "A -> /a") {
		t.Fatalf("call: %+v %v", res, err)
	}
	if c := compiled(); !c["extract_links"] || c["misbehave"] {
		t.Fatalf("after a call of links: %v (want extract_links only)", c)
	}
	// Prewarm (serve with browser.prewarm) compiles a personality's
	// plugins before its first call, in the background.
	if err := h.Prewarm("other"); err != nil {
		t.Fatal(err)
	}
	// A hang-catcher: compiling takes seconds on a quiet machine, a minute
	// or more on a saturated one.
	for deadline := time.Now().Add(3 * time.Minute); !compiled()["misbehave"]; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Prewarm did not compile misbehave within 3 minutes")
		}
	}
}

// The start-up self-test of the hook plugins compiles and runs them; the
// host then lets their compiled code and instances go (tens of MB each)
// until a call needs them, and they compile again from the cache then.
func TestStartSelfTestLeavesNoCompiledCode(t *testing.T) {
	f := hooksFixture(t)
	h := f.host(t, hooksConfig, nil)
	if n := h.eng.Modules(); n != 0 {
		t.Fatalf("%d plugin versions hold compiled code after start", n)
	}
	for _, name := range sortedKeys(h.cfg.Plugins) {
		p, err := h.plugins.Slot(name).Current()
		if err != nil || p.Compiled() || p.Instances() != 0 {
			t.Fatalf("%s after start: %v, compiled %v, %d instances", name, err, p != nil && p.Compiled(), p.Instances())
		}
	}
	if _, err := h.Call(context.Background(), Request{Personality: "piped", Tool: "page", Args: json.RawMessage(`{"title":"WALL"}`)}); errCode(err) != abi.CodeBotWall {
		t.Fatalf("the released detector must compile again and flag: %v", err)
	}
	if n := h.eng.Modules(); n == 0 {
		t.Fatal("a call ran without compiled code")
	}
}

// Once calls stop, the host hands the heap they left free back to the OS,
// once per lull: calls that overlap do not release under each other.
func TestIdleHostReleasesHeap(t *testing.T) {
	f := newFixture(t, map[string]string{"extract_links": "examples/extract_links"})
	h := f.host(t, "[plugins.extract_links]\n[personalities.p]\nplugins = [\"extract_links\"]\ntools = [\"*\"]\ngrants = [\"events\"]\n", nil)
	h.idle.notify = make(chan struct{}, 1)
	call := func() {
		if _, err := h.Call(context.Background(), Request{Personality: "p", Tool: "extract_links", Args: json.RawMessage(`{"html":"<a href='/a'>A</a>"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	h.idle.begin() // a call in flight throughout the next three
	for i := 0; i < 3; i++ {
		call()
	}
	if n := h.idle.runs.Load(); n != 0 {
		t.Fatalf("%d releases while a call ran", n)
	}
	h.idle.end()
	select {
	case <-h.idle.notify:
	case <-time.After(30 * time.Second):
		t.Fatal("no release after the calls stopped")
	}
	if n := h.idle.runs.Load(); n != 1 {
		t.Fatalf("%d releases for one lull, want 1", n)
	}
}
