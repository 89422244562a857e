// Package network is the kernel's one guarded way out: an egress proxy on
// loopback that Chromium's contexts are pointed at, and ww_network_fetch
// for plugins, both under the personality's network policy.
//
// Every connection is made the same way: the host name is canonicalised
// as a browser would (decimal, octal and hex IPv4 forms, IPv4-mapped
// IPv6, IDNA), resolved once by the kernel, every resolved address is
// checked (code.dny.dev/ssrf's special-purpose ranges, cloud metadata,
// the policy's ports, only_hosts and allowed_hosts) and the connection
// goes to exactly the address checked. Redirects are new requests and are
// checked again; HTTPS and WebSockets are tunnelled (CONNECT) after the
// same check.
//
// Attribution: each browser session gets its own proxy listener, so a
// refused request is reported to the session whose page made it, and to
// no other. A listener shared per policy serves callers that give no
// session.
//
// Access: loopback is open to every local process, so each listener has
// its own random credentials, handed out in the proxy URL
// (http://user:pass@127.0.0.1:port) and checked on every request and
// CONNECT (407 otherwise, nothing dialled). The browser service
// authenticates a context once (AuthCheckHost) and Chromium sends them
// from then on; Playwright's own way would intercept every request.
package network

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Options configure the service.
type Options struct {
	// Policies by personality; a personality not listed gets Default.
	Policies map[string]Policy
	Default  Policy
	// Resolver resolves names (default: Go's own resolver, never libc's,
	// so that "0x7f000001" cannot become an address behind our back).
	Resolver Resolver
	// DialTimeout bounds one connect (default 10s); FetchTimeout one
	// ww_network_fetch and a response's headers (default 30s).
	DialTimeout, FetchTimeout time.Duration
	// MaxBlocked is how many lines of refusals (one per origin and reason)
	// a session keeps until its next result (default 20); MaxSessions caps per-session proxies (default
	// 256, the oldest is closed to make room: its browser context then
	// fails closed).
	MaxBlocked, MaxSessions int
	Logger                  *slog.Logger
	// Upstream, when set, is the operator's proxy every checked connection
	// is tunnelled through (upstream.go).
	Upstream *url.URL
	// Reach is where the listeners listen (reach.go); zero: loopback.
	Reach Reach
	// OnBlocked, when set, is told of every request a session's proxy
	// refused (the host's metrics; ReasonClass sorts the reasons).
	OnBlocked func(personality, session, reason string)
}

// Fetch limits.
const (
	DefaultFetchBytes = 2 << 20
	MaxFetchBytes     = 16 << 20
	maxRedirects      = 5
)

type sessKey struct{ personality, session string }

// Service is the network service; safe for concurrent use.
type Service struct {
	opts Options
	log  *slog.Logger
	res  Resolver
	// judge is the kernel's verdict on fetched pages (judge.go).
	judge JudgeFunc

	mu       sync.Mutex
	rules    map[string]*rules // by policy key
	shared   map[string]*listener
	sessions map[sessKey]*listener
	order    []sessKey
	blocked  map[sessKey]*blockedList
	// failures are the session's requests refused or unreachable since its
	// call began, by host:port (EgressFailure).
	failures map[sessKey]map[string]egressFailure
	fetchTr  map[string]*http.Transport
	closed   bool

	refused, dials, unauthorized atomic.Int64

	// tls is the listeners' TLS (Reach.ProxyTLS), spki its key's hash.
	tls  *tls.Config
	spki string
}

// maxSeen bounds the refusals a session remembers to count a repeat once.
const maxSeen = 256

type blockedList struct {
	lines   []string // refusals seen since the last call (at most maxSeen)
	dropped int
	// groups counts the refusals of each origin and reason, in the order
	// first seen, for TakeBlocked's summary.
	groups []blockedGroup
}

// blockedGroup is the refusals of one origin for one reason: the first
// URL, the first few paths, and how many in all.
type blockedGroup struct {
	origin, reason, first string
	paths                 []string
	n                     int
}

// groupPaths is how many paths of a group a summary names.
const groupPaths = 3

// New validates every policy and returns the service. Listeners start
// lazily, on the first session that needs one.
func New(opts Options) (*Service, error) {
	if opts.Resolver == nil {
		opts.Resolver = &net.Resolver{PreferGo: true}
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 10 * time.Second
	}
	if opts.FetchTimeout <= 0 {
		opts.FetchTimeout = 30 * time.Second
	}
	if opts.MaxBlocked <= 0 {
		opts.MaxBlocked = 20
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 256
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Upstream != nil {
		if err := ValidateUpstream(opts.Upstream); err != nil {
			return nil, err
		}
	}
	if err := opts.Reach.Validate(); err != nil {
		return nil, err
	}
	tlsConf, spki, err := opts.Reach.proxyTLS()
	if err != nil {
		return nil, err
	}
	s := &Service{
		opts: opts, log: opts.Logger.With("service", "network"), res: opts.Resolver,
		rules: map[string]*rules{}, shared: map[string]*listener{}, sessions: map[sessKey]*listener{},
		blocked: map[sessKey]*blockedList{}, failures: map[sessKey]map[string]egressFailure{}, fetchTr: map[string]*http.Transport{},
		tls: tlsConf, spki: spki,
	}
	var errs []error
	for name, p := range opts.Policies {
		if _, err := s.compiled(p); err != nil {
			errs = append(errs, fmt.Errorf("personality %s: %w", name, err))
		}
	}
	if _, err := s.compiled(opts.Default); err != nil {
		errs = append(errs, fmt.Errorf("default policy: %w", err))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Service) compiled(p Policy) (*rules, error) {
	k := p.Key()
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.rules[k]; r != nil {
		return r, nil
	}
	r, err := compile(p)
	if err != nil {
		return nil, err
	}
	s.rules[k] = r
	return r, nil
}

// PolicyFor returns a personality's policy.
func (s *Service) PolicyFor(personality string) Policy {
	if p, ok := s.opts.Policies[personality]; ok {
		return p
	}
	return s.opts.Default
}

func (s *Service) rulesFor(personality string) *rules {
	r, _ := s.compiled(s.PolicyFor(personality)) // validated in New
	return r
}

// failClosed is where a browser context is pointed when no proxy can be
// given: nothing listens there, so its requests fail instead of going out
// unguarded.
const failClosed = "http://127.0.0.1:1"

// errClosed answers a session's proxy asked of a closed service (the host
// is shutting down).
var errClosed = abi.Errorf(abi.CodeNotAvailable, "the host is shutting down: its egress proxy takes no new session; retry on another host or after the restart")

// SessionProxy returns the proxy URL for one (personality, session): its
// own listener, so refusals are reported to that session. A proxy that
// cannot be started gives the fail-closed address (OpenSessionProxy says
// why).
func (s *Service) SessionProxy(personality, session string) string {
	p, err := s.OpenSessionProxy(personality, session)
	if err != nil {
		return failClosed
	}
	return p
}

// OpenSessionProxy is SessionProxy with the reason its listener could not
// be started: network.proxy_ports used up (resource_limit naming the key),
// the address not bindable, the service closed. The browser then opens no
// session at all, rather than one whose every request fails as an egress
// failure.
func (s *Service) OpenSessionProxy(personality, session string) (string, error) {
	k := sessKey{personality, session}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return "", errClosed
	}
	if l := s.sessions[k]; l != nil {
		s.mu.Unlock()
		return l.proxyURL(), nil
	}
	s.mu.Unlock()
	r := s.rulesFor(personality)
	l, err := s.listen(r, k)
	if err != nil {
		s.log.Error("egress proxy not started: the session is refused", "err", err)
		if abi.AsError(err).Code == abi.CodeResourceLimit {
			return "", err
		}
		return "", abi.Errorf(abi.CodeNotAvailable, "the session's egress proxy could not be started on %s (%v): ask the operator to check network.proxy_listen and network.proxy_ports", s.opts.Reach.bind(), err)
	}
	var evict []*listener
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		l.close()
		return "", errClosed
	}
	if old := s.sessions[k]; old != nil { // lost a race
		s.mu.Unlock()
		l.close()
		return old.proxyURL(), nil
	}
	s.sessions[k] = l
	s.order = append(s.order, k)
	for len(s.sessions) > s.opts.MaxSessions && len(s.order) > 0 {
		o := s.order[0]
		s.order = s.order[1:]
		if ol := s.sessions[o]; ol != nil {
			delete(s.sessions, o)
			delete(s.blocked, o)
			evict = append(evict, ol)
		}
	}
	s.mu.Unlock()
	for _, ol := range evict {
		ol.close()
	}
	return l.proxyURL(), nil
}

// ProxyFor returns the proxy shared by every personality with the same
// policy as personality. Its refusals are not attributed to a session.
func (s *Service) ProxyFor(personality string) string {
	r := s.rulesFor(personality)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return failClosed
	}
	if l := s.shared[r.key]; l != nil {
		s.mu.Unlock()
		return l.proxyURL()
	}
	s.mu.Unlock()
	l, err := s.listen(r, sessKey{})
	if err != nil {
		s.log.Error("egress proxy not started", "err", err)
		return failClosed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.shared[r.key]; old != nil || s.closed {
		go l.close()
		if old != nil {
			return old.proxyURL()
		}
		return failClosed
	}
	s.shared[r.key] = l
	return l.proxyURL()
}

// Stats counts, since start, the requests refused by the proxies and the
// connections made after a check passed (proxies and fetches).
func (s *Service) Stats() (refused, dials int64) { return s.refused.Load(), s.dials.Load() }

// Unauthorized counts the requests the proxies answered 407 because they
// came without the listener's credentials (Chromium's first request on a
// connection is one; any other local process trying the proxy is another).
func (s *Service) Unauthorized() int64 { return s.unauthorized.Load() }

// CloseSession closes the session's proxy and forgets its refusals.
func (s *Service) CloseSession(personality, session string) error {
	k := sessKey{personality, session}
	s.mu.Lock()
	l := s.sessions[k]
	delete(s.sessions, k)
	delete(s.blocked, k)
	delete(s.failures, k)
	s.mu.Unlock()
	if l != nil {
		l.close()
	}
	return nil
}

// Close stops every listener and tunnel.
func (s *Service) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	var ls []*listener
	for _, l := range s.sessions {
		ls = append(ls, l)
	}
	for _, l := range s.shared {
		ls = append(ls, l)
	}
	s.sessions, s.shared, s.blocked = map[sessKey]*listener{}, map[string]*listener{}, map[sessKey]*blockedList{}
	for _, t := range s.fetchTr {
		t.CloseIdleConnections()
	}
	s.mu.Unlock()
	for _, l := range ls {
		l.close()
	}
	return nil
}

// HostFuncs returns ww_network_fetch (grant: network).
func (s *Service) HostFuncs() []sandbox.HostFunc {
	return []sandbox.HostFunc{hostfuncs.JSON(abi.HostNetworkFetch, s.fetch)}
}

func (s *Service) transport(r *rules) *http.Transport {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.fetchTr[r.key]; t != nil {
		return t
	}
	t := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return s.guardedDial(ctx, r, addr, addr)
		},
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: s.opts.FetchTimeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
	}
	s.fetchTr[r.key] = t
	return t
}

var fetchMethods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true}

// fetch is ww_network_fetch: one request under the caller's personality's
// policy, redirects followed (each re-checked, at most 5), the body capped.
func (s *Service) fetch(ctx context.Context, c *hostfuncs.Caller, req abi.NetworkFetchRequest) (abi.NetworkFetchResponse, error) {
	var out abi.NetworkFetchResponse
	// The URL is read as browser_navigate reads it (weborigin.ParseURL):
	// text that is not a URL, or has no scheme or host, is the caller's
	// mistake (input_invalid) from both; then the policy's checks.
	parsed, err := weborigin.ParseURL(req.URL)
	if err != nil {
		return out, err
	}
	u, err := CheckURL(parsed.String())
	if err != nil {
		return out, refusal(err)
	}
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = "GET"
	}
	if !fetchMethods[method] {
		return out, abi.Errorf(abi.CodeInputInvalid, "method %q not supported: use GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS", req.Method)
	}
	limit := req.MaxBytes
	if limit <= 0 {
		limit = DefaultFetchBytes
	}
	if limit > MaxFetchBytes {
		limit = MaxFetchBytes
	}
	r := s.rulesFor(c.Personality())
	ctx, cancel := context.WithTimeout(ctx, s.opts.FetchTimeout)
	defer cancel()
	var body io.Reader
	if len(req.Body) > 0 {
		body = strings.NewReader(string(req.Body))
	}
	hreq, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return out, abi.Errorf(abi.CodeInputInvalid, "bad request: %v", err)
	}
	for k, v := range req.Headers {
		switch strings.ToLower(k) {
		case "host", "connection", "proxy-authorization", "proxy-connection", "transfer-encoding", "te", "upgrade", "content-length":
			continue
		}
		hreq.Header.Set(k, v)
	}
	if hreq.Header.Get("User-Agent") == "" {
		hreq.Header.Set("User-Agent", "wasmwright-fetch/1")
	}
	client := s.client(r, s.transport(r))
	resp, err := client.Do(hreq)
	if err != nil {
		return out, refusal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil && len(b) == 0 {
		return out, abi.Errorf(abi.CodeExecutionFailed, "reading %s: %v", displayURL(resp.Request.URL), err)
	}
	if int64(len(b)) > limit {
		b, out.Truncated = b[:limit], true
	}
	out.URL, out.Status, out.Body = resp.Request.URL.String(), resp.StatusCode, b
	out.Headers = map[string]string{}
	for k, v := range resp.Header {
		if len(out.Headers) >= 64 {
			break
		}
		out.Headers[k] = capStr(strings.Join(v, ", "), 2000)
	}
	if err := s.judgeFetched(ctx, c.Personality(), c.Session(), &out); err != nil {
		return abi.NetworkFetchResponse{}, err
	}
	return out, nil
}

// client sends through tr under r: every redirect is checked again, at
// most maxRedirects.
func (s *Service) client(r *rules, tr http.RoundTripper) *http.Client {
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(next *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return abi.Errorf(abi.CodeRefused, "more than %d redirects", maxRedirects)
			}
			if _, err := CheckURL(next.URL.String()); err != nil {
				return err
			}
			h, port, err := hostPort(next.URL)
			if err != nil {
				return &Blocked{URL: displayURL(next.URL), Reason: err.Error()}
			}
			exempt, why := r.checkName(h, port)
			if why == "" && !exempt && h.ip.IsValid() {
				why = r.checkAddr(h.ip)
			}
			if why != "" {
				return &Blocked{URL: displayURL(next.URL), Reason: why + " (redirect from " + displayURL(via[len(via)-1].URL) + ")"}
			}
			return nil
		},
	}
}

// Client is an HTTP client for the host's own requests on a personality's
// behalf (the vision model): every connection is resolved, checked and
// dialled under the personality's policy, like ww_network_fetch's. A
// refused address fails with a *Blocked, one that cannot be reached with
// an *Unreachable, in the error chain. It waits for the response as long
// as the request's context allows (no header timeout of its own).
func (s *Service) Client(personality string) *http.Client {
	r := s.rulesFor(personality)
	tr := s.transport(r).Clone()
	tr.ResponseHeaderTimeout = 0
	tr.MaxIdleConnsPerHost, tr.IdleConnTimeout = 1, 5*time.Second
	return s.client(r, tr)
}

// CheckOpenURL is CheckURL as the error a tool answers, for the browser's
// URL check (browser.Options.CheckURL): everything CheckURL refuses is
// refused, as ww_network_fetch (web_fetch) refuses it, so the two tools
// answer one code for one cause.
func CheckOpenURL(raw string) error {
	if _, err := CheckURL(raw); err != nil {
		return refusal(err)
	}
	return nil
}

// refusal maps a fetch error to the wire.
func refusal(err error) error {
	var b *Blocked
	if errors.As(err, &b) {
		s := b.Error()
		if strings.Contains(b.Reason, "redirect from") {
			s = "blocked redirect: " + b.URL + " (" + b.Reason + ")"
		}
		return abi.Errorf(abi.CodeRefused, "%s: the personality's network policy does not allow it (see [personalities.NAME.network])", s).With("url", b.URL)
	}
	var u *Unreachable
	if errors.As(err, &u) {
		return abi.Errorf(abi.CodeUnreachable, "%s could not be reached: %s: check the URL's host name and port, or retry later if the site is down", u.URL, u.Reason).With("url", u.URL)
	}
	var ae *abi.Error
	if errors.As(err, &ae) {
		return ae
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return abi.Errorf(abi.CodeTimeout, "fetch timed out: %v", err)
	}
	return abi.Errorf(abi.CodeExecutionFailed, "fetch failed: %v", err)
}
