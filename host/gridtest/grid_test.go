// Package gridtest runs wasmwright hosts whose browsers live on a real
// Selenium Grid: a hub and two nodes, each node in a network namespace of
// its own whose only route is to the hub's address, where the hosts'
// egress proxies listen too (internal/seleniumgrid). One grid serves every
// subtest: starting it is most of the cost.
package gridtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/frontend/mcp"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
	"github.com/wasmwright/wasmwright/internal/mcptest"
	"github.com/wasmwright/wasmwright/internal/seleniumgrid"
	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// site is a loopback site the hosts' proxies reach (the nodes do not: it
// is on this machine's loopback), with the egress tests' pages.
type site struct {
	*httptest.Server
	hostport string
	// signedIn receives "user:pass" of the login form's submission.
	signedIn chan string
	// held receives a signal when /held is requested; that response stays
	// open until release is closed (or the request goes away), so a
	// navigate to it is a call truly in flight.
	held    chan struct{}
	release chan struct{}
}

func newSite(t *testing.T, canary string) *site {
	t.Helper()
	signedIn := make(chan string, 1)
	held, release := make(chan struct{}, 4), make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/held", func(w http.ResponseWriter, r *http.Request) {
		select {
		case held <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	page := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!doctype html>"+body)
		})
	}
	page("/", `<title>Good</title><h1>A good page</h1>`)
	// pointer says what the browser tells a page of its pointer: a local
	// headless one, as Playwright launches it, has a mouse that hovers.
	page("/pointer", `<title>Pointer</title><script>document.title = "hover " + matchMedia("(hover: hover)").matches + ", fine pointer " + matchMedia("(pointer: fine)").matches</script><h1>Pointer</h1>`)
	// press is a big button at the page's corner: a click on the live
	// view's picture lands on it, and the title says so.
	page("/press", `<title>Press</title><style>body{margin:0}#b{position:absolute;left:0;top:0;width:600px;height:400px;font-size:40px}</style>
		<button id="b" onclick="this.textContent='clicked';document.title='clicked by a human'">Press me</button>`)
	mux.HandleFunc("/signed-in", func(w http.ResponseWriter, r *http.Request) {
		select {
		case signedIn <- r.PostFormValue("user") + ":" + r.PostFormValue("pass"):
		default:
		}
		io.WriteString(w, "<!doctype html><title>Welcome</title><h1>Signed in</h1>")
	})
	page("/login", `<title>Login</title><form method="post" action="/signed-in"><label>User <input name="user" autocomplete="username"></label>
		<label>Password <input type="password" name="pass" autocomplete="current-password"></label><button>Sign in</button></form>`)
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://10.1.2.3/", http.StatusFound)
	})
	page("/sub", `<title>Sub</title><h1>Subresources</h1><img src="http://10.1.2.3/x.png"><script src="http://10.1.2.3/x.js"></script>`)
	// The hostile page tries every way out it has to the one address
	// besides the proxy that a node can route to (the canaries there),
	// by name and by address, over HTTP, WebSocket, WebRTC (STUN and TURN
	// over UDP) and DNS, then says it is done.
	page("/hostile", fmt.Sprintf(`<title>Hostile</title><h1 id="h">running</h1><script>
	const c = %q, tries = [];
	const f = u => tries.push(fetch(u, {mode: "no-cors"}).catch(() => {}));
	f("http://" + c + "/x"); f("https://" + c + "/x"); f("http://canary-name.test/x"); f("http://canary-name.test:" + c.split(":")[1] + "/x");
	try { const ws = new WebSocket("ws://" + c + "/ws"); tries.push(new Promise(r => { ws.onerror = r; ws.onclose = r; setTimeout(r, 3000) })) } catch (e) {}
	try {
		const pc = new RTCPeerConnection({iceServers: [{urls: "stun:" + c.split(":")[0] + ":3478"}, {urls: "turn:" + c.split(":")[0] + ":3478?transport=udp", username: "u", credential: "p"}, {urls: "stun:canary-name.test:3478"}]});
		pc.createDataChannel("x");
		tries.push(pc.createOffer().then(o => pc.setLocalDescription(o)).then(() => new Promise(r => { pc.onicegatheringstatechange = () => pc.iceGatheringState === "complete" && r(); setTimeout(r, 4000) })));
	} catch (e) {}
	Promise.allSettled(tries).then(() => { document.getElementById("h").textContent = "hostile done" });
	</script>`, canary))
	s := &site{Server: httptest.NewServer(mux), signedIn: signedIn, held: held, release: release}
	s.hostport = strings.TrimPrefix(s.URL, "http://")
	t.Cleanup(func() { close(release); s.Close() })
	return s
}

// canaries listen on the grid's host address, where only the hub and the
// egress proxies should be reached: TCP on a port of their own, UDP on 53
// (the nodes' nameserver) and 3478 (STUN/TURN). Any packet is a way out.
type canaries struct {
	tcp  string
	hits atomic.Int64
	what atomic.Value
}

func newCanaries(t *testing.T, ip string) *canaries {
	t.Helper()
	c := &canaries{}
	hit := func(what string) { c.hits.Add(1); c.what.Store(what) }
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	c.tcp = l.Addr().String()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			hit("tcp from " + conn.RemoteAddr().String())
			conn.Close()
		}
	}()
	t.Cleanup(func() { l.Close() })
	for _, port := range []string{"53", "3478"} {
		u, err := net.ListenPacket("udp", net.JoinHostPort(ip, port))
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			buf := make([]byte, 2048)
			for {
				_, from, err := u.ReadFrom(buf)
				if err != nil {
					return
				}
				hit("udp :" + port + " from " + from.String())
			}
		}()
		t.Cleanup(func() { u.Close() })
	}
	return c
}

// gridHost starts a host whose browser is on the grid at gridURL, its
// egress proxy on proxyIP, one personality "agent" allowed to reach
// allowed; extra adds [browser] keys, network [network] ones.
func gridHost(t *testing.T, plugins, gridURL, proxyIP, allowed, extra string, network ...string) *host.Host {
	t.Helper()
	h, _ := newGridHost(t, gridSpec{plugins: plugins, grid: gridURL, proxyIP: proxyIP, allowed: allowed, browser: extra, network: strings.Join(network, "\n")})
	return h
}

// gridSpec shapes a grid host: the keys of gridHost, plus grants beside
// the browser's and vault.fill, and tail (more tables, [console]) with an
// operator surface (host.Options.Operators).
type gridSpec struct {
	plugins, grid, proxyIP, allowed string
	browser, network                string
	grants                          []string
	tail                            string
	operators                       bool
}

func newGridHost(t *testing.T, sp gridSpec) (*host.Host, *host.Config) {
	t.Helper()
	plugins, gridURL, proxyIP, allowed, extra := sp.plugins, sp.grid, sp.proxyIP, sp.allowed, sp.browser
	grants := append([]string{"browser.read", "browser.act", "vault.fill"}, sp.grants...)
	gq, _ := json.Marshal(grants)
	dir := t.TempDir()
	cfgText := fmt.Sprintf(`[host]
plugins_dir = %q
cache_dir = %q
call_timeout = "180s"
default_personality = "agent"

[browser]
grid = %q
headed = "false"
workspace_dir = "ws"
action_timeout = "30s"
navigation_timeout = "60s"
%s

[network]
proxy_listen = %q
%s

[vault]
file = "vault.age"

[plugins.browser]

[personalities.agent]
plugins = ["browser"]
tools = ["*"]
grants = %s
network = { allowed_hosts = [%q] }
%s
`, plugins, filepath.Join(dir, "cache"), gridURL, extra, proxyIP, sp.network, gq, allowed, sp.tail)
	if !strings.Contains(extra, "grid_queue_timeout") {
		cfgText = strings.Replace(cfgText, "headed = ", "grid_queue_timeout = \"60s\"\nheaded = ", 1)
	}
	cfg, err := host.ParseConfig(cfgText, "grid.toml", dir)
	if err != nil {
		t.Fatal(err)
	}
	var w io.Writer = io.Discard
	if os.Getenv("GRIDTEST_LOG") != "" {
		w = os.Stderr
	}
	h, err := host.New(context.Background(), cfg, host.Options{Logger: slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})), Operators: sp.operators})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h, cfg
}

func call(h *host.Host, session, tool string, args any) (*abi.Result, *abi.Error) {
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	res, err := h.Call(ctx, host.Request{Session: session, Tool: tool, Args: raw})
	if err != nil {
		return nil, abi.AsError(err)
	}
	return res, nil
}

func must(t *testing.T, h *host.Host, session, tool string, args any) *abi.Result {
	t.Helper()
	res, err := call(h, session, tool, args)
	if err != nil {
		t.Fatalf("%s %s %v: %v", session, tool, args, err)
	}
	return res
}

// TestGrid is every grid test on one grid.
func TestGrid(t *testing.T) {
	testenv.Heavy(t, "Java, chromedriver, Chromium and the Selenium server")
	root := wasmbuild.Root()
	miss := seleniumgrid.Missing(root)
	testenv.Require(t, miss == "", miss)
	t0 := time.Now()
	logs, err := os.MkdirTemp("", "gridtest-logs-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			dumpLogs(t, logs)
		}
		os.RemoveAll(logs)
	})
	g, err := seleniumgrid.Start(context.Background(), seleniumgrid.Options{Root: root, Nodes: 2, MaxSessions: 1, LogDir: logs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	t.Logf("grid up in %s: hub %s, nodes %s, %s", time.Since(t0).Round(time.Millisecond), g.HubURL, g.Nodes[0].URI, g.Nodes[1].URI)
	plugins := filepath.Join(t.TempDir(), "plugins")
	if _, err := wasmbuild.Install(plugins, map[string]string{"browser": "plugins/browser"}); err != nil {
		t.Fatal(err)
	}
	cn := newCanaries(t, g.HostIP)
	s := newSite(t, cn.tcp)
	// The first host's capabilities are nested TOML tables, as an operator
	// writes goog:chromeOptions: read whole, checked, sent to the nodes.
	h := gridHost(t, plugins, g.HubURL, g.HostIP, s.hostport, `[browser.grid_capabilities."goog:chromeOptions"]
args = ["--lang=fr-FR"]
prefs = { intl = { accept_languages = "fr-FR" } }`)

	t.Run("SessionsSpreadOverNodes", func(t *testing.T) { spread(t, g, h, s) })
	t.Run("EgressHoldsOnANode", func(t *testing.T) { egress(t, h, s, cn) })
	t.Run("FullGridWaitsThenResourceLimit", func(t *testing.T) { fullGrid(t, g, h, s, plugins) })
	t.Run("TwoHostsOneGrid", func(t *testing.T) { twoHosts(t, g, h, s, plugins) })
	t.Run("StoredLoginFilledOnANode", func(t *testing.T) { storedLogin(t, h, s) })
	t.Run("GridDown", func(t *testing.T) { gridDown(t, g, plugins, s) })
	t.Run("TakeoverThroughTheConsole", func(t *testing.T) { takeoverOnAGrid(t, g, plugins, s) })
	t.Run("NodeLost", func(t *testing.T) { nodeLost(t, g, h, s) })
	t.Run("HubRestart", func(t *testing.T) { hubRestart(t, g, h, s) })
	if n := cn.hits.Load(); n > 0 {
		t.Errorf("a node reached this machine besides the hub and its proxy: %d connection(s), last %v", n, cn.what.Load())
	}
}

// spread: two sessions land on the two nodes (one slot each) and load a
// page through the host's proxy. The node's browser is the one Playwright
// would launch locally (its switches on the host's command line): a page
// sees a mouse that hovers, not a touch screen.
func spread(t *testing.T, g *seleniumgrid.Grid, h *host.Host, s *site) {
	for _, sess := range []string{"s1", "s2"} {
		res := must(t, h, sess, "browser_navigate", map[string]any{"url": s.URL + "/"})
		if !strings.Contains(res.Text, "Page: Good") {
			t.Fatalf("%s: page not shown:\n%s", sess, res.Text)
		}
	}
	if res := must(t, h, "s1", "browser_navigate", map[string]any{"url": s.URL + "/pointer"}); !strings.Contains(res.Text, "Page: hover true, fine pointer true") {
		t.Errorf("the grid browser tells pages another pointer than a local one (hover true, fine pointer true):\n%s", res.Text)
	}
	got, err := g.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got[g.Nodes[0].URI] != 1 || got[g.Nodes[1].URI] != 1 {
		t.Errorf("want one session on each node, got %v", got)
	}
	for _, sess := range []string{"s1", "s2"} {
		must(t, h, sess, "browser_close", map[string]any{})
	}
	waitSessions(t, g, 0)
}

// egress: today's egress answers, on a node.
func egress(t *testing.T, h *host.Host, s *site, cn *canaries) {
	if _, err := call(h, "e", "browser_navigate", map[string]any{"url": "http://10.1.2.3/"}); err == nil || err.Code != abi.CodeRefused {
		t.Errorf("a private address: want refused, got %v", err)
	}
	if _, err := call(h, "e", "browser_navigate", map[string]any{"url": s.URL + "/redirect"}); err == nil || err.Code != abi.CodeRefused {
		t.Errorf("a redirect to a private address: want refused, got %v", err)
	}
	res := must(t, h, "e", "browser_navigate", map[string]any{"url": s.URL + "/sub"})
	events := strings.Join(res.Events, "\n")
	named := func(events string) bool { // a line per origin: "2 to http://10.1.2.3 (...): /x.png, /x.js"
		return strings.Contains(events, "10.1.2.3") && strings.Contains(events, "/x.png") && strings.Contains(events, "/x.js")
	}
	if !named(events) {
		events += "\n" + strings.Join(must(t, h, "e", "browser_snapshot", map[string]any{}).Events, "\n")
	}
	if !strings.Contains(res.Text, "Page: Sub") || !named(events) {
		t.Errorf("subresources: want the page and its refused requests named:\n%s\nevents:\n%s", res.Text, events)
	}
	res = must(t, h, "e", "browser_navigate", map[string]any{"url": s.URL + "/hostile"})
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(res.Text, "hostile done") && time.Now().Before(deadline) {
		res = must(t, h, "e", "browser_wait_for", map[string]any{"text": "hostile done", "timeout_seconds": 30})
	}
	if !strings.Contains(res.Text, "hostile done") {
		t.Fatalf("the hostile page did not finish:\n%s", res.Text)
	}
	if n := cn.hits.Load(); n > 0 {
		t.Errorf("the hostile page reached a canary: %v", cn.what.Load())
	}
	must(t, h, "e", "browser_close", map[string]any{})
}

// fullGrid: with every slot taken the next open waits in the queue up to
// grid_queue_timeout, then fails resource_limit naming the key. The call
// comes from an MCP client that sent a progress token: it hears that the
// session waits in the grid's queue while it does.
func fullGrid(t *testing.T, g *seleniumgrid.Grid, h *host.Host, s *site, plugins string) {
	for _, sess := range []string{"f1", "f2"} {
		must(t, h, sess, "browser_navigate", map[string]any{"url": s.URL + "/"})
	}
	// A host of its own, with a short wait: the node's start allowance
	// (60s) comes on top.
	hq := gridHost(t, plugins, g.HubURL, g.HostIP, s.hostport, `grid_queue_timeout = "5s"`)
	var mu sync.Mutex
	var notes []string
	cs := mcpClient(t, hq, "f3", &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		notes = append(notes, req.Params.Message)
		mu.Unlock()
	}})
	params := &sdk.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": s.URL + "/"}}
	params.SetProgressToken("open")
	t0 := time.Now()
	res, cerr := cs.CallTool(context.Background(), params)
	waited := time.Since(t0)
	if cerr != nil {
		t.Fatal(cerr)
	}
	answer := mcptest.Text(res)
	t.Logf("full grid answer after %s: %s", waited.Round(time.Millisecond), answer)
	if !res.IsError || !strings.HasPrefix(answer, "error resource_limit: ") || !strings.Contains(answer, "browser.grid_queue_timeout") {
		t.Errorf("want resource_limit naming browser.grid_queue_timeout, got %s", answer)
	}
	// No longer than grid_queue_timeout, whatever the hub's own timeout
	// (600 s here): the host withdraws its request (before, it waited 60 s
	// more, a node's start allowance).
	if waited < 5*time.Second || waited > 30*time.Second {
		t.Errorf("answered after %s: want about grid_queue_timeout (5s)", waited)
	}
	mu.Lock()
	queued := 0
	for _, n := range notes {
		if strings.Contains(n, "waiting for a Selenium Grid node") && strings.Contains(n, "browser.grid_queue_timeout") {
			queued++
		}
	}
	t.Logf("%d progress notifications while the session waited in the queue, of %d; first: %q", queued, len(notes), first(notes))
	if queued == 0 {
		t.Errorf("no progress notification said the session waits in the grid's queue: %q", notes)
	}
	mu.Unlock()
	// The withdrawn request left the hub's queue: it will not take the
	// slot freed next for a session nobody drives.
	if q := hubQueue(t, g); q != 0 {
		t.Errorf("%d session request(s) still in the hub's queue after the answer", q)
	}
	for _, sess := range []string{"f1", "f2"} {
		must(t, h, sess, "browser_close", map[string]any{})
	}
	waitSessions(t, g, 0)
}

// hubQueue counts the requests in the hub's new-session queue.
func hubQueue(t *testing.T, g *seleniumgrid.Grid) int {
	t.Helper()
	resp, err := http.Get(g.HubURL + "/se/grid/newsessionqueue/queue")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var q struct {
		Value []json.RawMessage `json:"value"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&q); err != nil {
		t.Fatal(err)
	}
	return len(q.Value)
}

// hubRestart: the hub dies under a live session and comes back. The next
// call answers browser_crashed naming the hub, not the healthy node; the
// host ends the orphaned browser at its node, so once the nodes
// registered with the new hub no slot is held by it (before, every slot
// stayed busy until the node's 5-minute session timeout), and the call
// after opens a fresh session.
func hubRestart(t *testing.T, g *seleniumgrid.Grid, h *host.Host, s *site) {
	waitSessions(t, g, 0)
	must(t, h, "r", "browser_navigate", map[string]any{"url": s.URL + "/"})
	got, err := g.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	g.KillHub()
	_, aerr := call(h, "r", "browser_snapshot", map[string]any{})
	t.Logf("hub killed, next call: %v", aerr)
	if aerr == nil || aerr.Code != abi.CodeBrowserCrashed || !strings.Contains(aerr.Message, "hub at "+g.HubURL) || strings.Contains(aerr.Message, "was lost") {
		t.Errorf("want browser_crashed naming the hub %s, not a node loss, got %v", g.HubURL, aerr)
	}
	t0 := time.Now()
	if err := g.RestartHub(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("hub back with its nodes in %s (sessions before the kill: %v)", time.Since(t0).Round(time.Millisecond), got)
	t0 = time.Now()
	waitSessions(t, g, 0)
	t.Logf("no session left on the grid %s after the nodes registered again", time.Since(t0).Round(time.Millisecond))
	res, aerr := call(h, "r", "browser_navigate", map[string]any{"url": s.URL + "/"})
	if aerr != nil && aerr.Code == abi.CodeBrowserCrashed { // the loss is told once more if the first answer raced it
		res, aerr = call(h, "r", "browser_navigate", map[string]any{"url": s.URL + "/"})
	}
	if aerr != nil || !strings.Contains(res.Text, "Page: Good") {
		t.Fatalf("after the hub returned: want a fresh session, got %v", aerr)
	}
	must(t, h, "r", "browser_close", map[string]any{})
	waitSessions(t, g, 0)
}

// twoHosts: a second host on the same grid, its own proxy and policy: its
// session loads its own site, not the first host's, while the first
// host's session loads its own. The second host's proxy speaks TLS with a
// key it made (proxy_tls): its node's browser trusts that key alone.
func twoHosts(t *testing.T, g *seleniumgrid.Grid, h *host.Host, s *site, plugins string) {
	s2 := newSite(t, "127.0.0.1:9")
	// The second host drives its browser straight at its node (grid_cdp).
	h2 := gridHost(t, plugins, g.HubURL, g.HostIP, s2.hostport, `grid_cdp = "node"`, "proxy_tls = true")
	if n := driverLinksToNodes(t, g); n != 0 {
		t.Fatalf("before any node-CDP session, the drivers hold %d connections to the nodes", n)
	}
	res := must(t, h2, "b", "browser_navigate", map[string]any{"url": s2.URL + "/"})
	if !strings.Contains(res.Text, "Page: Good") {
		t.Fatalf("second host: page not shown:\n%s", res.Text)
	}
	if n := driverLinksToNodes(t, g); n != 1 {
		t.Errorf("grid_cdp = node: the drivers hold %d CDP connections to the nodes, want 1 (the second host's session)", n)
	}
	res = must(t, h, "a", "browser_navigate", map[string]any{"url": s.URL + "/"})
	if !strings.Contains(res.Text, "Page: Good") {
		t.Fatalf("first host: page not shown:\n%s", res.Text)
	}
	if _, err := call(h2, "b", "browser_navigate", map[string]any{"url": s.URL + "/"}); err == nil || err.Code != abi.CodeRefused {
		t.Errorf("second host, first host's site: want refused by its own proxy's policy, got %v", err)
	}
	if n := driverLinksToNodes(t, g); n != 1 {
		t.Errorf("a session through the hub beside it: the drivers hold %d connections to the nodes, want still 1", n)
	}
	must(t, h, "a", "browser_close", map[string]any{})
	must(t, h2, "b", "browser_close", map[string]any{})
	waitSessions(t, g, 0)
}

// storedLogin: a credential from the host's vault is filled into a page on
// a node (its values go over CDP through the hub) and submitted through
// the proxy: the site receives them, the agent's results never show the
// password.
func storedLogin(t *testing.T, h *host.Host, s *site) {
	const pass = "grid-Pa55-word"
	t.Setenv(vault.PassphraseEnv, "")
	store := vault.Open(vault.Options{File: filepath.Join(h.Config().Dir, "vault.age")})
	c := vault.Credential{Name: "site", Username: "ada", Password: pass}
	c.Policy.Origins, c.Policy.Personalities, c.Policy.Unattended = []string{s.URL}, []string{"agent"}, true
	if err := store.Put(c); err != nil {
		t.Fatal(err)
	}
	defer call(h, "v", "browser_close", map[string]any{})
	snap := must(t, h, "v", "browser_navigate", map[string]any{"url": s.URL + "/login"}).Snapshot
	ref := func(role string) string {
		m := regexp.MustCompile(role + `.*\[ref=(\w+)\]`).FindStringSubmatch(snap)
		if m == nil {
			t.Fatalf("no %s in\n%s", role, snap)
		}
		return m[1]
	}
	res := must(t, h, "v", "browser_fill_credential", map[string]any{"credential": "site", "username_ref": ref(`textbox "User"`), "password_ref": ref(`textbox "Password"`)})
	res2 := must(t, h, "v", "browser_click", map[string]any{"ref": ref(`button "Sign in"`)})
	select {
	case got := <-s.signedIn:
		if got != "ada:"+pass {
			t.Errorf("the site received %q", got)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the form was not submitted")
	}
	if out, _ := json.Marshal([]any{res, res2}); strings.Contains(string(out), pass) {
		t.Errorf("the password is in a result: %s", out)
	}
}

// gridDown: a hub that does not answer is not_available naming browser.grid.
func gridDown(t *testing.T, g *seleniumgrid.Grid, plugins string, s *site) {
	l, err := net.Listen("tcp", net.JoinHostPort(g.HostIP, "0"))
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	h := gridHost(t, plugins, dead, g.HostIP, s.hostport, "")
	_, aerr := call(h, "d", "browser_navigate", map[string]any{"url": s.URL + "/"})
	t.Logf("grid down: %v", aerr)
	if aerr == nil || aerr.Code != abi.CodeNotAvailable || !strings.Contains(aerr.Message, "browser.grid") {
		t.Errorf("want not_available naming browser.grid, got %v", aerr)
	}
}

// nodeLost: the node of a session dies while a call is in flight (a
// navigate whose response the site holds open): that call and the next
// one get browser_crashed naming the node, and the call after opens a
// fresh session on the live node, saying so.
func nodeLost(t *testing.T, g *seleniumgrid.Grid, h *host.Host, s *site) {
	waitSessions(t, g, 0)
	must(t, h, "k", "browser_navigate", map[string]any{"url": s.URL + "/"})
	got, err := g.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var lost, live *seleniumgrid.Node
	for _, n := range g.Nodes {
		if got[n.URI] == 1 {
			lost = n
		} else {
			live = n
		}
	}
	if lost == nil || live == nil {
		t.Fatalf("want the session on one node: %v", got)
	}
	type answer struct {
		err  *abi.Error
		took time.Duration
	}
	inflight := make(chan answer, 1)
	go func() {
		_, aerr := call(h, "k", "browser_navigate", map[string]any{"url": s.URL + "/held"})
		inflight <- answer{aerr, 0}
	}()
	select {
	case <-s.held: // the node's browser asked for the page: the call is in flight
	case a := <-inflight:
		t.Fatalf("the navigate to the held page answered before the page was asked for: %v", a.err)
	case <-time.After(2 * time.Minute):
		t.Fatal("the node's browser never asked for the held page")
	}
	t0 := time.Now()
	g.KillNode(lost)
	var a answer
	select {
	case a = <-inflight:
		a.took = time.Since(t0)
	case <-time.After(3 * time.Minute):
		t.Fatal("the in-flight call never answered after its node was killed")
	}
	t.Logf("node lost, in-flight call (answered %s after the kill): %v", a.took.Round(time.Millisecond), a.err)
	wantLost := func(which string, aerr *abi.Error) {
		t.Helper()
		if aerr == nil || aerr.Code != abi.CodeBrowserCrashed || !strings.Contains(aerr.Message, lost.URI) {
			t.Errorf("%s: want browser_crashed naming %s, got %v", which, lost.URI, aerr)
		}
	}
	wantLost("the in-flight call", a.err)
	_, aerr := call(h, "k", "browser_snapshot", map[string]any{})
	t.Logf("node lost, next call: %v", aerr)
	wantLost("the next call", aerr)
	res := must(t, h, "k", "browser_navigate", map[string]any{"url": s.URL + "/"})
	out, _ := json.Marshal(res) // the warning rides with the result, not in its text
	t.Logf("node lost, the call after: %s", out)
	if !strings.Contains(res.Text, "Page: Good") || !strings.Contains(string(out), "fresh browser session") || !strings.Contains(string(out), lost.URI) {
		t.Errorf("want a fresh session saying so, naming %s:\n%s", lost.URI, out)
	}
	if got, _ := g.Sessions(context.Background()); got[live.URI] != 1 {
		t.Errorf("want the fresh session on %s: %v", live.URI, got)
	}
	must(t, h, "k", "browser_close", map[string]any{})
}

// mcpClient serves h over MCP to an in-memory client as personality
// "agent", session: a client as an agent's would be, its progress
// notifications every 500 ms.
func mcpClient(t *testing.T, h *host.Host, session string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	srv := mcp.New(h, mcp.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), ProgressEvery: 500 * time.Millisecond})
	st, ct := sdk.NewInMemoryTransports()
	go srv.ServeTransport(context.Background(), st, "agent", session)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "gridtest", Version: "1"}, opts).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// waitSessions polls the hub until n sessions run (a closed browser's
// slot is freed by the node a moment after the close returns).
func waitSessions(t *testing.T, g *seleniumgrid.Grid, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		got, err := g.Sessions(context.Background())
		total := 0
		for _, c := range got {
			total += c
		}
		if err == nil && total == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("want %d sessions on the grid, got %v (%v)", n, got, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func dumpLogs(t *testing.T, dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && strings.HasSuffix(e.Name(), ".log") {
			if len(b) > 4000 {
				b = b[len(b)-4000:]
			}
			t.Logf("== %s (tail)\n%s", e.Name(), b)
		}
	}
}
