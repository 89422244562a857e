package browser

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/driver"
	"github.com/wasmwright/wasmwright/internal/procfs"
	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/sandbox"
)

// The tests drive a real Chromium against pages served on loopback. One
// driver serves the whole test binary (it costs ~0.8 s to start); most
// tests share one Service and use their own session names.
var (
	srv       *httptest.Server
	svc       *Service
	uploadDir string
	secretsMu sync.Mutex
	secrets   []string
)

func TestMain(m *testing.M) {
	// The tests here share one browser service (Chromium and the driver):
	// the short tier runs none of them.
	if testenv.ShortMain("hostfuncs/browser", "one Chromium and the Playwright driver") {
		os.Exit(0)
	}
	if err := Preflight(Config{}); err != nil {
		fmt.Fprintf(os.Stderr, "hostfuncs/browser tests need Chromium and the Playwright driver: run make deps\n(apt-get install -y chromium; npm install --prefix build/driver playwright-core@%s)\n%v\n", DriverVersion, err)
		os.Exit(1)
	}
	srv = fixtures()
	tmp, _ := os.MkdirTemp("", "ww-browser-test-")
	uploadDir = filepath.Join(tmp, "uploads")
	os.MkdirAll(uploadDir, 0o755)
	os.WriteFile(filepath.Join(uploadDir, "hello.txt"), []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(tmp, "secret.txt"), []byte("outside"), 0o644)
	var err error
	svc, err = New(testConfig(tmp), Options{
		Logger: quietLogger(),
		OnSecret: func(p, s, v string) {
			secretsMu.Lock()
			secrets = append(secrets, p+"/"+s+"="+v)
			secretsMu.Unlock()
		},
		SecretValues: heldSecrets,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	if err := svc.Close(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "closing:", err)
	}
	cancel()
	srv.Close()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// testConfig has generous timeouts: a snapshot or a marked screenshot of
// a crowded page can take seconds on a busy machine, and a local page
// seconds to load. A test that wants a timeout to fire gives the call its
// own (TimeoutMS, a context deadline); the "at once" checks (at most
// atOnce) stay well under ActionTimeout, so they still tell an answer at
// once from one that waited the timeout out. Sessions: each test opens
// its own and leaves it open; with tests in parallel on a busy machine,
// sixteen (the default) let a slow test's session be closed as the least
// recently used between two of its calls, so the shared service keeps
// more (the tests of eviction set their own bound).
func testConfig(tmp string) Config {
	return Config{
		MaxContexts:       40,
		Headed:            "false",
		WorkspaceDir:      filepath.Join(tmp, "workspace"),
		UploadDir:         filepath.Join(tmp, "uploads"),
		ProfilesDir:       filepath.Join(tmp, "profiles"),
		ActionTimeout:     Duration(30 * time.Second),
		NavigationTimeout: Duration(30 * time.Second),
	}
}

// atOnce bounds what must fail without waiting for ActionTimeout: a few
// milliseconds on a quiet machine, seconds on a busy one.
const atOnce = 10 * time.Second

func quietLogger() *slog.Logger {
	if os.Getenv("WW_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

func caller(session string, grants ...capability.ID) *hostfuncs.Caller {
	return hostfuncs.NewCaller(callerInfo(session, grants...))
}

// callerInfo is what caller makes its caller from, for a test that sets
// more of it.
func callerInfo(session string, grants ...capability.ID) hostfuncs.CallerInfo {
	if len(grants) == 0 {
		grants = []capability.ID{capability.BrowserRead, capability.BrowserAct, capability.BrowserEval}
	}
	set := capability.Set{}
	for _, g := range grants {
		set[g] = true
	}
	return hostfuncs.CallerInfo{Personality: "tester", Session: session, Plugin: "browser", Grants: set}
}

// call runs a host function the way a plugin would reach it: by name,
// through the grant guard, with JSON in and out.
func call[Resp any](t testing.TB, s *Service, c *hostfuncs.Caller, name string, req any) (Resp, *abi.Error) {
	t.Helper()
	var resp Resp
	var fn *sandbox.HostFunc
	for _, f := range s.HostFuncs() {
		if f.Name == name {
			fn = &f
			break
		}
	}
	if fn == nil {
		t.Fatalf("no host function %s", name)
	}
	in, _ := json.Marshal(req)
	out, err := fn.Fn(hostfuncs.WithCaller(context.Background(), c), "browser", in)
	if err != nil {
		var ae *abi.Error
		if !errors.As(err, &ae) {
			t.Fatalf("%s: error without a code: %v", name, err)
		}
		if !ae.Code.Known() {
			t.Fatalf("%s: unknown code %q", name, ae.Code)
		}
		return resp, ae
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("%s: decoding %s: %v", name, out, err)
	}
	return resp, nil
}

func must[Resp any](t testing.TB, s *Service, c *hostfuncs.Caller, name string, req any) Resp {
	t.Helper()
	r, err := call[Resp](t, s, c, name, req)
	if err != nil {
		t.Fatalf("%s %+v: %v", name, req, err)
	}
	return r
}

func wantCode(t testing.TB, err *abi.Error, code abi.Code, contains string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s, got success", code)
	}
	if err.Code != code || !strings.Contains(err.Message, contains) {
		t.Fatalf("want %s containing %q, got %s: %s", code, contains, err.Code, err.Message)
	}
}

// refOf finds the ref on the first snapshot line containing text.
func refOf(t testing.TB, snap, text string) string {
	t.Helper()
	for _, l := range strings.Split(snap, "\n") {
		if strings.Contains(l, text) {
			if m := regexp.MustCompile(`\[ref=([a-z0-9]+)\]`).FindStringSubmatch(l); m != nil {
				return m[1]
			}
		}
	}
	t.Fatalf("no ref for %q in snapshot:\n%s", text, snap)
	return ""
}

func nav(t testing.TB, c *hostfuncs.Caller, path string) abi.BrowserNavigateResponse {
	t.Helper()
	return must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + path})
}

func act(t testing.TB, c *hostfuncs.Caller, req abi.BrowserActRequest) abi.BrowserActResponse {
	t.Helper()
	return must[abi.BrowserActResponse](t, svc, c, abi.HostBrowserAct, req)
}

func actErr(t testing.TB, c *hostfuncs.Caller, req abi.BrowserActRequest) *abi.Error {
	t.Helper()
	_, err := call[abi.BrowserActResponse](t, svc, c, abi.HostBrowserAct, req)
	return err
}

func TestNavigateReturnsPageFactsAndSnapshot(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	r := nav(t, c, "/")
	if r.Page.Status != 200 || r.Page.Headers["x-fixture"] != "/" || r.Page.Title != "Home" {
		t.Fatalf("page facts: %+v", r.Page)
	}
	if !strings.Contains(r.Page.Text, "Start here.") || !strings.Contains(r.Page.HTML, "<h1>Welcome</h1>") {
		t.Fatalf("text/html: %q / %q", r.Page.Text, r.Page.HTML)
	}
	if !strings.Contains(r.Snapshot, `heading "Welcome"`) || !strings.Contains(r.Snapshot, "[ref=e") {
		t.Fatalf("snapshot: %s", r.Snapshot)
	}
	if r.State.Title != "Home" || !strings.HasSuffix(r.State.URL, "/") {
		t.Fatalf("state: %+v", r.State)
	}
	// A wall page is reported with its status and headers for the detector.
	r = nav(t, c, "/blocked")
	if r.Page.Status != 403 || r.Page.Headers["cf-mitigated"] != "challenge" || r.Page.Title != "Just a moment..." {
		t.Fatalf("blocked facts: %+v", r.Page)
	}
}

func TestNavigateRefusesOtherSchemes(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	for _, u := range []string{"file:///etc/passwd", "data:text/html,<h1>x</h1>", "javascript:alert(1)", "chrome://settings", "ftp://x.test/"} {
		_, err := call[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: u})
		wantCode(t, err, abi.CodeRefused, "only http and https")
	}
	_, err := call[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: "example.test/path"})
	wantCode(t, err, abi.CodeInputInvalid, "no scheme")
}

func TestNoSession(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	_, err := call[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	wantCode(t, err, abi.CodeNoSession, "browser_navigate first")
	err = actErr(t, c, abi.BrowserActRequest{Action: "click", Ref: "e1"})
	wantCode(t, err, abi.CodeNoSession, "browser_navigate")
}

func TestFormFillRedactsPasswordAndSubmits(t *testing.T) {
	c := caller(t.Name())
	r := nav(t, c, "/form")
	name, pwd := refOf(t, r.Snapshot, `textbox "Name"`), refOf(t, r.Snapshot, `textbox "Password"`)
	colour, terms := refOf(t, r.Snapshot, `combobox "Colour"`), refOf(t, r.Snapshot, `checkbox "I agree"`)

	a := act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: "@" + name, Text: "Ada"})
	if !strings.Contains(a.Snapshot, `textbox "Name"`) || !strings.Contains(a.Snapshot, ": Ada") {
		t.Fatalf("typed value not in snapshot:\n%s", a.Snapshot)
	}
	a = act(t, c, abi.BrowserActRequest{Action: abi.ActFill, Ref: pwd, Text: "s3cret-pw"})
	if strings.Contains(a.Snapshot, "s3cret-pw") || !strings.Contains(a.Snapshot, abi.RedactedValue) {
		t.Fatalf("password not redacted:\n%s", a.Snapshot)
	}
	s := must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	if strings.Contains(s.Snapshot, "s3cret-pw") {
		t.Fatalf("password in a later snapshot:\n%s", s.Snapshot)
	}
	secretsMu.Lock()
	got := strings.Join(secrets, ",")
	secretsMu.Unlock()
	if !strings.Contains(got, "tester/"+t.Name()+"=s3cret-pw") || strings.Contains(got, "=Ada") {
		t.Fatalf("OnSecret saw %q", got)
	}
	a = must[abi.BrowserActResponse](t, svc, c, abi.HostBrowserFillForm, abi.BrowserFillFormRequest{Fields: []abi.BrowserFormField{
		{Ref: colour, Kind: "combobox", Value: "Green"},
		{Ref: terms, Kind: "checkbox", Value: "true"},
	}})
	if !strings.Contains(a.Snapshot, `checkbox "I agree" [checked]`) {
		t.Fatalf("checkbox not checked:\n%s", a.Snapshot)
	}
	a = act(t, c, abi.BrowserActRequest{Action: abi.ActClick, Ref: refOf(t, a.Snapshot, `button "Send"`)})
	if !a.Navigated || a.Page == nil || a.Page.Status != 200 || !strings.Contains(a.Page.Text, "colour=g terms=on pwlen=9") {
		t.Fatalf("submit: navigated=%v page=%+v", a.Navigated, a.Page)
	}
	if !strings.Contains(a.Snapshot, `heading "Thanks Ada"`) {
		t.Fatalf("after submit:\n%s", a.Snapshot)
	}
}

func TestRefsStaleSelectorsAndInteractability(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	r := nav(t, c, "/form")
	for _, bad := range []string{"#name", "button.primary", "text=Send", "//button"} {
		wantCode(t, actErr(t, c, abi.BrowserActRequest{Action: "click", Ref: bad}), abi.CodeInputInvalid, "use a ref from browser_snapshot")
	}
	t0 := time.Now()
	wantCode(t, actErr(t, c, abi.BrowserActRequest{Action: "click", Ref: "e999"}), abi.CodeStaleRef, "take a new snapshot")
	if d := time.Since(t0); d > atOnce {
		t.Fatalf("unknown ref took %s: must fail at once", d)
	}
	// The element of a ref left the page.
	gone := refOf(t, r.Snapshot, `button "Will go"`)
	act(t, c, abi.BrowserActRequest{Action: "click", Ref: refOf(t, r.Snapshot, `button "Remove it"`), NoSnapshot: true})
	wantCode(t, actErr(t, c, abi.BrowserActRequest{Action: "click", Ref: gone}), abi.CodeStaleRef, "no longer on the page")

	// Disabled: not_interactable at once.
	t0 = time.Now()
	wantCode(t, actErr(t, c, abi.BrowserActRequest{Action: "click", Ref: refOf(t, r.Snapshot, `button "Disabled"`)}), abi.CodeNotInteractable, "disabled")
	if d := time.Since(t0); d > atOnce {
		t.Fatalf("disabled took %s", d)
	}
	// A read-only target for typing.
	wantCode(t, actErr(t, c, abi.BrowserActRequest{Action: "type", Ref: refOf(t, r.Snapshot, `button "Send"`), Text: "x"}), abi.CodeNotInteractable, "")

	// After a navigation, refs of the old document are stale.
	old := refOf(t, r.Snapshot, `textbox "Name"`)
	r2 := nav(t, c, "/other")
	wantCode(t, actErr(t, c, abi.BrowserActRequest{Action: "click", Ref: old}), abi.CodeStaleRef, "")
	act(t, c, abi.BrowserActRequest{Action: "hover", Ref: refOf(t, r2.Snapshot, `link "Home"`)})
}

func TestHiddenElementNotInteractable(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	r := nav(t, c, "/form")
	// Hidden elements are not in the snapshot; a ref to one made hidden
	// after the snapshot fails at once.
	send := refOf(t, r.Snapshot, `button "Send"`)
	must[abi.BrowserEvaluateResponse](t, svc, c, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{Expression: `() => { document.querySelector('button[type=submit]').style.display = 'none' }`})
	t0 := time.Now()
	wantCode(t, actErr(t, c, abi.BrowserActRequest{Action: "click", Ref: send}), abi.CodeNotInteractable, "not visible")
	if d := time.Since(t0); d > atOnce {
		t.Fatalf("hidden took %s", d)
	}
}

func TestDialogs(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	r := nav(t, c, "/dialogs")
	a := act(t, c, abi.BrowserActRequest{Action: "click", Ref: refOf(t, r.Snapshot, `button "Alert"`)})
	if a.State.Dialog == nil || a.State.Dialog.Type != "alert" || a.State.Dialog.Message != "hello there" {
		t.Fatalf("alert not reported: %+v", a.State)
	}
	// The page is blocked: actions say so, snapshot reports the dialog.
	wantCode(t, actErr(t, c, abi.BrowserActRequest{Action: "click", Ref: refOf(t, r.Snapshot, `button "Confirm"`)}), abi.CodeExecutionFailed, "browser_dialog")
	s := must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	if s.State.Dialog == nil {
		t.Fatalf("snapshot state lacks the dialog: %+v", s.State)
	}
	d := must[abi.BrowserDialogResponse](t, svc, c, abi.HostBrowserDialog, abi.BrowserDialogRequest{Accept: true})
	if d.Handled.Message != "hello there" || d.State.Dialog != nil || !strings.Contains(d.Snapshot, `button "Prompt"`) {
		t.Fatalf("dialog answer: %+v", d)
	}
	_, err := call[abi.BrowserDialogResponse](t, svc, c, abi.HostBrowserDialog, abi.BrowserDialogRequest{Accept: true})
	wantCode(t, err, abi.CodeDialogGone, "no dialog is open")

	// confirm dismissed, prompt answered.
	act(t, c, abi.BrowserActRequest{Action: "click", Ref: refOf(t, r.Snapshot, `button "Confirm"`)})
	d = must[abi.BrowserDialogResponse](t, svc, c, abi.HostBrowserDialog, abi.BrowserDialogRequest{Accept: false})
	if !strings.Contains(d.Snapshot, `"no"`) && !strings.Contains(d.Snapshot, "paragraph [ref=e5]: no") && !strings.Contains(d.Snapshot, ": no") {
		t.Fatalf("confirm dismissed:\n%s", d.Snapshot)
	}
	a = act(t, c, abi.BrowserActRequest{Action: "click", Ref: refOf(t, r.Snapshot, `button "Prompt"`)})
	if a.State.Dialog == nil || a.State.Dialog.Type != "prompt" || a.State.Dialog.DefaultValue != "anon" {
		t.Fatalf("prompt: %+v", a.State.Dialog)
	}
	text := "Grace"
	d = must[abi.BrowserDialogResponse](t, svc, c, abi.HostBrowserDialog, abi.BrowserDialogRequest{Accept: true, PromptText: &text})
	if !strings.Contains(d.Snapshot, "name=Grace") {
		t.Fatalf("prompt answered:\n%s", d.Snapshot)
	}
}

// Leaving a page that opens dialog after dialog always works: the
// navigation ends on the new page, in one tab, and says what it did; a
// dialog the new page opens is still the agent's to answer.
func TestLeavingAPageThatKeepsAsking(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	for _, path := range []string{"/alerts", "/alertsforever"} {
		r := nav(t, c, path)
		if r.State.Dialog == nil {
			t.Fatalf("%s: the page's dialog is not reported: %+v", path, r.State)
		}
		r = nav(t, c, "/other")
		if r.Page.Title != "Other" || r.State.Dialog != nil || len(r.State.Tabs) != 0 { // Tabs: listed when more than one
			t.Fatalf("leaving %s: want the other page alone in its tab, got %q, dialog %+v, tabs %+v", path, r.Page.Title, r.State.Dialog, r.State.Tabs)
		}
		if w := strings.Join(r.State.Warnings, "\n"); !strings.Contains(w, "dismissed it") {
			t.Fatalf("leaving %s: warnings do not say the dialog was answered: %q", path, w)
		}
		s := must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
		if !strings.Contains(s.Snapshot, "Other page") || s.State.Dialog != nil {
			t.Fatalf("after leaving %s: %+v\n%s", path, s.State, s.Snapshot)
		}
	}
}

// Going back leaves the page too: its open dialog is answered
// (dismissed) and the result says so.
func TestBackLeavesAPageThatAsks(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	nav(t, c, "/other")
	r := nav(t, c, "/dialogs")
	if a := act(t, c, abi.BrowserActRequest{Action: "click", Ref: refOf(t, r.Snapshot, `button "Confirm"`)}); a.State.Dialog == nil {
		t.Fatalf("confirm not reported: %+v", a.State)
	}
	b := must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserHistory, abi.BrowserHistoryRequest{Direction: "back"})
	if b.Page.Title != "Other" || b.State.Dialog != nil || !strings.Contains(strings.Join(b.State.Warnings, " "), "going back dismissed it") {
		t.Fatalf("back from a page with a confirm open: title %q, dialog %+v, warnings %v", b.Page.Title, b.State.Dialog, b.State.Warnings)
	}
}

func TestIframeRefs(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	r := nav(t, c, "/frames")
	inner := refOf(t, r.Snapshot, `button "Inner button"`)
	if !strings.HasPrefix(inner, "f") {
		t.Fatalf("iframe ref %q lacks a frame prefix:\n%s", inner, r.Snapshot)
	}
	a := act(t, c, abi.BrowserActRequest{Action: "click", Ref: inner})
	if !strings.Contains(a.Snapshot, "clicked inside") {
		t.Fatalf("iframe click:\n%s", a.Snapshot)
	}
	// A scoped snapshot of the iframe.
	s := must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{Ref: refOf(t, r.Snapshot, "iframe")})
	if !strings.Contains(s.Snapshot, "clicked inside") || strings.Contains(s.Snapshot, `heading "Outer"`) {
		t.Fatalf("scoped snapshot:\n%s", s.Snapshot)
	}
}

func TestNewTab(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	r := nav(t, c, "/tabs")
	a := act(t, c, abi.BrowserActRequest{Action: "click", Ref: refOf(t, r.Snapshot, "Open other")})
	if len(a.State.NewTabs) != 1 || len(a.State.Tabs) != 2 {
		t.Fatalf("new tab not reported: %+v", a.State)
	}
	tr := must[abi.BrowserTabsResponse](t, svc, c, abi.HostBrowserTabs, abi.BrowserTabsRequest{Action: "select", Index: &a.State.NewTabs[0].Index})
	if tr.State.Tab != 1 || !strings.Contains(tr.Snapshot, `heading "Other page"`) {
		t.Fatalf("select: %+v\n%s", tr.State, tr.Snapshot)
	}
	tr = must[abi.BrowserTabsResponse](t, svc, c, abi.HostBrowserTabs, abi.BrowserTabsRequest{Action: "close"})
	if len(tr.State.Tabs) != 1 || tr.State.Tab != 0 || tr.State.Title != "Tabs" {
		t.Fatalf("close: %+v", tr.State)
	}
	tr = must[abi.BrowserTabsResponse](t, svc, c, abi.HostBrowserTabs, abi.BrowserTabsRequest{Action: "open", URL: srv.URL + "/other"})
	if len(tr.State.Tabs) != 2 || tr.State.Tab != 1 || tr.Page == nil || tr.Page.Title != "Other" {
		t.Fatalf("open: %+v", tr)
	}
	nine := 9
	_, err := call[abi.BrowserTabsResponse](t, svc, c, abi.HostBrowserTabs, abi.BrowserTabsRequest{Action: "select", Index: &nine})
	wantCode(t, err, abi.CodeInputInvalid, "no tab 9")
}

// A click waits for a tab only when it can open one, and then only until
// the tab opens: with the wait's bound made far longer than any call, a
// modified click on a plain button, a submit into a frame of the page and
// a click that does open a tab all return.
func TestClickWaitsForTabOnlyWhenOneOpens(t *testing.T) {
	defer func(w time.Duration) { tabWait = w }(tabWait)
	tabWait = time.Hour
	c := caller(t.Name())
	r := nav(t, c, "/notab")
	for _, tc := range []struct {
		req  abi.BrowserActRequest
		want string
		tabs int
	}{
		{abi.BrowserActRequest{Action: "click", Ref: refOf(t, r.Snapshot, `button "Press"`), Modifiers: []string{"Shift"}}, `button "pressed"`, 1},
		{abi.BrowserActRequest{Action: "click", Ref: refOf(t, r.Snapshot, `button "Into the pane"`)}, "", 1},
		{abi.BrowserActRequest{Action: "click", Ref: refOf(t, r.Snapshot, `link "Open other`)}, "", 2},
	} {
		type result struct {
			a   abi.BrowserActResponse
			err *abi.Error
		}
		done := make(chan result, 1)
		go func() {
			a, err := call[abi.BrowserActResponse](t, svc, c, abi.HostBrowserAct, tc.req)
			done <- result{a, err}
		}()
		select {
		case res := <-done:
			a := res.a
			if res.err != nil {
				t.Fatalf("click %s %v: %v", tc.req.Ref, tc.req.Modifiers, res.err)
			}
			if !strings.Contains(a.Snapshot, tc.want) || len(a.State.Tabs) > tc.tabs || tc.tabs > 1 && len(a.State.NewTabs) != 1 {
				t.Fatalf("click %s: %+v\n%s", tc.req.Ref, a.State, a.Snapshot)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("click %s %v waited for a tab that does not open", tc.req.Ref, tc.req.Modifiers)
		}
	}
}

func TestUpload(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	r := nav(t, c, "/upload")
	file := refOf(t, r.Snapshot, `button "File"`)
	a := must[abi.BrowserActResponse](t, svc, c, abi.HostBrowserUpload, abi.BrowserUploadRequest{Ref: file, Paths: []string{"hello.txt"}})
	if !strings.Contains(a.Snapshot, "got hello.txt") {
		t.Fatalf("upload:\n%s", a.Snapshot)
	}
	// Through a button that opens the chooser.
	a = must[abi.BrowserActResponse](t, svc, c, abi.HostBrowserUpload, abi.BrowserUploadRequest{Ref: refOf(t, r.Snapshot, `button "Choose file"`), Paths: []string{filepath.Join(uploadDir, "hello.txt")}})
	if !strings.Contains(a.Snapshot, "chose hello.txt") {
		t.Fatalf("chooser upload:\n%s", a.Snapshot)
	}
	for _, p := range []string{"../secret.txt", filepath.Join(filepath.Dir(uploadDir), "secret.txt"), "/etc/passwd"} {
		_, err := call[abi.BrowserActResponse](t, svc, c, abi.HostBrowserUpload, abi.BrowserUploadRequest{Ref: file, Paths: []string{p}})
		wantCode(t, err, abi.CodePathRefused, "upload folder")
	}
	// A symlink inside the folder pointing out is refused too.
	link := filepath.Join(uploadDir, "link.txt")
	os.Symlink(filepath.Join(filepath.Dir(uploadDir), "secret.txt"), link)
	_, err := call[abi.BrowserActResponse](t, svc, c, abi.HostBrowserUpload, abi.BrowserUploadRequest{Ref: file, Paths: []string{"link.txt"}})
	wantCode(t, err, abi.CodePathRefused, "")
}

func TestDrag(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	r := nav(t, c, "/drag")
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActDrag, Ref: refOf(t, r.Snapshot, `"Drag me"`), TargetRef: refOf(t, r.Snapshot, `region "Drop zone"`)})
	if !strings.Contains(a.Snapshot, "dropped!") {
		t.Fatalf("drag:\n%s", a.Snapshot)
	}
}

// TestMarksReachWhatAgentsHoverAndDrop (issue 27): a menu a CSS :hover
// rule shows, an inline onmouseenter tooltip, title tooltips, a focusable
// span, and columns that take drops through addEventListener all have a
// line, a ref and their mark; the column holding only its heading (which
// Playwright unwraps) gives its mark to the heading, and a card dragged
// onto that heading lands in the column.
func TestMarksReachWhatAgentsHoverAndDrop(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	snap := nav(t, c, "/kanban").Snapshot
	for _, want := range []string{
		`[hoverable]: Account menu`,        // the :hover rule's element
		`[hoverable]: (?)`,                 // inline, one text node: no line without the pass
		`generic "Work in progress" [ref=`, // <abbr title>
		`[droppable]:`,                     // the "To do" column, by listener
		`heading "Done" [level=2] [ref=`,   // the unwrapped "Done" column's mark
		`[draggable]: Write report`,
	} {
		if !strings.Contains(snap, want) {
			t.Errorf("the snapshot lacks %q", want)
		}
	}
	for _, line := range strings.Split(snap, "\n") {
		if strings.Contains(line, `"Work in progress"`) && !strings.Contains(line, "[hoverable]") ||
			strings.Contains(line, `heading "Done"`) && !strings.Contains(line, "[droppable]") {
			t.Errorf("line without its mark: %s", line)
		}
	}
	if t.Failed() {
		t.Fatalf("snapshot:\n%s", snap)
	}
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActDrag, Ref: refOf(t, snap, "Write report"), TargetRef: refOf(t, snap, `heading "Done"`)})
	if !strings.Contains(a.Snapshot, "Write report moved to Done") {
		t.Fatalf("dragging the card onto the Done column's heading:\n%s", a.Snapshot)
	}
	h := act(t, c, abi.BrowserActRequest{Action: abi.ActHover, Ref: refOf(t, snap, "(?)")})
	if !strings.Contains(h.Snapshot, "100 cards per board") {
		t.Fatalf("hovering the tooltip's (?):\n%s", h.Snapshot)
	}
}

func TestConsoleNetworkStorage(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	nav(t, c, "/console")
	must[abi.BrowserWaitForResponse](t, svc, c, abi.HostBrowserWaitFor, abi.BrowserWaitForRequest{Text: "console ready", NoSnapshot: true})
	cr := must[abi.BrowserConsoleResponse](t, svc, c, abi.HostBrowserConsole, abi.BrowserConsoleRequest{Level: "error"})
	var texts []string
	for _, m := range cr.Messages {
		texts = append(texts, m.Type+":"+m.Text)
	}
	all := strings.Join(texts, "|")
	if !strings.Contains(all, "error:something broke") || !strings.Contains(all, "pageerror:") || !strings.Contains(all, "uncaught boom") || strings.Contains(all, "plain log") {
		t.Fatalf("console errors: %s", all)
	}
	cr = must[abi.BrowserConsoleResponse](t, svc, c, abi.HostBrowserConsole, abi.BrowserConsoleRequest{})
	if len(cr.Messages) < 5 {
		t.Fatalf("all console: %+v", cr.Messages)
	}

	nr := must[abi.BrowserNetworkResponse](t, svc, c, abi.HostBrowserNetwork, abi.BrowserNetworkRequest{})
	var api *abi.BrowserNetworkEntry
	for i, e := range nr.Requests {
		if strings.Contains(e.URL, "/api/data") {
			api = &nr.Requests[i]
		}
		if e.ResourceType == "image" {
			t.Fatalf("static request listed without static: %+v", e)
		}
	}
	if api == nil || api.Status != 200 || api.MIME != "application/json" {
		t.Fatalf("network: %+v", nr.Requests)
	}
	nr = must[abi.BrowserNetworkResponse](t, svc, c, abi.HostBrowserNetwork, abi.BrowserNetworkRequest{BodyOf: api.ID})
	if nr.Body == nil || nr.Body.Text != `{"value":42}` {
		t.Fatalf("body: %+v", nr.Body)
	}

	st := must[abi.BrowserStorageResponse](t, svc, c, abi.HostBrowserStorage, abi.BrowserStorageRequest{})
	if len(st.Local) != 1 || st.Local[0].Name != "token" || st.Local[0].Value != "" || st.Local[0].Size != 6 {
		t.Fatalf("local storage without values: %+v", st.Local)
	}
	if len(st.Cookies) != 1 || st.Cookies[0].Value != "" {
		t.Fatalf("cookies without values: %+v", st.Cookies)
	}
	st = must[abi.BrowserStorageResponse](t, svc, c, abi.HostBrowserStorage, abi.BrowserStorageRequest{Values: true})
	if len(st.Local) != 1 || len(st.Session) != 1 || len(st.Cookies) != 1 ||
		st.Local[0].Value != "abc123" || st.Session[0].Value != "one" || st.Cookies[0].Value != "yes" {
		t.Fatalf("values: %+v", st)
	}
	must[abi.BrowserCookiesResponse](t, svc, c, abi.HostBrowserCookies, abi.BrowserCookiesRequest{Set: []abi.BrowserCookie{{Name: "added", Value: "1"}}})
	st = must[abi.BrowserStorageResponse](t, svc, c, abi.HostBrowserStorage, abi.BrowserStorageRequest{Kind: "cookies"})
	if len(st.Cookies) != 2 {
		t.Fatalf("after set: %+v", st.Cookies)
	}
	must[abi.BrowserCookiesResponse](t, svc, c, abi.HostBrowserCookies, abi.BrowserCookiesRequest{Clear: true})
	st = must[abi.BrowserStorageResponse](t, svc, c, abi.HostBrowserStorage, abi.BrowserStorageRequest{Kind: "cookies"})
	if len(st.Cookies) != 0 {
		t.Fatalf("after clear: %+v", st.Cookies)
	}

	im := must[abi.BrowserImagesResponse](t, svc, c, abi.HostBrowserImages, abi.BrowserImagesRequest{})
	if im.Total != 1 || im.Images[0].Alt != "a pixel" || !im.Images[0].Loaded || im.Images[0].Natural != "1x1" {
		t.Fatalf("images: %+v", im)
	}
	cs := must[abi.BrowserComputedStyleResponse](t, svc, c, abi.HostBrowserComputedStyle, abi.BrowserComputedStyleRequest{})
	found := false
	for _, e := range cs.Elements {
		if e.Tag == "h1" && e.Styles["color"] == "rgb(200, 10, 10)" {
			found = true
		}
	}
	if !found {
		t.Fatalf("computed style: %+v", cs.Elements)
	}
	src := must[abi.BrowserSourcesResponse](t, svc, c, abi.HostBrowserSources, abi.BrowserSourcesRequest{})
	if len(src.Sources) != 2 || src.Sources[0].URL != "inline:script:0" {
		t.Fatalf("sources: %+v", src.Sources)
	}
	src = must[abi.BrowserSourcesResponse](t, svc, c, abi.HostBrowserSources, abi.BrowserSourcesRequest{Fetch: "inline:script:0", MaxBytes: 30})
	if src.Fetched == nil || !src.Fetched.Truncated || !strings.Contains(src.Fetched.Text, "plain log") {
		t.Fatalf("fetched inline: %+v", src.Fetched)
	}
	src = must[abi.BrowserSourcesResponse](t, svc, c, abi.HostBrowserSources, abi.BrowserSourcesRequest{Fetch: srv.URL + "/api/data"})
	if src.Fetched == nil || src.Fetched.Text != `{"value":42}` {
		t.Fatalf("fetched url: %+v", src.Fetched)
	}
}

func TestSlowPageNavigationTimeout(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	t0 := time.Now()
	_, err := call[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/slow", TimeoutMS: 800})
	wantCode(t, err, abi.CodeNavTimeout, "did not finish loading")
	// The call's 800 ms, not the page's 10 s nor NavigationTimeout: a
	// navigation that ignored TimeoutMS would load the page (no error).
	// The bound only catches a hang.
	if d := time.Since(t0); d > 30*time.Second {
		t.Fatalf("timeout took %s", d)
	}
	// The session still works.
	nav(t, c, "/")
}

func TestWaitForHistoryScrollResize(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	nav(t, c, "/later")
	w := must[abi.BrowserWaitForResponse](t, svc, c, abi.HostBrowserWaitFor, abi.BrowserWaitForRequest{Text: "ready now"})
	if !strings.Contains(w.Snapshot, "ready now") {
		t.Fatalf("wait_for text:\n%s", w.Snapshot)
	}
	must[abi.BrowserWaitForResponse](t, svc, c, abi.HostBrowserWaitFor, abi.BrowserWaitForRequest{TextGone: "loading"})
	_, err := call[abi.BrowserWaitForResponse](t, svc, c, abi.HostBrowserWaitFor, abi.BrowserWaitForRequest{Text: "never there", TimeoutMS: 300})
	wantCode(t, err, abi.CodeTimeout, "never there")

	nav(t, c, "/long")
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActScroll, Direction: "down", Amount: 1000})
	if !strings.Contains(a.Detail, "y=1000") {
		t.Fatalf("scroll: %q", a.Detail)
	}
	h := must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserHistory, abi.BrowserHistoryRequest{Direction: "back"})
	if !h.Moved || h.Page.Title != "Later" {
		t.Fatalf("back: %+v", h.Page)
	}
	h = must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserHistory, abi.BrowserHistoryRequest{Direction: "forward"})
	if h.Page.Title != "Long" {
		t.Fatalf("forward: %+v", h.Page)
	}
	rs := must[abi.BrowserResizeResponse](t, svc, c, abi.HostBrowserResize, abi.BrowserResizeRequest{Width: 800, Height: 600})
	if rs.Width != 800 {
		t.Fatal(rs)
	}
	em := must[abi.BrowserEmulateResponse](t, svc, c, abi.HostBrowserEmulate, abi.BrowserEmulateRequest{ColorScheme: "dark", Offline: new(bool)})
	if len(em.Applied) != 2 {
		t.Fatal(em)
	}
}

func TestScreenshotAndPDFStayInWorkspace(t *testing.T) {
	c := caller(t.Name())
	r := nav(t, c, "/")
	sr := must[abi.BrowserScreenshotResponse](t, svc, c, abi.HostBrowserScreenshot, abi.BrowserScreenshotRequest{Name: "home"})
	want := filepath.Join(svc.cfg.WorkspaceDir, "tester", "home.png")
	if sr.Path != want || sr.Width == 0 || sr.MIME != "image/png" {
		t.Fatalf("screenshot: %s %dx%d", sr.Path, sr.Width, sr.Height)
	}
	png, _ := base64.StdEncoding.DecodeString(sr.Data)
	disk, _ := os.ReadFile(want)
	if len(png) == 0 || string(png) != string(disk) {
		t.Fatal("inline PNG differs from the file")
	}
	el := must[abi.BrowserScreenshotResponse](t, svc, c, abi.HostBrowserScreenshot, abi.BrowserScreenshotRequest{Ref: refOf(t, r.Snapshot, `heading "Welcome"`), NoInline: true})
	if el.Data != "" || el.Width >= sr.Width {
		t.Fatalf("element screenshot: %+v", el)
	}
	for _, bad := range []string{"../escape", "/tmp/abs", "a/../../x"} {
		_, err := call[abi.BrowserScreenshotResponse](t, svc, c, abi.HostBrowserScreenshot, abi.BrowserScreenshotRequest{Name: bad})
		wantCode(t, err, abi.CodePathRefused, "")
	}
	pr := must[abi.BrowserPDFResponse](t, svc, c, abi.HostBrowserPDF, abi.BrowserPDFRequest{})
	if b, _ := os.ReadFile(pr.Path); !strings.HasPrefix(string(b), "%PDF") || filepath.Dir(pr.Path) != filepath.Dir(want) {
		t.Fatalf("pdf at %s", pr.Path)
	}
}

func TestEvaluateNeedsEvalGrant(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name(), capability.BrowserRead, capability.BrowserAct)
	nav(t, c, "/")
	_, err := call[abi.BrowserEvaluateResponse](t, svc, c, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{Expression: "document.title"})
	wantCode(t, err, abi.CodeRefused, "browser.eval")
	// read-only grant cannot act.
	ro := caller(t.Name(), capability.BrowserRead)
	_, err = call[abi.BrowserNavigateResponse](t, svc, ro, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL})
	wantCode(t, err, abi.CodeRefused, "browser.act")
	must[abi.BrowserSnapshotResponse](t, svc, ro, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})

	full := caller(t.Name())
	ev := must[abi.BrowserEvaluateResponse](t, svc, full, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{Expression: "document.title"})
	if string(ev.Result) != `"Home"` {
		t.Fatalf("evaluate: %s", ev.Result)
	}
	_, err = call[abi.BrowserEvaluateResponse](t, svc, full, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{Expression: "() => { throw new Error('nope') }"})
	wantCode(t, err, abi.CodeExecutionFailed, "nope")
}

func TestSessionsAreIsolatedAndListed(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	a, b := caller(t.Name()+"-a"), caller(t.Name()+"-b")
	nav(t, a, "/")
	nav(t, b, "/other")
	sa := must[abi.BrowserSnapshotResponse](t, svc, a, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	if sa.State.Title != "Home" {
		t.Fatalf("session a sees %q", sa.State.Title)
	}
	other := hostfuncs.NewCaller(hostfuncs.CallerInfo{Personality: "someone-else", Session: "x", Grants: a.Grants()})
	ls := must[abi.BrowserSessionsResponse](t, svc, a, abi.HostBrowserSessions, abi.BrowserSessionsRequest{})
	names := map[string]bool{}
	for _, s := range ls.Sessions {
		names[s.Session] = s.Current
		if s.Personality != "" {
			t.Fatal("personality leaked in sessions list")
		}
	}
	if _, listed := names[t.Name()+"-b"]; !names[t.Name()+"-a"] || listed || ls.Browser != "local headless" {
		t.Fatalf("sessions: only the caller's own is listed: %+v", ls)
	}
	if ls := must[abi.BrowserSessionsResponse](t, svc, other, abi.HostBrowserSessions, abi.BrowserSessionsRequest{}); len(ls.Sessions) != 0 {
		t.Fatalf("another personality sees %+v", ls.Sessions)
	}
	cl := must[abi.BrowserCloseResponse](t, svc, b, abi.HostBrowserClose, abi.BrowserCloseRequest{})
	if !cl.Closed {
		t.Fatal("close")
	}
	_, err := call[abi.BrowserSnapshotResponse](t, svc, b, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	wantCode(t, err, abi.CodeNoSession, "")
}

// ownChromium lists the Chromium processes this test binary started.
func ownChromium() map[int]bool {
	out := map[int]bool{}
	for _, p := range procfs.Descendants(os.Getpid()) {
		if strings.HasPrefix(procfs.Name(p), "chrom") {
			out[p] = true
		}
	}
	return out
}

func TestBrowserCrashRecovery(t *testing.T) {
	before := ownChromium()
	s, err := New(testConfig(t.TempDir()), Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	c := caller(t.Name())
	must[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/"})
	var mine []int
	for p := range ownChromium() {
		if !before[p] {
			mine = append(mine, p)
		}
	}
	if len(mine) == 0 {
		t.Fatal("found no Chromium process of this service")
	}
	for _, p := range mine {
		syscall.Kill(p, syscall.SIGKILL)
	}
	deadline := time.Now().Add(30 * time.Second)
	var cerr *abi.Error
	for time.Now().Before(deadline) {
		_, cerr = call[abi.BrowserSnapshotResponse](t, s, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
		if cerr != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	wantCode(t, cerr, abi.CodeBrowserCrashed, "browser_navigate")
	// The next call without navigate is told why there is no session...
	_, cerr = call[abi.BrowserSnapshotResponse](t, s, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	wantCode(t, cerr, abi.CodeNoSession, "crashed")
	// ...and navigate gets a fresh session on a new browser, with a warning.
	r := must[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/other"})
	if r.Page.Title != "Other" || len(r.State.Warnings) == 0 || !strings.Contains(r.State.Warnings[0], "fresh browser session") {
		t.Fatalf("after crash: %+v", r.State)
	}
	r = must[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/"})
	if len(r.State.Warnings) != 0 {
		t.Fatalf("warning repeated: %v", r.State.Warnings)
	}
}

func TestMissingDriverOrChromium(t *testing.T) {
	s, err := New(Config{DriverDir: filepath.Join(t.TempDir(), "nothing")}, Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	_, cerr := call[abi.BrowserNavigateResponse](t, s, caller("x"), abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL})
	wantCode(t, cerr, abi.CodeNotAvailable, "make deps")
	// Other browser calls still answer.
	must[abi.BrowserSessionsResponse](t, s, caller("x"), abi.HostBrowserSessions, abi.BrowserSessionsRequest{})

	s2, _ := New(Config{Executable: "/nonexistent/chromium"}, Options{Logger: quietLogger()})
	defer s2.Close(context.Background())
	_, cerr = call[abi.BrowserNavigateResponse](t, s2, caller("x"), abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL})
	wantCode(t, cerr, abi.CodeNotAvailable, "apt-get install -y chromium")
}

func TestIdleSweepLRUAndDriving(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.IdleTimeout = Duration(time.Second)
	cfg.MaxContexts = 2
	// The service reports each session it closes: the test waits on those
	// reports, not on the clock.
	closed := make(chan string, 8)
	s, err := New(cfg, Options{Logger: quietLogger(), OnSessionClosed: func(_, sess string) { closed <- sess }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	waitClosed := func(want string) {
		t.Helper()
		select {
		case got := <-closed:
			if got != want {
				t.Fatalf("session %q closed, want %q first", got, want)
			}
		case <-time.After(60 * time.Second): // a hang-catcher: the idle timeout is 1 s
			t.Fatalf("session %q was never closed", want)
		}
	}
	open := func(name string) {
		must[abi.BrowserNavigateResponse](t, s, caller(name), abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/", NoSnapshot: true})
	}
	open("one")
	s.SetDriving("tester", "one", true)
	open("two")
	open("three") // evicts "two", the LRU session not being driven
	names := func() string {
		var n []string
		for _, i := range s.Sessions() {
			n = append(n, i.Session)
		}
		return strings.Join(n, ",")
	}
	waitClosed("two")
	if got := names(); strings.Contains(got, "two") || !strings.Contains(got, "one") || !strings.Contains(got, "three") {
		t.Fatalf("after eviction: %s", got)
	}
	// The evicted session's next call is told why, and which key raises
	// the limit.
	_, aerr := call[abi.BrowserSnapshotResponse](t, s, caller("two"), abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	wantCode(t, aerr, abi.CodeNoSession, "least recently used")
	wantCode(t, aerr, abi.CodeNoSession, "browser.max_contexts is 2")
	// "one" has been idle longer than "three": the sweep that closes
	// "three" would have closed "one" too, were it not driven.
	waitClosed("three")
	if got := names(); got != "one" {
		t.Fatalf("after idle sweep: %q (the driven session must stay)", got)
	}
	_, aerr = call[abi.BrowserSnapshotResponse](t, s, caller("three"), abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	wantCode(t, aerr, abi.CodeNoSession, "browser.idle_timeout is 1s")
	// A new session for the key says the old one is gone.
	r := must[abi.BrowserNavigateResponse](t, s, caller("three"), abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/", NoSnapshot: true})
	if w := strings.Join(r.State.Warnings, " "); !strings.Contains(w, "fresh browser session") || !strings.Contains(w, "browser.idle_timeout") {
		t.Errorf("the new session does not say the old one was closed: %q", w)
	}
	if _, err := call[abi.BrowserCloseResponse](t, s, caller("three"), abi.HostBrowserClose, abi.BrowserCloseRequest{}); err != nil {
		t.Fatal(err)
	}
	waitClosed("three")
	_, aerr = call[abi.BrowserSnapshotResponse](t, s, caller("three"), abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	wantCode(t, aerr, abi.CodeNoSession, "call browser_navigate first")
	s.SetDriving("tester", "one", false)
	waitClosed("one")
	if got := names(); got != "" {
		t.Fatalf("after release: %q", got)
	}
}

func TestPersistentProfileLock(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.PersistentProfiles = []string{"keeper"}
	s, err := New(cfg, Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	k1 := hostfuncs.NewCaller(hostfuncs.CallerInfo{Personality: "keeper", Session: "s1", Grants: caller("").Grants()})
	k2 := hostfuncs.NewCaller(hostfuncs.CallerInfo{Personality: "keeper", Session: "s2", Grants: caller("").Grants()})
	r := must[abi.BrowserNavigateResponse](t, s, k1, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/console"})
	if len(r.State.Warnings) != 0 {
		t.Fatalf("first session warned: %v", r.State.Warnings)
	}
	// A second session of the same personality cannot share the profile.
	r = must[abi.BrowserNavigateResponse](t, s, k2, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/"})
	if len(r.State.Warnings) != 1 || !strings.Contains(r.State.Warnings[0], "in use by another session") {
		t.Fatalf("second session: %v", r.State.Warnings)
	}
	// The profile keeps the cookie across sessions.
	if err := s.CloseSession("keeper", "s1"); err != nil {
		t.Fatal(err)
	}
	s.CloseSession("keeper", "s2")
	// Another process holding the lock (simulated by taking it here) gives
	// an ephemeral session with a warning.
	lock, err := lockProfile(cfg.ProfilesDir, "keeper")
	if err != nil {
		t.Fatal(err)
	}
	r = must[abi.BrowserNavigateResponse](t, s, k1, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/"})
	if len(r.State.Warnings) != 1 {
		t.Fatalf("locked elsewhere: %v", r.State.Warnings)
	}
	s.CloseSession("keeper", "s1")
	unlockProfile(lock)
	r = must[abi.BrowserNavigateResponse](t, s, k1, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/"})
	st := must[abi.BrowserStorageResponse](t, s, k1, abi.HostBrowserStorage, abi.BrowserStorageRequest{Kind: "cookies", Values: true})
	if len(r.State.Warnings) != 0 || len(st.Cookies) != 1 || st.Cookies[0].Value != "yes" {
		t.Fatalf("profile did not keep the cookie: %v %+v", r.State.Warnings, st.Cookies)
	}
	// A personality id that cannot name a folder gets no profile.
	cfg.PersistentProfiles = []string{"../evil"}
	if cfg.Validate() == nil {
		t.Fatal("unsafe profile name accepted")
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	for _, bad := range []Config{
		{Proxy: "proxy.test:3128"},
		{Proxy: "10.0.0.1:8080"},
		{Proxy: "ftp://proxy.test:21"},
		{Headed: "maybe"},
		{RemoteWS: "http://x:1"},
		{RemoteWS: "ws://x:1", RemoteCDP: "http://x:2"},
		{PersistentProfiles: []string{"a"}},
	} {
		if bad.Validate() == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
	for _, good := range []Config{{}, {Proxy: "http://proxy.test:3128"}, {Proxy: "socks5://127.0.0.1:1080"}, {Headed: "auto"}, {RemoteCDP: "http://127.0.0.1:9222"}} {
		if err := good.Validate(); err != nil {
			t.Errorf("refused %+v: %v", good, err)
		}
	}
	var d Duration
	if err := d.UnmarshalText([]byte("10m")); err != nil || d.D() != 10*time.Minute {
		t.Fatal(d, err)
	}
	if d.UnmarshalText([]byte("ten")) == nil {
		t.Fatal("bad duration accepted")
	}
}

func TestHeadedFallbackWarnsOnce(t *testing.T) {
	if driver.HasDisplay() {
		t.Skip("this machine has a display")
	}
	s := newService(t, func(c *Config) { c.Headed = "true" })
	r := must[abi.BrowserNavigateResponse](t, s, caller("a"), abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL, NoSnapshot: true})
	if len(r.State.Warnings) != 1 || !strings.Contains(r.State.Warnings[0], "running headless") {
		t.Fatalf("warnings: %v", r.State.Warnings)
	}
	r = must[abi.BrowserNavigateResponse](t, s, caller("b"), abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL, NoSnapshot: true})
	if len(r.State.Warnings) != 0 {
		t.Fatalf("warned twice: %v", r.State.Warnings)
	}
}

// A Prewarm whose browser does not start is not lost: the first call that
// needs the browser returns its error, with its code, even if a start
// would now succeed (it does not start the browser again behind the
// failure); the call after that starts afresh.
func TestPrewarmFailureReachesTheFirstCall(t *testing.T) {
	cfg := testConfig(t.TempDir())
	exe, err := driver.Chromium(cfg.Executable)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Executable = "/bin/false" // exists, and exits at once: the launch fails
	s, err := New(cfg, Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	s.Prewarm("p")
	for deadline := time.Now().Add(2 * time.Minute); s.launcher.warming.Load(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Prewarm's start did not end within 2 minutes")
		}
	}
	s.launcher.cfg.Executable = exe // a start now would succeed
	_, e := call[abi.BrowserNavigateResponse](t, s, caller(t.Name()), abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/"})
	wantCode(t, e, abi.CodeNotAvailable, "does not start")
	must[abi.BrowserNavigateResponse](t, s, caller(t.Name()), abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/"})
}

// Prewarm starts the driver and the shared browser in the background,
// with no session; the first navigate then runs on that browser rather
// than starting one.
func TestPrewarmStartsTheBrowser(t *testing.T) {
	s, err := New(testConfig(t.TempDir()), Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	s.Prewarm("p")
	s.Prewarm("p") // a second one while the first runs does nothing more
	started := func() pw.Browser {
		s.launcher.mu.Lock()
		defer s.launcher.mu.Unlock()
		return s.launcher.browser
	}
	deadline := time.Now().Add(60 * time.Second)
	for started() == nil || s.launcher.warming.Load() {
		if time.Now().After(deadline) {
			t.Fatal("Prewarm started no browser within 60 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(s.Sessions()); n != 0 {
		t.Fatalf("Prewarm opened %d sessions", n)
	}
	b := started()
	must[abi.BrowserNavigateResponse](t, s, caller(t.Name()), abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/"})
	if started() != b {
		t.Fatal("the first navigate started another browser")
	}
}

// Boxes cost a large page's snapshot up to twice its time: a document
// whose marks pass (read before its first snapshot) or last snapshot found
// no marked elements is snapshotted without them; when it has gained marks
// since, it is snapshotted again, with boxes, and the marks land on their
// lines.
func TestSnapshotBoxesOnlyForMarks(t *testing.T) {
	c := caller(t.Name())
	var boxes []bool
	snapshotTaken = func(o pw.PageAriaSnapshotOptions) { boxes = append(boxes, o.Boxes != nil && *o.Boxes) }
	t.Cleanup(func() { snapshotTaken = nil })
	nav(t, c, "/other")
	// The page changes, so the change watcher (changes.go) does not answer
	// the next snapshot from the kept one: a snapshot is taken, without boxes.
	must[abi.BrowserEvaluateResponse](t, svc, c, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{Expression: `() => { document.body.append("more text") }`})
	must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	if fmt.Sprint(boxes) != "[false false]" {
		t.Fatalf("a page without marks: snapshots with boxes %v, want none with", boxes)
	}
	// The page gains a drag source: the snapshot taken without boxes is
	// taken again with them, and the mark is placed.
	must[abi.BrowserEvaluateResponse](t, svc, c, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{Expression: `() => { const d = document.createElement("div"); d.draggable = true; d.textContent = "Card"; d.style.width = "50px"; document.body.append(d) }`})
	s := must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	if fmt.Sprint(boxes) != "[false false false true]" || !strings.Contains(s.Snapshot, "[draggable]") {
		t.Fatalf("a page that gained marks: snapshots with boxes %v, want a fourth with them; marks placed:\n%s", boxes, s.Snapshot)
	}
	r := nav(t, c, "/drag")
	if fmt.Sprint(boxes[4:]) != "[true]" {
		t.Fatalf("a page with marks: snapshots with boxes %v, want one with", boxes[4:])
	}
	if !strings.Contains(r.Snapshot, "[draggable]") || !strings.Contains(r.Snapshot, "[droppable]") || strings.Contains(r.Snapshot, "[box=") {
		t.Fatalf("marks not placed:\n%s", r.Snapshot)
	}
}

// Every password value is redacted, whichever field of several it is in,
// and the other values are kept, each on its own line.
func TestRedactsEveryPasswordOfSeveral(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	r := nav(t, c, "/logins")
	for _, f := range []struct{ name, text string }{{"Old password", "old-s3cret"}, {"User", "ada"}, {"New password", "new-s3cret"}} {
		act(t, c, abi.BrowserActRequest{Action: abi.ActFill, Ref: refOf(t, r.Snapshot, `textbox "`+f.name+`"`), Text: f.text})
	}
	s := must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	if strings.Contains(s.Snapshot, "s3cret") || strings.Count(s.Snapshot, abi.RedactedValue) != 2 || !regexp.MustCompile(`textbox "User" \[ref=\w+\]: ada\n`).MatchString(s.Snapshot+"\n") {
		t.Fatalf("redaction of several fields:\n%s", s.Snapshot)
	}
}

// A password's value is redacted where Playwright prints it on a line of
// its own (a field with a placeholder besides its name), as well as on the
// textbox's line; another field's value on such a line is kept.
func TestRedactsAPasswordOnItsOwnLine(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	r := nav(t, c, "/prefilled")
	s := must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{})
	for _, snap := range []string{r.Snapshot, s.Snapshot} {
		if strings.Contains(snap, "s3cret") || !strings.Contains(snap, abi.RedactedValue) || !strings.Contains(snap, "ada") {
			t.Fatalf("want the password redacted and the user kept:\n%s", snap)
		}
	}
}

// A caller whose personality has no detector gets a navigation's title,
// status and snapshot, but not the page's text and HTML (the detector's
// inputs, which nothing else reads): they are not read at all.
func TestNavigateWithoutDetectorReadsNoPageText(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	info := callerInfo(t.Name())
	info.NoDetector = true
	c := hostfuncs.NewCaller(info)
	r := nav(t, c, "/")
	if r.Page.Text != "" || r.Page.HTML != "" {
		t.Fatalf("the page's text and HTML were read for a personality without a detector: %q / %q", r.Page.Text, r.Page.HTML)
	}
	if r.Page.Status != 200 || r.Page.Title != "Home" || !strings.Contains(r.Snapshot, `heading "Welcome"`) {
		t.Fatalf("page facts or snapshot missing: %+v\n%s", r.Page, r.Snapshot)
	}
}

// An action takes one snapshot of the page, a navigation too (with its
// page facts read alongside), and an action with snapshot none takes none.
// A press that only moves the focus takes none either: the kept snapshot
// is answered with its [active] moved (changes.go).
func TestOneSnapshotPerAction(t *testing.T) {
	c := caller(t.Name())
	n := 0
	snapshotTaken = func(pw.PageAriaSnapshotOptions) { n++ }
	t.Cleanup(func() { snapshotTaken = nil })
	r := nav(t, c, "/form")
	name := refOf(t, r.Snapshot, `textbox "Name"`)
	act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: name, Text: "Ada"})
	act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Tab"})
	act(t, c, abi.BrowserActRequest{Action: abi.ActClick, Ref: refOf(t, r.Snapshot, `button "Remove it"`)})
	act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: name, Text: "Bo", NoSnapshot: true})
	// The type only changes a value and the focus, and the press the
	// focus: both are answered from the kept snapshot, patched (changes.go).
	if n != 2 {
		t.Fatalf("a navigate, a type, a press moving the focus, a click removing an element and a type with snapshot none took %d snapshots, want 2", n)
	}
}
