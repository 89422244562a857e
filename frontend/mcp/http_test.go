package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmwright/wasmwright/internal/listentest"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// serveReal runs Serve on a loopback listener (not httptest: Serve's own
// timeouts and caps are under test) and returns the endpoint's URL.
func serveReal(t *testing.T, s *Server) (*httpFixture, *Server) {
	t.Helper()
	f, tokens := newHTTPFixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, tokens) }()
	t.Cleanup(func() { cancel(); <-done })
	f.url = "http://" + ln.Addr().String() + Path
	return f, s
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// Many idle and slow sockets from hostile clients (unauthenticated, on
// several source addresses) neither starve a real client nor stay open:
// an authorized session still works at once, and every hostile socket is
// closed within the header/idle timeouts, refused by the per-client cap or
// evicted by the global one.
func TestHTTPIdleFlood(t *testing.T) {
	h, _ := newHost(t)
	s := New(h, Options{Logger: quiet(), HTTP: HTTPOptions{
		ReadHeaderTimeout: time.Second, IdleTimeout: time.Second, MaxConns: 100, MaxConnsPerIP: 10,
	}})
	f, _ := serveReal(t, s)
	addr := strings.TrimSuffix(strings.TrimPrefix(f.url, "http://"), Path)

	var (
		mu    sync.Mutex
		flood []net.Conn
		wg    sync.WaitGroup
	)
	// One address opening 30 silent sockets: each is admitted, for its
	// grace (a fifth of ReadHeaderTimeout) at least, but beyond 10 they do
	// not stay: the next socket from the address, after their grace, closes
	// the oldest down to 10 (if the header timeout has not closed them yet).
	one := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 250)}, Timeout: 5 * time.Second}
	var silent []net.Conn
	for range 30 {
		c, err := one.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		silent = append(silent, c)
	}
	time.Sleep(300 * time.Millisecond)
	if c, err := one.Dial("tcp", addr); err != nil {
		t.Fatal(err)
	} else {
		flood = append(flood, c)
	}
	// The listener accepts in order: once a later request is answered,
	// the server has admitted all 31.
	if resp, err := http.Get("http://" + addr + "/"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	var closed atomic.Int32
	var sg sync.WaitGroup
	for _, c := range silent {
		sg.Go(func() {
			c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			if _, err := c.Read(make([]byte, 1)); err != nil {
				if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
					closed.Add(1)
				}
			}
			c.Close()
		})
	}
	sg.Wait()
	if n := closed.Load(); n < 20 {
		t.Errorf("%d of 30 silent sockets from one address closed once a newer one came, with a per-client budget of 10", n)
	}

	// 20 source addresses × 40 sockets = 800, in four kinds: silent, a
	// refused request then idle, a 404 then idle, half a header then stalled.
	const ips, per = 20, 40
	for i := range ips {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+i))}, Timeout: 5 * time.Second}
		wg.Go(func() {
			for j := range per {
				c, err := d.Dial("tcp", addr)
				if err != nil {
					t.Errorf("dial from 127.0.0.%d: %v", 2+i, err)
					return
				}
				switch j % 4 {
				case 1:
					fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", Path, addr)
				case 2:
					fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
				case 3:
					fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\n", Path, addr)
				}
				mu.Lock()
				flood = append(flood, c)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, c := range flood {
			c.Close()
		}
	})

	// A real client is served during the flood, promptly.
	t0 := time.Now()
	cs, err := f.connect(t, f.tokens["agent"], nil)
	if err != nil {
		t.Fatalf("authorized client during the flood: %v", err)
	}
	res := call(t, cs, "page", map[string]any{"say": "still here"})
	if txt := text(t, res); res.IsError || !strings.Contains(txt, "said still here") {
		t.Fatalf("call during the flood: %s", txt)
	}
	// A fraction of a second on a quiet machine; 15 s leaves a busy one
	// room and still fails a client starved until the flood goes away.
	if d := time.Since(t0); d > 15*time.Second {
		t.Errorf("an authorized session took %v to connect and call during the flood", d)
	}
	cs.Close()

	// Every hostile socket is closed by the server: reading it ends (EOF or
	// reset) at the 1 s timeouts, never by our own read deadline (20 s: a
	// hang-catcher, room for a busy machine to close 800 sockets).
	const closeWithin = 20 * time.Second
	deadline := time.Now().Add(closeWithin)
	var open atomic.Int32
	var rg sync.WaitGroup
	for _, c := range flood {
		rg.Go(func() {
			c.SetReadDeadline(deadline)
			_, err := io.Copy(io.Discard, c)
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				open.Add(1)
			}
		})
	}
	rg.Wait()
	if n := open.Load(); n > 0 {
		t.Errorf("%d of %d idle or slow sockets still open after %v", n, len(flood), closeWithin)
	}
	if evicted := s.connCounts().Evicted; evicted == 0 {
		t.Errorf("the global cap never applied: 800 sockets over a cap of 100, none evicted")
	}
}

// A request body that trickles in is cut at BodyTimeout; a long call's
// response stream is not (its progress keeps arriving long after).
func TestHTTPSlowBodyAndLongStream(t *testing.T) {
	h, _ := newHost(t)
	s := New(h, Options{Logger: quiet(), ProgressEvery: 100 * time.Millisecond, HTTP: HTTPOptions{
		ReadHeaderTimeout: 500 * time.Millisecond, BodyTimeout: 500 * time.Millisecond,
		IdleTimeout: 500 * time.Millisecond, WriteTimeout: 500 * time.Millisecond,
	}})
	f, _ := serveReal(t, s)
	addr := strings.TrimSuffix(strings.TrimPrefix(f.url, "http://"), Path)

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", Path, addr, f.tokens["agent"])
	c.SetReadDeadline(time.Now().Add(30 * time.Second)) // a hang-catcher: the 408 comes at BodyTimeout
	t0 := time.Now()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("a trickling body got no answer: %v after %v", err, time.Since(t0))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("trickling body: %s, want 408", resp.Status)
	}

	var progress atomic.Int32
	var last atomic.Int64 // when the latest notification arrived (UnixNano)
	cs, err := f.connect(t, f.tokens["agent"], &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) {
			progress.Add(1)
			last.Store(time.Now().UnixNano())
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel()
	params := &sdk.CallToolParams{Name: "spin"}
	params.SetProgressToken("p")
	start := time.Now()
	_, err = cs.CallTool(ctx, params)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("spin ended before the client gave up: %v", err)
	}
	// A stream cut at a 500 ms timeout would end its notifications there;
	// a loaded machine may drop ticks, so count loosely and look at the
	// last one's time.
	if n, at := progress.Load(), time.Unix(0, last.Load()).Sub(start); n < 6 || at < 1500*time.Millisecond {
		t.Errorf("%d progress notifications over a 2.5 s stream at 100 ms, the last at %v: the stream was cut (body, idle and write timeouts are 500 ms)", n, at)
	}
}

// The Origin rule of the streamable HTTP transport: a browser request from
// a foreign site is refused even with a valid token; loopback origins, the
// server's own host and configured origins are accepted.
func TestHTTPOrigin(t *testing.T) {
	h, _ := newHost(t)
	s := New(h, Options{Logger: quiet(), HTTP: HTTPOptions{AllowedOrigins: []string{"https://console.example"}}})
	f := serveHTTPTest(t, s)
	self := "http://" + strings.TrimSuffix(strings.TrimPrefix(f.url, "http://"), Path)
	for _, c := range []struct {
		origin []string
		want   int
	}{
		{nil, 200},
		{[]string{"http://localhost:6274"}, 200},
		{[]string{"http://127.0.0.1:3000"}, 200},
		{[]string{self}, 200},
		{[]string{"https://console.example"}, 200},
		{[]string{"https://evil.example"}, 403},
		{[]string{"http://localhost.evil.example"}, 403},
		{[]string{"https://console.example.evil.example"}, 403},
		{[]string{"null"}, 403},
		{[]string{""}, 403},
		{[]string{"http://localhost:6274", "https://evil.example"}, 403},
	} {
		req, _ := http.NewRequest("POST", f.url, strings.NewReader(initializeBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+f.tokens["agent"])
		for _, o := range c.origin {
			req.Header.Add("Origin", o)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("Origin %q: %s %s, want %d", c.origin, resp.Status, body, c.want)
		}
		if c.want == 403 && strings.Contains(string(body), "serverInfo") {
			t.Errorf("Origin %q: the refused request was served: %s", c.origin, body)
		}
	}
}

// One token holds at most MaxSessionsPerToken sessions (each a browser
// context), so it cannot crowd out other clients; another token is not
// affected, and a freed slot can be used again.
func TestHTTPSessionsPerToken(t *testing.T) {
	h, rec := newHost(t)
	s := New(h, Options{Logger: quiet(), MaxSessionsPerToken: 2})
	f := serveHTTPTest(t, s)
	var open []*sdk.ClientSession
	for range 2 {
		cs, err := f.connect(t, f.tokens["agent"], nil)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, cs)
	}
	if cs, err := f.connect(t, f.tokens["agent"], nil); err == nil {
		cs.Close()
		t.Fatal("a third session of one token was opened with a cap of 2")
	} else if !strings.Contains(err.Error(), "open sessions") {
		t.Errorf("refusal does not say why: %v", err)
	}
	other, err := f.connect(t, f.tokens["narrow"], nil)
	if err != nil {
		t.Fatalf("another token was refused: %v", err)
	}
	other.Close()
	// The slot frees when the session's end has been seen.
	first := f.hostSession("agent", open[0])
	open[0].Close()
	rec.waitClosed(t, "agent/"+first, 5*time.Second)
	cs, err := f.connect(t, f.tokens["agent"], nil)
	if err != nil {
		t.Fatalf("no session after one was closed: %v", err)
	}
	cs.Close()
	open[1].Close()
}

// Issue 22: 200 sockets from 127.0.0.1, the address every local client
// shares, send "POST /mcp" and then a header line every 500 ms, and
// redial the moment the server drops one. An agent with a valid token
// still has its initialize answered, each on a new connection, 99 times
// in 100 (default limits; generous client timeouts for a busy machine).
func TestHTTPTrickleFloodFromOneAddress(t *testing.T) {
	testenv.Long(t, "a flood: 200 sockets trickling 100 requests each")
	h, _ := newHost(t)
	s := New(h, Options{Logger: quiet(), MaxSessionsPerToken: 1000})
	f, _ := serveReal(t, s)
	addr := strings.TrimSuffix(strings.TrimPrefix(f.url, "http://"), Path)

	sockets, requests := 200, 100
	if n, err := strconv.Atoi(os.Getenv("WW_FLOOD_SOCKETS")); err == nil {
		sockets = n // for measuring other sizes
	}
	stop := listentest.Trickle(addr, Path, sockets)
	time.Sleep(2 * time.Second) // the flood holds every socket it can
	if n := s.connCounts().Unauthenticated; n < sockets/2 {
		t.Fatalf("the flood holds only %d sockets", n)
	}
	cl := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	// Spread over some 8 s: past the flood's header timeouts (5 s), when
	// its sockets are closed and redialled.
	res := listentest.Measure(requests, 80*time.Millisecond, func() error {
		req, _ := http.NewRequest("POST", f.url, strings.NewReader(initializeBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+f.tokens["agent"])
		resp, err := cl.Do(req)
		if err != nil {
			return err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "serverInfo") {
			return fmt.Errorf("%s %.200s", resp.Status, body)
		}
		return nil
	})
	dials := stop()
	t.Logf("authenticated initialize under %d trickling sockets (%d dials): %v", sockets, dials, res)
	if res.OK < requests*99/100 {
		t.Errorf("authenticated initialize under a flood of %d trickling sockets from the same address: %v", sockets, res)
	}
}

// TestHTTPReboundHost: on a loopback listener a request naming another
// Host (a DNS-rebound name) is refused on every path, the mounted
// console's too, even with a valid token and an Origin matching that
// Host.
func TestHTTPReboundHost(t *testing.T) {
	h, _ := newHost(t)
	mount := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "console") })
	s := New(h, Options{Logger: quiet(), HTTP: HTTPOptions{Mount: mount, MountPath: "/console"}})
	f := serveHTTPTest(t, s)
	base := strings.TrimSuffix(f.url, Path)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))
	do := func(hostHeader, path string) (int, string) {
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(initializeBody))
		req.Host = hostHeader
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+f.tokens["agent"])
		req.Header.Set("Origin", "http://"+hostHeader)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for _, path := range []string{Path, "/console/x"} {
		for _, bad := range []string{"evil.example:" + port, "localhost.evil.example:" + port} {
			if code, body := do(bad, path); code != http.StatusForbidden || strings.Contains(body, "serverInfo") || strings.Contains(body, "console") {
				t.Errorf("%s with Host %q: %d %s", path, bad, code, body)
			}
		}
		if code, body := do("localhost:"+port, path); code != http.StatusOK {
			t.Errorf("%s with a loopback Host: %d %s", path, code, body)
		}
	}
}
