package metrics

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/hostfuncs"
)

func ev(kind, personality, plugin, data string) hostfuncs.Event {
	return hostfuncs.Event{Kind: kind, Personality: personality, Plugin: plugin, Data: []byte(data)}
}

// The kernel's events become the exposition's series, with bounded labels:
// a made-up tool name counts as unknown, free-text values past maxValues
// as other; two Metrics do not share a registry.
func TestObserveEvents(t *testing.T) {
	m := New()
	other := New() // a second host in the process: no collision, no sharing
	m.Observe(ev(KindToolCall, "p", "browser", `{"tool":"browser_navigate","ms":120,"outcome":"ok"}`))
	m.Observe(ev(KindToolCall, "p", "browser", `{"tool":"browser_navigate","ms":80,"outcome":"error","code":"bot_wall"}`))
	m.Observe(ev(KindToolCall, "p", "", `{"tool":"made_up_by_the_agent","ms":0,"outcome":"error","code":"not_found"}`))
	m.Observe(ev(KindSwapped, "", "blockdetect", `{}`))
	m.Observe(ev(KindSwapRefused, "", "blockdetect", `{"reason":"x"}`))
	m.Observe(ev(KindWithheld, "p", "", `{"vendor":"cloudflare","code":"bot_wall"}`))
	m.Observe(ev(KindEgressRefused, "p", "", `{"reason":"private_address"}`))
	m.Observe(ev(KindApproval, "p", "", `{"verdict":"allow"}`))
	m.Observe(ev(KindTakeover, "p", "", `{"outcome":"timeout"}`))
	m.Observe(ev(KindGridSession, "p", "", `{"ms":2500}`))
	m.Observe(ev(KindGridSession, "p", "", `{"ms":60000,"code":"resource_limit"}`))
	m.Observe(ev(KindGridNodeLost, "p", "", `{"node":"http://n1","cause":"node"}`))
	m.Observe(ev(KindGridNodeLost, "p", "", `{"node":"http://n1","cause":"hub"}`))
	m.Observe(ev(KindGridNodeLost, "p", "", `{"node":"http://n2","cause":"hub"}`))
	for i := range maxValues + 5 {
		m.Observe(ev(KindWithheld, "p", "", fmt.Sprintf(`{"vendor":"v%d"}`, i)))
	}
	m.OpenSessions(func() int { return 3 })

	text := scrape(t, m)
	for _, want := range []string{
		`wasmwright_tool_calls_total{code="ok",personality="p",tool="browser_navigate"} 1`,
		`wasmwright_tool_calls_total{code="bot_wall",personality="p",tool="browser_navigate"} 1`,
		`wasmwright_tool_calls_total{code="not_found",personality="p",tool="unknown"} 1`,
		`wasmwright_tool_call_duration_seconds_count{personality="p",tool="browser_navigate"} 2`,
		`wasmwright_tool_call_duration_seconds_sum{personality="p",tool="browser_navigate"} 0.2`,
		`wasmwright_plugin_swaps_total{outcome="swapped",plugin="blockdetect"} 1`,
		`wasmwright_plugin_swaps_total{outcome="refused",plugin="blockdetect"} 1`,
		`wasmwright_pages_withheld_total{personality="p",vendor="cloudflare"} 1`,
		`wasmwright_pages_withheld_total{personality="p",vendor="other"} 6`,
		`wasmwright_egress_refused_total{personality="p",reason="private_address"} 1`,
		`wasmwright_approvals_total{personality="p",verdict="allow"} 1`,
		`wasmwright_takeovers_total{outcome="timeout",personality="p"} 1`,
		`wasmwright_grid_session_wait_seconds_count{code="ok"} 1`,
		`wasmwright_grid_session_wait_seconds_count{code="resource_limit"} 1`,
		`wasmwright_grid_node_lost_total{cause="node"} 1`,
		`wasmwright_grid_node_lost_total{cause="hub"} 2`,
		`wasmwright_mcp_sessions 3`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("exposition lacks %s", want)
		}
	}
	if strings.Contains(text, "made_up_by_the_agent") {
		t.Error("an agent's made-up tool name became a label value")
	}
	if o := scrape(t, other); strings.Contains(o, "wasmwright_tool_calls_total{") {
		t.Errorf("a second Metrics shows the first one's calls:\n%s", o)
	}
}

func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
