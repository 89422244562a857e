package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// A plugin written with the stock Extism AssemblyScript PDK, nothing of
// wasmwright's, calls browser host functions in Extism's convention: a
// granted one works on a loopback page; an ungranted one answers a coded
// refusal the plugin reads as {"error": ...}, under the same grant check as
// the ww_ convention.
func TestStockExtismPDKCallsTheBrowser(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	needBrowser(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Loopback page</title><h1>Hello from loopback</h1>`)
	}))
	t.Cleanup(site.Close)
	hostport := strings.TrimPrefix(site.URL, "http://")
	f := newFixture(t, map[string]string{"stockpdk": "host/testdata/stockpdk"})
	h := f.browserHost(t, f.browserConfig(`default_personality = "agent"`, "", fmt.Sprintf(`[plugins.stockpdk]

[personalities.agent]
plugins = ["stockpdk"]
tools = ["*"]
grants = ["browser.read", "browser.act"]
network = { allowed_hosts = [%q] }
`, hostport)), Options{})

	ctx, cancel := context.WithTimeout(context.Background(), testenv.CallWait)
	defer cancel()
	res, err := h.Call(ctx, Request{Session: "s", Tool: "stock_open", Args: json.RawMessage(fmt.Sprintf(`{"url":%q,"then_eval":true}`, site.URL+"/"))})
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Navigate abi.BrowserNavigateResponse `json:"navigate"`
		Evaluate abi.ExtismError             `json:"evaluate"`
	}
	if err := json.Unmarshal(res.Data, &data); err != nil {
		t.Fatalf("%v: %s", err, res.Data)
	}
	if data.Navigate.Page.Title != "Loopback page" || !strings.Contains(data.Navigate.Snapshot, "Hello from loopback") {
		t.Fatalf("navigate through wwx_browser_navigate: %s", res.Data)
	}
	e := data.Evaluate.Error
	if e == nil || e.Code != abi.CodeRefused || !strings.Contains(e.Message, "browser.eval") {
		t.Fatalf("wwx_browser_evaluate without browser.eval: want a refusal naming the grant, got %s", res.Data)
	}
}

// A stock-PDK plugin answering non-ASCII text with Host.outputString
// (@extism/as-pdk 1.0.0 sizes it by UTF-16 length, so its end is cut):
// the host's plugin_failed names that pitfall and its fix, not only
// "invalid JSON" (issue 27).
func TestCutOutputNamesTheOutputStringPitfall(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	needBrowser(t)
	f := newFixture(t, map[string]string{"stockpdk": "host/testdata/stockpdk"})
	h := f.browserHost(t, f.browserConfig(`default_personality = "agent"`, "", `[plugins.stockpdk]

[personalities.agent]
plugins = ["stockpdk"]
tools = ["*"]
grants = ["browser.read", "browser.act"]
`), Options{})
	ctx, cancel := context.WithTimeout(context.Background(), testenv.CallWait)
	defer cancel()
	_, err := h.Call(ctx, Request{Session: "s", Tool: "stock_accents", Args: json.RawMessage(`{}`)})
	e := abi.AsError(err)
	if e == nil || e.Code != abi.CodePluginFailed || !strings.Contains(e.Message, "Host.outputString") || !strings.Contains(e.Message, "String.UTF8.encode") {
		t.Fatalf("want plugin_failed naming the outputString pitfall and its fix, got %v", err)
	}
}
