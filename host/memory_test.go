package host

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host/pluginset"
	"github.com/wasmwright/wasmwright/internal/testenv"
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
	if err := h.Prewarm("other", ""); err != nil {
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

// A host compiles each plugin version at most once per process, and a
// call compiles only what it runs. On an empty cache a start compiles
// every plugin to describe it and self-tests the hook plugins on that
// code, which then serves the first call (compiling it again there cost
// the first call a compile per hook plugin). A start over a cache that
// holds their manifests and passed self-tests (any start after the
// first) compiles nothing, and a call then compiles its tool's plugin and
// the hook plugins its result passes through, never another tool's.
func TestEachPluginCompilesOnce(t *testing.T) {
	testenv.Long(t, "counts compiles over an empty compilation cache")
	f := newFixture(t, map[string]string{"misbehave": "sandbox/testdata/misbehave", "testhooks": "host/testdata/testhooks", "testmask": "host/testdata/testmask", "extract_links": "examples/extract_links"})
	cfg := `
[plugins.misbehave]
[plugins.testhooks]
[plugins.testmask]
[plugins.extract_links]

[personalities.piped]
plugins = ["misbehave", "testhooks", "testmask", "extract_links"]
tools = ["*"]
grants = ["events", "secrets.mask"]
hooks = { detect = "testhooks", compact = "testhooks", mask = "testmask" }
`
	cache := t.TempDir()
	hostKey := fmt.Sprintf("cache_dir = %q", cache)
	compiles := func(h *Host) map[string]int {
		out := map[string]int{}
		for _, name := range sortedKeys(h.cfg.Plugins) {
			p, err := h.plugins.Slot(name).Current()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out[name] = h.eng.Compilations(p.SHA256)
		}
		return out
	}
	call := func(h *Host) {
		if _, err := h.Call(context.Background(), Request{Personality: "piped", Tool: "page", Args: json.RawMessage(`{"title":"WALL"}`)}); errCode(err) != abi.CodeBotWall {
			t.Fatalf("the detector must run and flag: %v", err)
		}
	}

	cold := f.host(t, cfg, nil, hostKey)
	want := map[string]int{"misbehave": 1, "testhooks": 1, "testmask": 1, "extract_links": 1}
	if got := compiles(cold); !maps.Equal(got, want) {
		t.Fatalf("compiles after a start on an empty cache: %v, want %v (each described once, the hooks self-tested on that code)", got, want)
	}
	call(cold)
	call(cold)
	if got := compiles(cold); !maps.Equal(got, want) {
		t.Fatalf("compiles after two calls: %v, want %v: a plugin compiled twice", got, want)
	}
	passes, _ := filepath.Glob(filepath.Join(cache, pluginset.SelfTestedDir, "*.ok"))
	if len(passes) != 3 { // testhooks' and testmask's self-tests, the chain [testhooks]
		t.Fatalf("remembered passes: %v, want 3", passes)
	}
	cold.Close(context.Background())

	warm := f.host(t, cfg, nil, hostKey)
	if got, n := compiles(warm), warm.eng.Modules(); n != 0 || !maps.Equal(got, map[string]int{"misbehave": 0, "testhooks": 0, "testmask": 0, "extract_links": 0}) {
		t.Fatalf("a start over a warm cache compiled %v (%d modules held): it must compile nothing", got, n)
	}
	call(warm)
	call(warm)
	want = map[string]int{"misbehave": 1, "testhooks": 1, "testmask": 1, "extract_links": 0}
	if got := compiles(warm); !maps.Equal(got, want) {
		t.Fatalf("compiles after two calls of misbehave's tool: %v, want %v (its plugin and the hooks, once each; not extract_links)", got, want)
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
