package browser

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// Options.CheckURL vets a URL before anything loads; an *abi.Error comes
// back as is, any other error is refused.
func TestCheckURLOption(t *testing.T) {
	s, err := New(testConfig(t.TempDir()), Options{Logger: quietLogger(), CheckURL: func(u string) error {
		switch {
		case strings.Contains(u, "@"):
			return abi.Errorf(abi.CodeRefused, "credentials in the URL are refused")
		case strings.Contains(u, ":0/"):
			return abi.Errorf(abi.CodeInputInvalid, "bad port")
		case strings.Contains(u, "plain"):
			return errors.New("plain error")
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	c := caller(t.Name())
	for _, tc := range []struct {
		url  string
		code abi.Code
		msg  string
	}{
		{"http://user:pw@127.0.0.1/", abi.CodeRefused, "credentials"},
		{"http://127.0.0.1:0/", abi.CodeInputInvalid, "bad port"},
		{"http://plain.test/", abi.CodeRefused, "plain error"},
		{"file:///etc/passwd", abi.CodeRefused, "only http and https"},
	} {
		_, e := call[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: tc.url})
		wantCode(t, e, tc.code, tc.msg)
		_, e = call[abi.BrowserTabsResponse](t, s, c, abi.HostBrowserTabs, abi.BrowserTabsRequest{Action: "open", URL: tc.url})
		wantCode(t, e, tc.code, tc.msg)
	}
	if len(s.Sessions()) != 0 {
		t.Fatalf("a refused URL opened a session: %+v", s.Sessions())
	}
	r := must[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/"})
	if r.Page.Title != "Home" {
		t.Fatalf("a good URL: %+v", r.Page)
	}
}

// Sessions the service closes on its own (LRU eviction, the idle sweep)
// are reported through OnSessionClosed; a live session is not.
func TestOnSessionClosed(t *testing.T) {
	var mu sync.Mutex
	var closed []string
	cfg := testConfig(t.TempDir())
	cfg.MaxContexts = 1
	cfg.IdleTimeout = Duration(400 * time.Millisecond)
	swept := make(chan struct{}) // closed with the second report
	s, err := New(cfg, Options{Logger: quietLogger(), OnSessionClosed: func(p, sess string) {
		mu.Lock()
		closed = append(closed, p+"/"+sess)
		if len(closed) == 2 {
			close(swept)
		}
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	got := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), closed...)
	}
	a, b := caller("lru-a"), caller("lru-b")
	must[abi.BrowserNavigateResponse](t, s, a, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/"})
	must[abi.BrowserNavigateResponse](t, s, b, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/other"})
	if g := got(); len(g) != 1 || g[0] != "tester/lru-a" {
		t.Fatalf("after eviction: %v", g)
	}
	select {
	case <-swept:
	case <-time.After(30 * time.Second): // a hang-catcher: the sweep runs at the 400 ms idle timeout
	}
	if g := got(); len(g) != 2 || g[1] != "tester/lru-b" {
		t.Fatalf("after the idle sweep: %v", g)
	}
	if len(s.Sessions()) != 0 {
		t.Fatalf("sessions left: %+v", s.Sessions())
	}
}

// A caller that takes blobs gets the large strings as tokens that resolve
// to exactly what a caller without blobs gets.
func TestBlobsStandInForLargeStrings(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	info := callerInfo(t.Name())
	c := hostfuncs.NewCaller(info)
	plain := nav(t, c, "/form")
	info.Blobs = hostfuncs.NewBlobs()
	c = hostfuncs.NewCaller(info)
	r := must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/form"})
	for _, v := range []string{r.Snapshot, r.Page.HTML} {
		if !strings.HasPrefix(v, abi.BlobPrefix) {
			t.Fatalf("not a token: %.80q", v)
		}
	}
	res := &abi.Result{Snapshot: r.Snapshot, Page: &r.Page}
	c.Blobs().ResolveResult(res)
	if res.Page.HTML != plain.Page.HTML || res.Page.Text != plain.Page.Text {
		t.Fatalf("resolved page facts differ: %+v", res.Page)
	}
	// The same document, snapshotted without blobs (refs changed with the
	// navigation, so compare against this one).
	info.Blobs = nil
	noBlobs := hostfuncs.NewCaller(info)
	again := must[abi.BrowserSnapshotResponse](t, svc, noBlobs, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	if res.Snapshot != again.Snapshot {
		t.Fatalf("resolved snapshot differs:\n%s\n---\n%s", res.Snapshot, again.Snapshot)
	}
	shot := must[abi.BrowserScreenshotResponse](t, svc, c, abi.HostBrowserScreenshot, abi.BrowserScreenshotRequest{})
	if !strings.HasPrefix(shot.Data, abi.BlobPrefix) || filepath.Ext(shot.Path) != ".png" {
		t.Fatalf("screenshot: %+v", shot)
	}
	img := &abi.Result{Images: []abi.Image{{MIME: shot.MIME, Data: shot.Data}}}
	c.Blobs().ResolveResult(img)
	if len(img.Images[0].Data) < 100 || strings.HasPrefix(img.Images[0].Data, abi.BlobPrefix) {
		t.Fatalf("screenshot data not resolved: %.80q", img.Images[0].Data)
	}
	// Another call's store does not resolve these tokens.
	other := &abi.Result{Snapshot: r.Snapshot}
	hostfuncs.NewBlobs().ResolveResult(other)
	if other.Snapshot != r.Snapshot {
		t.Fatal("a foreign store resolved a token")
	}
}
