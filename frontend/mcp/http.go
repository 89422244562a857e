package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmwright/wasmwright/frontend/listen"
	"github.com/wasmwright/wasmwright/host"
)

// Path is where the streamable HTTP endpoint is served.
const Path = "/mcp"

// extraPersonality is the TokenInfo.Extra key of the token's personality.
const extraPersonality = "personality"

// NewToken returns a fresh random bearer token (256 bits).
func NewToken() string {
	return "ww_" + rand.Text() + rand.Text()
}

// HashToken is the sha256 hex of a token, as config serve.tokens stores it.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Tokens maps bearer tokens, known only by their sha256, to personalities.
type Tokens struct {
	entries []tokenEntry
}

type tokenEntry struct {
	sum         [sha256.Size]byte
	personality string
}

// NewTokens reads the config's serve.tokens.
func NewTokens(cfg []host.TokenConfig) (*Tokens, error) {
	t := &Tokens{}
	for i, c := range cfg {
		b, err := hex.DecodeString(strings.TrimSpace(c.SHA256))
		if err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("serve.tokens[%d].sha256 is not a sha256 hex digest: make one with `wasmwright token new`", i)
		}
		var e tokenEntry
		copy(e.sum[:], b)
		e.personality = c.Personality
		t.entries = append(t.entries, e)
	}
	return t, nil
}

// Add accepts token as personality.
func (t *Tokens) Add(token, personality string) {
	t.entries = append(t.entries, tokenEntry{sum: sha256.Sum256([]byte(token)), personality: personality})
}

// Len is the number of accepted tokens.
func (t *Tokens) Len() int { return len(t.entries) }

// lookup finds the token's entry. Every entry is compared, in constant
// time, whatever matches.
func (t *Tokens) lookup(token string) (tokenEntry, bool) {
	var found tokenEntry
	ok := 0
	if token == "" {
		return found, false
	}
	sum := sha256.Sum256([]byte(token))
	for _, e := range t.entries {
		eq := subtle.ConstantTimeCompare(sum[:], e.sum[:])
		if eq == 1 && ok == 0 {
			found = e
		}
		ok |= eq
	}
	return found, ok == 1
}

func bearer(r *http.Request) string {
	f := strings.Fields(r.Header.Get("Authorization"))
	if len(f) != 2 || !strings.EqualFold(f[0], "bearer") {
		return ""
	}
	return f[1]
}

func (t *Tokens) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	e, ok := t.lookup(token)
	if !ok {
		return nil, fmt.Errorf("%w: unknown bearer token", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{
		// UserID binds an MCP session to the token that opened it: the
		// go-sdk refuses the session's id with any other token.
		UserID: hex.EncodeToString(e.sum[:]),
		Extra:  map[string]any{extraPersonality: e.personality},
	}, nil
}

func tokenInfo(req *sdk.CallToolRequest) *auth.TokenInfo {
	if req.Extra == nil {
		return nil
	}
	return req.Extra.TokenInfo
}

// HTTPOptions bound what HTTP clients can hold of the server. Zero values
// take the defaults.
type HTTPOptions struct {
	// ReadHeaderTimeout bounds reading a request's whole header, and a new
	// connection's wait for its first byte. Default 5s. A new connection
	// is safe from eviction (see MaxConnsPerIP) for a fifth of it.
	ReadHeaderTimeout time.Duration
	// BodyTimeout bounds reading a request's body. Default 30s.
	BodyTimeout time.Duration
	// WriteTimeout bounds each write of a response: a client that stops
	// reading its stream is dropped. Streams themselves may last any time.
	// Default 30s.
	WriteTimeout time.Duration
	// IdleTimeout closes a kept-alive connection with no request. Default 60s.
	IdleTimeout time.Duration
	// MaxConns caps open connections in all, half of them at most not yet
	// authenticated (no request on them has carried a valid token): the
	// other half is kept for agents. MaxConnsPerIP is how many
	// unauthenticated connections one client address keeps: beyond it a
	// new connection from the address closes its oldest ones, once they
	// have had their grace, instead of being refused, since every local
	// client shares 127.0.0.1 (frontend/listen). Defaults 1024 and 64.
	MaxConns, MaxConnsPerIP int
	// MaxBodyBytes caps a request body. Default 4 MiB.
	MaxBodyBytes int64
	// AllowedOrigins are origins (scheme://host[:port]) accepted in the
	// Origin header besides loopback ones and the server's own host.
	AllowedOrigins []string
	// TLS, when set, serves HTTPS.
	TLS *tls.Config
	// Mount, when set, serves MountPath and everything under it on the
	// same listener (the operator console). It does its own auth: the
	// bearer token and Origin rules of Path do not apply to it.
	Mount     http.Handler
	MountPath string
}

func (o HTTPOptions) withDefaults() HTTPOptions {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.ReadHeaderTimeout, 5*time.Second)
	def(&o.BodyTimeout, 30*time.Second)
	def(&o.WriteTimeout, 30*time.Second)
	def(&o.IdleTimeout, 60*time.Second)
	if o.MaxConns <= 0 {
		o.MaxConns = 1024
	}
	if o.MaxConnsPerIP <= 0 {
		o.MaxConnsPerIP = 64
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 4 << 20
	}
	return o
}

// Handler is the streamable HTTP endpoint at Path. Every request needs a
// bearer token that tokens accept: without one the answer is 401 and
// nothing of the server (not even its tool names) is shown. A request
// whose Origin header names a foreign site is refused (403) before that.
// On a loopback listener a Host header that is not loopback is refused
// (403, against DNS rebinding) on every path, the mounted console's too
// (listen.RefuseReboundHost; the go-sdk handler checks it again). The
// go-sdk handler refuses a session id with any token but the one that
// opened it (403).
func (s *Server) Handler(tokens *Tokens) http.Handler {
	o := s.opts.HTTP.withDefaults()
	origins := map[string]bool{}
	for _, x := range o.AllowedOrigins {
		if n, err := host.ParseOrigin(x); err == nil {
			origins[n] = true
		}
	}
	streamable := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		ti := auth.TokenInfoFromContext(r.Context())
		if ti == nil {
			return nil
		}
		p, _ := ti.Extra[extraPersonality].(string)
		return s.forPersonality(p)
	}, &sdk.StreamableHTTPOptions{SessionTimeout: s.opts.SessionIdle, Logger: s.log, MaxRequestBodyBytes: o.MaxBodyBytes})
	withToken := auth.RequireBearerToken(tokens.verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(streamable)
	mux := http.NewServeMux()
	mux.HandleFunc(Path, func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if !originAllowed(r, origins) {
			s.log.Warn("mcp: request from a foreign origin refused", "remote", r.RemoteAddr, "origin", r.Header.Get("Origin"))
			refuse(w, rc, http.StatusForbidden, "403 forbidden: requests from origin "+strconvQuote(r.Header.Get("Origin"))+" are not accepted: add it to the config's serve.allowed_origins if it is yours")
			return
		}
		if _, ok := tokens.lookup(bearer(r)); !ok {
			s.log.Warn("mcp: request without a valid bearer token", "remote", r.RemoteAddr, "method", r.Method)
			w.Header().Set("WWW-Authenticate", `Bearer realm="wasmwright"`)
			refuse(w, rc, http.StatusUnauthorized, "401 unauthorized: send the header \"Authorization: Bearer <token>\" with a token this server accepts (wasmwright serve prints one at start; `wasmwright token new` makes one for the config)")
			return
		}
		listen.Authenticated(r)
		if s.refuseNewSession(w, r) {
			return
		}
		// Read the body under its own deadline, then lift every read
		// deadline so a long call's stream or a GET stream is not cut.
		if r.Body != nil && r.Body != http.NoBody {
			rc.SetReadDeadline(time.Now().Add(o.BodyTimeout))
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, o.MaxBodyBytes))
			if err != nil {
				var tooBig *http.MaxBytesError
				if errors.As(err, &tooBig) {
					refuse(w, rc, http.StatusRequestEntityTooLarge, fmt.Sprintf("413: the request body is over %d bytes", o.MaxBodyBytes))
				} else {
					refuse(w, rc, http.StatusRequestTimeout, "408: the request body did not arrive in time")
				}
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		rc.SetReadDeadline(time.Time{})
		if r.Method == http.MethodPost {
			// A drain waits for the answer to be written, not only for
			// the call to return (Drain).
			s.posts.begin()
			defer s.posts.end()
		}
		withToken.ServeHTTP(&deadlineWriter{ResponseWriter: w, rc: rc, d: o.WriteTimeout}, r)
	})
	if o.Mount != nil && o.MountPath != "" {
		mux.Handle(o.MountPath, o.Mount)
		mux.Handle(o.MountPath+"/", o.Mount)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		refuse(w, http.NewResponseController(w), http.StatusNotFound, "not found: the MCP endpoint is "+Path)
	})
	return listen.RefuseReboundHost(s.log, "mcp", mux)
}

// refuse answers with an error and closes the connection: a client that
// is refused does not keep a socket, and what it still sends is read for
// at most a second.
func refuse(w http.ResponseWriter, rc *http.ResponseController, code int, msg string) {
	rc.SetReadDeadline(time.Now().Add(time.Second))
	w.Header().Set("Connection", "close")
	http.Error(w, msg, code)
}

func strconvQuote(s string) string {
	if len(s) > 200 {
		s = s[:200]
	}
	return fmt.Sprintf("%q", s)
}

// originAllowed implements the transport's Origin rule: no Origin (not a
// browser), a loopback origin, the server's own host, or a configured one.
// Anything else, "null" included, is refused.
func originAllowed(r *http.Request, allowed map[string]bool) bool {
	vals := r.Header.Values("Origin")
	if len(vals) == 0 {
		return true
	}
	if len(vals) > 1 {
		return false
	}
	o, err := host.ParseOrigin(vals[0])
	if err != nil {
		return false
	}
	if allowed[o] {
		return true
	}
	u, _ := url.Parse(o)
	if isLoopbackHost(u.Hostname()) {
		return true
	}
	return r.Host != "" && o == host.OriginOf(u.Scheme+"://"+r.Host)
}

// isLoopbackHost: localhost (and its subdomains, RFC 6761) or a loopback IP.
func isLoopbackHost(h string) bool {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(h, "[]"))
	return err == nil && ip.Unmap().IsLoopback()
}

// deadlineWriter gives each write of a response WriteTimeout to complete,
// so a client that stops reading is dropped, while a stream that is quiet
// for long (a GET stream between notifications) is not.
type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.rc.SetWriteDeadline(time.Now().Add(w.d))
	return w.ResponseWriter.Write(p)
}

func (w *deadlineWriter) WriteHeader(code int) {
	w.rc.SetWriteDeadline(time.Now().Add(w.d))
	w.ResponseWriter.WriteHeader(code)
}

func (w *deadlineWriter) Flush() {
	w.rc.SetWriteDeadline(time.Now().Add(w.d))
	w.rc.Flush()
}

func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// DefaultShutdownGrace is Options.ShutdownGrace when it is not set.
const DefaultShutdownGrace = 10 * time.Second

// Serve serves the streamable HTTP endpoint on ln until ctx is done, then
// shuts down: it stops accepting, ends the calls in flight, closes every
// session (the host frees their browser sessions) and the connections,
// waiting at most Options.ShutdownGrace. The host is the caller's to close.
//
// Connections are capped in all and, until they authenticate, per client,
// and timed out while they send headers or a body, while they idle, and
// per response write (HTTPOptions); a flood of idle or slow sockets,
// even from the agents' own address, only displaces other connections
// that have not authenticated (frontend/listen).
func (s *Server) Serve(ctx context.Context, ln net.Listener, tokens *Tokens) error {
	if tokens == nil || tokens.Len() == 0 {
		return errors.New("mcp: refusing to serve HTTP without a bearer token")
	}
	o := s.opts.HTTP.withDefaults()
	lim := listen.New(ln, listen.Options{MaxConns: o.MaxConns, PerClient: o.MaxConnsPerIP,
		Grace: o.ReadHeaderTimeout / 5, FirstByte: o.ReadHeaderTimeout, Name: "mcp", Logger: s.log})
	var l net.Listener = lim
	if o.TLS != nil {
		l = tls.NewListener(lim, o.TLS)
	}
	srv := &http.Server{
		Handler:           s.Handler(tokens),
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	lim.Install(srv)
	s.mu.Lock()
	s.limiter = lim
	s.mu.Unlock()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		s.Shutdown(context.Background())
		return err
	case <-ctx.Done():
	}
	grace, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownGrace)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(grace) }() // closes the listener at once
	errs := []error{s.Shutdown(grace)}
	if err := <-shut; err != nil {
		errs = append(errs, err, srv.Close())
	}
	<-errc
	return errors.Join(errs...)
}

// connCounts reports Serve's connection counts (tests).
func (s *Server) connCounts() listen.Counts {
	s.mu.Lock()
	l := s.limiter
	s.mu.Unlock()
	if l == nil {
		return listen.Counts{}
	}
	return l.Counts()
}
