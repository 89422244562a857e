package mcp

import (
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// connLimiter wraps the HTTP listener so that no client can hold the
// server's sockets: at most perIP connections from one address (an IPv6
// client counts by its /64), at most max in all. At the global cap a new
// connection evicts the oldest one that has no request in flight (a
// connection still waiting for its first request, or idle between
// requests); when every connection is busy the new one is closed. So a
// flood of idle or slow sockets only ever displaces other idle sockets,
// never a request being served. (netutil.LimitListener was the
// alternative: at its cap it stops accepting, so the sockets that fill it
// lock every later client out until they time out.)
//
// http.Server tells it each connection's state through track (its
// ConnState hook). A newly accepted connection gets a read deadline of
// firstByte, which bounds a TLS handshake (net/http sets its own header
// deadline after it).
type connLimiter struct {
	net.Listener
	max, perIP int
	firstByte  time.Duration
	log        *slog.Logger

	mu    sync.Mutex
	byIP  map[netip.Prefix]int
	conns map[*limitedConn]struct{}
	// refused and Evicted count connections closed at accept and evicted.
	refused, evicted int
}

func newConnLimiter(ln net.Listener, max, perIP int, firstByte time.Duration, log *slog.Logger) *connLimiter {
	return &connLimiter{Listener: ln, max: max, perIP: perIP, firstByte: firstByte, log: log,
		byIP: map[netip.Prefix]int{}, conns: map[*limitedConn]struct{}{}}
}

type limitedConn struct {
	net.Conn
	l      *connLimiter
	ip     netip.Prefix
	since  time.Time
	busy   bool // a request is being served (http.StateActive)
	closed sync.Once
}

func (c *limitedConn) Close() error {
	c.closed.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		if c.l.byIP[c.ip]--; c.l.byIP[c.ip] <= 0 {
			delete(c.l.byIP, c.ip)
		}
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// clientKey is the address a per-client cap counts by.
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

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := l.admit(c); lc != nil {
			if l.firstByte > 0 {
				lc.SetReadDeadline(time.Now().Add(l.firstByte))
			}
			return lc, nil
		}
	}
}

// admit counts c in, or closes it (or the oldest idle connection) to keep
// within the caps.
func (l *connLimiter) admit(c net.Conn) *limitedConn {
	ip := clientKey(c.RemoteAddr())
	l.mu.Lock()
	if l.byIP[ip] >= l.perIP {
		l.refused++
		n := l.refused
		l.mu.Unlock()
		c.Close()
		if n == 1 || n%1000 == 0 {
			l.log.Warn("mcp: HTTP connection refused: too many from one client", "remote", ip.String(), "per_client_cap", l.perIP, "refused_so_far", n)
		}
		return nil
	}
	var victim *limitedConn
	if len(l.conns) >= l.max {
		for x := range l.conns {
			if !x.busy && (victim == nil || x.since.Before(victim.since)) {
				victim = x
			}
		}
		if victim == nil {
			l.refused++
			l.mu.Unlock()
			c.Close()
			l.log.Warn("mcp: HTTP connection refused: every connection is serving a request", "cap", l.max)
			return nil
		}
		l.evicted++
		// Uncount it now so the new one fits; its Close finds it gone.
		delete(l.conns, victim)
		if l.byIP[victim.ip]--; l.byIP[victim.ip] <= 0 {
			delete(l.byIP, victim.ip)
		}
		victim.closed.Do(func() {})
	}
	lc := &limitedConn{Conn: c, l: l, ip: ip, since: time.Now()}
	l.conns[lc] = struct{}{}
	l.byIP[ip]++
	l.mu.Unlock()
	if victim != nil {
		victim.Conn.Close()
	}
	return lc
}

// track is the http.Server ConnState hook.
func (l *connLimiter) track(c net.Conn, st http.ConnState) {
	for {
		if lc, ok := c.(*limitedConn); ok {
			l.mu.Lock()
			lc.busy = st == http.StateActive || st == http.StateHijacked
			if st == http.StateIdle {
				lc.since = time.Now()
			}
			l.mu.Unlock()
			return
		}
		u, ok := c.(interface{ NetConn() net.Conn }) // *tls.Conn
		if !ok {
			return
		}
		c = u.NetConn()
	}
}

// counts reports open connections, and how many were refused or evicted.
func (l *connLimiter) counts() (open, refused, evicted int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns), l.refused, l.evicted
}

// connCounts reports Serve's connection counts (tests).
func (s *Server) connCounts() (open, refused, evicted int) {
	s.mu.Lock()
	l := s.limiter
	s.mu.Unlock()
	if l == nil {
		return 0, 0, 0
	}
	return l.counts()
}
