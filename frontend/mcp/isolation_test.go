package mcp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// newBrowserHost starts a host with the first-party browser plugin (from
// build/plugins, or WASMWRIGHT_PLUGINS_DIR) and a loopback page server the
// personality agent may open.
func newBrowserHost(t *testing.T) (*host.Host, string) {
	t.Helper()
	testenv.Heavy(t, "Chromium and the Playwright driver")
	plugins := testenv.Plugins(t, "browser.wasm")
	testenv.Driver(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<title>%s</title><p>page %s</p>", r.URL.Path, r.URL.Path)
	}))
	t.Cleanup(page.Close)
	site := strings.TrimPrefix(page.URL, "http://")
	h := startHost(t, hostSection(plugins)+fmt.Sprintf(`
[plugins.browser]

[personalities.agent]
plugins = ["browser"]
tools = ["*"]
grants = ["browser.read", "browser.act"]
[personalities.agent.network]
allowed_hosts = [%q]

[personalities.narrow]
plugins = ["browser"]
tools = ["*"]
grants = ["browser.read", "browser.act"]
[personalities.narrow.network]
allowed_hosts = [%q]
`, site, site), t.TempDir(), host.Options{})
	return h, page.URL
}

// Two clients of one token: neither sees the other's session (its name,
// which would let it present it, or its URL) in browser_sessions, and a
// listed URL shows no credentials or query values. A client of another
// token cannot use or end the session either.
func TestSameTokenClientsIsolated(t *testing.T) {
	h, page := newBrowserHost(t)
	s := New(h, Options{Logger: quiet()})
	f := serveHTTPTest(t, s)

	a, err := f.connect(t, f.tokens["agent"], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := f.connect(t, f.tokens["agent"], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if res := call(t, a, "browser_navigate", map[string]any{"url": page + "/account-of-a?password=hunter2&user=alice#tok"}); res.IsError {
		t.Fatalf("A navigate: %s", text(t, res))
	}
	if res := call(t, b, "browser_navigate", map[string]any{"url": page + "/b-page"}); res.IsError {
		t.Fatalf("B navigate: %s", text(t, res))
	}

	bList := text(t, call(t, b, "browser_sessions", nil))
	for _, leak := range []string{a.ID(), "account-of-a", "hunter2", "alice"} {
		if strings.Contains(bList, leak) {
			t.Errorf("B's browser_sessions shows A's %q:\n%s", leak, bList)
		}
	}
	if !strings.Contains(bList, b.ID()) || !strings.Contains(bList, "b-page") {
		t.Errorf("B's browser_sessions does not show its own session:\n%s", bList)
	}
	aList := text(t, call(t, a, "browser_sessions", nil))
	if strings.Contains(aList, "hunter2") || strings.Contains(aList, "alice") || strings.Contains(aList, "#tok") || !strings.Contains(aList, "account-of-a?password=") {
		t.Errorf("A's own listing should show its URL with query values masked:\n%s", aList)
	}
	if strings.Contains(aList, b.ID()) {
		t.Errorf("A's browser_sessions shows B's session:\n%s", aList)
	}

	// Another token presenting A's session id: refused, whatever the method.
	for _, method := range []string{"POST", "GET", "DELETE"} {
		body := ""
		if method == "POST" {
			body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"browser_snapshot","arguments":{}}}`
		}
		req, _ := http.NewRequest(method, f.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", a.ID())
		req.Header.Set("Authorization", "Bearer "+f.tokens["narrow"])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s on A's session with another token: %s", method, resp.Status)
		}
	}
	// A's session is intact.
	if res := call(t, a, "browser_snapshot", map[string]any{"snapshot": "full"}); res.IsError || !strings.Contains(text(t, res), "account-of-a") {
		t.Errorf("A after the refused requests: %s", text(t, res))
	}
}
