package network

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// guardedDial resolves host:port once, checks every address against r and
// dials exactly the checked address: the name is never resolved again
// between the check and the connect, so DNS rebinding has no gap to use.
func (s *Service) guardedDial(ctx context.Context, r *rules, hostport, display string) (net.Conn, error) {
	hs, ps, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, &Blocked{URL: display, Reason: "malformed host:port"}
	}
	if strings.Contains(hs, ":") {
		hs = "[" + hs + "]"
	}
	h, err := canonicalHost(hs)
	if err != nil {
		return nil, &Blocked{URL: display, Reason: err.Error()}
	}
	port, err := strconv.Atoi(ps)
	if err != nil || port < 1 || port > 65535 {
		return nil, &Blocked{URL: display, Reason: "bad port"}
	}
	addrs, err := r.resolve(ctx, s.res, h, port, display)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, a := range addrs {
		c, err := s.dialAddr(ctx, netip.AddrPortFrom(a.Unmap(), uint16(port)).String())
		if err == nil {
			s.dials.Add(1)
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, &Unreachable{URL: display, Reason: dialFailure(errors.Join(errs...))}
}

// listener is one loopback proxy: for a session (its refusals are
// reported to that session) or shared by a policy (refusals only logged).
//
// Loopback is reachable by every process on the machine, so a listener
// serves only clients that present its own credentials: a random user and
// password made when it starts, known to the host and handed to the one
// browser context that uses it (Playwright answers Chromium's 407 with
// them). Anything else gets 407 and no connection is made for it.
type listener struct {
	svc  *Service
	r    *rules
	key  sessKey
	ln   net.Listener
	srv  *http.Server
	rp   *httputil.ReverseProxy
	tr   *http.Transport
	addr string // http://127.0.0.1:port, no credentials
	// user and pass are the credentials; basic is "Basic base64(user:pass)",
	// what a client sends in Proxy-Authorization.
	user, pass, basic string
	// mark is AnswerMark(pass): the value of AnswerHeader on every answer
	// the listener gives itself instead of a site's.
	mark string

	mu     sync.Mutex
	tunnel map[net.Conn]bool
	closed bool
}

func (s *Service) listen(r *rules, key sessKey) (*listener, error) {
	ln, err := s.opts.Reach.listen()
	if err != nil {
		var ae *abi.Error
		if errors.As(err, &ae) {
			return nil, err
		}
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	scheme := "http://"
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	addr := net.JoinHostPort(s.opts.Reach.advertised(), port)
	if s.tls != nil {
		ln, scheme = tls.NewListener(ln, s.tls), "https://"
	}
	user, pass, err := newCredentials()
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("egress proxy credentials: %w", err)
	}
	l := &listener{svc: s, r: r, key: key, ln: ln, addr: scheme + addr, tunnel: map[net.Conn]bool{},
		user: user, pass: pass, basic: "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass)), mark: AnswerMark(pass)}
	l.tr = &http.Transport{
		Proxy: nil, // never an environment proxy
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return s.guardedDial(ctx, r, addr, "http://"+addr+"/")
		},
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       60 * time.Second,
		ResponseHeaderTimeout: s.opts.FetchTimeout,
		DisableCompression:    true,
	}
	l.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL = pr.In.URL
			pr.Out.Host = pr.In.Host
			pr.Out.Header.Del("Proxy-Authorization")
		},
		// A site's 407 would reach Chromium as the proxy refusing its
		// credentials: it would drop them and fail every later request of
		// the session. Only this proxy challenges.
		ModifyResponse: func(resp *http.Response) error {
			if resp.StatusCode == http.StatusProxyAuthRequired {
				return errSiteChallenge
			}
			resp.Header.Del("Proxy-Authenticate")
			// Only the proxy speaks for itself: a site's copy of its
			// headers is dropped (a forged mark could not match anyway).
			resp.Header.Del(AnswerHeader)
			resp.Header.Del(BlockedHeader)
			resp.Header.Del(ReasonHeader)
			return nil
		},
		Transport:     l.tr,
		FlushInterval: -1,
		ErrorLog:      nil,
		ErrorHandler: func(w http.ResponseWriter, req *http.Request, err error) {
			var b *Blocked
			if errors.As(err, &b) {
				l.block(w, &Blocked{URL: displayURL(req.URL), Reason: b.Reason})
				return
			}
			var u *Unreachable
			if errors.As(err, &u) {
				l.unreachable(w, &Unreachable{URL: displayURL(req.URL), Reason: u.Reason})
				return
			}
			if errors.Is(err, context.Canceled) {
				return
			}
			l.answer(w, http.StatusBadGateway, "wasmwright egress proxy: "+err.Error())
		},
	}
	l.srv = &http.Server{Handler: l, ReadHeaderTimeout: 30 * time.Second, ErrorLog: nil}
	go l.srv.Serve(ln)
	return l, nil
}

// AnswerHeader marks every answer a listener gives itself (a refusal, a
// site it could not reach) instead of a site's: its value is the
// listener's AnswerMark. A browser shows such an answer as a page at the
// refused URL, with the listener's text; the browser service reads the
// mark on a document's headers to tell it from a site's page, however
// that page is titled or worded, and answers "refused" instead of
// showing it. A site cannot forge the mark: it is derived from the
// listener's password, which only the host and its browser context know,
// and the proxy drops the header from every response it passes on.
const AnswerHeader = "X-Wasmwright-Egress"

// BlockedHeader carries the policy's reason on a refusal, ReasonHeader
// the proxy's message on every answer of its own (with AnswerHeader).
const (
	BlockedHeader = "X-Wasmwright-Blocked"
	ReasonHeader  = "X-Wasmwright-Reason"
)

// AnswerMark is the AnswerHeader value of the listener whose proxy
// password is pass: hex(HMAC-SHA256(pass, "wasmwright egress answer")).
// hostfuncs/browser computes the same from the session's proxy URL.
func AnswerMark(pass string) string {
	m := hmac.New(sha256.New, []byte(pass))
	m.Write([]byte("wasmwright egress answer"))
	return hex.EncodeToString(m.Sum(nil))
}

var errSiteChallenge = errors.New("the site answered 407 Proxy Authentication Required, which only a proxy may send")

// AuthCheckHost is a host no site can have (.invalid, RFC 6761): a request
// for it through a listener, with the listener's credentials, is answered
// by the listener itself with 200 "authenticated". The browser service
// loads it once when it opens a context, answering the 407 itself, so that
// Chromium caches the credentials and sends them with every later request
// (hostfuncs/browser uses the same name).
const AuthCheckHost = "egress-auth.wasmwright.invalid"

// newCredentials makes a listener's random user and password.
func newCredentials() (user, pass string, err error) {
	b := make([]byte, 8+24)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	return "ww-" + hex.EncodeToString(b[:8]), hex.EncodeToString(b[8:]), nil
}

// proxyURL is the listener's address with its credentials, the form
// SessionProxy and ProxyFor hand out: Go's http.Transport sends them from
// the URL, and the browser service passes them to Playwright's proxy
// options.
func (l *listener) proxyURL() string {
	u, _ := url.Parse(l.addr)
	u.User = url.UserPassword(l.user, l.pass)
	return u.String()
}

// authorized checks Proxy-Authorization against the listener's own
// credentials, in constant time.
func (l *listener) authorized(req *http.Request) bool {
	got := req.Header.Get("Proxy-Authorization")
	return subtle.ConstantTimeCompare([]byte(got), []byte(l.basic)) == 1 && len(req.Header.Values("Proxy-Authorization")) == 1
}

// challenge answers a request without the listener's credentials: 407,
// nothing dialled. It is not a policy refusal (Chromium's first request
// on a connection is challenged like this before it answers), so it is
// not reported to the session.
func (l *listener) challenge(w http.ResponseWriter) {
	l.svc.unauthorized.Add(1)
	w.Header().Set("Proxy-Authenticate", `Basic realm="wasmwright egress"`)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusProxyAuthRequired)
	fmt.Fprintln(w, "wasmwright egress proxy: proxy credentials required; this proxy serves only the browser context the host made it for")
}

func (l *listener) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if !l.authorized(req) {
		l.challenge(w)
		return
	}
	// Playwright answers every Basic challenge in the context with the
	// proxy's credentials, a site's 401 too: never pass them on to a site
	// (plain http; inside an https tunnel they cannot be seen).
	for _, v := range req.Header.Values("Authorization") {
		if subtle.ConstantTimeCompare([]byte(v), []byte(l.basic)) == 1 {
			req.Header.Del("Authorization")
			break
		}
	}
	if req.Method == http.MethodConnect {
		l.connect(w, req)
		return
	}
	if strings.EqualFold(req.URL.Host, AuthCheckHost) {
		// The browser service's check that the context authenticated
		// (hostfuncs/browser primeProxy): answered here, nothing dialled.
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "authenticated")
		return
	}
	if !req.URL.IsAbs() || req.URL.Host == "" {
		l.answer(w, http.StatusBadRequest, "wasmwright egress proxy: send proxy requests only")
		return
	}
	display := displayURL(req.URL)
	if !strings.EqualFold(req.URL.Scheme, "http") {
		l.block(w, &Blocked{URL: display, Reason: fmt.Sprintf("scheme %q not allowed", req.URL.Scheme)})
		return
	}
	if req.URL.User != nil {
		l.block(w, &Blocked{URL: display, Reason: "credentials in the URL are refused"})
		return
	}
	h, port, err := hostPort(req.URL)
	if err != nil {
		l.block(w, &Blocked{URL: display, Reason: err.Error()})
		return
	}
	if _, why := l.r.checkName(h, port); why != "" {
		l.block(w, &Blocked{URL: display, Reason: why})
		return
	}
	l.rp.ServeHTTP(w, req)
}

// connect tunnels HTTPS and WebSocket traffic after the same check.
func (l *listener) connect(w http.ResponseWriter, req *http.Request) {
	target := req.Host
	display := "https://" + target + "/"
	if strings.HasSuffix(target, ":443") {
		display = "https://" + strings.TrimSuffix(target, ":443") + "/"
	}
	ctx, cancel := context.WithTimeout(req.Context(), l.svc.opts.DialTimeout+5*time.Second)
	up, err := l.svc.guardedDial(ctx, l.r, target, display)
	cancel()
	if err != nil {
		var b *Blocked
		if errors.As(err, &b) {
			l.block(w, b)
			return
		}
		var u *Unreachable
		if errors.As(err, &u) {
			l.unreachable(w, u)
			return
		}
		l.answer(w, http.StatusBadGateway, "wasmwright egress proxy: "+err.Error())
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "hijack unsupported", http.StatusInternalServerError)
		return
	}
	down, rw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if !l.track(down, up) {
		down.Close()
		up.Close()
		return
	}
	defer l.untrack(down, up)
	if _, err := down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		return
	}
	splice(down, rw.Reader, up)
}

func splice(down net.Conn, br *bufio.Reader, up net.Conn) {
	done := make(chan struct{}, 2)
	go func() {
		if br.Buffered() > 0 {
			b, _ := br.Peek(br.Buffered())
			up.Write(b)
		}
		io.Copy(up, down)
		if c, ok := up.(*net.TCPConn); ok {
			c.CloseWrite()
		}
		done <- struct{}{}
	}()
	go func() {
		io.Copy(down, up)
		if c, ok := down.(*net.TCPConn); ok {
			c.CloseWrite()
		}
		done <- struct{}{}
	}()
	<-done
	<-done
}

func (l *listener) track(cs ...net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	for _, c := range cs {
		l.tunnel[c] = true
	}
	return true
}

func (l *listener) untrack(cs ...net.Conn) {
	l.mu.Lock()
	for _, c := range cs {
		delete(l.tunnel, c)
		c.Close()
	}
	l.mu.Unlock()
}

// unreachable answers a request that could not be made, and keeps why
// for the session (EgressFailure).
func (l *listener) unreachable(w http.ResponseWriter, u *Unreachable) {
	l.svc.failed(l.key, u.URL, false, u.Reason)
	l.answer(w, http.StatusBadGateway, "wasmwright could not reach this site: "+u.Reason)
}

// answer is the proxy's own answer to a request it did not pass on: a page
// whose icon is inline, so the browser asks for no favicon that would be
// refused in its turn after the call that caused it. It carries the
// listener's mark (AnswerHeader), so the browser service never takes it
// for the site's page.
func (l *listener) answer(w http.ResponseWriter, status int, msg string) {
	w.Header().Set(AnswerHeader, l.mark)
	w.Header().Set(ReasonHeader, headerSafe(msg))
	// Never inside a page: a frame the proxy answers stays empty (Chromium
	// blocks it) rather than showing the proxy's words within the site's.
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><link rel=\"icon\" href=\"data:,\"><title>wasmwright egress proxy</title><p>%s</p>\n", html.EscapeString(msg))
}

// block answers a refused request and reports it to the session.
func (l *listener) block(w http.ResponseWriter, b *Blocked) {
	l.svc.record(l.key, b)
	l.svc.failed(l.key, b.URL, true, b.Reason)
	w.Header().Set(BlockedHeader, headerSafe(b.Reason))
	l.answer(w, http.StatusForbidden, "wasmwright refused this request under the personality's network policy: "+b.Error())
}

func (l *listener) close() {
	l.mu.Lock()
	l.closed = true
	for c := range l.tunnel {
		c.Close()
	}
	l.mu.Unlock()
	l.srv.Close()
	l.tr.CloseIdleConnections()
}

// headerSafe is msg as one header value: no line breaks, at most 500 bytes.
func headerSafe(msg string) string {
	return capStr(strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, msg), 500)
}

func displayURL(u *url.URL) string {
	c := *u
	c.User = nil
	return capStr(c.String(), 300)
}
