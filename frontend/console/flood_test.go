package console_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/frontend/console"
	"github.com/wasmwright/wasmwright/frontend/mcp"
	"github.com/wasmwright/wasmwright/internal/listentest"
)

// Issue 22 for the console: 200 sockets from 127.0.0.1 send "POST
// /console/login" and then a header line every 500 ms, redialling the
// moment they are dropped. An operator still logs in, and logged in opens
// the console, each on a new connection, 99 times in 100: on a listener
// of the console's own (console.addr) and on the MCP listener it shares
// by default.
func TestConsoleTrickleFlood(t *testing.T) {
	h, c, tok := bareConsole(t, "flood.toml")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	serve := func(t *testing.T, run func(context.Context, net.Listener) error) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		must(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- run(ctx, ln) }()
		t.Cleanup(func() { cancel(); <-done })
		return "http://" + ln.Addr().String()
	}
	t.Run("own listener", func(t *testing.T) {
		base := serve(t, func(ctx context.Context, ln net.Listener) error {
			return c.Serve(ctx, ln, console.ServeOptions{})
		})
		floodLogins(t, base, c.Path(), tok)
	})
	t.Run("on the MCP listener", func(t *testing.T) {
		srv := mcp.New(h, mcp.Options{Logger: log, HTTP: mcp.HTTPOptions{Mount: c.Handler(), MountPath: c.Path()}})
		tokens, _ := mcp.NewTokens(nil)
		tokens.Add(mcp.NewToken(), "default")
		base := serve(t, func(ctx context.Context, ln net.Listener) error { return srv.Serve(ctx, ln, tokens) })
		floodLogins(t, base, c.Path(), tok)
	})
}

// floodLogins floods the console at base and measures an operator's
// logins and console pages meanwhile.
func floodLogins(t *testing.T, base, path, tok string) {
	cl := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var cookie *http.Cookie
	login := func() error {
		req, _ := http.NewRequest("POST", base+path+"/login", strings.NewReader(url.Values{"token": {tok}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", base)
		res, err := cl.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusSeeOther || len(res.Cookies()) != 1 || res.Header.Get("Location") != path+"/" {
			return fmt.Errorf("login: %s to %q, cookies %v", res.Status, res.Header.Get("Location"), res.Cookies())
		}
		cookie = res.Cookies()[0]
		return nil
	}
	page := func() error {
		req, _ := http.NewRequest("GET", base+path+"/", nil)
		req.AddCookie(cookie)
		res, err := cl.Do(req)
		if err != nil {
			return err
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return err
		}
		if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "<html") {
			return fmt.Errorf("console page: %s %.200s", res.Status, body)
		}
		return nil
	}
	must(t, login())

	const sockets, requests = 200, 100
	stop := listentest.Trickle(strings.TrimPrefix(base, "http://"), path+"/login", sockets)
	time.Sleep(2 * time.Second) // the flood holds every socket it can
	i := 0
	res := listentest.Measure(requests, 80*time.Millisecond, func() error {
		i++
		if i%2 == 1 {
			return login()
		}
		return page()
	})
	dials := stop()
	t.Logf("operator requests under %d trickling sockets (%d dials): %v", sockets, dials, res)
	if res.OK < requests*99/100 {
		t.Errorf("operator requests under a flood of %d trickling sockets from the same address: %v", sockets, res)
	}
}
