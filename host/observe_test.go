package host

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/host/metrics"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// Options.Observe sees the kernel's own events (a tool call, a made-up
// tool's refusal) and never one a plugin emits: fed to host/metrics, the
// exposition counts the calls and has no series a plugin or an agent's
// made-up name could add.
func TestObserveSeesKernelEventsOnly(t *testing.T) {
	f := newFixture(t, map[string]string{"extract_links": "examples/extract_links"})
	cfg, err := ParseConfig(fmt.Sprintf(`
[host]
plugins_dir = %q
cache_dir = %q
call_timeout = "240s"

[plugins.extract_links]

[personalities.p]
plugins = ["extract_links"]
tools = ["*"]
grants = ["events"]
`, f.plugins, testCache), "test.toml", f.dir)
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.New()
	var observed []string
	sink := &hostfuncs.MemorySink{}
	h, err := New(context.Background(), cfg, Options{Sink: sink, NoBrowser: true, Observe: func(e hostfuncs.Event) {
		observed = append(observed, e.Kind)
		m.Observe(e)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	ctx := context.Background()
	if _, err := h.Call(ctx, Request{Personality: "p", Tool: "extract_links", Args: []byte(`{"html":"<a href='/x'>x</a>"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Call(ctx, Request{Personality: "p", Tool: "no_such_tool_xyz"}); err == nil {
		t.Fatal("a made-up tool answered")
	}
	var pluginEvent bool
	for _, e := range sink.Snapshot() {
		pluginEvent = pluginEvent || e.Kind == "extract_links.done"
	}
	if !pluginEvent {
		t.Fatal("the plugin's own event did not reach the sink: the test proves nothing")
	}
	if got := strings.Join(observed, " "); got != "tool.call tool.call" {
		t.Errorf("Observe saw %q, want the two calls' tool.call events and nothing a plugin emitted", got)
	}
	b := scrape(m)
	for _, want := range []string{
		`wasmwright_tool_calls_total{code="ok",personality="p",tool="extract_links"} 1`,
		`wasmwright_tool_calls_total{code="not_found",personality="p",tool="unknown"} 1`,
	} {
		if !strings.Contains(b, want) {
			t.Errorf("exposition lacks %s", want)
		}
	}
	if strings.Contains(b, "no_such_tool_xyz") || strings.Contains(b, "extract_links.done") {
		t.Error("the exposition names what an agent or a plugin made up")
	}
}

// scrape is what a Prometheus scrape of m's handler reads.
func scrape(m *metrics.Metrics) string {
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}
