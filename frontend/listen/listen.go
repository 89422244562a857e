// Package listen admits the connections of the host's HTTP front-ends
// (the MCP endpoint, the operator console) so that sockets which never
// finish a request (silent, idle, or trickling their headers a line at a
// time) cannot keep clients that authenticate from being served, even
// when both come from the same address: every local client is 127.0.0.1,
// so a per-address cap that refuses new connections is itself the weapon.
//
// A connection is unauthenticated until one of its requests carries a
// valid credential (the handler says so with [Authenticated]). Until then
// it lives in a separate, smaller pool:
//
//   - A new connection is always admitted (unless every connection is
//     serving a request), and for its grace (1 s by default) it is not
//     evicted while an older one can be: that is the time a real client
//     needs to send a request with its token, however many sockets its
//     address already holds.
//   - One client address keeps PerClient unauthenticated connections;
//     beyond that, each new one from it closes the address's oldest
//     unauthenticated connections that have had their grace, so an
//     attacker's sockets churn while a newcomer is served.
//   - MaxUnauthenticated bounds them in all (half of MaxConns by default),
//     which keeps the rest of MaxConns for authenticated connections; at
//     that bound a new connection closes the oldest unauthenticated one
//     (one past its grace if there is one) rather than being refused.
//   - At MaxConns a new connection closes the oldest connection that is
//     not serving a request, unauthenticated first; only when every one
//     is serving is the new one refused.
//
// A connection serving a request is never evicted. The http.Server's
// ReadHeaderTimeout, a deadline for the whole header rather than per read,
// is what closes a socket that never completes one.
//
// netutil.LimitListener was the alternative: at its cap it stops
// accepting, so the sockets that fill it lock every later client out.
package listen

import (
	"container/list"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// Options bound what clients can hold of a listener. Zero values take
// the defaults.
type Options struct {
	// MaxConns caps open connections in all. Default 1024.
	MaxConns int
	// MaxUnauthenticated caps connections on which no request has carried
	// a valid credential yet. Default MaxConns/2: the other half is kept
	// for connections that have authenticated.
	MaxUnauthenticated int
	// PerClient is how many unauthenticated connections one client address
	// (an IPv6 client counts by its /64) keeps past their grace. Default 64.
	PerClient int
	// Grace is how long a new connection cannot be evicted by the
	// PerClient budget, or by MaxUnauthenticated while an older one can.
	// Default 1 s.
	Grace time.Duration
	// FirstByte is a new connection's read deadline at accept, which
	// bounds a TLS handshake (net/http sets its header deadline after).
	FirstByte time.Duration
	// Name prefixes log messages ("mcp", "console").
	Name   string
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.MaxConns <= 0 {
		o.MaxConns = 1024
	}
	if o.MaxUnauthenticated <= 0 || o.MaxUnauthenticated > o.MaxConns {
		o.MaxUnauthenticated = max(o.MaxConns/2, 1)
	}
	if o.PerClient <= 0 {
		o.PerClient = 64
	}
	if o.Grace <= 0 {
		o.Grace = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Name == "" {
		o.Name = "http"
	}
	return o
}

// Listener is a net.Listener that admits connections as the package doc
// says. Install it on the http.Server that serves it.
type Listener struct {
	net.Listener
	o Options

	mu    sync.Mutex
	conns map[*conn]struct{}
	// unauth holds the unauthenticated connections, oldest first.
	unauth   list.List
	unauthBy map[netip.Prefix]int
	// refused and evicted count connections closed at accept and evicted.
	refused, evicted int
}

// New wraps ln.
func New(ln net.Listener, o Options) *Listener {
	return &Listener{Listener: ln, o: o.withDefaults(), conns: map[*conn]struct{}{}, unauthBy: map[netip.Prefix]int{}}
}

// Install makes srv report its connections' states to l and give their
// requests' contexts what [Authenticated] needs.
func (l *Listener) Install(srv *http.Server) {
	srv.ConnState = l.track
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if lc := unwrap(c); lc != nil {
			return context.WithValue(ctx, connKey{}, lc)
		}
		return ctx
	}
}

type connKey struct{}

// Authenticated records that r carried a valid credential: its
// connection leaves the unauthenticated pool for good. A request that did
// not come through a Listener is ignored.
func Authenticated(r *http.Request) {
	c, _ := r.Context().Value(connKey{}).(*conn)
	if c == nil {
		return
	}
	l := c.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.authed || c.gone {
		return
	}
	c.authed = true
	l.unauth.Remove(c.elem)
	l.dropUnauth(c.ip)
}

// Counts are a Listener's connection counts.
type Counts struct {
	Open, Unauthenticated int
	// Refused and Evicted count connections closed at accept (every
	// connection was serving a request) and closed to admit a newer one.
	Refused, Evicted int
}

// Counts reports l's connection counts.
func (l *Listener) Counts() Counts {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Counts{Open: len(l.conns), Unauthenticated: l.unauth.Len(), Refused: l.refused, Evicted: l.evicted}
}

type conn struct {
	net.Conn
	l      *Listener
	ip     netip.Prefix
	opened time.Time
	// since orders eviction at MaxConns: when it opened or last went idle.
	since  time.Time
	busy   bool // serving a request (http.StateActive) or hijacked
	authed bool
	elem   *list.Element // in l.unauth while !authed
	gone   bool          // uncounted (closed or evicted)
}

// Close uncounts c (once: forget is idempotent under l.mu) and closes it.
// No sync.Once here: admit evicts under l.mu, and a Once whose Do waited
// for l.mu in a concurrent Close made admit's own Do wait for it in turn
// (a deadlock that froze every connection's state hook).
func (c *conn) Close() error {
	c.l.mu.Lock()
	c.l.forget(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// forget uncounts c; l.mu is held.
func (l *Listener) forget(c *conn) {
	if c.gone {
		return
	}
	c.gone = true
	delete(l.conns, c)
	if !c.authed {
		l.unauth.Remove(c.elem)
		l.dropUnauth(c.ip)
	}
}

func (l *Listener) dropUnauth(ip netip.Prefix) {
	if l.unauthBy[ip]--; l.unauthBy[ip] <= 0 {
		delete(l.unauthBy, ip)
	}
}

// clientKey is the address a per-client budget counts by.
func clientKey(a net.Addr) netip.Prefix {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Prefix{}
	}
	ip := ap.Addr().Unmap()
	if ip.Is4() {
		return netip.PrefixFrom(ip, 32)
	}
	p, _ := ip.Prefix(64)
	return p
}

// Accept admits the next connection.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := l.admit(c); lc != nil {
			if l.o.FirstByte > 0 {
				lc.SetReadDeadline(time.Now().Add(l.o.FirstByte))
			}
			return lc, nil
		}
	}
}

// admit counts c in, closing the connections that make room for it, or
// closes c when nothing can (every connection is serving a request).
func (l *Listener) admit(c net.Conn) *conn {
	ip := clientKey(c.RemoteAddr())
	now := time.Now()
	var victims []*conn
	evict := func(x *conn) {
		l.forget(x)
		victims = append(victims, x)
	}
	l.mu.Lock()
	// The client's own budget: its connections beyond it that have had
	// their grace make way. If all of them are newer, c is admitted
	// beyond the budget; the bounds below still hold.
	for l.unauthBy[ip] >= l.o.PerClient {
		x := l.oldestUnauth(false, ip, true)
		if x == nil {
			break
		}
		evict(x)
	}
	if l.unauth.Len() >= l.o.MaxUnauthenticated {
		x := l.oldestUnauth(true, ip, true)
		if x == nil {
			x = l.oldestUnauth(true, ip, false)
		}
		if x != nil {
			evict(x)
		}
	}
	if len(l.conns) >= l.o.MaxConns {
		if x := l.oldestIdle(); x != nil {
			evict(x)
		}
	}
	// Unauthenticated connections all serving a request can leave the
	// pool full; only then is c refused.
	full := len(l.conns) >= l.o.MaxConns || l.unauth.Len() >= l.o.MaxUnauthenticated
	var lc *conn
	if full {
		l.refused++
	} else {
		lc = &conn{Conn: c, l: l, ip: ip, opened: now, since: now}
		lc.elem = l.unauth.PushBack(lc)
		l.unauthBy[ip]++
		l.conns[lc] = struct{}{}
	}
	l.evicted += len(victims)
	refused, evicted := l.refused, l.evicted
	l.mu.Unlock()
	for _, x := range victims {
		x.Conn.Close()
	}
	if full {
		c.Close()
		if refused == 1 || refused%1000 == 0 {
			l.o.Logger.Warn(l.o.Name+": connection refused: every connection is serving a request", "remote", ip.String(), "cap", l.o.MaxConns, "refused_so_far", refused)
		}
		return nil
	}
	if n := len(victims); n > 0 && (evicted == n || evicted/1000 != (evicted-n)/1000) {
		l.o.Logger.Warn(l.o.Name+": unauthenticated or idle connections closed to admit new ones", "remote", ip.String(), "evicted_so_far", evicted)
	}
	return lc
}

// oldestUnauth is the oldest unauthenticated connection not serving a
// request: of any client, or of client ip alone; past its grace when
// graced; l.mu is held.
func (l *Listener) oldestUnauth(anyClient bool, ip netip.Prefix, graced bool) *conn {
	now := time.Now()
	for e := l.unauth.Front(); e != nil; e = e.Next() {
		x := e.Value.(*conn)
		if graced && now.Sub(x.opened) < l.o.Grace {
			return nil // the list is in age order: every later one is newer
		}
		if !x.busy && (anyClient || x.ip == ip) {
			return x
		}
	}
	return nil
}

// oldestIdle is the connection to close at MaxConns: the oldest
// unauthenticated one not serving a request, else the authenticated one
// idle the longest; l.mu is held.
func (l *Listener) oldestIdle() *conn {
	if x := l.oldestUnauth(true, netip.Prefix{}, false); x != nil {
		return x
	}
	var v *conn
	for x := range l.conns {
		if !x.busy && (v == nil || x.since.Before(v.since)) {
			v = x
		}
	}
	return v
}

// track is the http.Server ConnState hook.
func (l *Listener) track(c net.Conn, st http.ConnState) {
	lc := unwrap(c)
	if lc == nil {
		return
	}
	l.mu.Lock()
	lc.busy = st == http.StateActive || st == http.StateHijacked
	if st == http.StateIdle {
		lc.since = time.Now()
	}
	l.mu.Unlock()
}

// unwrap finds the Listener's conn under c (a *tls.Conn wraps it).
func unwrap(c net.Conn) *conn {
	for {
		if lc, ok := c.(*conn); ok {
			return lc
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return nil
		}
		c = u.NetConn()
	}
}
