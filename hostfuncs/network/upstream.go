package network

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/proxy"
)

// Upstream chaining: when the operator routes the browser through an
// upstream proxy ([browser] proxy), the egress proxy still resolves and
// checks every name itself, then asks the upstream for a tunnel to the
// exact address it checked (HTTP CONNECT, or SOCKS5), so the upstream
// never resolves a name of the page's choosing and the policy holds.

// ValidateUpstream reports whether u can be chained: http, https or
// socks5 (socks4 has no authentication and no IPv6; refused).
func ValidateUpstream(u *url.URL) error {
	switch u.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		return fmt.Errorf("upstream proxy %s: the egress proxy chains only http://, https:// and socks5:// upstreams", u.Redacted())
	}
	if u.Host == "" {
		return fmt.Errorf("upstream proxy %s has no host", u.Redacted())
	}
	return nil
}

// dialAddr connects to a checked ip:port, directly or through the upstream.
func (s *Service) dialAddr(ctx context.Context, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: s.opts.DialTimeout}
	up := s.opts.Upstream
	if up == nil {
		return d.DialContext(ctx, "tcp", addr)
	}
	switch up.Scheme {
	case "socks5", "socks5h":
		var auth *proxy.Auth
		if up.User != nil {
			pw, _ := up.User.Password()
			auth = &proxy.Auth{User: up.User.Username(), Password: pw}
		}
		sd, err := proxy.SOCKS5("tcp", up.Host, auth, d)
		if err != nil {
			return nil, err
		}
		return sd.(proxy.ContextDialer).DialContext(ctx, "tcp", addr)
	}
	c, err := d.DialContext(ctx, "tcp", upstreamAddr(up))
	if err != nil {
		return nil, fmt.Errorf("upstream proxy %s: %w", up.Host, err)
	}
	if up.Scheme == "https" {
		tc := tls.Client(c, &tls.Config{ServerName: up.Hostname()})
		if err := tc.HandshakeContext(ctx); err != nil {
			c.Close()
			return nil, fmt.Errorf("upstream proxy %s: %w", up.Host, err)
		}
		c = tc
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	req := "CONNECT " + addr + " HTTP/1.1\r\nHost: " + addr + "\r\n"
	if up.User != nil {
		pw, _ := up.User.Password()
		req += "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(up.User.Username()+":"+pw)) + "\r\n"
	}
	if _, err := c.Write([]byte(req + "\r\n")); err != nil {
		c.Close()
		return nil, fmt.Errorf("upstream proxy %s: %w", up.Host, err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("upstream proxy %s: %w", up.Host, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		c.Close()
		return nil, fmt.Errorf("upstream proxy %s refused the tunnel to %s: %s", up.Host, addr, resp.Status)
	}
	c.SetDeadline(time.Time{})
	if br.Buffered() > 0 {
		return &bufConn{Conn: c, r: br}, nil
	}
	return c, nil
}

func upstreamAddr(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if strings.EqualFold(u.Scheme, "https") {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// bufConn keeps bytes the CONNECT response reader read ahead.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufConn) Read(p []byte) (int, error) { return b.r.Read(p) }
