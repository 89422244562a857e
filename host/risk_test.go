package host

import (
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// shippedFixture loads every shipped tool plugin under one personality
// that is granted everything they need, the takeover tool included.
func shippedFixture(t *testing.T, personalityExtra string) (*Host, *hostfuncs.MemorySink, *fixture) {
	t.Helper()
	return shippedFixtureWith(t, Options{Operators: true}, personalityExtra)
}

func shippedFixtureWith(t *testing.T, opts Options, personalityExtra string) (*Host, *hostfuncs.MemorySink, *fixture) {
	t.Helper()
	f := newFixture(t, map[string]string{
		"browser":       "plugins/browser",
		"web_fetch":     "plugins/web_fetch",
		"extract_links": "examples/extract_links",
	})
	sink := &hostfuncs.MemorySink{}
	opts.Sink = sink
	h := f.browserHost(t, f.browserConfig("default_personality = \"all\"\ngrants_dir = \"grants\"", "", fmt.Sprintf(`[plugins.browser]
[plugins.web_fetch]
[plugins.extract_links]

[personalities.all]
plugins = ["browser", "web_fetch", "extract_links"]
tools = ["*"]
grants = ["browser.read", "browser.act", "browser.eval", "network", "takeover", "events", "vault.fill"]
allow_eval_with_vault = true
%s
`, personalityExtra)), opts)
	return h, sink, f
}

// Every parameter of every shipped tool says what it is for: clients show
// these descriptions to the model and to people approving calls.
func TestEveryParameterIsDescribed(t *testing.T) {
	h, _, _ := shippedFixture(t, "")
	tools, err := h.Tools("all")
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) < 30 {
		t.Fatalf("only %d tools loaded", len(tools))
	}
	var missing []string
	var walk func(tool, path string, schema map[string]any)
	walk = func(tool, path string, schema map[string]any) {
		props, _ := schema["properties"].(map[string]any)
		for name, p := range props {
			ps, _ := p.(map[string]any)
			if d, _ := ps["description"].(string); d == "" {
				missing = append(missing, tool+": "+path+name)
			}
			walk(tool, path+name+".", ps)
		}
		if items, ok := schema["items"].(map[string]any); ok {
			walk(tool, path+"[].", items)
		}
	}
	params := 0
	for _, tl := range tools {
		var schema map[string]any
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil {
			t.Fatalf("%s: %v", tl.Name, err)
		}
		props, _ := schema["properties"].(map[string]any)
		params += len(props)
		walk(tl.Name, "", schema)
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d of %d parameters have no description:\n%v", len(missing), params, missing)
	}
}

// Every tool carries its effective risk; where the derivation from
// capabilities would be wrong the plugin declares it.
func TestToolRisks(t *testing.T) {
	h, _, _ := shippedFixture(t, "")
	tools, err := h.Tools("all")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]abi.Risk{}
	open := map[string]bool{}
	for _, tl := range tools {
		if !tl.Risk.Valid() {
			t.Errorf("%s: risk %q", tl.Name, tl.Risk)
		}
		got[tl.Name], open[tl.Name] = tl.Risk, tl.OpenWorld
	}
	for tool, want := range map[string]abi.Risk{
		"browser_snapshot": abi.RiskRead, "browser_navigate": abi.RiskNavigate, "browser_click": abi.RiskAct,
		"browser_evaluate": abi.RiskEval, "browser_upload": abi.RiskUpload, "browser_pdf": abi.RiskDownload,
		"browser_close": abi.RiskNavigate, "browser_resize": abi.RiskNavigate, "browser_emulate": abi.RiskNavigate,
		"browser_cookies": abi.RiskAct, "browser_request_takeover": abi.RiskRead, "browser_read": abi.RiskRead, "browser_profile": abi.RiskAct,
		"web_fetch": abi.RiskNavigate, "extract_links": abi.RiskRead,
	} {
		if got[tool] != want {
			t.Errorf("%s: risk %q, want %q", tool, got[tool], want)
		}
	}
	if !open["browser_snapshot"] || !open["web_fetch"] || open["extract_links"] {
		t.Errorf("open world: snapshot %v, web_fetch %v, extract_links %v", open["browser_snapshot"], open["web_fetch"], open["extract_links"])
	}
}
