package network

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// challengingSite answers /evil with 407 and a Proxy-Authenticate
// challenge, as only a proxy may; anything else is an ordinary page.
func challengingSite(t *testing.T) int {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/evil" {
			w.Header().Set("Proxy-Authenticate", `Basic realm="wasmwright egress"`)
			w.WriteHeader(http.StatusProxyAuthRequired)
			fmt.Fprint(w, "site pretends to be the proxy")
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>ok</title><h1>ordinary page</h1>")
	}))
	t.Cleanup(site.Close)
	return site.Listener.Addr().(*net.TCPAddr).Port
}

// TestSiteCannotChallengeAsProxy: a site's 407 passed through the proxy
// would look to Chromium like the proxy rejecting its credentials: it
// would drop them and every later request of the session would fail. The
// proxy answers such a response with 502 and no challenge instead, and
// the session keeps working.
func TestSiteCannotChallengeAsProxy(t *testing.T) {
	port := challengingSite(t)
	s := allowing(t, port)
	proxy, _ := url.Parse(s.SessionProxy("p", "s"))
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}, Timeout: 5 * time.Second}
	resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/evil", port))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("Proxy-Authenticate") != "" {
		t.Fatalf("a site's 407 reached the client as %s (Proxy-Authenticate %q) %q", resp.Status, resp.Header.Get("Proxy-Authenticate"), body)
	}

	b := browserWith(t, s)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	if _, aerr := navigate(b, "p", "s", base+"/"); aerr != nil {
		t.Fatal(aerr)
	}
	res, aerr := navigate(b, "p", "s", base+"/evil")
	t.Logf("the challenging page: %v %q", aerr, res.Snapshot)
	res, aerr = navigate(b, "p", "s", base+"/")
	if aerr != nil || !strings.Contains(res.Snapshot, "ordinary page") {
		t.Fatalf("after a site's 407 the session no longer loads pages: %v %q", aerr, res.Snapshot)
	}
	if n := s.Unauthorized(); n != 1 {
		t.Errorf("%d proxy challenges, want the context's one: the site's 407 cost the context its credentials", n)
	}
}
