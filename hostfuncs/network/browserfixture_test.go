package network

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// allowing is a network service whose personality "p" may reach port on
// loopback; it closes when tb ends.
func allowing(tb testing.TB, port int) *Service {
	tb.Helper()
	s, err := New(Options{Logger: quiet(), Policies: map[string]Policy{"p": {AllowedHosts: []string{fmt.Sprintf("127.0.0.1:%d", port)}}}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// serveAllowed serves site on loopback and returns a service allowing
// it (allowing) and the site's port; both close when tb ends.
func serveAllowed(tb testing.TB, site http.Handler) (*Service, int) {
	tb.Helper()
	srv := httptest.NewServer(site)
	tb.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	return allowing(tb, port), port
}

// startBrowser starts the browser service on cfg and opts (a fresh
// workspace when cfg names none), or skips when Chromium or the driver is
// missing: need says what the test needs. It closes when the test ends,
// after the proxies the test registered earlier would be closed; a test
// may close it before (Chromium finishes its net log on exit): a second
// Close does nothing.
func startBrowser(t *testing.T, need string, cfg browser.Config, opts browser.Options) *browser.Service {
	t.Helper()
	testenv.Heavy(t, "Chromium and the Playwright driver")
	if err := browser.Preflight(browser.Config{}); err != nil {
		testenv.Require(t, false, fmt.Sprintf("needs %s (make deps): %v", need, err))
	}
	if cfg.WorkspaceDir == "" {
		cfg.WorkspaceDir = t.TempDir()
	}
	b, err := browser.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		b.Close(ctx)
	})
	return b
}

// actGrants are what the browser plugin holds in these tests: read and act.
var actGrants = capability.Set{capability.BrowserRead: true, capability.BrowserAct: true}

// invoke calls the browser host function name for (personality, session)
// with grants, as the plugin "browser" would.
func invoke[Resp any](b *browser.Service, grants capability.Set, personality, session, name string, req any) (Resp, *abi.Error) {
	var out Resp
	c := hostfuncs.NewCaller(hostfuncs.CallerInfo{Personality: personality, Session: session, Plugin: "browser", Grants: grants})
	for _, f := range b.HostFuncs() {
		if f.Name == name {
			in, _ := json.Marshal(req)
			raw, err := f.Fn(hostfuncs.WithCaller(context.Background(), c), "browser", in)
			if err != nil {
				return out, abi.AsError(err)
			}
			if err := json.Unmarshal(raw, &out); err != nil {
				panic(err)
			}
			return out, nil
		}
	}
	panic("no " + name)
}
