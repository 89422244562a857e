package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/driver"
	"github.com/wasmwright/wasmwright/internal/procfs"
	"github.com/wasmwright/wasmwright/internal/testkit"
)

// hostileServer serves pages that misbehave, on loopback. hung receives a
// value each time /hang is requested; /hang never answers until the test
// ends.
type hostileServer struct {
	*httptest.Server
	hung    chan string
	refused string // a loopback URL nothing listens on
	other   *httptest.Server
}

func hostile(t *testing.T) *hostileServer {
	t.Helper()
	h := &hostileServer{hung: make(chan string, 64)}
	quit := make(chan struct{})
	h.refused = "http://" + testkit.FreeAddr(t) + "/x"
	mux := http.NewServeMux()
	page := htmlPages(mux)
	page("/", `<title>Good</title><h1>A good page</h1>`)
	page("/busy", `<title>Busy</title><h1>Busy</h1><script>while (true) {}</script>`)
	page("/busyclick", `<title>Busy click</title><button onclick="while (true) {}">Spin</button>`)
	page("/slow", `<title>Slow</title><h1>Slow</h1><script>const end = Date.now() + 5000; while (Date.now() < end) {}</script>`)
	page("/popups", `<title>Popups</title><h1>Popups</h1><script>for (let i = 0; i < 200; i++) window.open('/small?' + i)</script>`)
	page("/small", `<title>Small</title><p>small</p>`)
	page("/nocors", fmt.Sprintf(`<title>No-cors</title><h1>No-cors</h1><script src="%s"></script>
		<script>fetch(%q, {mode: "no-cors"}).catch(() => console.log("refused"))</script>`, h.refused+".js", h.refused))
	mux.Handle("/hang", testkit.Hang(h.hung, quit))
	h.Server = httptest.NewServer(mux)
	h.other = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, "refused under the network policy\n")
	}))
	page("/nocors403", `<title>No-cors 403</title><h1>No-cors</h1><script>fetch("`+h.other.URL+`/forbidden", {mode: "no-cors"}).then(() => { console.log("opaque"); document.body.insertAdjacentHTML("beforeend", "<p>opaque fetched</p>") })</script>`)
	t.Cleanup(func() {
		close(quit)
		h.Server.Close()
		h.other.Close()
	})
	return h
}

// callCtx is call with the context a plugin call would carry (its
// deadline, the client's cancellation).
func callCtx[Resp any](t testing.TB, ctx context.Context, s *Service, c *hostfuncs.Caller, name string, req any) (Resp, *abi.Error) {
	t.Helper()
	var resp Resp
	for _, f := range s.HostFuncs() {
		if f.Name != name {
			continue
		}
		in, _ := json.Marshal(req)
		out, err := f.Fn(hostfuncs.WithCaller(ctx, c), "browser", in)
		if err != nil {
			var ae *abi.Error
			if !errors.As(err, &ae) || !ae.Code.Known() {
				t.Fatalf("%s: error without a known code: %v", name, err)
			}
			return resp, ae
		}
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatalf("%s: decoding %s: %v", name, out, err)
		}
		return resp, nil
	}
	t.Fatalf("no host function %s", name)
	return resp, nil
}

// timed runs fn and fails the test when it takes longer than limit. The
// limits catch a call that hangs or waits out a budget it should not:
// they are many times what the call takes on a quiet machine, so a busy
// one passes too (the times are logged; how fast is for make bench).
func timed(t testing.TB, limit time.Duration, what string, fn func()) {
	t.Helper()
	// A busy machine is several times slower than a quiet one (the host
	// no longer stretches its own waits): the hang-catcher allows for it.
	limit *= procfs.MaxStretch
	t0 := time.Now()
	fn()
	d := time.Since(t0)
	t.Logf("%s: %s", what, d.Round(time.Millisecond))
	if d > limit {
		t.Fatalf("%s took %s, want at most %s", what, d.Round(time.Millisecond), limit)
	}
}

func wantAnyCode(t testing.TB, err *abi.Error, codes ...abi.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("want one of %v, got success", codes)
	}
	for _, c := range codes {
		if err.Code == c {
			return
		}
	}
	t.Fatalf("want one of %v, got %s: %s", codes, err.Code, err.Message)
}

// A page spinning in a script wedges its renderer: the navigation to it
// commits but gets no page facts, and the next navigation on the same
// session replaces the stuck tab and loads. The same after a click that starts the loop.
func TestBusyLoopPageThenNavigateRecovers(t *testing.T) {
	withStuckAnswer(t, 3*time.Second)
	h := hostile(t)
	c := caller(t.Name())
	var err *abi.Error
	// The navigation waits only for the commit, so the page surely runs
	// its loop (a load bound of 1 s on a busy machine could stop it before
	// its response came); the page facts then wait on the spinning page
	// until the call's deadline, as a plugin call's.
	nctx, ncancel := context.WithTimeout(context.Background(), procfs.Stretched(5*time.Second))
	defer ncancel()
	timed(t, 30*time.Second, "navigating to a busy page", func() {
		_, err = callCtx[abi.BrowserNavigateResponse](t, nctx, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/busy", WaitUntil: "commit", TimeoutMS: 60000})
	})
	if err != nil { // or an answer without what the spinning page could not give
		wantAnyCode(t, err, abi.CodeNavTimeout, abi.CodeTimeout)
	}
	var r abi.BrowserNavigateResponse
	// A stuck tab gets stuckAnswer to answer before it is replaced.
	timed(t, stuckAnswer()+45*time.Second, "navigating away from the busy page", func() {
		r = must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"})
	})
	if r.Page.Title != "Good" || !strings.Contains(strings.Join(r.State.Warnings, " "), "stopped responding") {
		t.Fatalf("after the busy page: title %q, warnings %v", r.Page.Title, r.State.Warnings)
	}

	r = must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/busyclick"})
	// The click is bounded by its call's deadline (5 s), as a plugin call
	// is, not by the test config's long ActionTimeout.
	cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer ccancel()
	timed(t, 30*time.Second, "clicking a button that spins", func() {
		_, err = callCtx[abi.BrowserActResponse](t, cctx, svc, c, abi.HostBrowserAct, abi.BrowserActRequest{Action: abi.ActClick, Ref: refOf(t, r.Snapshot, `button "Spin"`)})
	})
	if err != nil {
		wantAnyCode(t, err, abi.CodeTimeout, abi.CodeNotInteractable)
	}
	timed(t, stuckAnswer()+45*time.Second, "navigating after the spinning click", func() {
		r = must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"})
	})
	if r.Page.Title != "Good" {
		t.Fatalf("after the spinning click: %+v", r.Page)
	}
	if len(r.State.Tabs) > 1 {
		t.Fatalf("the stuck tab was kept: %+v", r.State.Tabs)
	}
}

// A tab busy for a few seconds is slow, not stuck: after a navigation
// that gave up on it, the next call waits for the tab to answer and keeps
// it, history and all (on a busy machine every tab answers late; issue 23).
func TestSlowTabIsKept(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	h := hostile(t)
	c := caller(t.Name())
	must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"})
	// The page's script keeps it busy for 5 s of wall time; the navigation
	// gives up after 1 s, and the next call comes at once.
	_, err := call[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/slow", TimeoutMS: 1000})
	wantAnyCode(t, err, abi.CodeNavTimeout, abi.CodeTimeout)
	r := must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"})
	if w := strings.Join(r.State.Warnings, " "); r.Page.Title != "Good" || strings.Contains(w, "stopped responding") {
		t.Fatalf("after a slow page: title %q, warnings %s", r.Page.Title, w)
	}
	back := must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserHistory, abi.BrowserHistoryRequest{Direction: "back"})
	if back.Page.Title != "Slow" && back.Page.Title != "Good" {
		t.Fatalf("the slow tab lost its history: back went to %q", back.Page.Title)
	}
}

// A page that opens 200 popups gets at most maxTabs tabs; the rest are
// closed and reported, and the session still answers in bounded time.
func TestPopupStormIsCapped(t *testing.T) {
	t.Parallel() // independent of the package's other tests: overlaps their waits
	h := hostile(t)
	c := caller(t.Name())
	var warnings []string
	timed(t, 60*time.Second, "navigating to the popup storm", func() {
		r, err := call[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/popups", WaitUntil: "domcontentloaded"})
		if err == nil {
			warnings = r.State.Warnings
		}
	})
	var tabs abi.BrowserTabsResponse
	timed(t, 30*time.Second, "listing tabs after the popup storm", func() {
		tabs = must[abi.BrowserTabsResponse](t, svc, c, abi.HostBrowserTabs, abi.BrowserTabsRequest{Action: "list"})
	})
	warnings = append(warnings, tabs.State.Warnings...)
	if n := len(tabs.State.Tabs); n == 0 || n > maxTabs {
		t.Fatalf("%d tabs after a 200-popup page, want 1..%d", n, maxTabs)
	}
	if !strings.Contains(strings.Join(warnings, " "), "popup(s) beyond the limit were closed") {
		t.Fatalf("the closed popups were not reported: %v", warnings)
	}
	timed(t, 30*time.Second, "a snapshot after the popup storm", func() {
		must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	})
	timed(t, 30*time.Second, "navigating after the popup storm", func() {
		if r := must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"}); r.Page.Title != "Good" {
			t.Fatalf("after the popup storm: %+v", r.Page)
		}
	})
}

// A server that never answers: the plugin call's deadline, not the
// navigation timeout, bounds the host function; a client's cancellation
// stops it at once; and the next navigate on the same session works.
func TestNeverAnsweringServerThenNavigate(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	h := hostile(t)
	c := caller(t.Name())
	nav(t, c, "/")
	ctx, cancel := context.WithTimeout(context.Background(), 1200*time.Millisecond)
	defer cancel()
	var err *abi.Error
	// Under NavigationTimeout (30 s): the call's 1.2 s deadline ended it.
	timed(t, 15*time.Second, "a navigation past the call's deadline", func() {
		_, err = callCtx[abi.BrowserNavigateResponse](t, ctx, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/hang"})
	})
	wantAnyCode(t, err, abi.CodeTimeout, abi.CodeNavTimeout)
	timed(t, 30*time.Second, "navigating after the deadline", func() {
		if r := must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"}); r.Page.Title != "Good" {
			t.Fatalf("after the hang: %+v", r.Page)
		}
	})

	// Cancelled by the client once the request reached the server.
	cctx, ccancel := context.WithCancel(context.Background())
	defer ccancel()
	done := make(chan *abi.Error, 1)
	go func() {
		_, err := callCtx[abi.BrowserNavigateResponse](t, cctx, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/hang?cancel"})
		done <- err
	}()
	select {
	case <-h.hung:
	case <-time.After(30 * time.Second):
		t.Fatal("the navigation never reached the server")
	}
	ccancel()
	select {
	case err := <-done:
		wantCode(t, err, abi.CodeTimeout, "cancelled")
	case <-time.After(stuckProbe + 10*time.Second): // it stops the page's load first, bounded by stuckProbe; well under NavigationTimeout
		t.Fatal("the host function kept running after the client cancelled")
	}
	for i := 0; i < 3; i++ {
		_, err = call[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/hang", TimeoutMS: 500})
		wantCode(t, err, abi.CodeNavTimeout, "did not finish loading")
		nav := must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"})
		if nav.Page.Title != "Good" {
			t.Fatalf("after navigation timeout %d: %+v", i, nav.Page)
		}
	}
}

// The body of an opaque no-cors response is never delivered by Chromium:
// reading it is bounded and fails with a code, browser_sources falls back
// to fetching the URL, and the session keeps answering.
func TestOpaqueResponseBodyIsBounded(t *testing.T) {
	t.Parallel() // independent of the package's other tests: overlaps their waits
	h := hostile(t)
	c := caller(t.Name())
	nav(t, c, "/")
	must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/nocors403"})
	// The page says when its fetch has an answer; by then it is logged.
	must[abi.BrowserWaitForResponse](t, svc, c, abi.HostBrowserWaitFor, abi.BrowserWaitForRequest{Text: "opaque fetched", NoSnapshot: true})
	var id int64
	n := must[abi.BrowserNetworkResponse](t, svc, c, abi.HostBrowserNetwork, abi.BrowserNetworkRequest{Static: true})
	for _, r := range n.Requests {
		if strings.HasPrefix(r.URL, h.other.URL) && r.Status == 403 {
			id = r.ID
		}
	}
	if id == 0 {
		t.Fatal("the no-cors request was not logged")
	}
	var err *abi.Error
	// Reading the body and fetching its URL are bounded by ActionTimeout
	// (the test config's generous 30 s), plus a busy machine's slack.
	timed(t, testConfig("").ActionTimeout.D()+30*time.Second, "reading an opaque body", func() {
		_, err = call[abi.BrowserNetworkResponse](t, svc, c, abi.HostBrowserNetwork, abi.BrowserNetworkRequest{BodyOf: id})
	})
	wantCode(t, err, abi.CodeNotFound, "no readable body")
	timed(t, testConfig("").ActionTimeout.D()+30*time.Second, "fetching the opaque response's URL as a source", func() {
		src := must[abi.BrowserSourcesResponse](t, svc, c, abi.HostBrowserSources, abi.BrowserSourcesRequest{Fetch: h.other.URL + "/forbidden"})
		if src.Fetched == nil || !strings.Contains(src.Fetched.Text, "refused under the network policy") {
			t.Fatalf("fetched: %+v", src.Fetched)
		}
	})
	timed(t, 30*time.Second, "a snapshot after the opaque body", func() {
		must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	})
}

// withStuckAnswer makes a tab stuck after d (production: 15 s) for the
// test: a test of a tab that never answers need not wait the whole bound.
// A tab that answers late (TestSlowTabIsKept) keeps the production bound.
func withStuckAnswer(t *testing.T, d time.Duration) {
	old := stuckAnswerNS.Swap(int64(d))
	t.Cleanup(func() { stuckAnswerNS.Store(old) })
}

// privateDriver lays out a driver folder of the test's own, so killing its
// driver touches no other test's browser.
func privateDriver(t *testing.T) string {
	t.Helper()
	opts, err := driver.Options("", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	core := filepath.Join(opts.DriverDirectory, "package")
	if cli := os.Getenv("PLAYWRIGHT_CLI_PATH"); cli != "" {
		core = filepath.Dir(cli)
	}
	node := os.Getenv("PLAYWRIGHT_NODEJS_PATH")
	if node == "" {
		if node, err = exec.LookPath("node"); err != nil {
			t.Fatal(err)
		}
	}
	// driver.Options unsets these for a configured driver_dir: restore them.
	t.Setenv("PLAYWRIGHT_CLI_PATH", os.Getenv("PLAYWRIGHT_CLI_PATH"))
	t.Setenv("PLAYWRIGHT_NODEJS_PATH", os.Getenv("PLAYWRIGHT_NODEJS_PATH"))
	dir := t.TempDir()
	if err := os.Symlink(core, filepath.Join(dir, "package")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(node, filepath.Join(dir, "node")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// driversIn lists the live driver processes of this test binary started
// from the driver folder dir.
func driversIn(dir string) []int {
	var out []int
	for _, p := range procfs.Descendants(os.Getpid()) {
		cmd := procfs.Cmdline(p)
		if alive(p) && strings.Contains(cmd, dir) && strings.Contains(cmd, "run-driver") {
			out = append(out, p)
		}
	}
	return out
}

func alive(pid int) bool {
	s, ok := procfs.ReadStat(pid)
	return ok && s.State != "Z"
}

// Killing the Playwright driver: the call in flight gets browser_crashed
// naming the driver, the sessions on it are dropped (their resources
// released), the next call is told why, and the call after that runs on a
// new driver and browser. A second service sharing the driver recovers
// too, and Close does not hang.
func TestDriverKilledRestarts(t *testing.T) {
	h := hostile(t)
	cfg := testConfig(t.TempDir())
	cfg.DriverDir = privateDriver(t)
	closed := make(chan string, 8)
	s, err := New(cfg, Options{Logger: quietLogger(), OnSessionClosed: func(p, sess string) { closed <- sess }})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := New(cfg, Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	c := caller(t.Name())
	must[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"})
	must[abi.BrowserNavigateResponse](t, s2, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"})
	drivers := driversIn(cfg.DriverDir)
	if len(drivers) != 1 {
		t.Fatalf("want one driver shared by both services, found %v", drivers)
	}
	pid := drivers[0]
	var browsers []int
	for _, p := range procfs.Descendants(pid) {
		if strings.HasPrefix(procfs.Name(p), "chrom") {
			browsers = append(browsers, p)
		}
	}

	done := make(chan *abi.Error, 1)
	go func() {
		_, err := call[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/hang?driver"})
		done <- err
	}()
	select {
	case <-h.hung:
	case <-time.After(30 * time.Second):
		t.Fatal("the navigation never reached the server")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		wantCode(t, err, abi.CodeBrowserCrashed, "driver exited")
		if !strings.Contains(err.Message, "browser_navigate") {
			t.Fatalf("the error does not say what to do: %s", err.Message)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the call in flight did not fail after the driver died")
	}
	// The next call is told why its session is gone...
	_, cerr := call[abi.BrowserSnapshotResponse](t, s, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	wantCode(t, cerr, abi.CodeNoSession, "driver exited")
	select {
	case got := <-closed:
		if got != t.Name() {
			t.Fatalf("session reported closed: %q", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the dead driver's session was not reported closed")
	}
	// ...and the call after runs on a new driver and a new browser.
	r := must[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"})
	if r.Page.Title != "Good" || !strings.Contains(strings.Join(r.State.Warnings, " "), "driver exited") {
		t.Fatalf("after the driver died: %+v %v", r.Page, r.State.Warnings)
	}
	if nd := driversIn(cfg.DriverDir); len(nd) != 1 || nd[0] == pid {
		t.Fatalf("want one new driver, found %v (the old one was %d)", nd, pid)
	}
	// A session that had no call in flight recovers the same way.
	_, cerr = call[abi.BrowserSnapshotResponse](t, s2, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	wantAnyCode(t, cerr, abi.CodeNoSession, abi.CodeBrowserCrashed)
	if r := must[abi.BrowserNavigateResponse](t, s2, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"}); r.Page.Title != "Good" {
		t.Fatalf("second service: %+v", r.Page)
	}
	// The dead driver's browsers do not linger.
	for deadline := time.Now().Add(30 * time.Second); ; {
		var left []int
		for _, p := range browsers {
			if alive(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dead driver's browser processes still run: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
	timed(t, 60*time.Second, "closing the services", func() {
		s.Close(context.Background())
		s2.Close(context.Background())
	})
}

// Close neither hangs on a page stuck in a script nor waits for a call
// stuck on it: the call in flight returns, and Close is bounded.
func TestCloseIsBoundedWithAWedgedPage(t *testing.T) {
	h := hostile(t)
	s, err := New(testConfig(t.TempDir()), Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	c := caller(t.Name())
	must[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"})
	started := make(chan struct{})
	done := make(chan *abi.Error, 1)
	go func() {
		close(started)
		_, err := call[abi.BrowserEvaluateResponse](t, s, c, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{Expression: "() => { while (true) {} }"})
		done <- err
	}()
	<-started
	waitHeld(t, s, t.Name())
	timed(t, 30*time.Second, "closing with a wedged page", func() {
		s.Close(context.Background())
	})
	select {
	case err := <-done:
		wantAnyCode(t, err, abi.CodeNotAvailable, abi.CodeTimeout, abi.CodeNoSession) // no_session: the close ended the wait first
	case <-time.After(20 * time.Second):
		t.Fatal("the call on the wedged page did not return after Close")
	}
}

// A script that never returns: the evaluate ends at its call's deadline, a
// call queued behind it gives up at its own, and the next navigate
// replaces the spinning tab.
func TestStuckEvaluateAndQueuedCall(t *testing.T) {
	withStuckAnswer(t, 3*time.Second)
	h := hostile(t)
	c := caller(t.Name())
	must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	done := make(chan *abi.Error, 1)
	go func() {
		_, err := callCtx[abi.BrowserEvaluateResponse](t, ctx, svc, c, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{Expression: "() => { while (true) {} }"})
		done <- err
	}()
	waitHeld(t, svc, t.Name())
	qctx, qcancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer qcancel()
	timed(t, 10*time.Second, "a call queued behind the stuck evaluate", func() {
		_, err := callCtx[abi.BrowserSnapshotResponse](t, qctx, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
		wantCode(t, err, abi.CodeTimeout, "another call")
	})
	select {
	case err := <-done:
		wantCode(t, err, abi.CodeTimeout, "deadline")
	case <-time.After(20 * time.Second): // its deadline is 3 s; the budget it would run to otherwise, a minute
		t.Fatal("the evaluate outlived its call's deadline")
	}
	timed(t, stuckAnswer()+45*time.Second, "navigating after the stuck evaluate", func() {
		r := must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"})
		if r.Page.Title != "Good" || !strings.Contains(strings.Join(r.State.Warnings, " "), "stopped responding") {
			t.Fatalf("after the stuck evaluate: %+v %v", r.Page, r.State.Warnings)
		}
	})
}

// waitHeld waits until a call holds the session's lock.
func waitHeld(t *testing.T, s *Service, session string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		s.sessions.mu.Lock()
		ss := s.sessions.byKey[key("tester", session)]
		s.sessions.mu.Unlock()
		if ss != nil && !ss.mu.TryLock() {
			return
		} else if ss != nil {
			ss.mu.Unlock()
		}
		if time.Now().After(deadline) {
			t.Fatal("the call never took the session")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// browser_close on a session whose call is stuck returns at once, and the
// stuck call ends with no_session instead of waiting out its budget.
func TestBrowserCloseEndsAStuckCall(t *testing.T) {
	h := hostile(t)
	c := caller(t.Name())
	must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"})
	done := make(chan *abi.Error, 1)
	go func() {
		_, err := call[abi.BrowserEvaluateResponse](t, svc, c, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{Expression: "() => { while (true) {} }"})
		done <- err
	}()
	waitHeld(t, svc, t.Name())
	// At once: well under the minute the stuck call's budget would run.
	timed(t, 15*time.Second, "browser_close with a stuck call", func() {
		if r := must[abi.BrowserCloseResponse](t, svc, c, abi.HostBrowserClose, abi.BrowserCloseRequest{}); !r.Closed {
			t.Fatal("not closed")
		}
	})
	select {
	case err := <-done:
		wantCode(t, err, abi.CodeNoSession, "closed")
	case <-time.After(15 * time.Second):
		t.Fatal("the stuck call outlived its session")
	}
	if r := must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"}); r.Page.Title != "Good" {
		t.Fatalf("after browser_close: %+v", r.Page)
	}
}

// A driver that stops answering (stopped, not dead): Close still returns
// in bounded time, killing it.
func TestCloseIsBoundedWithAHungDriver(t *testing.T) {
	h := hostile(t)
	cfg := testConfig(t.TempDir())
	cfg.DriverDir = privateDriver(t)
	s, err := New(cfg, Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	must[abi.BrowserNavigateResponse](t, s, caller(t.Name()), abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"})
	drivers := driversIn(cfg.DriverDir)
	if len(drivers) != 1 {
		t.Fatalf("drivers: %v", drivers)
	}
	pid := drivers[0]
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	timed(t, 30*time.Second, "closing with a hung driver", func() {
		if err := s.Close(ctx); errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Close waited for its context: %v", err)
		}
	})
	for deadline := time.Now().Add(30 * time.Second); alive(pid); {
		if time.Now().After(deadline) {
			t.Fatal("the hung driver was left running")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestEmulateReadsTheSessionsDriver: a device is looked up on the driver
// the session lives on, not on the service's current Playwright handle,
// which is nil while a dead driver is being replaced (reading it then
// panicked the host).
func TestEmulateReadsTheSessionsDriver(t *testing.T) {
	t.Parallel()                         // its own session: overlaps the package's other tests' waits
	s := &actions{launcher: &launcher{}} // its pw nil, as driverExited leaves it
	ss := &session{drv: &sharedDriver{pw: &pw.Playwright{Devices: map[string]*pw.DeviceDescriptor{"Pixel 7": {}}}}}
	_, _, err := s.emulateDevice(ss, nil, "pixel")
	var e *abi.Error
	if !errors.As(err, &e) || e.Code != abi.CodeInputInvalid || !strings.Contains(e.Message, "Pixel 7") {
		t.Fatalf("unknown device on the session's driver: %v", err)
	}
	_, _, err = s.emulateDevice(&session{}, nil, "Pixel 7")
	if !errors.As(err, &e) || e.Code != abi.CodeNotAvailable {
		t.Fatalf("session without a driver: %v", err)
	}
}

// Reading a whole page (its snapshot, its marks) is bounded like a page
// load, not like an action: a large page's snapshot outlasts
// action_timeout on a busy machine, and the page it belongs to was loaded
// and checked already (issue 23).
func TestReadingAPageIsBoundedLikeALoad(t *testing.T) {
	e := &env{cfg: Config{ActionTimeout: Duration(5 * time.Second), NavigationTimeout: Duration(30 * time.Second)}}
	// The bounds are as written, however busy the machine ([host]
	// stretch_with_load is off unless set).
	if got := e.readBudget(); got != 30*time.Second {
		t.Fatalf("action_timeout 5s, navigation_timeout 30s: reading a page gets %s, want 30s as written", got)
	}
	e.cfg.ActionTimeout = Duration(time.Minute)
	if got := e.readBudget(); got != time.Minute {
		t.Fatalf("action_timeout 1m, navigation_timeout 30s: reading a page gets %s, want the longer 1m as written", got)
	}
	// Where the operator opts in, both bounds stretch alike (1x-4x,
	// procfs.Stretch).
	e.cfg.StretchWithLoad = true
	if got := e.readBudget(); got < time.Minute || got > procfs.MaxStretch*time.Minute {
		t.Fatalf("stretch_with_load: reading a page gets %s, want 1m stretched at most %dx", got, procfs.MaxStretch)
	}
	var bounds []float64
	snapshotTaken = func(o pw.PageAriaSnapshotOptions) { bounds = append(bounds, *o.Timeout) }
	t.Cleanup(func() { snapshotTaken = nil })
	c := caller(t.Name())
	nav(t, c, "/other")
	must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	// The read budget, not action_timeout: the longer of the two bounds,
	// exactly as configured.
	want := float64(max(svc.cfg.NavigationTimeout.D(), svc.cfg.ActionTimeout.D()).Milliseconds())
	if len(bounds) == 0 {
		t.Fatal("no snapshot was taken")
	}
	for _, b := range bounds {
		if b != want {
			t.Fatalf("snapshots bounded by %v ms, want the read budget as configured (%v ms)", bounds, want)
		}
	}
}
