// Package console is the operator console of `wasmwright serve`: a small
// web app where people log in with their own tokens, see the agents'
// browser sessions, watch one live (a CDP screencast, running only while
// someone watches) and drive it, answer takeovers and approvals, and read
// the event log and the stored logins' policies (never a value).
//
// It sits on the host's operator desk (hostfuncs/operator): while a
// console's state stream is open, the operator is attached, which makes the
// calls of the personalities they see attended; input from the live view
// holds Desk.Control, so agent tools that change the page are refused
// meanwhile.
//
// Security: operators' tokens are known only by their sha256 and compared
// in constant time; an agent's bearer token is never one of them. The
// session cookie is HttpOnly, SameSite=Strict (Secure under TLS). Every
// state-changing request and both WebSockets must come from the console's
// own origin. Nothing but the login page is served without a session.
package console

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/frontend/listen"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/host/console/config"
)

//go:embed assets
var assets embed.FS

const (
	cookieName = "ww_console"
	// loginTTL is how long a console login lasts.
	loginTTL = 12 * time.Hour
	// eventTail is how many events the state stream carries (the log
	// reads older ones through /api/events).
	eventTail = 50
)

// NewToken returns a fresh operator token (256 bits), distinct in form
// from agents' bearer tokens.
func NewToken() string { return "wwop_" + rand.Text() + rand.Text() }

// HashToken is the sha256 hex of a token, as [[console.operators]] stores it.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Options configure a console.
type Options struct {
	// Path is the URL path it is served under ("/console").
	Path string
	// Operators may log in.
	Operators []config.Operator
	Logger    *slog.Logger
	// MaxWidth and MaxHeight bound live-view frames (default 1280x800).
	MaxWidth, MaxHeight int
}

// Console is the operator console of one host.
type Console struct {
	h    *host.Host
	desk host.OperatorDesk
	br   host.LiveBrowser
	opts Options
	log  *slog.Logger
	ops  []operatorEntry

	mu     sync.Mutex
	logins map[string]*login

	// base is the console's own URL (Advertise), for takeover links.
	base  selfURL
	links links

	vaultLogins storedLogins
}

type operatorEntry struct {
	sum           [sha256.Size]byte
	name          string
	personalities []string
}

// login is one logged-in browser.
type login struct {
	operator *operatorEntry
	expires  time.Time
}

// eventSource is what the host offers when it keeps an event tail.
type eventSource interface {
	RecentEvents(n int) []host.Event
}

// New makes the console of h, which must run with host.Options.Operators.
func New(h *host.Host, opts Options) (*Console, error) {
	if h.Desk() == nil {
		return nil, fmt.Errorf("console: the host runs without an operator desk (host.Options.Operators)")
	}
	if opts.Logger == nil {
		opts.Logger = h.Logger()
	}
	if opts.Path == "" {
		opts.Path = "/console"
	}
	opts.Path = strings.TrimSuffix(opts.Path, "/")
	if opts.MaxWidth <= 0 || opts.MaxHeight <= 0 {
		opts.MaxWidth, opts.MaxHeight = 1280, 800
	}
	c := &Console{h: h, desk: h.Desk(), br: h.Browser(), opts: opts, log: opts.Logger.With("service", "console"), logins: map[string]*login{},
		links: links{byLink: map[[sha256.Size]byte]*capLink{}, byView: map[[sha256.Size]byte]*capLink{}}}
	for i, o := range opts.Operators {
		b, err := hex.DecodeString(strings.TrimSpace(o.SHA256))
		if err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("console.operators[%d].sha256 is not a sha256 hex digest: make one with `wasmwright console token new`", i)
		}
		e := operatorEntry{name: o.Name, personalities: o.Personalities}
		copy(e.sum[:], b)
		c.ops = append(c.ops, e)
	}
	if len(c.ops) == 0 {
		return nil, fmt.Errorf("console: no operators: add [[console.operators]] (wasmwright console token new)")
	}
	return c, nil
}

// Path is where the console is served.
func (c *Console) Path() string { return c.opts.Path }

// lookup finds the operator of token, comparing every entry in constant
// time whatever matches.
func (c *Console) lookup(token string) *operatorEntry {
	if token == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(token))
	var found *operatorEntry
	for i := range c.ops {
		if subtle.ConstantTimeCompare(sum[:], c.ops[i].sum[:]) == 1 && found == nil {
			found = &c.ops[i]
		}
	}
	return found
}

// sees says whether the operator may see personality p.
func (o *operatorEntry) sees(p string) bool {
	return len(o.personalities) == 0 || slices.Contains(o.personalities, p)
}

// Handler serves the console under Path.
func (c *Console) Handler() http.Handler {
	mux := http.NewServeMux()
	p := c.opts.Path
	static, _ := fs.Sub(assets, "assets")
	mux.HandleFunc("GET "+p+"/login", func(w http.ResponseWriter, r *http.Request) { c.loginPage(w, r, static) })
	mux.HandleFunc("GET "+p+"/login.css", func(w http.ResponseWriter, r *http.Request) { // the login page's own style
		http.ServeFileFS(w, r, static, "login.css")
	})
	mux.HandleFunc("POST "+p+"/login", c.login)
	mux.HandleFunc("POST "+p+"/logout", c.authed(c.logout))
	mux.HandleFunc("GET "+p+"/{$}", c.authed(func(w http.ResponseWriter, r *http.Request, _ *operatorEntry) {
		b, _ := fs.ReadFile(static, "index.html")
		c.page(w, b, http.StatusOK)
	}))
	files := http.StripPrefix(p+"/static/", http.FileServerFS(static))
	mux.HandleFunc("GET "+p+"/static/", c.authed(func(w http.ResponseWriter, r *http.Request, _ *operatorEntry) {
		w.Header().Set("Cache-Control", "no-store")
		files.ServeHTTP(w, r)
	}))
	mux.HandleFunc("GET "+p+"/api/state", c.authed(func(w http.ResponseWriter, r *http.Request, o *operatorEntry) {
		writeJSON(w, http.StatusOK, c.state(o))
	}))
	mux.HandleFunc("GET "+p+"/api/events", c.authed(c.eventLog))
	mux.HandleFunc("POST "+p+"/api/takeover", c.authed(c.takeover))
	mux.HandleFunc("POST "+p+"/api/approval", c.authed(c.approval))
	mux.HandleFunc("GET "+p+"/api/approval/{id}/picture", c.authed(c.approvalPicture))
	mux.HandleFunc("POST "+p+"/api/close", c.authed(c.closeSession))
	mux.HandleFunc("GET "+p+"/ws", c.authed(c.stateStream))
	mux.HandleFunc("GET "+p+"/live", c.authed(c.live))
	c.linkHandlers(mux, static)
	mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, p+"/", http.StatusSeeOther) })
	// sameOrigin compares Origin with the request's own Host: on a
	// loopback listener that Host must be a loopback name, or a rebound
	// one (evil.example -> 127.0.0.1) would pass it.
	return securityHeaders(listen.RefuseReboundHost(c.log, "console", mux))
}

// securityHeaders: no framing, no sniffing, no referrer to other sites, and a CSP that
// allows only the console's own scripts, styles and data: frames.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin") // "no-referrer" would make a form POST send Origin: null
		next.ServeHTTP(w, r)
	})
}

// loginPage is the one page served without a login; after a refused
// token it says so.
func (c *Console) loginPage(w http.ResponseWriter, r *http.Request, static fs.FS) {
	b, _ := fs.ReadFile(static, "login.html")
	code := http.StatusOK
	if r.URL.Query().Has("refused") {
		code = http.StatusUnauthorized
		b = bytes.Replace(b, []byte("<!--refused-->"), []byte(`<p id="refused" class="error">That token was refused: use an operator token.</p>`), 1)
	}
	c.page(w, b, code)
}

func (c *Console) page(w http.ResponseWriter, b []byte, code int) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	w.Write(b)
}

// sameOrigin says whether a browser request comes from the console's own
// origin: exactly one Origin header naming this server's scheme and host.
// A request without one is refused too: every browser sends it on a POST
// and a WebSocket handshake.
func sameOrigin(r *http.Request) bool {
	vals := r.Header.Values("Origin")
	if len(vals) != 1 {
		return false
	}
	o, err := host.ParseOrigin(vals[0])
	if err != nil {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return o == host.OriginOf(scheme+"://"+r.Host)
}

// stateChanging: every method but GET and HEAD, and every WebSocket.
func stateChanging(r *http.Request) bool {
	return (r.Method != http.MethodGet && r.Method != http.MethodHead) || strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// authed wraps a handler that needs a logged-in operator: without a valid
// session cookie the page is redirected to the login, anything else gets
// 401; a state-changing request from another origin gets 403.
func (c *Console) authed(fn func(http.ResponseWriter, *http.Request, *operatorEntry)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if stateChanging(r) && !sameOrigin(r) {
			c.log.Warn("console: cross-origin request refused", "path", r.URL.Path, "origin", r.Header.Get("Origin"), "remote", r.RemoteAddr)
			http.Error(w, "403 forbidden: console requests must come from the console's own page", http.StatusForbidden)
			return
		}
		o := c.session(r)
		if o == nil {
			if r.Method == http.MethodGet && r.URL.Path == c.opts.Path+"/" {
				http.Redirect(w, r, c.opts.Path+"/login", http.StatusSeeOther)
				return
			}
			http.Error(w, "401 unauthorized: log in to the console with an operator token", http.StatusUnauthorized)
			return
		}
		listen.Authenticated(r) // its connection is an operator's from now on
		fn(w, r, o)
	}
}

func (c *Console) session(r *http.Request) *operatorEntry {
	ck, err := r.Cookie(cookieName)
	if err != nil || ck.Value == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.logins[ck.Value]
	if l == nil {
		return nil
	}
	if time.Now().After(l.expires) {
		delete(c.logins, ck.Value)
		return nil
	}
	return l.operator
}

func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		http.Error(w, "403 forbidden: log in from the console's own login page", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	o := c.lookup(strings.TrimSpace(r.PostFormValue("token")))
	if o == nil {
		c.log.Warn("console: login refused", "remote", r.RemoteAddr)
		http.Redirect(w, r, c.opts.Path+"/login?refused", http.StatusSeeOther)
		return
	}
	id := rand.Text() + rand.Text()
	c.mu.Lock()
	now := time.Now()
	for k, l := range c.logins {
		if now.After(l.expires) {
			delete(c.logins, k)
		}
	}
	c.logins[id] = &login{operator: o, expires: now.Add(loginTTL)}
	c.mu.Unlock()
	listen.Authenticated(r)
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: id, Path: c.opts.Path + "/", HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteStrictMode, MaxAge: int(loginTTL / time.Second)})
	c.log.Info("console: operator logged in", "operator", o.name, "remote", r.RemoteAddr)
	http.Redirect(w, r, c.opts.Path+"/", http.StatusSeeOther)
}

func (c *Console) logout(w http.ResponseWriter, r *http.Request, _ *operatorEntry) {
	if ck, err := r.Cookie(cookieName); err == nil {
		c.mu.Lock()
		delete(c.logins, ck.Value)
		c.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: c.opts.Path + "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, c.opts.Path+"/login", http.StatusSeeOther)
}

// readJSON decodes a small JSON body into v.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(v); err != nil {
		writeError(w, abi.Errorf(abi.CodeInputInvalid, "the request body is not the JSON expected: %v", err))
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, err error) {
	e := abi.AsError(err)
	code := http.StatusBadRequest
	switch e.Code {
	case abi.CodeNotFound, abi.CodeNoSession:
		code = http.StatusNotFound
	case abi.CodeRefused:
		code = http.StatusForbidden
	}
	writeJSON(w, code, map[string]any{"error": e})
}
