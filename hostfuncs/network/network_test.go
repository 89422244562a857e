package network

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/internal/corpus"
)

// extraHostile are cases the corpus tables do not spell out.
var extraHostile = []string{
	"http://169.254.169.254/latest/meta-data/iam/security-credentials/",
	"http://metadata.google.internal/computeMetadata/v1/",
	"http://metadata/computeMetadata/v1/",
	"http://[fd00:ec2::254]/latest/meta-data/",
	"http://169.254.170.2/v2/credentials",
	"http://100.100.100.200/latest/meta-data/",
	"http://192.0.0.192/latest/",
	"http://user:pass@127.0.0.1/",
	"http://example.com@127.0.0.1/",
	"http://localhost/",
	"http://app.localhost/",
	"http:127.0.0.1/",     // no slashes: a browser reads http://127.0.0.1/
	"http:/127.0.0.1/",    // one slash: the same
	"http:\\\\127.0.0.1/", // backslashes: the same
	"http://[::ffff:127.0.0.1]/",
	"http://[::ffff:7f00:1]/",
	"http://[64:ff9b::7f00:1]/",
	"http://[::ffff:a9fe:a9fe]/",
	"http://0x7f.1/",
	"http://0x7f000001/",
	"http://2130706433/",
	"http://0177.0.0.1/",
	"http://017700000001/",
	"http://127.000.000.001/",
	"http://0.0.0.0/",
	"http://0/",
	"http://10.0.0.1/",
	"http://172.16.0.1/",
	"http://192.168.1.1/",
	"http://100.64.0.1/",
	"http://[fc00::1]/",
	"http://[fe80::1]/",
	"http://224.0.0.1/",
	"https://127.0.0.1/",
	"https://169.254.169.254/",
	"http://127.0.0.1:22/",
	"http://127.0.0.1./",
	"file:///etc/passwd",
	"data:text/html,<h1>x</h1>",
	"gopher://127.0.0.1:6379/_INFO",
	"ftp://127.0.0.1/",
	"dict://127.0.0.1:11211/stat",
	"javascript:alert(1)",
}

// hostileURLs are the corpus's refusal tables plus extraHostile. It skips
// the test when the corpus is absent.
func hostileURLs(t testing.TB) []string {
	t.Helper()
	dir := corpus.Need(t, "ssrf")
	var out []string
	for _, f := range []string{"code.dny.dev-ssrf-denied-urls.txt", "doyensec-safeurl-blocked-urls.txt"} {
		out = append(out, readLines(t, filepath.Join(dir, f))...)
	}
	for _, p := range readLines(t, filepath.Join(dir, "code.dny.dev-ssrf-denied-prefixes.txt")) {
		pf, err := netip.ParsePrefix(p)
		if err != nil {
			t.Fatalf("prefix %q: %v", p, err)
		}
		a := pf.Addr()
		if a.Is4() && a.As4()[3] == 0 {
			b := a.As4()
			b[3] = 1
			a = netip.AddrFrom4(b)
		}
		if a.Is6() {
			out = append(out, "http://["+a.String()+"]/")
		} else {
			out = append(out, "http://"+a.String()+"/")
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "code.dny.dev-ssrf-test-addresses.tsv")); err == nil {
		for i, l := range strings.Split(string(b), "\n") {
			f := strings.Split(l, "\t")
			if i == 0 || len(f) < 3 || !strings.HasPrefix(f[2], "deny") {
				continue
			}
			if _, err := netip.ParseAddrPort(f[0]); err == nil {
				out = append(out, "http://"+f[0]+"/")
			}
		}
	}
	return append(out, extraHostile...)
}

func readLines(t testing.TB, path string) []string {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Logf("corpus file %s absent: skipped", path)
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

func quiet() *slog.Logger {
	if os.Getenv("WW_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// mapResolver answers from a table; every other name does not exist.
type mapResolver map[string][]netip.Addr

func (m mapResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if a, ok := m[strings.TrimSuffix(host, ".")]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// honeypot is a loopback server that must never be reached.
type honeypot struct {
	*httptest.Server
	hits atomic.Int64
	port int
}

func newHoneypot(t testing.TB) *honeypot {
	h := &honeypot{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.hits.Add(1)
		fmt.Fprint(w, "SECRET internal data")
	}))
	t.Cleanup(h.Close)
	h.port = h.Listener.Addr().(*net.TCPAddr).Port
	return h
}

// allowedSite is the loopback site a policy grants, with pages that try
// to reach the honeypot.
func allowedSite(t testing.TB, hp *honeypot) (*httptest.Server, int) {
	mux := http.NewServeMux()
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>Allowed article</title><script>var x="script text"</script></head>
<body><nav><a href="/">Home</a></nav><h1>The heading</h1><p>A paragraph with <a href="/next">a link</a>.</p></body></html>`)
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		p := hp.port
		fmt.Fprintf(w, `<title>Subresources</title><h1>hello</h1>
<img src="http://127.0.0.1:%d/img.png">
<script src="http://[::1]:%d/x.js"></script>
<link rel="stylesheet" href="http://localhost:%d/s.css">
<iframe src="http://169.254.169.254/latest/meta-data/"></iframe>
<script>
// window.__done settles once the fetch and the WebSocket have failed: a
// test awaits it instead of sleeping.
window.__done = Promise.all([
  fetch("http://127.0.0.1:%d/fetch").catch(()=>{}),
  new Promise(done => { try { const ws = new WebSocket("ws://127.0.0.1:%d/ws"); ws.onerror = ws.onclose = () => done() } catch (e) { done() } }),
]);
</script>`, p, p, p, p, p)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, fmt.Sprintf("http://127.0.0.1:%d/secret", hp.port), http.StatusFound)
	})
	mux.HandleFunc("/redirect-meta", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/redirect-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", 100000)))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, srv.Listener.Addr().(*net.TCPAddr).Port
}

func callerFor(personality, session string) *hostfuncs.Caller {
	return hostfuncs.NewCaller(hostfuncs.CallerInfo{Personality: personality, Session: session, Plugin: "web_fetch", Grants: capability.Set{capability.Network: true}})
}

func doFetch(s *Service, c *hostfuncs.Caller, req abi.NetworkFetchRequest) (abi.NetworkFetchResponse, *abi.Error) {
	var out abi.NetworkFetchResponse
	fn := s.HostFuncs()[0]
	in, _ := json.Marshal(req)
	b, err := fn.Fn(hostfuncs.WithCaller(context.Background(), c), "web_fetch", in)
	if err != nil {
		return out, abi.AsError(err)
	}
	json.Unmarshal(b, &out)
	return out, nil
}

func TestCanonicalHost(t *testing.T) {
	for in, want := range map[string]string{
		"0x7f000001": "127.0.0.1", "2130706433": "127.0.0.1", "0177.0.0.1": "127.0.0.1", "0x7f.1": "127.0.0.1",
		"127.1": "127.0.0.1", "0": "0.0.0.0", "0x0000007f.0x00000000.0x00000000.0x00000001": "127.0.0.1",
		"[::ffff:7f00:1]": "::ffff:127.0.0.1", "[0000::1]": "::1", "Example.COM.": "example.com", "ⓔⓧⓐⓜⓟⓛⓔ.ⓒⓞⓜ": "example.com",
		"127.0.0.1.": "127.0.0.1", "3232235777": "192.168.1.1",
	} {
		h, err := canonicalHost(in)
		if err != nil || h.String() != want {
			t.Errorf("canonicalHost(%q) = %q, %v; want %q", in, h.String(), err, want)
		}
	}
	for _, bad := range []string{"", "[]", "256.1.1.1", "1.2.3.4.5", "0x", "a b", "[::1", "08.0.0.1"} {
		if h, err := canonicalHost(bad); err == nil && bad != "0x" {
			t.Errorf("canonicalHost(%q) = %q, want an error", bad, h)
		}
	}
}

func TestPolicyMatching(t *testing.T) {
	r, err := compile(Policy{OnlyHosts: []string{"*.example.com"}, AllowedHosts: []string{"intranet.test", "127.0.0.1:8080"}, Ports: []int{443}})
	if err != nil {
		t.Fatal(err)
	}
	hp := func(s string, port int) string {
		h, _ := canonicalHost(s)
		_, why := r.checkName(h, port)
		return why
	}
	if w := hp("a.example.com", 443); w != "" {
		t.Errorf("subdomain refused: %s", w)
	}
	if w := hp("example.com", 443); w == "" {
		t.Error("apex allowed by *.example.com")
	}
	if w := hp("a.example.com", 80); w == "" {
		t.Error("port 80 allowed with ports = [443]")
	}
	if w := hp("127.0.0.1", 8080); w != "" {
		t.Errorf("allowed host:port refused: %s", w)
	}
	if w := hp("127.0.0.1", 8081); w == "" {
		t.Error("allowed_hosts 127.0.0.1:8080 opened another port")
	}
	if _, err := compile(Policy{Ports: []int{0}}); err == nil {
		t.Error("port 0 accepted")
	}
	if _, err := compile(Policy{AllowedHosts: []string{"http://x/"}}); err == nil {
		t.Error("a URL accepted as a host")
	}
	if (Policy{Ports: []int{443, 80}}).Key() != (Policy{}).Key() {
		t.Error("default ports and explicit 80, 443 differ")
	}
	priv, _ := compile(Policy{AllowPrivate: true})
	for a, want := range map[string]string{"10.1.2.3": "", "192.168.0.1": "", "127.0.0.1": "loopback address", "169.254.169.254": "metadata address", "169.254.1.1": "link-local address", "::ffff:10.0.0.1": "IPv4-mapped IPv6 address"} {
		if got := priv.checkAddr(netip.MustParseAddr(a)); got != want {
			t.Errorf("allow_private %s: %q, want %q", a, got, want)
		}
	}
}

// TestHostileThroughProxy sends every hostile URL through a session's
// proxy as a client would, and through ww_network_fetch: each is refused
// and no connection is ever made.
func TestHostileThroughProxy(t *testing.T) {
	urls := hostileURLs(t)
	hp := newHoneypot(t)
	s, err := New(Options{Logger: quiet(), DialTimeout: time.Second,
		Resolver: mapResolver{"rebind.test": {netip.MustParseAddr("127.0.0.1")}, "nip.test": {netip.MustParseAddr("10.0.0.1")}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	urls = append(urls, fmt.Sprintf("http://rebind.test:%d/", hp.port), "http://nip.test/", "https://nip.test/")
	proxy, _ := url.Parse(s.SessionProxy("p", "s1"))
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}, Timeout: 5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	reached := 0
	for _, u := range urls {
		_, dials0 := s.Stats()
		resp, err := client.Get(u)
		switch {
		case err != nil:
			// Refused by the client (not a URL it can send) or by the
			// proxy (CONNECT answered 403).
		case resp.StatusCode == http.StatusForbidden && resp.Header.Get("X-Wasmwright-Blocked") != "":
			resp.Body.Close()
		default:
			resp.Body.Close()
			t.Errorf("%s: proxy answered %d, want a refusal", u, resp.StatusCode)
		}
		if _, dials := s.Stats(); dials != dials0 {
			t.Errorf("%s: the proxy connected somewhere", u)
		}
		want := abi.CodeRefused
		if _, err := url.Parse(strings.TrimSpace(u)); err != nil {
			want = abi.CodeInputInvalid // not a URL: the caller's mistake (TestOneCodePerCause)
		}
		if _, ferr := doFetch(s, callerFor("p", "s1"), abi.NetworkFetchRequest{URL: u}); ferr == nil || ferr.Code != want {
			t.Errorf("ww_network_fetch %s: %v, want %s", u, ferr, want)
		}
		if err == nil {
			reached++
		}
	}
	if hp.hits.Load() != 0 {
		t.Errorf("the honeypot was reached %d times", hp.hits.Load())
	}
	blocked := s.TakeBlocked("p", "s1")
	if len(blocked) == 0 || len(blocked) > s.opts.MaxBlocked+1 {
		t.Errorf("blocked list has %d lines, want 1..%d", len(blocked), s.opts.MaxBlocked+1)
	}
	if again := s.TakeBlocked("p", "s1"); len(again) != 0 {
		t.Errorf("blocked requests reported twice: %v", again)
	}
	refused, _ := s.Stats()
	t.Logf("%d hostile URLs: %d answered 403 by the proxy, %d refused before (client or CONNECT), %d proxy refusals, 0 connections", len(urls), reached, len(urls)-reached, refused)
}

// TestRedirectsAndFetch: a redirect from an allowed host to a private one
// is refused (proxy: the browser's next request; fetch: CheckRedirect and
// the dial check); the body is capped.
func TestRedirectsAndFetch(t *testing.T) {
	hp := newHoneypot(t)
	_, port := allowedSite(t, hp)
	pol := Policy{AllowedHosts: []string{fmt.Sprintf("127.0.0.1:%d", port)}, Ports: []int{80, 443, hp.port}}
	s, err := New(Options{Logger: quiet(), Policies: map[string]Policy{"p": pol}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	got, ferr := doFetch(s, callerFor("p", "s"), abi.NetworkFetchRequest{URL: base + "/article"})
	if ferr != nil || got.Status != 200 || !strings.Contains(string(got.Body), "The heading") {
		t.Fatalf("allowed fetch: %+v %v", got, ferr)
	}
	for _, path := range []string{"/redirect", "/redirect-meta", "/redirect-file"} {
		_, ferr := doFetch(s, callerFor("p", "s"), abi.NetworkFetchRequest{URL: base + path})
		if ferr == nil || ferr.Code != abi.CodeRefused {
			t.Errorf("fetch %s: %v, want refused", path, ferr)
		} else {
			t.Logf("fetch %s: %s", path, ferr.Message)
		}
	}
	big, ferr := doFetch(s, callerFor("p", "s"), abi.NetworkFetchRequest{URL: base + "/big", MaxBytes: 1000})
	if ferr != nil || len(big.Body) != 1000 || !big.Truncated {
		t.Errorf("cap: %d bytes, truncated %v, %v", len(big.Body), big.Truncated, ferr)
	}
	// The default policy does not reach the loopback site at all.
	if _, ferr := doFetch(s, callerFor("other", "s"), abi.NetworkFetchRequest{URL: base + "/article"}); ferr == nil || ferr.Code != abi.CodeRefused {
		t.Errorf("default policy reached loopback: %v", ferr)
	}
	// Through the proxy: the redirect passes to the client, whose next
	// request is refused.
	proxy, _ := url.Parse(s.SessionProxy("p", "s"))
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}, Timeout: 5 * time.Second}
	resp, err := client.Get(base + "/redirect")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || !strings.Contains(string(body), "loopback address") {
		t.Errorf("proxied redirect: %d %s", resp.StatusCode, body)
	}
	if hp.hits.Load() != 0 {
		t.Errorf("honeypot reached %d times", hp.hits.Load())
	}
	if b := s.TakeBlocked("p", "s"); len(b) != 1 || !strings.Contains(b[0], fmt.Sprintf("127.0.0.1:%d/secret", hp.port)) {
		t.Errorf("blocked: %v", b)
	}
}

// TestListenersPerPolicyAndSession: same policy shares a listener,
// different policies do not; each session has its own, and a session's
// refusals are never reported to another.
func TestListenersPerPolicyAndSession(t *testing.T) {
	s, err := New(Options{Logger: quiet(), Policies: map[string]Policy{
		"a": {Ports: []int{443, 80}}, "b": {}, "c": {AllowPrivate: true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	if s.ProxyFor("a") != s.ProxyFor("b") || s.ProxyFor("a") != s.ProxyFor("unlisted") {
		t.Error("same policy, different shared listeners")
	}
	if s.ProxyFor("a") == s.ProxyFor("c") {
		t.Error("different policies share a listener")
	}
	p1, p2 := s.SessionProxy("a", "1"), s.SessionProxy("a", "2")
	if p1 == p2 || p1 != s.SessionProxy("a", "1") {
		t.Errorf("session proxies %s %s", p1, p2)
	}
	u, _ := url.Parse(p1)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u)}}
	if resp, err := client.Get("http://10.0.0.1/"); err == nil {
		resp.Body.Close()
	}
	if b := s.TakeBlocked("a", "2"); len(b) != 0 {
		t.Errorf("session 2 got session 1's refusals: %v", b)
	}
	if b := s.TakeBlocked("a", "1"); len(b) != 1 || !strings.Contains(b[0], "10.0.0.1") || !strings.Contains(b[0], "private address") {
		t.Errorf("session 1: %v", b)
	}
	// Bounded: only the last MaxBlocked are kept.
	for i := 0; i < 50; i++ {
		if resp, err := client.Get(fmt.Sprintf("http://10.0.0.%d/", i+1)); err == nil {
			resp.Body.Close()
		}
	}
	if b := s.TakeBlocked("a", "1"); len(b) != s.opts.MaxBlocked+1 || !strings.Contains(b[0], "30 earlier") {
		t.Errorf("bounded list: %d lines, want %d with the first counting 30 earlier: %q", len(b), s.opts.MaxBlocked+1, b)
	}
	s.CloseSession("a", "1")
	if _, err := client.Get("http://10.0.0.1/"); err == nil {
		t.Error("a closed session's proxy still answers")
	}
}

// dnsServer answers A queries for any name with answers[i] for the i-th
// query (the last one repeated), AAAA with nothing. It is the test's own,
// on loopback UDP.
type dnsServer struct {
	conn    net.PacketConn
	answers []netip.Addr
	queries atomic.Int64
}

func newDNS(t testing.TB, answers ...netip.Addr) *dnsServer {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &dnsServer{conn: pc, answers: answers}
	t.Cleanup(func() { pc.Close() })
	go d.serve()
	return d
}

func (d *dnsServer) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := d.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		var p dnsmessage.Parser
		h, err := p.Start(buf[:n])
		if err != nil {
			continue
		}
		q, err := p.Question()
		if err != nil {
			continue
		}
		b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionAvailable: true})
		b.EnableCompression()
		b.StartQuestions()
		b.Question(q)
		b.StartAnswers()
		if q.Type == dnsmessage.TypeA {
			i := int(d.queries.Add(1)) - 1
			if i >= len(d.answers) {
				i = len(d.answers) - 1
			}
			b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 0}, dnsmessage.AResource{A: d.answers[i].As4()})
		}
		msg, err := b.Finish()
		if err == nil {
			d.conn.WriteTo(msg, from)
		}
	}
}

func (d *dnsServer) resolver() *net.Resolver {
	addr := d.conn.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var dl net.Dialer
		return dl.DialContext(ctx, "udp", addr)
	}}
}

// TestDNSRebinding: the name answers a public address first and 127.0.0.1
// after. The proxy resolves once per connection and dials what it checked,
// so the loopback service is never reached: the first request goes to the
// public address (through a loopback upstream that records it and tunnels
// nowhere: the test dials nothing beyond loopback), the rest are refused.
func TestDNSRebinding(t *testing.T) {
	hp := newHoneypot(t)
	public := netip.MustParseAddr("198.41.0.4")
	dns := newDNS(t, public, netip.MustParseAddr("127.0.0.1"))
	up := newConnectProxy(t, false)
	upURL, _ := url.Parse("http://" + up.ln.Addr().String())
	s, err := New(Options{Logger: quiet(), Resolver: dns.resolver(), DialTimeout: 2 * time.Second, Upstream: upURL,
		Policies: map[string]Policy{"p": {Ports: []int{hp.port}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	proxy, _ := url.Parse(s.SessionProxy("p", "s"))
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), DisableKeepAlives: true}, Timeout: 5 * time.Second}
	target := fmt.Sprintf("http://rebind.test:%d/secret", hp.port)
	for i := 0; i < 3; i++ {
		resp, err := client.Get(target)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Logf("request %d: %d %s", i, resp.StatusCode, strings.TrimSpace(string(body)))
		if resp.StatusCode == 200 || strings.Contains(string(body), "SECRET") {
			t.Fatalf("request %d reached the loopback service through rebinding", i)
		}
		if i > 0 && (resp.StatusCode != 403 || !strings.Contains(string(body), "resolves to 127.0.0.1")) {
			t.Errorf("request %d: want refused as resolving to 127.0.0.1", i)
		}
	}
	// CONNECT and ww_network_fetch take the same path.
	if _, ferr := doFetch(s, callerFor("p", "s"), abi.NetworkFetchRequest{URL: target}); ferr == nil || ferr.Code != abi.CodeRefused {
		t.Errorf("fetch after rebinding: %v", ferr)
	}
	c, err := net.Dial("tcp", proxy.Host)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT rebind.test:%d HTTP/1.1\r\nHost: rebind.test:%d\r\nProxy-Authorization: %s\r\n\r\n", hp.port, hp.port, proxyAuth(proxy))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	c.Close()
	if err != nil || resp.StatusCode != 403 {
		t.Errorf("CONNECT after rebinding: %v %v", resp, err)
	}
	if hp.hits.Load() != 0 {
		t.Errorf("the loopback service was reached %d times", hp.hits.Load())
	}
	if targets, _ := up.seen(); len(targets) != 1 || targets[0] != netip.AddrPortFrom(public, uint16(hp.port)).String() {
		t.Errorf("tunnels asked of the upstream: %v, want only the checked public address once", targets)
	}
	if n := dns.queries.Load(); n != 5 {
		t.Errorf("%d A queries for 5 connections: the proxy must resolve exactly once per connection", n)
	}
}

// TestHostListsShareSyntax: only_hosts takes "host:port" as allowed_hosts
// does, and the port then narrows the entry the same way.
func TestHostListsShareSyntax(t *testing.T) {
	for _, entry := range []string{"shop.example:8443", "*.example.com:8443", "[2001:db8::1]:8443", "192.0.2.1:8443"} {
		for name, p := range map[string]Policy{"allowed_hosts": {AllowedHosts: []string{entry}}, "only_hosts": {OnlyHosts: []string{entry}}} {
			if err := p.Validate(); err != nil {
				t.Errorf("%s = [%q] refused: %v", name, entry, err)
			}
		}
	}
	r, err := compile(Policy{OnlyHosts: []string{"shop.example:8443"}, Ports: []int{443, 8443}})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := canonicalHost("shop.example")
	if _, why := r.checkName(h, 8443); why != "" {
		t.Errorf("only_hosts shop.example:8443 refused its port: %s", why)
	}
	if _, why := r.checkName(h, 443); why == "" {
		t.Error("only_hosts shop.example:8443 opened port 443 too")
	}
	for _, bad := range []string{"shop.example:0", "shop.example:x", "shop.example:70000"} {
		if err := (Policy{OnlyHosts: []string{bad}}).Validate(); err == nil {
			t.Errorf("only_hosts %q accepted", bad)
		}
	}
}
