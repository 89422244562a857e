package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// The AssemblyScript example, built from the kit in
// plugin-sdk/assemblyscript with a default asc build (a start section, no
// --exportStart), loads and answers over MCP: it opens a loopback page
// through the kit's typed navigate and answers the page's title.
func TestAssemblyScriptExampleOverMCP(t *testing.T) {
	testenv.Heavy(t, "Chromium and the Playwright driver")
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Fatal("needs Chromium: make deps")
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Über title</title><p>hi`)
	}))
	t.Cleanup(site.Close)
	dir := t.TempDir()
	b, err := wasmbuild.Bytes("examples/page_title")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	os.WriteFile(filepath.Join(dir, "page_title.wasm"), b, 0o644)
	h := startHost(t, hostSection(dir)+fmt.Sprintf(`
[browser]
headed = "false"
workspace_dir = "ws"
navigation_timeout = "30s"

[plugins.page_title]
sha256 = %q

[personalities.agent]
plugins = ["page_title"]
tools = ["*"]
grants = ["browser.act"]
network = { allowed_hosts = [%q] }
`, hex.EncodeToString(sum[:]), strings.TrimPrefix(site.URL, "http://")), dir, host.Options{})
	if probs, _ := h.Problems("agent"); len(probs) > 0 {
		t.Fatalf("link problems: %v", probs)
	}
	cs, _ := connectMemory(t, New(h, Options{Logger: quiet()}), "agent", "s1", nil)
	if _, ok := toolsOf(t, cs)["page_title"]; !ok {
		t.Fatalf("tools: %v", keys(toolsOf(t, cs)))
	}
	res := call(t, cs, "page_title", map[string]any{"url": site.URL + "/"})
	if res.IsError || !strings.HasPrefix(text(t, res), "Über title") {
		t.Fatalf("page_title: error=%v %s", res.IsError, text(t, res))
	}
	res = call(t, cs, "page_title", map[string]any{"url": ""})
	if !res.IsError || !strings.Contains(text(t, res), "input_invalid") {
		t.Fatalf("empty url: want input_invalid, got error=%v %s", res.IsError, text(t, res))
	}
}
