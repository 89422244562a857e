package host

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/wasmwright/wasmwright/internal/secretforms"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// legacyPass has characters each legacy charset lacks (so each submits
// some as &#NNNN;) and a space (submitted as +).
const legacyPass = "pÜß€ あ密ё-Zq"

// TestLegacyCharsetFormsMasked: real Chromium submits a password through a
// GET form on pages in legacy charsets; the password reaches the URL, the
// snapshot (the server echoes the query) and the network log in that
// charset's bytes, percent-encoded, with &#NNNN; for what the charset
// lacks. Through the full pipeline, none of it reaches the agent unmasked.
func TestLegacyCharsetFormsMasked(t *testing.T) {
	t.Parallel() // its own host: overlaps the other such tests' waits
	needBrowser(t)
	var mu sync.Mutex
	sent := map[string]string{} // charset -> the pw parameter as Chromium sent it
	mux := http.NewServeMux()
	mux.HandleFunc("GET /legacy", func(w http.ResponseWriter, r *http.Request) {
		cs, accept := r.URL.Query().Get("cs"), r.URL.Query().Get("accept")
		page := "utf-8"
		if accept == "" {
			page = cs
		}
		w.Header().Set("Content-Type", "text/html; charset="+page)
		fmt.Fprintf(w, `<!doctype html><title>Legacy</title><form method="get" action="/got" accept-charset="%s">
			<input type="hidden" name="cs" value="%s">
			<label>Password <input type="password" name="pw"></label><input type="hidden" name="go" value="1"></form>`,
			html.EscapeString(accept), html.EscapeString(cs))
	})
	pwRe := regexp.MustCompile(`(?:^|&)pw=([^&]*)`)
	mux.HandleFunc("GET /got", func(w http.ResponseWriter, r *http.Request) {
		m := pwRe.FindStringSubmatch(r.URL.RawQuery)
		if m != nil {
			mu.Lock()
			sent[r.URL.Query().Get("cs")] = m[1]
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><title>Got</title><p>query `+html.EscapeString(r.URL.RawQuery)+`</p><a href="/again?`+html.EscapeString(r.URL.RawQuery)+`">again</a>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	f := newFixture(t, map[string]string{"browser": "plugins/browser", "secretmask": "plugins/secretmask"})
	h := f.browserHost(t, f.browserConfig("", `navigation_timeout = "30s"`, fmt.Sprintf(`[plugins.browser]
[plugins.secretmask]

[personalities.default]
plugins = ["browser", "secretmask"]
tools = ["*"]
grants = ["browser.read", "browser.act", "events", "secrets.mask"]
hooks = { mask = "secretmask" }
network = { allowed_hosts = [%q] }
`, strings.TrimPrefix(srv.URL, "http://"))), Options{})
	call := func(session, tool string, args any) string {
		t.Helper()
		raw, _ := json.Marshal(args)
		ctx, cancel := context.WithTimeout(context.Background(), testenv.CallWait)
		defer cancel()
		res, err := h.Call(ctx, Request{Session: session, Tool: tool, Args: raw})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		out, _ := json.Marshal(res)
		return string(out)
	}

	cases := []struct{ cs, accept string }{
		{"iso-8859-1", ""}, {"iso-8859-2", ""}, {"windows-1251", ""}, {"koi8-r", ""},
		{"shift_jis", ""}, {"euc-jp", ""}, {"iso-2022-jp", ""},
		{"gbk", ""}, {"gb18030", ""}, {"big5", ""}, {"euc-kr", ""},
		{"shift_jis-accept", "shift_jis"},
	}
	for _, c := range cases {
		t.Run(c.cs, func(t *testing.T) {
			session := "cs-" + c.cs
			q := url.Values{"cs": {c.cs}}
			if c.accept != "" {
				q.Set("accept", c.accept)
			}
			var res struct {
				Snapshot string `json:"snapshot"`
			}
			json.Unmarshal([]byte(call(session, "browser_navigate", map[string]any{"url": srv.URL + "/legacy?" + q.Encode()})), &res)
			m := regexp.MustCompile(`textbox "Password"[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(res.Snapshot)
			if m == nil {
				t.Fatalf("no password field:\n%s", res.Snapshot)
			}
			outs := []string{call(session, "browser_type", map[string]any{"ref": m[1], "text": legacyPass, "submit": true})}
			outs = append(outs, call(session, "browser_snapshot", map[string]any{"snapshot": "full"}), call(session, "browser_network", map[string]any{}))
			mu.Lock()
			got := sent[c.cs]
			mu.Unlock()
			if got == "" {
				t.Fatalf("the form was not submitted")
			}
			// The bytes Chromium sent are the ones the masker predicts.
			name := c.cs
			if c.accept != "" {
				name = c.accept
			}
			if name == "iso-8859-1" {
				name = "windows-1252"
			}
			want, ok := secretforms.Encode(name, legacyPass)
			if dec, err := url.QueryUnescape(got); !ok || err != nil || dec != string(want) {
				t.Errorf("Chromium sent %s, the masker's %s form is %q", got, name, want)
			}
			all := strings.ReplaceAll(strings.Join(outs, "\n"), `\u0026`, "&")
			for _, leak := range []string{got, strings.ToLower(got), legacyPass} {
				if strings.Contains(all, leak) {
					t.Errorf("the password as sent (%s) reached the agent: %s", leak, all)
				}
			}
			if !strings.Contains(all, "pw=••••••&go=1") {
				t.Errorf("the URL's password is not masked: %s", all)
			}
		})
	}
	if t.Failed() {
		return
	}
	// Every legacy form above was different from the UTF-8 one.
	for cs, v := range sent {
		if v == url.QueryEscape(legacyPass) {
			t.Errorf("%s submitted UTF-8: the page's charset did not apply", cs)
		}
	}
}
