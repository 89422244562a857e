package network

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
)

// With proxy_tls the listener speaks TLS with the key TrustSPKI names,
// and checks the credentials inside it as on loopback.
func TestReachTLS(t *testing.T) {
	s, err := New(Options{Reach: Reach{ProxyListen: "127.0.0.1", ProxyTLS: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	raw := s.SessionProxy("p", "s")
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.User == nil {
		t.Fatalf("proxy URL %q: want https:// with credentials", raw)
	}
	conn, err := tls.Dial("tcp", u.Host, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sum := sha256.Sum256(conn.ConnectionState().PeerCertificates[0].RawSubjectPublicKeyInfo)
	if got := base64.StdEncoding.EncodeToString(sum[:]); got != s.TrustSPKI() || got == "" {
		t.Errorf("served key %s, TrustSPKI %s", got, s.TrustSPKI())
	}
	pass, _ := u.User.Password()
	req, _ := http.NewRequest("GET", "http://"+AuthCheckHost+"/", nil)
	req.SetBasicAuth(u.User.Username(), pass)
	req.Header.Set("Proxy-Authorization", req.Header.Get("Authorization"))
	req.Header.Del("Authorization")
	if err := req.WriteProxy(conn); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Errorf("auth check over TLS: %s", resp.Status)
	}
}

// Reach's keys are checked, naming the key.
func TestReachValidate(t *testing.T) {
	for r, key := range map[Reach]string{
		{ProxyListen: "proxy.example"}:                 "network.proxy_listen",
		{ProxyListen: "0.0.0.0"}:                       "network.proxy_address",
		{ProxyListen: "10.0.0.1", ProxyAddress: "a.b"}: "network.proxy_address",
		{ProxyTLSCert: "c.pem"}:                        "proxy_tls_key",
		{ProxyTLSCert: "c.pem", ProxyTLSKey: "k.pem"}:  "network.proxy_tls",
		{ProxyPorts: "20000"}:                          "network.proxy_ports",
		{ProxyPorts: "20010-20000"}:                    "network.proxy_ports",
		{ProxyPorts: "0-10"}:                           "network.proxy_ports",
	} {
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%+v: want an error naming %s, got %v", r, key, err)
		}
	}
	if err := (Reach{ProxyListen: "0.0.0.0", ProxyAddress: "10.0.0.5", ProxyTLS: true}).Validate(); err != nil {
		t.Errorf("a valid reach refused: %v", err)
	}
}

// With proxy_ports every session's listener takes a port of the range
// (what a NetworkPolicy names); when the range is used up the next
// session's listener is refused resource_limit naming the key.
func TestProxyPortsRange(t *testing.T) {
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	first := probe.Addr().(*net.TCPAddr).Port
	probe.Close()
	if first > 65533 {
		first = 40000
	}
	r := Reach{ProxyPorts: fmt.Sprintf("%d-%d", first, first+1)}
	s, err := New(Options{Logger: quiet(), Reach: r})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	var held []string
	for i := range 3 {
		raw := s.SessionProxy("p", fmt.Sprint("s", i))
		if raw == failClosed {
			break
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		port, _ := strconv.Atoi(u.Port())
		if port < first || port > first+1 {
			t.Errorf("session %d's proxy on port %d, outside %s", i, port, r.ProxyPorts)
		}
		held = append(held, u.Host)
	}
	if len(held) == 0 || len(held) > 2 {
		t.Fatalf("want one or two listeners in a range of two ports, got %v", held)
	}
	_, err = s.listen(nil, sessKey{"p", "over"})
	var ae *abi.Error
	if !errors.As(err, &ae) || ae.Code != abi.CodeResourceLimit || !strings.Contains(ae.Message, "network.proxy_ports") {
		t.Errorf("the range used up: want resource_limit naming network.proxy_ports, got %v", err)
	}
}

// network.proxy_ports used up refuses the session itself with
// resource_limit naming the key, before any browser starts for it: a
// session without its egress proxy is not opened (it used to open, pointed
// at the fail-closed address, and every page failed as the proxy's).
func TestProxyPortsUsedUpRefuseTheSession(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	port := held.Addr().(*net.TCPAddr).Port
	s, err := New(Options{Logger: quiet(), Reach: Reach{ProxyPorts: fmt.Sprintf("%d-%d", port, port)}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	opened := false
	b, err := browser.New(browser.Config{Headed: "false", WorkspaceDir: t.TempDir()}, browser.Options{Logger: quiet(),
		SessionProxy: func(personality, session string) (string, error) {
			p, err := s.OpenSessionProxy(personality, session)
			opened = opened || err == nil
			return p, err
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	_, ae := callBrowser[abi.BrowserNavigateResponse](s, b, "p", "s", abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: "http://site.test/"})
	if ae == nil || ae.Code != abi.CodeResourceLimit || !strings.Contains(ae.Message, "network.proxy_ports "+fmt.Sprint(port)) {
		t.Fatalf("want resource_limit naming network.proxy_ports, got %v", ae)
	}
	if opened {
		t.Error("a proxy was handed out from a used-up range")
	}
	if open := b.Sessions(); len(open) != 0 {
		t.Errorf("a session opened without its egress proxy: %+v", open)
	}
}
