package listen

import (
	"bufio"
	"net"
	"net/http"
	"testing"
	"time"
)

// serve runs an http.Server on a Listener with o; a request with the
// header "X-Auth: ok" authenticates its connection.
func serve(t *testing.T, o Options) (*Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := New(ln, o)
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Auth") == "ok" {
			Authenticated(r)
		}
	})}
	l.Install(srv)
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l, ln.Addr().String()
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// request sends one request on c and reads its answer.
func request(c net.Conn, r *bufio.Reader, auth string) error {
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\nX-Auth: " + auth + "\r\n\r\n")); err != nil {
		return err
	}
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		return err
	}
	return res.Body.Close()
}

// Connections that authenticated are kept however many unauthenticated
// ones arrive from the same address; those stay within their bound.
func TestLimitKeepsAuthenticatedConns(t *testing.T) {
	l, addr := serve(t, Options{MaxConns: 20, PerClient: 4, Grace: 50 * time.Millisecond})
	type kept struct {
		c net.Conn
		r *bufio.Reader
	}
	var agents []kept
	for range 5 {
		c := dial(t, addr)
		k := kept{c, bufio.NewReader(c)}
		if err := request(k.c, k.r, "ok"); err != nil {
			t.Fatal(err)
		}
		agents = append(agents, k)
	}
	for range 3 {
		for range 30 {
			dial(t, addr) // silent
		}
		time.Sleep(100 * time.Millisecond)
	}
	for i, k := range agents {
		if err := request(k.c, k.r, "ok"); err != nil {
			t.Errorf("authenticated connection %d after 90 unauthenticated ones: %v", i, err)
		}
	}
	n := l.Counts()
	if n.Unauthenticated > 10 || n.Evicted < 70 {
		t.Errorf("90 silent sockets, at most 10 (MaxConns/2) unauthenticated: %+v", n)
	}
}

// A new connection gets its grace to send a request, whatever its
// address already holds and however many arrive after it; past their
// grace, an address's connections beyond PerClient make way for new ones.
func TestLimitNewcomerGetsItsGrace(t *testing.T) {
	// A 3 s grace: the newcomer's 20 dials and request take some 100 ms
	// on a quiet machine, and must fit in it on a busy one too.
	const grace = 3 * time.Second
	l, addr := serve(t, Options{MaxConns: 200, PerClient: 2, Grace: grace})
	for range 10 {
		dial(t, addr)
	}
	time.Sleep(grace + 100*time.Millisecond)
	c := dial(t, addr) // past the others' grace: they make way
	for range 20 {
		dial(t, addr)
	}
	time.Sleep(100 * time.Millisecond) // a slow client, still within its grace
	if err := request(c, bufio.NewReader(c), "ok"); err != nil {
		t.Fatalf("a new connection, 21 more after it, lost its grace: %v", err)
	}
	if n := l.Counts(); n.Evicted < 8 || n.Refused != 0 {
		t.Errorf("10 sockets past their grace with a budget of 2, then 21 new ones: %+v", n)
	}
}

// A connection closed while a newer one from its client evicts it: the
// close and the eviction of the same connection at once never leave the
// listener stuck (a sync.Once in Close, waiting for the listener's lock
// that an eviction held while waiting for that Once, froze it).
func TestCloseWhileEvicting(t *testing.T) {
	l := New(nil, Options{PerClient: 1, MaxUnauthenticated: 4, Grace: time.Nanosecond})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var prev *conn
		for range 20000 {
			a, b := net.Pipe()
			b.Close()
			c := l.admit(a) // evicts prev: one unauthenticated connection per client
			if prev != nil {
				go prev.Close()
			}
			prev = c
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("admit never returned: a close and an eviction of one connection deadlocked")
	}
	counted := make(chan Counts, 1)
	go func() { counted <- l.Counts() }()
	select {
	case n := <-counted:
		if n.Unauthenticated > 4 {
			t.Errorf("unauthenticated connections beyond their bound: %+v", n)
		}
	case <-time.After(time.Minute):
		t.Fatal("the listener's lock is held for good")
	}
}
