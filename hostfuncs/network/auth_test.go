package network

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// proxyAuth is the Proxy-Authorization value for a proxy URL's credentials.
func proxyAuth(u *url.URL) string {
	pass, _ := u.User.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pass))
}

// countingSite is an allowed loopback site that counts what reaches it and
// keeps the last Authorization header it saw.
type countingSite struct {
	*httptest.Server
	hits     atomic.Int64
	lastAuth atomic.Value
	port     int
}

func newCountingSite(t *testing.T) *countingSite {
	c := &countingSite{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
		c.lastAuth.Store(r.Header.Get("Authorization"))
		fmt.Fprint(w, "allowed content")
	}))
	t.Cleanup(c.Close)
	c.port = c.Listener.Addr().(*net.TCPAddr).Port
	return c
}

// rawProxy sends one request line and headers to the proxy on a fresh
// connection and returns the response.
func rawProxy(t *testing.T, proxy *url.URL, requestLine string, headers ...string) *http.Response {
	t.Helper()
	resp, _, _ := rawProxyConn(t, proxy, requestLine, headers...)
	return resp
}

func rawProxyConn(t *testing.T, proxy *url.URL, requestLine string, headers ...string) (*http.Response, net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", proxy.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(5 * time.Second))
	msg := requestLine + "\r\n"
	for _, h := range headers {
		msg += h + "\r\n"
	}
	if _, err := io.WriteString(c, msg+"\r\n"); err != nil {
		t.Fatal(err)
	}
	method, _, _ := strings.Cut(requestLine, " ")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%s: %v", requestLine, err)
	}
	return resp, c, br
}

// TestProxyRequiresCredentials: the egress proxies listen on loopback,
// where any local process can reach them. Without the listener's own
// credentials (none, wrong password, wrong user, another session's, a
// different scheme, a duplicated header) a plain request and a CONNECT
// both get 407 with a Proxy-Authenticate challenge, and the allowed target
// sees nothing. With them, both go through; the proxy's credentials are
// never passed on to a site.
func TestProxyRequiresCredentials(t *testing.T) {
	site := newCountingSite(t)
	target := fmt.Sprintf("127.0.0.1:%d", site.port)
	pol := Policy{AllowedHosts: []string{target}}
	s, err := New(Options{Logger: quiet(), Policies: map[string]Policy{"p": pol}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())

	p1, _ := url.Parse(s.SessionProxy("p", "s1"))
	p2, _ := url.Parse(s.SessionProxy("p", "s2"))
	shared, _ := url.Parse(s.ProxyFor("p"))
	for _, p := range []*url.URL{p1, p2, shared} {
		if p.User == nil || p.User.Username() == "" {
			t.Fatalf("proxy %s carries no credentials", p.Redacted())
		}
		if pass, _ := p.User.Password(); len(pass) < 32 {
			t.Fatalf("proxy password of %d characters: want 128 random bits or more", len(pass))
		}
	}
	if p1.User.String() == p2.User.String() || p1.User.String() == shared.User.String() {
		t.Fatal("two listeners share credentials")
	}
	pass1, _ := p1.User.Password()
	wrongPass := strings.Repeat("0", len(pass1))
	basic := func(user, pass string) string {
		return "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	}
	bad := map[string][]string{
		"no credentials":        nil,
		"wrong password":        {basic(p1.User.Username(), wrongPass)},
		"wrong user":            {basic("ww-0000000000000000", pass1)},
		"another session's":     {"Proxy-Authorization: " + proxyAuth(p2)},
		"the shared listener's": {"Proxy-Authorization: " + proxyAuth(shared)},
		"bearer scheme":         {"Proxy-Authorization: Bearer " + pass1},
		"empty":                 {"Proxy-Authorization:"},
		"twice":                 {"Proxy-Authorization: " + proxyAuth(p2), "Proxy-Authorization: " + proxyAuth(p1)},
	}
	unauth0, dials0 := s.Unauthorized(), s.dials.Load()
	for name, hdr := range bad {
		for _, line := range []string{
			"GET http://" + target + "/ HTTP/1.1",
			"CONNECT " + target + " HTTP/1.1",
		} {
			resp := rawProxy(t, p1, line, append([]string{"Host: " + target}, hdr...)...)
			resp.Body.Close()
			if resp.StatusCode != http.StatusProxyAuthRequired || !strings.HasPrefix(resp.Header.Get("Proxy-Authenticate"), "Basic ") {
				t.Errorf("%s, %s: %s (Proxy-Authenticate %q), want 407 with a Basic challenge", name, line, resp.Status, resp.Header.Get("Proxy-Authenticate"))
			}
		}
	}
	// A curl-like client with no credentials, and one with the wrong ones.
	for _, pu := range []*url.URL{{Scheme: "http", Host: p1.Host}, {Scheme: "http", Host: p1.Host, User: url.UserPassword(p1.User.Username(), wrongPass)}} {
		c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}, Timeout: 5 * time.Second}
		resp, err := c.Get("http://" + target + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusProxyAuthRequired {
			t.Errorf("client through %s: %s, want 407", pu.Redacted(), resp.Status)
		}
	}
	if n := site.hits.Load(); n != 0 {
		t.Fatalf("the target was reached %d times without the proxy's credentials", n)
	}
	if d := s.dials.Load() - dials0; d != 0 {
		t.Errorf("the proxy dialled %d times for unauthenticated requests", d)
	}
	if n := s.Unauthorized() - unauth0; n < int64(2*len(bad)) {
		t.Errorf("407 counted %d times, want at least %d", n, 2*len(bad))
	}
	if b := s.TakeBlocked("p", "s1"); len(b) != 0 {
		t.Errorf("a missing credential was reported as a policy refusal: %v", b)
	}

	// With the credentials: a plain request (the site must not see the
	// proxy's credentials even if the client sends them as Authorization)
	// and a CONNECT tunnel.
	resp := rawProxy(t, p1, "GET http://"+target+"/ HTTP/1.1", "Host: "+target,
		"Proxy-Authorization: "+proxyAuth(p1), "Authorization: "+proxyAuth(p1))
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "allowed content" {
		t.Fatalf("with credentials: %s %q", resp.Status, body)
	}
	if got, _ := site.lastAuth.Load().(string); got != "" {
		t.Errorf("the site received Authorization %q: the proxy's credentials leaked", got)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(p1)}, Timeout: 5 * time.Second}
	resp, err = client.Get("http://" + target + "/")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("Go client with the proxy URL: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, conn, br := rawProxyConn(t, shared, "CONNECT "+target+" HTTP/1.1", "Host: "+target, "Proxy-Authorization: "+proxyAuth(shared))
	if resp.StatusCode != 200 {
		t.Fatalf("CONNECT with credentials: %s", resp.Status)
	}
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", target)
	resp, err = http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("request in the tunnel: %v %v", resp, err)
	}
	resp.Body.Close()
	if n := site.hits.Load(); n != 3 {
		t.Errorf("the site saw %d requests, want the 3 authenticated ones", n)
	}
}
