package browser

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// Sessions open at once: while one session's open is held (a seam at the
// start of its open), another opens, navigates and answers, and a second
// call for the held key waits for that open and shares its session. The
// cap counts sessions being opened: a third key opening meanwhile evicts
// the least recently used open session, never going over max_contexts.
func TestSessionsOpenConcurrently(t *testing.T) {
	s := newService(t, func(c *Config) { c.MaxContexts = 2 })
	entered, release := make(chan struct{}), make(chan struct{})
	var heldOpens atomic.Int32
	testOpening = func(k sessKey) {
		if k.session == "held" && heldOpens.Add(1) == 1 {
			close(entered)
			<-release
		}
	}
	defer func() { testOpening = nil }()
	navigate := func(session, path string) chan *abi.Error {
		done := make(chan *abi.Error, 1)
		go func() {
			_, err := call[abi.BrowserNavigateResponse](t, s, caller(session), abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + path, NoSnapshot: true})
			done <- err
		}()
		return done
	}
	// bounded waits on events: the old create held a service-wide lock for
	// the whole of an open, so these never came while "held" was held.
	wait := func(what string, done chan *abi.Error) {
		t.Helper()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%s did not answer while another session's open was held", what)
		}
	}
	held := navigate("held", "/")
	<-entered
	heldAgain := navigate("held", "/other")
	wait("a second session's navigate", navigate("free", "/other"))
	snap := must[abi.BrowserSnapshotResponse](t, s, caller("free"), abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	if snap.State.Title != "Other" {
		t.Fatalf("the second session sees %q", snap.State.Title)
	}
	// "held" (opening) and "free" fill the cap: "third" evicts "free".
	wait("a third session's navigate", navigate("third", "/"))
	names := func() string {
		var n []string
		for _, i := range s.Sessions() {
			n = append(n, i.Session)
		}
		return strings.Join(n, ",")
	}
	if got := names(); got != "third" {
		t.Fatalf("open while held opens: %q, want third (free evicted: the opening one counts)", got)
	}
	close(release)
	wait("the held navigate", held)
	wait("the held key's second navigate", heldAgain)
	if got := names(); got != "held,third" && got != "third,held" {
		t.Fatalf("after the held open: %q", got)
	}
	if n := heldOpens.Load(); n != 1 {
		t.Fatalf("the held key's two calls opened %d sessions, want one shared", n)
	}
}

// Opens at once cannot together go over max_contexts: with a cap of 1 and
// no open session to close, a second key's open waits for the first, then
// evicts it, and one session is left.
func TestConcurrentOpensKeepTheCap(t *testing.T) {
	s := newService(t, func(c *Config) { c.MaxContexts = 1 })
	entered, release, waiting := make(chan struct{}), make(chan struct{}), make(chan struct{})
	testOpening = func(k sessKey) {
		if k.session == "first" {
			close(entered)
			<-release
		}
	}
	testEvictWaits = func(k sessKey) {
		if k.session == "second" {
			close(waiting)
		}
	}
	defer func() { testOpening, testEvictWaits = nil, nil }()
	navigate := func(session string) chan *abi.Error {
		done := make(chan *abi.Error, 1)
		go func() {
			_, err := call[abi.BrowserNavigateResponse](t, s, caller(session), abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/", NoSnapshot: true})
			done <- err
		}()
		return done
	}
	first := navigate("first")
	<-entered
	second := navigate("second")
	select {
	case <-waiting:
	case err := <-second:
		t.Fatalf("a second session opened (%v) while the first's open was held: two sessions under max_contexts = 1", err)
	case <-time.After(60 * time.Second):
		t.Fatal("the second open neither waited nor answered")
	}
	close(release)
	<-first // it may end evicted; only the count matters
	if err := <-second; err != nil {
		t.Fatalf("second: %v", err)
	}
	var open []string
	for _, i := range s.Sessions() {
		open = append(open, i.Session)
	}
	if len(open) != 1 || open[0] != "second" {
		t.Fatalf("open sessions %v, want [second] (max_contexts = 1)", open)
	}
}
