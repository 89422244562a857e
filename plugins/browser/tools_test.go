package main

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

func TestNormalizeURL(t *testing.T) {
	for in, want := range map[string]string{
		"example.com":             "https://example.com",
		"example.com/a?b=1":       "https://example.com/a?b=1",
		"localhost:8080/x":        "http://localhost:8080/x",
		"127.0.0.1:3000":          "http://127.0.0.1:3000",
		"http://x.test/":          "http://x.test/",
		"javascript:alert(1)":     "javascript:alert(1)",
		"data:text/html,hi":       "data:text/html,hi",
		"file:///etc/passwd":      "file:///etc/passwd",
		"  https://spaces.test  ": "https://spaces.test",
		"about:blank":             "about:blank",
		"192.168.0.1":             "http://192.168.0.1",
		"010.0.0.1":               "https://010.0.0.1",
		"example.com:443/a":       "https://example.com:443/a",
	} {
		if got := normalizeURL(in); got != want {
			t.Errorf("normalizeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// The plugin splits host and port without package net, the same way.
func TestHostOfHostPortIsNets(t *testing.T) {
	for _, in := range []string{"", ":", "a", "a:", "a:1", ":1", "a:b:c", "[::1]:80", "[::1]", "[::1]x:80",
		"[::1]:", "[fe80::1%eth0]:1", "[a]b]:1", "a]:1", "[a:1", "a[b]:1", "[[a]]:1", "localhost:8080", "1.2.3.4:5"} {
		h, _, err := net.SplitHostPort(in)
		got, ok := hostOfHostPort(in)
		if ok != (err == nil) || (ok && got != h) {
			t.Errorf("hostOfHostPort(%q) = %q, %v; net.SplitHostPort: %q, %v", in, got, ok, h, err)
		}
	}
}

func TestManifest(t *testing.T) {
	out, isErr := sdk.Handle(abi.OpDescribe, nil)
	if isErr {
		t.Fatal(string(out))
	}
	var m abi.Manifest
	json.Unmarshal(out, &m)
	have := map[string]bool{}
	for _, tool := range m.Tools {
		have[tool.Name] = true
	}
	for _, n := range strings.Fields(`browser_navigate browser_snapshot browser_click browser_type browser_fill_form
		browser_press browser_hover browser_scroll browser_select browser_drag browser_upload browser_back
		browser_forward browser_wait_for browser_dialog browser_console browser_network browser_get_images
		browser_computed_style browser_screenshot browser_pdf browser_evaluate browser_storage browser_cookies
		browser_sources browser_tabs browser_emulate browser_resize browser_close browser_sessions browser_read browser_profile`) {
		if !have[n] {
			t.Errorf("tool %s missing", n)
		}
	}
	for _, tool := range m.Tools {
		if len(tool.Capabilities) == 0 || len(tool.Description) < 80 || !strings.HasPrefix(tool.Name, "browser_") {
			t.Errorf("tool %s: caps %v, description %d chars", tool.Name, tool.Capabilities, len(tool.Description))
		}
		if !json.Valid(tool.InputSchema) {
			t.Errorf("tool %s: schema", tool.Name)
		}
	}
}

// Every action tool takes snapshot: diff, full or none (the host reads it).
func TestActionToolsTakeSnapshotMode(t *testing.T) {
	out, _ := sdk.Handle(abi.OpDescribe, nil)
	var m abi.Manifest
	json.Unmarshal(out, &m)
	schemas := map[string]json.RawMessage{}
	for _, tool := range m.Tools {
		schemas[tool.Name] = tool.InputSchema
	}
	for _, n := range strings.Fields(`browser_navigate browser_back browser_forward browser_click browser_type
		browser_fill_form browser_press browser_hover browser_scroll browser_select browser_drag browser_upload browser_dialog browser_fill_credential`) {
		var s struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		}
		json.Unmarshal(schemas[n], &s)
		if got := strings.Join(s.Properties["snapshot"].Enum, "|"); got != "diff|full|none" {
			t.Errorf("%s: snapshot enum %q, want diff|full|none", n, got)
		}
	}
}

// The marked screenshot's legend: one compact line per mark, the ref and
// name only when there is one, and a line saying when the list was capped.
func TestLegend(t *testing.T) {
	marks := []abi.ScreenMark{
		{Mark: 1, Ref: "e12", Role: "button", Name: `Say "hi"`, Box: [4]int{20, 20, 120, 32}},
		{Mark: 2, Role: "canvas", Box: [4]int{40, 60, 400, 300}},
	}
	got := legend(marks, 2)
	lines := strings.Split(got, "\n")
	if len(lines) != 3 || lines[1] != `[1] e12 button "Say \"hi\"" box=20,20,120,32` || lines[2] != `[2] canvas box=40,60,400,300` {
		t.Errorf("legend:\n%s", got)
	}
	if capped := legend(marks, 340); !strings.HasSuffix(capped, "Showing the first 2 of 340 marks, top to bottom: scroll down (browser_scroll) and take another marked screenshot for the rest.") {
		t.Errorf("capped legend:\n%s", capped)
	}
	if none := legend(nil, 0); !strings.HasPrefix(none, "No marks") {
		t.Errorf("empty legend: %s", none)
	}
	out, _ := sdk.Handle(abi.OpDescribe, nil)
	var m abi.Manifest
	json.Unmarshal(out, &m)
	for _, tool := range m.Tools {
		if tool.Name == "browser_screenshot" && !strings.Contains(string(tool.InputSchema), `"marks":{`) {
			t.Errorf("browser_screenshot takes no marks: %s", tool.InputSchema)
		}
	}
}

// browser_read always names its root: the host sends as structured content
// only data its text does not hold (frontend/mcp unsaid), so the root must be
// written so no page text holds it by chance, as a bare tag name is
// ("div" inside "individual", "main" and "article" as words).
func TestReadNamesRootWhateverTheText(t *testing.T) {
	for root, text := range map[string]string{
		"div":     "Each individual reader divides the text.",
		"main":    "The main reason is the domain.",
		"article": "This article is about an article.",
		"body":    "A body of work.",
	} {
		res := readResult(abi.BrowserReadResponse{Text: text, Root: root, Bytes: len(text)})
		var data struct{ Root string }
		if err := json.Unmarshal(res.Data, &data); err != nil || data.Root == "" {
			t.Fatalf("%s: data %s %v", root, res.Data, err)
		}
		if strings.Contains(res.Text, data.Root) || !strings.Contains(data.Root, root) {
			t.Errorf("root %q is written %q, which the text %q holds: it would be dropped", root, data.Root, res.Text)
		}
	}
}
