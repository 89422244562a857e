package browser

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/network"
)

// TestSessionOpenedAhead: a session opened ahead of its first call
// (PrewarmSession on a fresh service, then preopen) is its key's own,
// behind its own egress proxy, and only that key's first create takes it:
// a call that opens no session finds none and no list shows it; another
// key's first call gets its own context and proxy, and the spare is
// closed; a spare no call took is closed by CloseSession and by Close.
func TestSessionOpenedAhead(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>ahead</title><p>hello`)
	}))
	defer site.Close()
	port := site.Listener.Addr().(*net.TCPAddr).Port
	n, err := network.New(network.Options{Logger: quietLogger(), Policies: map[string]network.Policy{
		"tester": {AllowedHosts: []string{fmt.Sprintf("127.0.0.1:%d", port)}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close(context.Background())
	var mu sync.Mutex
	handed := map[string]string{} // session -> the proxy URL its key was given
	s, err := New(testConfig(t.TempDir()), Options{Logger: quietLogger(), SessionProxy: func(p, sess string) (string, error) {
		u, err := n.OpenSessionProxy(p, sess)
		mu.Lock()
		handed[sess] = u
		mu.Unlock()
		return u, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	ended := make(chan error, 1)
	testPreopened = func(k sessKey, err error) { ended <- err }
	defer func() { testPreopened = nil }()
	preopened := func() *session {
		t.Helper()
		select {
		case err := <-ended:
			if err != nil {
				t.Fatalf("opening ahead failed: %v", err)
			}
		case <-time.After(2 * time.Minute):
			t.Fatal("no session was opened ahead within 2 minutes")
		}
		s.sessions.mu.Lock()
		defer s.sessions.mu.Unlock()
		if s.sessions.spare.ss == nil {
			t.Fatal("no spare kept")
		}
		return s.sessions.spare.ss
	}
	sessionOf := func(name string) *session {
		s.sessions.mu.Lock()
		defer s.sessions.mu.Unlock()
		return s.sessions.byKey[key("tester", name)]
	}
	nav := abi.BrowserNavigateRequest{URL: site.URL + "/"}

	s.PrewarmSession("tester", "first")
	sp := preopened()
	if sp.key != key("tester", "first") || sp.proxy != handed["first"] || sp.proxy == "" {
		t.Fatalf("spare of %v on %q, want tester/first on its own proxy %q", sp.key, sp.proxy, handed["first"])
	}
	_, e := call[abi.BrowserSnapshotResponse](t, s, caller("first"), abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	wantCode(t, e, abi.CodeNoSession, "browser_navigate")
	if l := s.Sessions(); len(l) != 0 {
		t.Fatalf("a session opened ahead is listed before any call took it: %+v", l)
	}
	if r := must[abi.BrowserNavigateResponse](t, s, caller("first"), abi.HostBrowserNavigate, nav); r.Page.Title != "ahead" {
		t.Fatalf("first navigate: title %q", r.Page.Title)
	}
	if ss := sessionOf("first"); ss != sp || ss.bctx != sp.bctx {
		t.Fatal("the first call did not take the session opened for it")
	}

	// Another key's first call: its own context and proxy; the spare closes.
	s.sessions.opener.preopen(key("tester", "second"))
	sp2 := preopened()
	closed := make(chan struct{})
	sp2.bctx.OnClose(func(pw.BrowserContext) { close(closed) })
	must[abi.BrowserNavigateResponse](t, s, caller("third"), abi.HostBrowserNavigate, nav)
	third := sessionOf("third")
	if third == nil {
		t.Fatal("tester/third's navigate left no session of its key")
	}
	if third == sp2 || third.bctx == sp2.bctx || third.proxy != handed["third"] || third.proxy == sp2.proxy {
		t.Fatalf("tester/third opened on the spare of tester/second, or not on its own proxy (%q, spare's %q)", third.proxy, sp2.proxy)
	}
	waitClosed := func(what string, c chan struct{}) {
		t.Helper()
		select {
		case <-c:
		case <-time.After(atOnce):
			t.Fatalf("the spare's context was not closed %s", what)
		}
	}
	waitClosed("when another key's session opened", closed)
	if sessionOf("second") != nil {
		t.Fatal("the spare of tester/second was published by another key's call")
	}

	// CloseSession of its key closes a spare no call took, and so does Close.
	s.sessions.opener.preopen(key("tester", "fourth"))
	sp4 := preopened()
	closed4 := make(chan struct{})
	sp4.bctx.OnClose(func(pw.BrowserContext) { close(closed4) })
	if err := s.CloseSession("tester", "fourth"); err != nil {
		t.Fatal(err)
	}
	waitClosed("by CloseSession", closed4)
	// (At Close the browser's end closes every context: closing says the
	// spare was closed as a session.)
	s.sessions.opener.preopen(key("tester", "fifth"))
	sp5 := preopened()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if !sp5.closing.Load() {
		t.Fatal("Close did not close the spare as a session")
	}
}
