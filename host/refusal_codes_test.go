package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/corpus"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// TestOneCodePerCause (issue 27): the same cause answers with the same code
// in web_fetch and browser_navigate, in a fresh session and in one that
// has loaded a page before. A URL the policy refuses is refused; so is an
// address the browser refuses (an unsafe port, a redirect to file: or
// gopher:), naming why; a URL that parses is never input_invalid, and
// one that does not ("http://[]") is input_invalid in both tools. The
// URLs are the shared SSRF lists'; the table of codes is logged.
func TestOneCodePerCause(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>Home</title><p>home</p>")
	})
	for _, to := range []string{"file:///etc/passwd", "gopher://127.0.0.1:70/x"} {
		mux.HandleFunc("/to-"+strings.Split(to, ":")[0], func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, to, http.StatusFound)
		})
	}
	site := httptest.NewServer(mux)
	defer site.Close()
	hostport := strings.TrimPrefix(site.URL, "http://")
	f := newFixture(t, map[string]string{"browser": "plugins/browser", "web_fetch": "plugins/web_fetch"})
	// 127.0.0.1:22 is allowed, so the browser's own refusal of the port is
	// what the agent meets.
	h := f.browserHost(t, f.browserConfig("", "", fmt.Sprintf(`[plugins.browser]
[plugins.web_fetch]

[personalities.default]
plugins = ["browser", "web_fetch"]
tools = ["*"]
grants = ["browser.read", "browser.act", "network"]
network = { allowed_hosts = [%q, "127.0.0.1:22"] }
`, hostport)), Options{})

	type row struct{ url, want, why string }
	var rows []row
	dir := corpus.Need(t, "ssrf")
	for _, file := range []string{"code.dny.dev-ssrf-denied-urls.txt", "doyensec-safeurl-blocked-urls.txt"} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range strings.Split(string(b), "\n") {
			if u = strings.TrimSpace(u); u != "" {
				rows = append(rows, row{u, wantFor(u), ""})
			}
		}
	}
	rows = append(rows,
		row{"http://127.0.0.1:22/", string(abi.CodeRefused), "unsafe port"},
		row{site.URL + "/to-file", string(abi.CodeRefused), "http"},
		row{site.URL + "/to-gopher", string(abi.CodeRefused), "http"},
	)

	// Every URL in a reused session (one that has loaded a page: where
	// http://127.0.0.1:80 once said execution_failed); a sample in fresh
	// ones (each opens a browser context: seconds apiece).
	fresh := map[string]bool{"http://127.0.0.1:80": true, "http://[::1]:53": true, "http://0x7f000001": true, "http://[]": true,
		"http://127.0.0.1:22/": true, site.URL + "/to-file": true}
	table := map[string][]string{} // "tool, session: code" -> urls
	codes := map[string]map[string]bool{}
	n := 0
	for _, tool := range []string{"web_fetch", "browser_navigate"} {
		if tool == "browser_navigate" {
			call(t, h, "reused", tool, site.URL+"/") // a session with a page loaded
		}
		for _, isFresh := range []bool{false, true} {
			for _, r := range rows {
				if tool == "web_fetch" && r.why == "unsafe port" || isFresh && !fresh[r.url] {
					continue // web_fetch: a port the operator allowed is the browser's rule, not the policy's
				}
				session, kind := "reused", "reused"
				if isFresh {
					n++
					session, kind = fmt.Sprintf("fresh-%d", n), "fresh"
				}
				code, msg := call(t, h, session, tool, r.url)
				key := fmt.Sprintf("%s, %s session: %s", tool, kind, code)
				table[key] = append(table[key], r.url)
				if codes[r.url] == nil {
					codes[r.url] = map[string]bool{}
				}
				codes[r.url][code] = true
				if r.want != "" && code != r.want || r.why != "" && !strings.Contains(msg, r.why) {
					t.Errorf("%s %s (%s session): %s %q, want %s naming %q", tool, r.url, kind, code, msg, r.want, r.why)
				}
			}
		}
	}
	for u, cs := range codes {
		if len(cs) > 1 {
			t.Errorf("%s: %d codes across tools and sessions: %v", u, len(cs), cs)
		}
	}
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%s: %d URLs, e.g. %s", k, len(table[k]), table[k][0])
	}
}

// wantFor is the code a URL of the SSRF lists must get: refused, unless
// it does not parse as a URL at all ("http://[]"): that is the caller's
// mistake, input_invalid, in every tool and session alike.
func wantFor(u string) string {
	if _, err := url.Parse(strings.TrimSpace(u)); err != nil {
		return string(abi.CodeInputInvalid)
	}
	return string(abi.CodeRefused)
}

// call runs tool on u in session and returns the error's code and
// message ("ok" for a result).
func call(t *testing.T, h *Host, session, tool, u string) (string, string) {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"url": u})
	ctx, cancel := context.WithTimeout(context.Background(), testenv.CallWait)
	defer cancel()
	_, err := h.Call(ctx, Request{Session: session, Tool: tool, Args: args})
	if err == nil {
		return "ok", ""
	}
	e := abi.AsError(err)
	return string(e.Code), e.Message
}
