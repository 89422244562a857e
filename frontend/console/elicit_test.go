package console_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/hostfuncs/operator"
	"github.com/wasmwright/wasmwright/internal/mcptest"
)

// asker is the agent's MCP client side of elicitation: each request the
// server sends is handed to the test, which answers it.
type asker struct {
	asked    chan *sdk.ElicitParams
	answers  chan *sdk.ElicitResult
	complete chan string
}

func newAsker() *asker {
	return &asker{asked: make(chan *sdk.ElicitParams, 4), answers: make(chan *sdk.ElicitResult, 4), complete: make(chan string, 4)}
}

// options declare form and URL elicitation, as a client that can ask its
// user and open links does.
func (a *asker) options() *sdk.ClientOptions {
	return &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			a.asked <- req.Params
			select {
			case res := <-a.answers:
				return res, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		ElicitationCompleteHandler: func(_ context.Context, req *sdk.ElicitationCompleteNotificationRequest) {
			a.complete <- req.Params.ElicitationID
		},
	}
}

func (a *asker) next(t *testing.T) *sdk.ElicitParams {
	t.Helper()
	select {
	case p := <-a.asked:
		return p
	case <-time.After(60 * time.Second):
		t.Fatal("the agent's client was never asked")
	}
	return nil
}

type callResult struct {
	text  string
	isErr bool
}

func (r *rig) callAsync(t *testing.T, tool string, args map[string]any) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() { text, isErr := r.Call(t, tool, args); ch <- callResult{text, isErr} }()
	return ch
}

var pressRef = regexp.MustCompile(`button "Press me" \[ref=((?:f\d+)?e\d+)\]`)

// freshPage opens the agent page and returns the ref of its button.
func (r *rig) freshPage(t *testing.T) string {
	t.Helper()
	snap := r.MustCall(t, "browser_navigate", map[string]any{"url": r.site.URL + "/"})
	m := pressRef.FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no Press me button in the snapshot: %s", snap)
	}
	return m[1]
}

// TestApprovalsInAgentClient: with approval.via naming the client and no
// console open, a click under act = "ask" is asked in the agent's own MCP
// client (elicitation/create, form mode) naming the element, its page and
// origin; accepting runs the click, "for this origin" stores a grant the
// next click uses without asking, declining refuses.
func TestApprovalsInAgentClient(t *testing.T) {
	a := newAsker()
	r := newRigWith(t, rigOptions{approval: `{ act = "ask", timeout = "90s", via = ["client", "console"] }`, client: a.options()})
	origin := r.site.URL

	// Accept once: the click runs.
	ref := r.freshPage(t)
	t0 := time.Now()
	done := r.callAsync(t, "browser_click", map[string]any{"ref": ref})
	q := a.next(t)
	t.Logf("agent's request to the client's elicitation: %s", time.Since(t0).Round(time.Millisecond))
	for _, want := range []string{"browser_click", `button "Press me"`, "[ref " + ref + "]", `"Agent page"`, origin} {
		if !strings.Contains(q.Message, want) {
			t.Fatalf("the question does not name %q: %s", want, q.Message)
		}
	}
	if q.Mode != "form" || !strings.Contains(mustJSON(t, q.RequestedSchema), `"origin"`) {
		t.Fatalf("not a form offering approval for the origin: mode %q, schema %s", q.Mode, mustJSON(t, q.RequestedSchema))
	}
	a.answers <- &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}
	if res := <-done; res.isErr || !strings.Contains(res.text, "clicked") {
		t.Fatalf("approved once, the click did not run: %s", res.text)
	}

	// Decline: refused, the page untouched.
	ref = r.freshPage(t)
	done = r.callAsync(t, "browser_click", map[string]any{"ref": ref})
	a.next(t)
	a.answers <- &sdk.ElicitResult{Action: "decline"}
	if res := <-done; !res.isErr || !strings.HasPrefix(res.text, "error refused") {
		t.Fatalf("declined, the click was not refused: %s", res.text)
	}
	if snap := r.MustCall(t, "browser_snapshot", map[string]any{"snapshot": "full"}); strings.Contains(snap, "clicked") {
		t.Fatal("a declined click ran")
	}

	// For this origin: runs, and the next click on the origin in this MCP
	// session is not asked. The grant is the client's: kept for its
	// session (approval.client_grants defaults to "session"), not stored
	// with the operators' grants.
	done = r.callAsync(t, "browser_click", map[string]any{"ref": ref})
	a.next(t)
	a.answers <- &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "origin"}}
	if res := <-done; res.isErr {
		t.Fatalf("approved for the origin, the click failed: %s", res.text)
	}
	gs, err := r.h.Grants()
	if err != nil {
		t.Fatal(err)
	}
	if list, _ := gs.List("default"); len(list) != 0 {
		t.Fatalf("the client's grant was stored beyond its session: %+v", list)
	}
	if !r.h.Desk().SessionAllows("default", r.sessionName(), "browser_click", "act", origin) {
		t.Fatal("the client's grant is not kept for its session")
	}
	ref = r.freshPage(t)
	if text := r.MustCall(t, "browser_click", map[string]any{"ref": ref}); !strings.Contains(text, "clicked") {
		t.Fatalf("the granted click did not run: %s", text)
	}
	select {
	case q := <-a.asked:
		t.Fatalf("a click the grant covers was asked again: %s", q.Message)
	default:
	}

	// Another MCP session (a later one of the same agent) is asked again:
	// the grant was the first session's.
	a2 := newAsker()
	other := r.connect(t, a2.options())
	snap := mcptest.MustCall(t, other, 90*time.Second, "browser_navigate", map[string]any{"url": r.site.URL + "/"})
	ch := make(chan callResult, 1)
	go func() {
		text, isErr := mcptest.Call(t, other, 90*time.Second, "browser_click", map[string]any{"ref": pressRef.FindStringSubmatch(snap)[1]})
		ch <- callResult{text, isErr}
	}()
	a2.next(t)
	a2.answers <- &sdk.ElicitResult{Action: "decline"}
	if res := <-ch; !res.isErr || !strings.HasPrefix(res.text, "error refused") {
		t.Fatalf("another session's click ran on the first session's client grant: %s", res.text)
	}
}

// TestTakeoverLinkInAgentClient: with the link opted in (takeover.via
// naming the client), a takeover asked by an agent whose client
// opens URLs sends a URL elicitation with a link to that session's live
// view. The operator's Chromium opens it (no operator token), sees the
// page live and hands back; the link works once, opens nothing else of the
// console, is dead after the hand-back, and the client is told the
// elicitation is complete.
func TestTakeoverLinkInAgentClient(t *testing.T) {
	a := newAsker()
	r := newRigWith(t, rigOptions{client: a.options(), personality: `takeover = { via = ["console", "client"] }`})
	r.freshPage(t)
	done := r.callAsync(t, "browser_request_takeover", map[string]any{"reason": "solve the puzzle on the page", "timeout_s": 120})
	q := a.next(t)
	if q.Mode != "url" || !strings.HasPrefix(q.URL, r.base+"/t/") || q.ElicitationID == "" || !strings.Contains(q.Message, "solve the puzzle") {
		t.Fatalf("not a URL elicitation with a takeover link: %+v", q)
	}
	a.answers <- &sdk.ElicitResult{Action: "accept"}

	b := operatorBrowser(t)
	bc, err := b.NewContext(pw.BrowserNewContextOptions{BypassCSP: pw.Bool(true)})
	must(t, err)
	t.Cleanup(func() { bc.Close() })
	pg, err := bc.NewPage()
	must(t, err)
	pg.SetDefaultTimeout(30000)
	_, err = pg.Goto(q.URL)
	must(t, err)
	waitFor(t, pg, `document.getElementById("reason").textContent === "solve the puzzle on the page" && Number(document.getElementById("live").dataset.seq) >= 1 && document.getElementById("live").naturalWidth > 0`)
	shot(t, pg, "takeover-link.png")

	// Spent: a second opening gets 410; its cookie opens nothing of the
	// console itself.
	if code := get(t, nil, q.URL); code != http.StatusGone {
		t.Fatalf("the link opened twice: %d", code)
	}
	cookies, err := bc.Cookies()
	must(t, err)
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(r.base + "/t/")
	for _, c := range cookies {
		jar.SetCookies(u, []*http.Cookie{{Name: c.Name, Value: c.Value, Path: c.Path}})
		cu, _ := url.Parse(r.base + "/")
		jar.SetCookies(cu, []*http.Cookie{{Name: c.Name, Value: c.Value, Path: "/"}})
	}
	if code := get(t, jar, r.base+"/t/api/state"); code != http.StatusOK {
		t.Fatalf("the link's cookie does not open its own state: %d", code)
	}
	for _, p := range []string{"/api/state", "/"} {
		if code := get(t, jar, r.base+p); code == http.StatusOK {
			t.Fatalf("the link's cookie opened the console's %s", p)
		}
	}

	must(t, pg.Locator("#handback").Click())
	res := <-done
	if res.isErr || !strings.Contains(res.text, `"handed_back":true`) {
		t.Fatalf("the hand-back from the link did not reach the agent: %s", res.text)
	}
	select {
	case id := <-a.complete:
		if id != q.ElicitationID {
			t.Fatalf("completed elicitation %q, asked %q", id, q.ElicitationID)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the client was never told the takeover elicitation is complete")
	}
	if code := get(t, jar, r.base+"/t/api/state"); code != http.StatusGone {
		t.Fatalf("after the hand-back the link still answers: %d", code)
	}
	if n := len(r.h.Desk().Takeovers()); n != 0 {
		t.Fatalf("%d takeovers still pending", n)
	}
}

func get(t *testing.T, jar http.CookieJar, u string) int {
	t.Helper()
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return string(b)
}

// shot saves a screenshot of pg for a person to look at: in
// WASMWRIGHT_CONSOLE_SHOTS when set (a folder), else the test's temp
// folder.
func shot(t *testing.T, pg pw.Page, name string) {
	t.Helper()
	dir := os.Getenv("WASMWRIGHT_CONSOLE_SHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, name)
	if _, err := pg.Screenshot(pw.PageScreenshotOptions{Path: pw.String(path), FullPage: pw.Bool(true)}); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	t.Logf("screenshot: %s", path)
}

func contextWithCancel(t *testing.T) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx, cancel
}

// regexpRef is the ref of the first snapshot line holding what.
func regexpRef(t *testing.T, snap, what string) string {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(what) + `[^\n]*\[ref=((?:f\d+)?e\d+)\]`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no %s in the snapshot: %s", what, snap)
	}
	return m[1]
}

func decision(verdict string) operator.Decision {
	return operator.Decision{Verdict: verdict, By: "test"}
}

func selectValue(v string) pw.SelectOptionValues { return pw.SelectOptionValues{Values: &[]string{v}} }

// TestAgentClientIsNotTrustedUnlessOptedIn (issue 33, "the takeover link
// goes to the agent's own client" and "client approvals"): with a config
// that names the client nowhere, a client that declares URL-mode
// elicitation is sent no takeover link (the takeover waits for the
// console and times out), and a grant the client made earlier (stored as
// today's main stores it: By "client ...") does not let a click run.
func TestAgentClientIsNotTrustedUnlessOptedIn(t *testing.T) {
	a := newAsker()
	r := newRigWith(t, rigOptions{client: a.options()})
	r.freshPage(t)
	// A link sent anyway would be declined at once (and, with no console
	// there, the takeover cancelled) rather than leave the client waiting.
	a.answers <- &sdk.ElicitResult{Action: "decline"}
	if text, isErr := r.Call(t, "browser_request_takeover", map[string]any{"reason": "solve the puzzle", "timeout_s": 2}); !isErr || !strings.Contains(text, "No one took over") {
		t.Fatalf("a takeover nobody answered: %s", text)
	}
	select {
	case q := <-a.asked:
		t.Fatalf("the agent's client was sent the takeover link though no config opted in: %+v", q)
	default:
	}

	gs, err := r.h.Grants()
	must(t, err)
	must(t, gs.Add("default", operator.Grant{Tool: "browser_click", Origin: r.site.URL, By: "client agent"}))
	ref := r.freshPage(t)
	if text, isErr := r.Call(t, "browser_click", map[string]any{"ref": ref}); !isErr || !strings.Contains(text, "Approval required") {
		t.Fatalf("a client's grant let a click run under a config that no longer names the client: %s", text)
	}
	if snap := r.MustCall(t, "browser_snapshot", map[string]any{"snapshot": "full"}); strings.Contains(snap, "clicked") {
		t.Fatal("the click ran")
	}
}

// TestClientGrantsPersistWhenAllowed: with approval.client_grants =
// "persist", the client's "for this origin" is stored with the operators'
// grants, marked as the client's (via client), and covers the next click.
func TestClientGrantsPersistWhenAllowed(t *testing.T) {
	a := newAsker()
	r := newRigWith(t, rigOptions{approval: `{ act = "ask", timeout = "90s", via = ["client"], client_grants = "persist" }`, client: a.options()})
	done := r.callAsync(t, "browser_click", map[string]any{"ref": r.freshPage(t)})
	a.next(t)
	a.answers <- &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "origin"}}
	if res := <-done; res.isErr {
		t.Fatalf("approved for the origin, the click failed: %s", res.text)
	}
	gs, err := r.h.Grants()
	must(t, err)
	list, _ := gs.List("default")
	if len(list) != 1 || list[0].Origin != r.site.URL || list[0].Via != operator.ViaClient || !list[0].FromClient() {
		t.Fatalf("the persisted client grant: %+v", list)
	}
	if text := r.MustCall(t, "browser_click", map[string]any{"ref": r.freshPage(t)}); !strings.Contains(text, "clicked") {
		t.Fatalf("the persisted grant did not cover the next click: %s", text)
	}
	select {
	case q := <-a.asked:
		t.Fatalf("a click the grant covers was asked again: %s", q.Message)
	default:
	}
}
