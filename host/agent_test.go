package host

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/internal/testkit"
)

// agentSite is a loopback site an agent's browser may reach, with pages
// that misbehave. /hang never answers until the test ends; hung receives
// each request for it.
type agentSite struct {
	*httptest.Server
	hostport string
	hung     chan string
	dead     string // a loopback host:port nothing listens on
	// release lets /late answer; done receives when /late's page made its
	// refused request.
	release, done chan struct{}
}

func newAgentSite(t *testing.T) *agentSite {
	t.Helper()
	s := &agentSite{hung: make(chan string, 16), release: make(chan struct{}), done: make(chan struct{}, 1)}
	s.dead = testkit.FreeAddr(t)
	quit := make(chan struct{})
	mux := http.NewServeMux()
	page := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!doctype html>"+body)
		})
	}
	page("/", `<title>Good</title><h1>A good page</h1><a href="/other">Other</a>`)
	page("/other", `<title>Other</title><h1>Other page</h1>`)
	// Forms posting where the agent's policy refuses (a private address)
	// or nothing answers (dead).
	page("/forms", fmt.Sprintf(`<title>Forms</title>
		<form method="post" action="http://10.1.2.3/submit"><button>Refused http</button></form>
		<form method="post" action="https://10.1.2.3/submit"><button>Refused https</button></form>
		<form method="post" action="http://%s/submit"><button>Dead</button></form>`, s.dead))
	// A page whose script, once released, makes a refused request after
	// the call that opened it is over.
	page("/late", `<title>Late</title><script>fetch("/go").then(() => fetch("http://10.1.2.3/late", {mode: "no-cors"}).catch(() => {})).finally(() => fetch("/done"))</script>`)
	mux.HandleFunc("/ua", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><meta name="viewport" content="width=device-width"><title>Device</title><p>sent %s</p><p id="js"></p>
			<script>document.getElementById("js").textContent = "width " + innerWidth + " scale " + devicePixelRatio + " touch " + navigator.maxTouchPoints + " agent " + navigator.userAgent</script>`,
			html.EscapeString(r.UserAgent()))
	})
	mux.HandleFunc("/go", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-s.release:
		case <-quit:
		}
	})
	mux.HandleFunc("/done", func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.done <- struct{}{}:
		default:
		}
	})
	mux.Handle("/hang", testkit.Hang(s.hung, quit))
	s.Server = httptest.NewServer(mux)
	s.hostport = strings.TrimPrefix(s.URL, "http://")
	t.Cleanup(func() {
		close(quit)
		s.Server.Close()
	})
	return s
}

// agentHost is a host with the browser plugin, one personality allowed to
// reach site (and nothing else on loopback), and the [browser] settings
// given (over browserConfig's generous timeouts).
func agentHost(t *testing.T, site *agentSite, browserCfg string) *Host {
	t.Helper()
	needBrowser(t)
	f := newFixture(t, map[string]string{"browser": "plugins/browser"})
	return f.browserHost(t, f.browserConfig(`default_personality = "agent"`, browserCfg, fmt.Sprintf(`[plugins.browser]

[personalities.agent]
plugins = ["browser"]
tools = ["*"]
grants = ["browser.read", "browser.act"]
network = { allowed_hosts = [%q, %q] }
`, site.hostport, site.dead)), Options{})
}

// agentCall runs one tool call as the agent would, under ctx.
func agentCall(ctx context.Context, h *Host, session, tool string, args any) (*abi.Result, *abi.Error) {
	raw, _ := json.Marshal(args)
	res, err := h.Call(ctx, Request{Session: session, Tool: tool, Args: raw})
	if err != nil {
		return nil, abi.AsError(err)
	}
	return res, nil
}

func agentMust(t *testing.T, h *Host, session, tool string, args any) *abi.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testenv.CallWait)
	defer cancel()
	res, err := agentCall(ctx, h, session, tool, args)
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return res
}

// A client's cancellation ends the call and whatever it waited for: the
// next call on the session starts at once, while the cancelled wait would
// still be running, and finds the session as it was (the tab and its
// history kept).
func TestAgentCancelledWaitsEnd(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	site := newAgentSite(t)
	h := agentHost(t, site, "")
	agentMust(t, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/"})
	agentMust(t, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/other"})

	for _, tc := range []struct {
		tool    string
		args    map[string]any
		started func(since time.Time) // returns once the call waits
		lasts   time.Duration         // how long the wait would have run
	}{
		// Long waits (30 s: the wait's maximum, and the navigation
		// timeout) so that the call after them answers first on a busy
		// machine too.
		{"browser_wait_for", map[string]any{"seconds": 30}, func(since time.Time) { waitCallIn(t, h, "s", since) }, 30 * time.Second},
		{"browser_navigate", map[string]any{"url": site.URL + "/hang"}, func(time.Time) { <-site.hung }, 30 * time.Second},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan *abi.Error, 1)
		since := time.Now()
		go func() {
			_, err := agentCall(ctx, h, "s", tc.tool, tc.args)
			done <- err
		}()
		tc.started(since)
		// The wait would end no earlier than this, had it kept running.
		waitEnds := time.After(tc.lasts)
		cancel()
		if err := <-done; err == nil || err.Code != abi.CodeTimeout || !strings.Contains(err.Message, "cancelled") {
			t.Fatalf("cancelled %s: %v", tc.tool, err)
		}
		next := make(chan *abi.Result, 1)
		go func() {
			r, err := agentCall(context.Background(), h, "s", "browser_back", map[string]any{})
			if err != nil {
				t.Errorf("after the cancelled %s: %v", tc.tool, err)
			}
			next <- r
		}()
		select {
		case r := <-next:
			if r == nil {
				t.FailNow()
			}
			if r.Page == nil || r.Page.Title != "Good" || strings.Contains(strings.Join(r.Warnings, " "), "stopped responding") {
				t.Fatalf("after the cancelled %s, going back did not reach the first page: %s %v", tc.tool, r.Text, r.Warnings)
			}
		case <-waitEnds:
			t.Fatalf("the call after the cancelled %s waited for it to end", tc.tool)
		}
		agentMust(t, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/other"})
	}
}

// waitCallIn waits until a call on session started after since has taken
// the browser session (its last use is after since).
func waitCallIn(t *testing.T, h *Host, session string, since time.Time) {
	t.Helper()
	var b *browser.Service
	for _, s := range h.svcs {
		if x, ok := s.(*browser.Service); ok {
			b = x
		}
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for _, i := range b.Sessions() {
			if i.Session == session && time.Duration(i.IdleMS)*time.Millisecond < time.Since(since) {
				return
			}
		}
	}
	t.Fatal("the call never took the browser session")
}

// After a navigation times out, the session goes on: the next navigation
// loads, a snapshot answers, and the tab keeps its history.
func TestAgentNavigationTimeoutRecovers(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	site := newAgentSite(t)
	// The hanging navigation times out at its own 1 s; the others load
	// under the generous navigation_timeout, on a busy machine too.
	h := agentHost(t, site, "")
	agentMust(t, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/"})
	for i := 0; i < 2; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := agentCall(ctx, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/hang", "timeout_seconds": 1})
		cancel()
		if err == nil || err.Code != abi.CodeNavTimeout {
			t.Fatalf("navigating to a page that never answers: %v", err)
		}
		r := agentMust(t, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/other"})
		if r.Page == nil || r.Page.Title != "Other" {
			t.Fatalf("the navigation after a timeout: %s", r.Text)
		}
		if w := strings.Join(r.Warnings, " "); strings.Contains(w, "stopped responding") {
			t.Fatalf("a navigation timeout cost the tab: %s", w)
		}
		if r := agentMust(t, h, "s", "browser_snapshot", map[string]any{"snapshot": "full"}); !strings.Contains(r.Snapshot, "Other page") {
			t.Fatalf("snapshot after a timeout: %s", r.Snapshot)
		}
		if r := agentMust(t, h, "s", "browser_back", map[string]any{}); r.Page == nil || r.Page.Title != "Good" {
			t.Fatalf("going back after a timeout: %s", r.Text)
		}
	}
}

// A page that cannot be had is a failure with a code, never a page: a
// name that does not resolve or a port where nothing listens is
// unreachable, a host the policy refuses is refused, whether opened by
// navigate or by submitting a form, over http or https. The message says
// what to do and does not name the resolver. The next call works and
// carries nothing of the failure.
func TestAgentFailuresAreFailures(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	site := newAgentSite(t)
	h := agentHost(t, site, "")
	resolvers := nameservers()
	check := func(what string, err *abi.Error, code abi.Code, says string) {
		t.Helper()
		if err == nil || err.Code != code || !strings.Contains(err.Message, says) {
			t.Fatalf("%s: want %s saying %q, got %v", what, code, says, err)
		}
		for _, ns := range resolvers {
			if strings.Contains(err.Message, ns) {
				t.Errorf("%s: the message names the resolver %s: %s", what, ns, err.Message)
			}
		}
		r := agentMust(t, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/"})
		if r.Page == nil || r.Page.Title != "Good" || len(r.Events) > 0 {
			t.Fatalf("after %s: %s %v", what, r.Text, r.Events)
		}
	}
	for _, tc := range []struct {
		url  string
		code abi.Code
		says string
	}{
		{"http://no-such-host.invalid/", abi.CodeUnreachable, "does not exist"},
		{"https://no-such-host.invalid/", abi.CodeUnreachable, "does not exist"},
		{"http://" + site.dead + "/", abi.CodeUnreachable, "connection refused"},
		{"https://" + site.dead + "/", abi.CodeUnreachable, "connection refused"},
		{"http://10.1.2.3/x", abi.CodeRefused, "allowed_hosts"},
		{"https://10.1.2.3/x", abi.CodeRefused, "allowed_hosts"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), testenv.CallWait)
		_, err := agentCall(ctx, h, "s", "browser_navigate", map[string]any{"url": tc.url})
		cancel()
		check("navigating to "+tc.url, err, tc.code, tc.says)
	}
	for _, tc := range []struct {
		button string
		code   abi.Code
		says   string
	}{
		{"Refused http", abi.CodeRefused, "allowed_hosts"},
		{"Refused https", abi.CodeRefused, "allowed_hosts"},
		{"Dead", abi.CodeUnreachable, "connection refused"},
	} {
		r := agentMust(t, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/forms"})
		m := regexp.MustCompile(`button "` + tc.button + `" \[ref=(\w+)\]`).FindStringSubmatch(r.Snapshot)
		if m == nil {
			t.Fatalf("no button %q in %s", tc.button, r.Snapshot)
		}
		ctx, cancel := context.WithTimeout(context.Background(), testenv.CallWait)
		_, err := agentCall(ctx, h, "s", "browser_click", map[string]any{"ref": m[1]})
		cancel()
		check("submitting "+tc.button, err, tc.code, tc.says)
	}
}

// nameservers are the resolver addresses of this machine.
func nameservers() []string {
	b, _ := os.ReadFile("/etc/resolv.conf")
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "nameserver" {
			out = append(out, f[1])
		}
	}
	return out
}

// A request refused after the call that caused it ended is not reported
// by the next call.
func TestAgentNoBleedBetweenCalls(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	site := newAgentSite(t)
	h := agentHost(t, site, "")
	agentMust(t, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/late"})
	close(site.release)
	<-site.done
	r := agentMust(t, h, "s", "browser_snapshot", map[string]any{"snapshot": "full"})
	if len(r.Events) > 0 {
		t.Fatalf("the snapshot reports what the page did after the last call: %v", r.Events)
	}
}

// Device emulation needs a new browser context: every tab comes back at
// its URL, the current one still current and loaded as the device (user
// agent sent and seen, viewport, scale, touch), and the result says so and
// what was lost.
func TestAgentEmulateKeepsTabs(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	site := newAgentSite(t)
	h := agentHost(t, site, "")
	agentMust(t, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/"})
	agentMust(t, h, "s", "browser_navigate", map[string]any{"url": site.URL + "/ua"})
	agentMust(t, h, "s", "browser_tabs", map[string]any{"action": "open", "url": site.URL + "/other"})
	agentMust(t, h, "s", "browser_tabs", map[string]any{"action": "select", "index": 0})
	r := agentMust(t, h, "s", "browser_emulate", map[string]any{"device": "Pixel 7"})
	for _, want := range []string{"Pixel 7", "new browser context", "2 tab(s) were reopened", "history"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("emulate does not say %q: %s", want, r.Text)
		}
	}
	snap := agentMust(t, h, "s", "browser_snapshot", map[string]any{"snapshot": "full"}).Snapshot
	for _, want := range []string{"sent Mozilla/5.0 (Linux; Android", "width 412 scale 2.625 touch 1 agent Mozilla/5.0 (Linux; Android"} {
		if !strings.Contains(snap, want) {
			t.Errorf("the current tab does not show the device (%q):\n%s", want, snap)
		}
	}
	if tabs := agentMust(t, h, "s", "browser_tabs", map[string]any{"action": "list"}); !strings.Contains(tabs.Text, site.URL+"/other") {
		t.Errorf("the second tab is gone: %s", tabs.Text)
	}
}
