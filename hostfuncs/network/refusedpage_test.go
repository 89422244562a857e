package network

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
)

// proxyWords are what the egress proxy says in its own answers (its
// refusal page, its 407 challenge): no browser result may carry them as
// a page's content.
var proxyWords = []string{"wasmwright egress proxy", "wasmwright refused this request", "proxy credentials required", "wasmwright could not reach"}

// everywhereResolver answers every name with loopback, so no name in a
// test leaves the machine as a DNS query and each is refused as loopback.
type everywhereResolver struct{}

func (everywhereResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// hostedBrowser is the browser service wired to s as the host wires it:
// per-session proxies, the URL check, and the egress failure hook (a copy
// of host.egressFailure's wording).
func hostedBrowser(t *testing.T, s *Service) *browser.Service {
	t.Helper()
	return startBrowser(t, "Chromium and the Playwright driver", browser.Config{Headed: "false",
		// Bounds that catch a hang, not a slow machine: a refusal answers at
		// once; at 8 busy loops per core a refused page's load took over 5 s.
		ActionTimeout: browser.Duration(60 * time.Second), NavigationTimeout: browser.Duration(60 * time.Second)},
		browser.Options{Logger: quiet(), SessionProxy: s.OpenSessionProxy, CheckURL: CheckOpenURL,
			EgressFailure: func(personality, session, rawURL string) error {
				refused, reason, ok := s.EgressFailure(personality, session, rawURL)
				if !ok {
					return nil
				}
				if refused {
					return abi.Errorf(abi.CodeRefused, "%s was not loaded: personality %s's network policy refused it (%s)", rawURL, personality, reason).With("url", rawURL)
				}
				return abi.Errorf(abi.CodeUnreachable, "%s could not be reached: %s", rawURL, reason).With("url", rawURL)
			}})
}

// callBrowser calls one browser host function for (personality, session)
// as the host does: the session's call begins (BeginCall) first.
func callBrowser[Resp any](s *Service, b *browser.Service, personality, session, name string, req any) (Resp, *abi.Error) {
	s.BeginCall(personality, session)
	return invoke[Resp](b, actGrants, personality, session, name, req)
}

// noProxyWords fails t if v (a result or an error) carries the proxy's own
// words.
func noProxyWords(t *testing.T, what string, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	for _, w := range proxyWords {
		if strings.Contains(string(b), w) {
			t.Errorf("%s: the result carries the egress proxy's own words %q: %s", what, w, b)
		}
	}
}

// wantRefused fails t unless err is refused and names addr.
func wantRefused(t *testing.T, what string, err *abi.Error, addr string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want refused naming %s", what, addr)
		return
	}
	if err.Code != abi.CodeRefused || !strings.Contains(err.Message, addr) {
		t.Errorf("%s: %s %q, want refused naming %s", what, err.Code, err.Message, addr)
	}
	noProxyWords(t, what, err)
}

// TestProxyNeverSpeaksAsSite drives real Chromium through its session's
// egress proxy onto addresses the policy refuses before dialling (private
// and metadata addresses): a script redirect, a click on a link, a meta
// refresh and browser_sources' fetch each answer refused naming the
// address, and no result carries the proxy's page or its 407 text as the
// site's content; a subresource and a subframe leave the page readable,
// without the proxy's words, and are reported as blocked. A site's page
// titled and worded like the proxy's, with the proxy's headers forged, is
// the site's page.
func TestProxyNeverSpeaksAsSite(t *testing.T) {
	t.Parallel() // independent of the package's other tests: overlaps their waits
	mux := http.NewServeMux()
	page := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		})
	}
	page("/script-redirect", `<title>Start</title><p>start page</p><script>location.href = "http://10.0.0.1/script-target"</script>`)
	page("/link", `<title>Links</title><p><a href="http://10.0.0.1/clicked">go there</a></p>`)
	page("/meta", `<title>Meta</title><meta http-equiv="refresh" content="0;url=http://169.254.169.254/latest/meta-data/"><p>refreshing</p>`)
	page("/sub", `<title>Sub</title><h1>sub page</h1><img src="http://10.0.0.2/i.png" alt="pic"><iframe src="http://10.0.0.3/frame" title="framed"></iframe>`)
	page("/asset.js", `var asset = "the asset's body";`)
	mux.HandleFunc("/spoof", func(w http.ResponseWriter, r *http.Request) {
		// The proxy's page, word for word, with its headers forged.
		w.Header().Set("X-Wasmwright-Egress", strings.Repeat("ab", 32))
		w.Header().Set("X-Wasmwright-Blocked", "loopback address")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `<!doctype html><link rel="icon" href="data:,"><title>wasmwright egress proxy</title><p>wasmwright refused this request under the personality's network policy: blocked request: http://10.0.0.9/ (private address)</p><p>SPOOFED SITE TEXT</p>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	base := srv.URL
	host := strings.TrimPrefix(base, "http://")
	pol := Policy{AllowedHosts: []string{host}}
	s, err := New(Options{Logger: quiet(), DialTimeout: time.Second, Resolver: everywhereResolver{}, Policies: map[string]Policy{"p": pol}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	b := hostedBrowser(t, s)
	_, dials0 := s.Stats()
	nav := func(session, u string) (abi.BrowserNavigateResponse, *abi.Error) {
		return callBrowser[abi.BrowserNavigateResponse](s, b, "p", session, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: u})
	}
	snap := func(session string) (abi.BrowserSnapshotResponse, *abi.Error) {
		return callBrowser[abi.BrowserSnapshotResponse](s, b, "p", session, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	}
	// refusedSoon: a navigation the page starts on its own lands after the
	// call that loaded the page, or during it: whichever result first shows
	// it answers refused.
	refusedSoon := func(t *testing.T, what, session, addr string, first *abi.Error, firstRes any) {
		t.Helper()
		noProxyWords(t, what, firstRes)
		if first != nil {
			wantRefused(t, what, first, addr)
			return
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			res, err := snap(session)
			noProxyWords(t, what+": snapshot", res)
			if err != nil {
				wantRefused(t, what+": snapshot", err, addr)
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%s: the page never answered refused: %+v", what, res)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	t.Run("script redirect", func(t *testing.T) {
		res, err := nav("js", base+"/script-redirect")
		t.Logf("navigate: err %v, page %q", err, res.Snapshot)
		refusedSoon(t, "script redirect", "js", "http://10.0.0.1/script-target", err, res)
	})
	t.Run("meta refresh", func(t *testing.T) {
		res, err := nav("meta", base+"/meta")
		t.Logf("navigate: err %v, page %q", err, res.Snapshot)
		refusedSoon(t, "meta refresh", "meta", "http://169.254.169.254/latest/meta-data/", err, res)
	})
	t.Run("click", func(t *testing.T) {
		res, err := nav("click", base+"/link")
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`link "go there" \[ref=(e\d+)\]`).FindStringSubmatch(res.Snapshot)
		if m == nil {
			t.Fatalf("no link in %q", res.Snapshot)
		}
		act, aerr := callBrowser[abi.BrowserActResponse](s, b, "p", "click", abi.HostBrowserAct, abi.BrowserActRequest{Action: abi.ActClick, Ref: m[1]})
		wantRefused(t, "click", aerr, "http://10.0.0.1/clicked")
		noProxyWords(t, "click", act)
		// The tab still shows the proxy's answer: reading it is refused
		// too, and its title is not the proxy's.
		sres, serr := snap("click")
		wantRefused(t, "snapshot after the click", serr, "http://10.0.0.1/clicked")
		noProxyWords(t, "snapshot after the click", sres)
		tabs, _ := callBrowser[abi.BrowserTabsResponse](s, b, "p", "click", abi.HostBrowserTabs, abi.BrowserTabsRequest{Action: "list"})
		noProxyWords(t, "tabs after the click", tabs)
	})
	t.Run("subresource and subframe", func(t *testing.T) {
		res, err := nav("sub", base+"/sub")
		if err != nil {
			t.Fatal(err)
		}
		noProxyWords(t, "page with a refused image and frame", res)
		blocked := strings.Join(s.TakeBlocked("p", "sub"), "\n")
		for _, want := range []string{"http://10.0.0.2/i.png (private address)", "http://10.0.0.3/frame (private address)"} {
			if !strings.Contains(blocked, want) {
				t.Errorf("blocked requests %q lack %q", blocked, want)
			}
		}
		if !strings.Contains(res.Snapshot, "sub page") {
			t.Errorf("the page itself is not shown: %q", res.Snapshot)
		}
		time.Sleep(300 * time.Millisecond) // let the frame settle
		sres, serr := snap("sub")
		if serr != nil {
			t.Fatalf("snapshot of a page whose frame was refused: %v", serr)
		}
		noProxyWords(t, "snapshot with a refused frame", sres)
		t.Logf("snapshot with a refused frame: %q", sres.Snapshot)
	})
	t.Run("sources fetch", func(t *testing.T) {
		if _, err := nav("src", base+"/link"); err != nil {
			t.Fatal(err)
		}
		res, err := callBrowser[abi.BrowserSourcesResponse](s, b, "p", "src", abi.HostBrowserSources, abi.BrowserSourcesRequest{Fetch: "http://10.0.0.4/src.js"})
		wantRefused(t, "sources fetch of a refused URL", err, "http://10.0.0.4/src.js")
		noProxyWords(t, "sources fetch of a refused URL", res)
		res, err = callBrowser[abi.BrowserSourcesResponse](s, b, "p", "src", abi.HostBrowserSources, abi.BrowserSourcesRequest{Fetch: base + "/asset.js"})
		if err != nil || res.Fetched == nil || !strings.Contains(res.Fetched.Text, "the asset's body") {
			t.Errorf("sources fetch of an allowed URL: %v %+v", err, res.Fetched)
		}
		noProxyWords(t, "sources fetch of an allowed URL", res)
	})
	t.Run("a site cannot pass as the proxy", func(t *testing.T) {
		res, err := nav("spoof", base+"/spoof")
		if err != nil {
			t.Fatalf("a site's page titled like the proxy's was treated as the proxy's: %v", err)
		}
		if !strings.Contains(res.Snapshot, "SPOOFED SITE TEXT") || res.Page.Status != 403 || res.State.Title != "wasmwright egress proxy" {
			t.Errorf("the site's own page is not shown as it is: status %d, title %q, %q", res.Page.Status, res.State.Title, res.Snapshot)
		}
	})
	if _, dials := s.Stats(); dials-dials0 > 20 {
		// Only the allowed site is dialled (a handful of connections).
		t.Errorf("the proxy made %d connections", dials-dials0)
	}
}

// TestOneCodePerCause: every hostile URL of the shared SSRF tables gets
// one code whatever the tool and the session: browser_navigate in a fresh
// session, in a session reused for every URL, and web_fetch each answer
// refused (the policy, the URL check, or Chromium itself refused it).
// Text that is not a URL at all ("http://[]": it does not parse) is the
// caller's mistake: input_invalid, from both.
func TestOneCodePerCause(t *testing.T) {
	urls := hostileURLs(t)
	hp := newHoneypot(t)
	s, err := New(Options{Logger: quiet(), DialTimeout: time.Second, Resolver: everywhereResolver{},
		Policies: map[string]Policy{"p": {Ports: []int{80, 443, hp.port}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	b := hostedBrowser(t, s)
	_, dials0 := s.Stats()
	want := func(u string) abi.Code {
		if _, err := url.Parse(strings.TrimSpace(u)); err != nil {
			return abi.CodeInputInvalid
		}
		return abi.CodeRefused
	}
	codeOf := func(e *abi.Error) abi.Code {
		if e == nil {
			return "ok"
		}
		return e.Code
	}
	// Fresh sessions, a few at a time (each opens a browser context).
	fresh := make([]*abi.Error, len(urls))
	next := make(chan int)
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				session := fmt.Sprintf("fresh-%d", i)
				_, fresh[i] = callBrowser[abi.BrowserNavigateResponse](s, b, "p", session, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: urls[i]})
				b.CloseSession("p", session)
			}
		}()
	}
	for i := range urls {
		next <- i
	}
	close(next)
	wg.Wait()
	counts := map[string]int{}
	for i, u := range urls {
		w := want(u)
		_, fe := doFetch(s, callerFor("p", "fetch"), abi.NetworkFetchRequest{URL: u})
		_, reused := callBrowser[abi.BrowserNavigateResponse](s, b, "p", "reused", abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: u})
		for _, r := range []struct {
			tool string
			err  *abi.Error
		}{{"web_fetch", fe}, {"browser_navigate (fresh session)", fresh[i]}, {"browser_navigate (reused session)", reused}} {
			counts[r.tool+" "+string(codeOf(r.err))]++
			if codeOf(r.err) != w {
				t.Errorf("%s %q: %s (%v), want %s", r.tool, u, codeOf(r.err), r.err, w)
			}
			if r.err != nil {
				noProxyWords(t, r.tool+" "+u, r.err)
			}
		}
	}
	t.Logf("%d hostile URLs: %v", len(urls), counts)
	if _, dials := s.Stats(); dials != dials0 {
		t.Errorf("the proxy made %d connections for hostile URLs", dials-dials0)
	}
	if hp.hits.Load() != 0 {
		t.Errorf("the honeypot was reached %d times", hp.hits.Load())
	}
}

// TestRefusedAfterFailedNavigation: a tab left on the error page of a
// failed navigation answers the next refused one refused too (its
// navigation was seen cut short, execution_failed "interrupted by another
// navigation", by the earlier failure's late error page, or by Chromium
// starting it over when it leaves the error page).
func TestRefusedAfterFailedNavigation(t *testing.T) {
	s, err := New(Options{Logger: quiet(), DialTimeout: time.Second, Resolver: everywhereResolver{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	b := hostedBrowser(t, s)
	codeOf := func(e *abi.Error) abi.Code {
		if e == nil {
			return "ok"
		}
		return e.Code
	}
	_, dials0 := s.Stats()
	// A tab on the error page of a failed navigation, failing again: the
	// second failure's error page commits late, over the next navigation
	// (seen as execution_failed "interrupted by another navigation").
	for i := range 3 {
		for _, u := range []string{"https://169.254.169.254/", "http://127.0.0.1:22/", "http://127.0.0.1./", "http://127.0.0.1:80/"} {
			_, err := callBrowser[abi.BrowserNavigateResponse](s, b, "p", "errorpages", abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: u})
			if codeOf(err) != abi.CodeRefused {
				t.Errorf("round %d, %s after a failed navigation: %s (%v), want refused", i, u, codeOf(err), err)
			}
		}
	}
	if _, dials := s.Stats(); dials != dials0 {
		t.Errorf("the proxy made %d connections", dials-dials0)
	}
}

// TestProxyAnswersMarked: the proxy's own answers carry its listener's
// mark and refuse to be framed; a site's copies of the proxy's headers
// never pass through it.
func TestProxyAnswersMarked(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(AnswerHeader, "forged")
		w.Header().Set(BlockedHeader, "forged")
		w.Header().Set(ReasonHeader, "forged")
		fmt.Fprint(w, "site")
	}))
	defer site.Close()
	s, err := New(Options{Logger: quiet(), DialTimeout: time.Second, Resolver: everywhereResolver{},
		Policies: map[string]Policy{"p": {AllowedHosts: []string{strings.TrimPrefix(site.URL, "http://")}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	pu, _ := url.Parse(s.SessionProxy("p", "s"))
	pass, _ := pu.User.Password()
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
	get := func(u string) *http.Response {
		t.Helper()
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := get("http://10.0.0.1/")
	if resp.StatusCode != 403 || resp.Header.Get(AnswerHeader) != AnswerMark(pass) || resp.Header.Get(BlockedHeader) != "private address" ||
		resp.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("refusal: %d %v", resp.StatusCode, resp.Header)
	}
	if AnswerMark(pass) == AnswerMark("other") || len(AnswerMark(pass)) != 64 {
		t.Error("the mark does not depend on the password")
	}
	resp = get(site.URL + "/")
	for _, h := range []string{AnswerHeader, BlockedHeader, ReasonHeader} {
		if v := resp.Header.Get(h); v != "" {
			t.Errorf("the site's %s: %q passed through the proxy", h, v)
		}
	}
}
