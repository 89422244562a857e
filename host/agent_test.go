package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// agentSite is a loopback site an agent's browser may reach, with pages
// that misbehave. /hang never answers until the test ends; hung receives
// each request for it.
type agentSite struct {
	*httptest.Server
	hostport string
	hung     chan string
	dead     string // a loopback host:port nothing listens on
}

func newAgentSite(t *testing.T) *agentSite {
	t.Helper()
	s := &agentSite{hung: make(chan string, 16)}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.dead = l.Addr().String()
	l.Close()
	quit := make(chan struct{})
	mux := http.NewServeMux()
	page := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!doctype html>"+body)
		})
	}
	page("/", `<title>Good</title><h1>A good page</h1><a href="/other">Other</a>`)
	page("/other", `<title>Other</title><h1>Other page</h1>`)
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.hung <- r.URL.String():
		default:
		}
		select {
		case <-quit:
		case <-r.Context().Done():
		}
	})
	s.Server = httptest.NewServer(mux)
	s.hostport = strings.TrimPrefix(s.URL, "http://")
	t.Cleanup(func() {
		close(quit)
		s.Server.Close()
	})
	return s
}

// agentHost is a host with the browser plugin, one personality allowed to
// reach site (and nothing else on loopback), and the [browser] settings
// given.
func agentHost(t *testing.T, site *agentSite, browserCfg string) *Host {
	t.Helper()
	if !strings.Contains(browserCfg, "navigation_timeout") {
		browserCfg += "\nnavigation_timeout = \"5s\""
	}
	if !strings.Contains(browserCfg, "action_timeout") {
		browserCfg += "\naction_timeout = \"3s\""
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Skip("needs Chromium (make deps)")
	}
	f := newFixture(t, map[string]string{"browser": "plugins/browser"})
	cfg, err := ParseConfig(fmt.Sprintf(`[host]
plugins_dir = %q
cache_dir = %q
call_timeout = "60s"
default_personality = "agent"

[browser]
headed = "false"
workspace_dir = "ws"
%s

[plugins.browser]

[personalities.agent]
plugins = ["browser"]
tools = ["*"]
grants = ["browser.read", "browser.act"]
network = { allowed_hosts = [%q] }
`, f.plugins, testCache, browserCfg, site.hostport), "agent.toml", f.dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), cfg, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// agentCall runs one tool call as the agent would, under ctx.
func agentCall(ctx context.Context, h *Host, session, tool string, args any) (*abi.Result, *abi.Error) {
	raw, _ := json.Marshal(args)
	res, err := h.Call(ctx, Request{Session: session, Tool: tool, Args: raw})
	if err != nil {
		return nil, abi.AsError(err)
	}
	return res, nil
}

func agentMust(t *testing.T, h *Host, session, tool string, args any) *abi.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := agentCall(ctx, h, session, tool, args)
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return res
}

// A client's cancellation ends the call and whatever it waited for: the
// next call on the session starts at once, while the cancelled wait would
// still be running, and finds the session as it was (the tab and its
// history kept).
func TestAgentCancelledWaitsEnd(t *testing.T) {
	site := newAgentSite(t)
	h := agentHost(t, site, "")
	agentMust(t, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/"})
	agentMust(t, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/other"})

	for _, tc := range []struct {
		tool    string
		args    map[string]any
		started func()
		lasts   time.Duration // how long the wait would have run
	}{
		{"browser_wait_for", map[string]any{"seconds": 20}, nil, 20 * time.Second},
		{"browser_navigate", map[string]any{"url": site.URL + "/hang"}, func() { <-site.hung }, 5 * time.Second},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan *abi.Error, 1)
		go func() {
			_, err := agentCall(ctx, h, "s", tc.tool, tc.args)
			done <- err
		}()
		if tc.started != nil {
			tc.started()
		}
		// The wait would end no earlier than this, had it kept running.
		waitEnds := time.After(tc.lasts)
		cancel()
		if err := <-done; err == nil || err.Code != abi.CodeTimeout || !strings.Contains(err.Message, "cancelled") {
			t.Fatalf("cancelled %s: %v", tc.tool, err)
		}
		next := make(chan *abi.Result, 1)
		go func() {
			r, err := agentCall(context.Background(), h, "s", "browser_back", map[string]any{})
			if err != nil {
				t.Errorf("after the cancelled %s: %v", tc.tool, err)
			}
			next <- r
		}()
		select {
		case r := <-next:
			if r == nil {
				t.FailNow()
			}
			if r.Page == nil || r.Page.Title != "Good" || strings.Contains(strings.Join(r.Warnings, " "), "stopped responding") {
				t.Fatalf("after the cancelled %s, going back did not reach the first page: %s %v", tc.tool, r.Text, r.Warnings)
			}
		case <-waitEnds:
			t.Fatalf("the call after the cancelled %s waited for it to end", tc.tool)
		}
		agentMust(t, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/other"})
	}
}

// After a navigation times out, the session goes on: the next navigation
// loads, a snapshot answers, and the tab keeps its history.
func TestAgentNavigationTimeoutRecovers(t *testing.T) {
	site := newAgentSite(t)
	h := agentHost(t, site, `navigation_timeout = "1s"`)
	agentMust(t, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/"})
	for i := 0; i < 2; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := agentCall(ctx, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/hang"})
		cancel()
		if err == nil || err.Code != abi.CodeNavTimeout {
			t.Fatalf("navigating to a page that never answers: %v", err)
		}
		r := agentMust(t, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/other"})
		if r.Page == nil || r.Page.Title != "Other" {
			t.Fatalf("the navigation after a timeout: %s", r.Text)
		}
		if w := strings.Join(r.Warnings, " "); strings.Contains(w, "stopped responding") {
			t.Fatalf("a navigation timeout cost the tab: %s", w)
		}
		if r := agentMust(t, h, "s", "browser_snapshot", map[string]any{}); !strings.Contains(r.Snapshot, "Other page") {
			t.Fatalf("snapshot after a timeout: %s", r.Snapshot)
		}
		if r := agentMust(t, h, "s", "browser_back", map[string]any{}); r.Page == nil || r.Page.Title != "Good" {
			t.Fatalf("going back after a timeout: %s", r.Text)
		}
	}
}
