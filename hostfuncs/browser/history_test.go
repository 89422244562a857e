package browser

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// Going back answers once the page it lands on has parsed, as a click's
// navigation does, not once every image has loaded: a page whose image
// never finishes is answered, its snapshot the page gone back to.
func TestBackAnswersOnceParsed(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	hold := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/held.png", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	})
	page := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!doctype html>"+body)
		})
	}
	page("/slow", `<title>Slow</title><h1>Parsed already</h1><img src="/held.png" alt="held" width="10" height="10">`)
	page("/next", `<title>Next</title><h1>The next page</h1>`)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { close(hold); srv.Close() })
	c := caller(t.Name())
	must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/slow", WaitUntil: "domcontentloaded"})
	if r := navTo(t, c, srv.URL+"/next"); !strings.Contains(r.Snapshot, "The next page") {
		t.Fatalf("next page: %s", r.Snapshot)
	}
	// Waiting for the load event, the call would end at its timeout.
	b := must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserHistory, abi.BrowserHistoryRequest{Direction: "back", TimeoutMS: 15000})
	if !b.Moved || b.Page.Title != "Slow" || !strings.Contains(b.Snapshot, "Parsed already") || strings.Contains(b.Snapshot, "The next page") {
		t.Fatalf("back to a page still loading an image: moved %v, title %q:\n%s", b.Moved, b.Page.Title, b.Snapshot)
	}
}

// TestBackTimeoutSaysWhatBackTakes: a back that times out names a next
// step back can take (a longer timeout), not browser_navigate's
// wait_until, which back does not have.
func TestBackTimeoutSaysWhatBackTakes(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	hold := make(chan struct{})
	var loads atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/first", func(w http.ResponseWriter, r *http.Request) {
		if loads.Add(1) > 1 { // back loads it again (no back-forward cache): it never answers
			select {
			case <-hold:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store") // else back takes it from the cache
		io.WriteString(w, "<!doctype html><title>First</title><h1>First</h1>")
	})
	mux.HandleFunc("/next", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><title>Next</title><h1>The next page</h1>")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { close(hold); srv.Close() })
	c := caller(t.Name())
	navTo(t, c, srv.URL+"/first")
	navTo(t, c, srv.URL+"/next")
	r, e := call[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserHistory, abi.BrowserHistoryRequest{Direction: "back", TimeoutMS: 1500})
	if e == nil || e.Code != abi.CodeNavTimeout {
		t.Fatalf("back to a page that never answers: %v (answered %+v), want %s", e, r.Page, abi.CodeNavTimeout)
	}
	if strings.Contains(e.Message, "wait_until") || !strings.Contains(e.Message, "longer timeout") {
		t.Errorf("back's timeout names a step back cannot take: %s", e.Message)
	}
}
