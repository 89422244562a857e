package main

import (
	"encoding/json"
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
	} {
		if got := normalizeURL(in); got != want {
			t.Errorf("normalizeURL(%q) = %q, want %q", in, got, want)
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
	if len(m.Tools) != 30 {
		t.Fatalf("%d tools", len(m.Tools))
	}
	for _, tool := range m.Tools {
		if len(tool.Capabilities) != 1 || len(tool.Description) < 80 || !strings.HasPrefix(tool.Name, "browser_") {
			t.Errorf("tool %s: caps %v, description %d chars", tool.Name, tool.Capabilities, len(tool.Description))
		}
		if !json.Valid(tool.InputSchema) {
			t.Errorf("tool %s: schema", tool.Name)
		}
	}
}
