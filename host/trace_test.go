package host

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/wasmwright/wasmwright/hostfuncs"
)

// otlpReceiver is a loopback OTLP/HTTP collector: it keeps the spans
// posted to /v1/traces (protobuf), by span id.
type otlpReceiver struct {
	mu    sync.Mutex
	spans map[string]*tracepb.Span
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want protobuf on /v1/traces", http.StatusNotFound)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var req coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				o.spans[hex.EncodeToString(sp.SpanId)] = sp
			}
		}
	}
	o.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// With [telemetry] otlp_endpoint set, a tool call is exported over
// OTLP/HTTP as a tool_call span whose children are the tool plugin's call
// (with the host function it used under it) and the mask hook.
func TestToolCallTraceExported(t *testing.T) {
	rcv := &otlpReceiver{spans: map[string]*tracepb.Span{}}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	f := newFixture(t, map[string]string{"extract_links": "examples/extract_links", "secretmask": "plugins/secretmask"})
	h := f.host(t, fmt.Sprintf(`
[telemetry]
otlp_endpoint = %q

[plugins.extract_links]
[plugins.secretmask]

[personalities.p]
plugins = ["extract_links", "secretmask"]
tools = ["extract_links"]
grants = ["events", "secrets.mask"]
hooks = { mask = "secretmask" }
`, srv.URL), &hostfuncs.MemorySink{})
	// A secret typed in this session: the masker then runs on every result.
	h.Secrets().Add("p", "default", "hunter2-in-the-session")
	if _, err := h.Call(context.Background(), Request{Personality: "p", Tool: "extract_links", Args: []byte(`{"html":"<a href='/x'>x</a>"}`)}); err != nil {
		t.Fatal(err)
	}
	// Closing the host flushes the batched spans to the collector.
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	byName := map[string]*tracepb.Span{}
	for _, sp := range rcv.spans {
		byName[sp.Name] = sp
	}
	root := byName["tool_call"]
	if root == nil {
		t.Fatalf("no tool_call span among %d received: %v", len(rcv.spans), names(rcv.spans))
	}
	if len(root.ParentSpanId) != 0 || attr(root, "wasmwright.tool") != "extract_links" || attr(root, "wasmwright.personality") != "p" {
		t.Errorf("tool_call span: parent %x, attributes %v; want a root naming the tool and personality", root.ParentSpanId, root.Attributes)
	}
	parentOf := func(name string) *tracepb.Span {
		sp := byName[name]
		if sp == nil {
			t.Fatalf("no %q span among %v", name, names(rcv.spans))
		}
		return rcv.spans[hex.EncodeToString(sp.ParentSpanId)]
	}
	if p := parentOf("plugin_call"); p != root {
		t.Errorf("plugin_call's parent is %v, want the tool_call span", p)
	}
	if p := parentOf("hook mask"); p != root {
		t.Errorf("hook mask's parent is %v, want the tool_call span", p)
	}
	if p := parentOf("host_function ww_events_emit"); p != byName["plugin_call"] {
		t.Errorf("ww_events_emit's parent is %v, want the plugin_call span of the tool", p)
	}
	for _, sp := range rcv.spans {
		if sp.TraceId == nil || hex.EncodeToString(sp.TraceId) != hex.EncodeToString(root.TraceId) {
			t.Errorf("span %s is in another trace", sp.Name)
		}
	}
}

func attr(sp *tracepb.Span, key string) string {
	for _, a := range sp.Attributes {
		if a.Key == key {
			return a.Value.GetStringValue()
		}
	}
	return ""
}

func names(spans map[string]*tracepb.Span) string {
	var out []string
	for _, sp := range spans {
		out = append(out, sp.Name)
	}
	return strings.Join(out, ", ")
}
