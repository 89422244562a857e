package network

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
)

// browserWith starts the browser service with contexts behind s's
// per-session proxies, or skips when Chromium or the driver is missing.
func browserWith(t *testing.T, s *Service) *browser.Service {
	t.Helper()
	// Generous timeouts: a snapshot or a local page can take seconds on a
	// busy machine; what these tests expect to fail is refused at once.
	return startBrowser(t, "Chromium and the Playwright driver", browser.Config{Headed: "false",
		ActionTimeout: browser.Duration(30 * time.Second), NavigationTimeout: browser.Duration(30 * time.Second)},
		browser.Options{Logger: quiet(), SessionProxy: s.OpenSessionProxy, ProxyHost: s.ProxyHost()})
}

func navigate(b *browser.Service, personality, session, u string) (abi.BrowserNavigateResponse, *abi.Error) {
	return invoke[abi.BrowserNavigateResponse](b, actGrants, personality, session, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: u})
}

// TestBrowserThroughProxy drives real Chromium: subresources, a fetch, a
// WebSocket, an iframe and redirects to loopback, private and metadata
// addresses are refused by the proxy and reported to the session that
// made them, only once, and never to another session; every hostile URL
// of the corpus is refused for navigation, and no connection is made.
// The proxy listens on 127.0.0.2 (proxy_listen), a loopback address the
// browser's resolver rules must let through as they do 127.0.0.1: the
// other tests here keep the default.
func TestBrowserThroughProxy(t *testing.T) {
	t.Parallel() // independent of the package's other tests: overlaps their waits
	urls := hostileURLs(t)
	hp := newHoneypot(t)
	_, port := allowedSite(t, hp)
	pol := Policy{AllowedHosts: []string{fmt.Sprintf("127.0.0.1:%d", port)}, Ports: []int{80, 443, hp.port}}
	s, err := New(Options{Logger: quiet(), DialTimeout: time.Second, Policies: map[string]Policy{"p": pol}, Reach: Reach{ProxyListen: "127.0.0.2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	b := browserWith(t, s)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)

	res, aerr := navigate(b, "p", "s1", base+"/page")
	if aerr != nil {
		t.Fatalf("allowed page: %v", aerr)
	}
	if !strings.Contains(res.Snapshot, "hello") {
		t.Errorf("allowed page not shown: %q", res.Snapshot)
	}
	if _, aerr := evaluate(b, "p", "s1", "async () => { await window.__done; return 'settled' }"); aerr != nil {
		t.Fatalf("waiting for the fetch and the WebSocket to fail: %v", aerr)
	}
	blocked := strings.Join(s.TakeBlocked("p", "s1"), "\n")
	t.Logf("blocked for s1:\n%s", blocked)
	for _, want := range []string{
		// two to one origin are a line naming both paths
		fmt.Sprintf("2 to http://127.0.0.1:%d (loopback address): ", hp.port),
		"/img.png", "/fetch",
		fmt.Sprintf("127.0.0.1:%d", hp.port) + "/ (loopback address)", // the WebSocket's CONNECT
		"169.254.169.254/latest/meta-data/ (metadata address)",
		"localhost", "[::1]",
	} {
		if !strings.Contains(blocked, want) {
			t.Errorf("blocked list lacks %q", want)
		}
	}
	if again := s.TakeBlocked("p", "s1"); len(again) != 0 {
		t.Errorf("reported twice: %v", again)
	}
	if _, aerr := navigate(b, "p", "s2", base+"/article"); aerr != nil {
		t.Fatal(aerr)
	}
	if other := s.TakeBlocked("p", "s2"); len(other) != 0 {
		t.Errorf("session s2 got refusals it did not cause: %v", other)
	}

	res, aerr = navigate(b, "p", "s1", base+"/redirect")
	t.Logf("redirect to loopback: err %v, snapshot %q", aerr, res.Snapshot)
	if aerr == nil && !strings.Contains(res.Snapshot, "wasmwright refused") {
		t.Errorf("redirect to loopback was not refused: %q", res.Snapshot)
	}
	if bl := s.TakeBlocked("p", "s1"); len(bl) == 0 || !strings.Contains(bl[0], "/secret") {
		t.Errorf("redirect not reported: %v", bl)
	}
	res, aerr = navigate(b, "p", "s1", base+"/redirect-file")
	if aerr == nil && strings.Contains(res.Snapshot, "root:") {
		t.Errorf("redirect to file: showed the file")
	}
	// Loopback is not exempt from the proxy: the default personality
	// cannot open the allowed site either.
	res, aerr = navigate(b, "q", "s1", base+"/article")
	if aerr == nil && strings.Contains(res.Snapshot, "The heading") {
		t.Error("a personality without the grant reached a loopback site")
	}
	if bl := s.TakeBlocked("q", "s1"); len(bl) == 0 {
		t.Error("loopback refusal for q not reported")
	}

	_, dials0 := s.Stats()
	refused := 0
	for _, u := range urls {
		res, aerr := navigate(b, "p", "hostile", u)
		bl := s.TakeBlocked("p", "hostile")
		switch {
		case aerr != nil && (aerr.Code == abi.CodeRefused || aerr.Code == abi.CodeInputInvalid):
			refused++ // refused before navigation
		case len(bl) > 0:
			refused++ // refused by the proxy
		case aerr != nil && (strings.Contains(aerr.Message, "ERR_UNSAFE_PORT") || strings.Contains(aerr.Message, "invalid URL")):
			refused++ // refused by Chromium itself, before any request
		default:
			t.Errorf("navigate %s: not refused (err %v, page %q)", u, aerr, res.Page.URL)
		}
		if aerr == nil && strings.Contains(res.Snapshot, "SECRET") {
			t.Errorf("navigate %s: reached a secret", u)
		}
	}
	if _, dials := s.Stats(); dials != dials0 {
		t.Errorf("the proxy made %d connections for hostile navigations", dials-dials0)
	}
	if hp.hits.Load() != 0 {
		t.Errorf("the honeypot was reached %d times", hp.hits.Load())
	}
	t.Logf("%d hostile navigations, %d refused", len(urls), refused)
}
