package network

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// connectProxy is a minimal upstream HTTP proxy: it answers CONNECT and
// records the targets it was asked for. With dial unset it tunnels
// nowhere: every CONNECT gets 502, so a test can send a public address
// through it without a packet leaving the machine.
type connectProxy struct {
	ln      net.Listener
	dial    bool
	mu      sync.Mutex
	targets []string
	auth    []string
}

func newConnectProxy(t *testing.T, dial bool) *connectProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &connectProxy{ln: ln, dial: dial}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *connectProxy) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil || req.Method != http.MethodConnect {
		return
	}
	p.mu.Lock()
	p.targets = append(p.targets, req.Host)
	p.auth = append(p.auth, req.Header.Get("Proxy-Authorization"))
	p.mu.Unlock()
	if !p.dial {
		fmt.Fprint(c, "HTTP/1.1 502 Bad Gateway\r\n\r\n")
		return
	}
	up, err := net.Dial("tcp", req.Host)
	if err != nil {
		fmt.Fprint(c, "HTTP/1.1 502 Bad Gateway\r\n\r\n")
		return
	}
	defer up.Close()
	fmt.Fprint(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	go io.Copy(up, br)
	io.Copy(c, up)
}

func (p *connectProxy) seen() ([]string, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.targets...), append([]string(nil), p.auth...)
}

// With an upstream proxy, the egress proxy still checks every address and
// asks the upstream for a tunnel to the checked IP, never a name; refused
// addresses never reach the upstream.
func TestUpstreamChaining(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "through the upstream") }))
	defer site.Close()
	su, _ := url.Parse(site.URL)
	up := newConnectProxy(t, true)
	upURL, _ := url.Parse("http://op:s3cret@" + up.ln.Addr().String())
	s, err := New(Options{Logger: quiet(), DialTimeout: 2 * time.Second, Upstream: upURL,
		Resolver: mapResolver{"site.test": {mustAddr(t, su.Hostname())}},
		Policies: map[string]Policy{"p": {AllowedHosts: []string{"site.test:" + su.Port()}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())

	resp, ferr := doFetch(s, callerFor("p", "s1"), abi.NetworkFetchRequest{URL: "http://site.test:" + su.Port() + "/"})
	if ferr != nil || !strings.Contains(string(resp.Body), "through the upstream") {
		t.Fatalf("fetch through the upstream: %+v %v", resp, ferr)
	}
	targets, auth := up.seen()
	if len(targets) != 1 || targets[0] != su.Host || !strings.HasPrefix(auth[0], "Basic ") {
		t.Fatalf("the upstream saw %v (auth %v), want one CONNECT to the checked address %s", targets, auth, su.Host)
	}

	// A refused address never reaches the upstream.
	if _, ferr := doFetch(s, callerFor("p", "s1"), abi.NetworkFetchRequest{URL: "http://169.254.169.254/latest/meta-data/"}); ferr == nil || ferr.Code != abi.CodeRefused {
		t.Fatalf("metadata through the upstream: %v", ferr)
	}
	if targets, _ := up.seen(); len(targets) != 1 {
		t.Fatalf("the upstream was asked for a refused address: %v", targets)
	}

	for _, bad := range []string{"socks4://127.0.0.1:1080", "ftp://x:21"} {
		u, _ := url.Parse(bad)
		if _, err := New(Options{Upstream: u}); err == nil || !strings.Contains(err.Error(), "chains only") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func mustAddr(t *testing.T, s string) netip.Addr {
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
