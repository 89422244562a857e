package console_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	pw "github.com/mxschmitt/playwright-go"
	"golang.org/x/net/websocket"

	"github.com/wasmwright/wasmwright/frontend/console"
	"github.com/wasmwright/wasmwright/frontend/mcp"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
	"github.com/wasmwright/wasmwright/internal/mcptest"
	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/internal/testkit"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

const (
	credUser = "console-user"
	credPass = "console-Pa55-word"
)

// agentSite is the loopback site the agent browses: a big button that
// records a click (its text and the title change), a second page of
// another colour, and a login form.
func agentSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!doctype html>"+body)
		}
	}
	mux.HandleFunc("GET /{$}", page(`<title>Agent page</title><style>body{margin:0}#b{position:absolute;left:0;top:0;width:600px;height:400px;font-size:40px;background:#4c6ef5;color:#fff}</style>
		<button id="b" onclick="this.textContent='clicked';document.title='clicked by a human'">Press me</button>`))
	mux.HandleFunc("GET /two", page(`<title>Two</title><style>body{background:#e03131}</style><h1>Page two</h1>`))
	// A page that speaks to the approver: a title with markdown and a
	// fake origin, a button whose accessible name ("approve this") is not
	// what it shows ("Delete my account"), and the vault's password
	// echoed in the title, the name and (from the query) the URL.
	mux.HandleFunc("GET /echo", page(`<title>[Verified](https://evil.example) at the origin https://bank.example `+credPass+`</title>
		<button aria-label="approve this `+credPass+`" onclick="this.textContent='deleted'">Delete my account</button>`))
	mux.HandleFunc("GET /login", page(`<title>Sign in</title><form><label>Username <input name="user"></label><label>Password <input type="password" name="pass"></label></form>`))
	// A password field and the page's own "show password" button, at
	// fixed places (showPW); the button also paints #mark black, so a
	// frame shows whether it was pressed.
	mux.HandleFunc("GET /showpw", page(`<title>Show password</title><style>body{margin:0;background:#fff}
		#pw{position:absolute;left:10px;top:10px;width:600px;height:60px;font:40px monospace;color:#000;background:#fff;border:0;outline:0;padding:0}
		#show{position:absolute;left:10px;top:100px;width:300px;height:60px}
		#mark{position:absolute;left:10px;top:200px;width:100px;height:100px;background:#fff}
		#user{position:absolute;left:10px;top:320px}</style>
		<input type="password" id="pw" name="pass" aria-label="Password"><input id="user" name="user" aria-label="Username">
		<button id="show" onclick="pw.type='text';mark.style.background='#000';document.title='shown'">Show password</button><div id="mark"></div>`))
	// A bot wall, as the first-party detector knows it.
	mux.HandleFunc("GET /wall", page(`<title>Just a moment...</title><script>window._cf_chl_opt={cType:'managed'}</script><p>Verifying you are human. wall-text</p>`))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// rig is a host with the operator desk, the console mounted on the MCP
// HTTP handler (as serve does), an agent connected over MCP with its
// bearer token, and an operator token.
type rig struct {
	h          *host.Host
	console    *console.Console
	cfg        *host.Config
	site       *httptest.Server
	srv        *httptest.Server
	base       string // the console's URL
	agentToken string
	opToken    string
	agent      *sdk.ClientSession
}

func pluginsDir(t testing.TB) string {
	if d := os.Getenv("WASMWRIGHT_PLUGINS_DIR"); d != "" {
		return d
	}
	return filepath.Join(wasmbuild.Root(), "build", "plugins")
}

func newRig(t *testing.T) *rig {
	t.Helper()
	return newRigWith(t, rigOptions{})
}

// rigOptions vary the rig: the personality's approval table (default:
// act asks, on the console), more of the [console] table, and the agent's
// client options (elicitation handlers).
type rigOptions struct {
	approval string
	console  string
	client   *sdk.ClientOptions
	// personality is more of [personalities.default] (takeover, hooks);
	// plugins are loaded beside the browser's (blockdetect).
	personality string
	plugins     []string
}

func newRigWith(t *testing.T, o rigOptions) *rig {
	t.Helper()
	testenv.Heavy(t, "Chromium and the Playwright driver")
	if o.approval == "" {
		o.approval = `{ act = "ask", timeout = "90s" }`
	}
	plugins := pluginsDir(t)
	if _, err := os.Stat(filepath.Join(plugins, "browser.wasm")); err != nil {
		t.Fatalf("%s/browser.wasm is missing: run `make plugins`", plugins)
	}
	r := &rig{site: agentSite(t), agentToken: mcp.NewToken(), opToken: console.NewToken()}
	extraPlugins, pluginNames := "", ""
	for _, p := range o.plugins {
		extraPlugins += "[plugins." + p + "]\n"
		pluginNames += fmt.Sprintf(", %q", p)
	}
	dir := t.TempDir()
	t.Setenv(vault.PassphraseEnv, "")
	store := vault.Open(vault.Options{File: filepath.Join(dir, "vault.age")})
	if err := store.Put(vault.Credential{Name: "attended", Username: credUser, Password: credPass,
		Policy: vault.Policy{Origins: []string{r.site.URL}, Personalities: []string{"default"}}}); err != nil {
		t.Fatal(err)
	}
	cfg, err := host.ParseConfig(fmt.Sprintf(`[host]
plugins_dir = %q
cache_dir = %q
call_timeout = "240s"
default_personality = "default"
watch_plugins = false
grants_dir = "grants"

[browser]
headed = "false"
navigation_timeout = "120s"
action_timeout = "20s"

[vault]
file = "vault.age"

[plugins.browser]
%s
[personalities.default]
plugins = ["browser"%s]
tools = ["*"]
grants = ["browser.read", "browser.act", "takeover", "vault.fill"]
network = { allowed_hosts = [%q, %q] }
approval = %s
%s

[console]
enabled = true
%s
[[console.operators]]
name = "olivia"
sha256 = %q
`, plugins, filepath.Join(os.TempDir(), "ww-console-test-cache"), extraPlugins, pluginNames, strings.TrimPrefix(r.site.URL, "http://"), strings.Replace(strings.TrimPrefix(r.site.URL, "http://"), "127.0.0.1", "localhost", 1), o.approval, o.personality, o.console, console.HashToken(r.opToken)), "console.toml", dir)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	r.h, err = host.New(context.Background(), cfg, host.Options{Logger: log, Operators: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.h.Close(context.Background()) })
	c, err := console.New(r.h, console.Options{Path: cfg.Console.ConsolePath(), Operators: cfg.Console.Operators})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcp.New(r.h, mcp.Options{Logger: log, HTTP: mcp.HTTPOptions{Mount: c.Handler(), MountPath: c.Path()}})
	tokens, _ := mcp.NewTokens(nil)
	tokens.Add(r.agentToken, "default")
	r.srv = httptest.NewServer(srv.Handler(tokens))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		r.srv.Close()
	})
	r.base = r.srv.URL + c.Path()
	r.console, r.cfg = c, cfg
	c.Advertise(r.srv.URL)
	r.agent = r.connect(t, o.client)
	return r
}

// connect opens an MCP session of the agent (its bearer token) with the
// client options o.
func (r *rig) connect(t *testing.T, o *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, o)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: r.srv.URL + mcp.Path, HTTPClient: &http.Client{Transport: mcptest.Bearer(r.agentToken)}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call runs an agent tool over MCP; a tool error comes back as "error
// CODE: message".
func (r *rig) call(t *testing.T, tool string, args map[string]any) (text string, isErr bool) {
	t.Helper()
	return mcptest.Call(t, r.agent, 90*time.Second, tool, args)
}

func (r *rig) mustCall(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	return mcptest.MustCall(t, r.agent, 90*time.Second, tool, args)
}

// operatorBrowser is the operator's own Chromium, next to the host's.
func operatorBrowser(t *testing.T) pw.Browser { return mcptest.OperatorBrowser(t) }

// login opens the console in a fresh context of b and logs in with token.
// bypassCSP lets the test evaluate its waiting conditions in the page (the
// console's CSP forbids eval).
func (r *rig) login(t *testing.T, b pw.Browser, token string, bypassCSP bool) pw.Page {
	t.Helper()
	bc, err := b.NewContext(pw.BrowserNewContextOptions{BypassCSP: pw.Bool(bypassCSP)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bc.Close() })
	pg, err := bc.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	pg.SetDefaultTimeout(30000)
	if _, err := pg.Goto(r.base + "/"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(pg.URL(), "/login") {
		t.Fatalf("without a login the console sent us to %s, not the login page", pg.URL())
	}
	must(t, pg.Locator("#token").Fill(token))
	_, err = pg.ExpectNavigation(func() error { return pg.Locator("#login").Click() })
	must(t, err)
	return pg
}

// waitFor waits until expr is true in the console page.
func waitFor(t *testing.T, pg pw.Page, expr string, arg ...any) {
	t.Helper()
	mcptest.WaitFor(t, pg, 30*time.Second, expr, arg...)
}

func evalInt(t *testing.T, pg pw.Page, expr string) int {
	t.Helper()
	return int(mcptest.Number(t, pg, expr))
}

// sessionName is the browser session of the agent's MCP session.
func (r *rig) sessionName() string {
	return mcp.SessionName(mcp.HashToken(r.agentToken), r.agent.ID())
}

// TestConsoleEndToEnd drives the console in the operator's Chromium while
// an agent works over MCP in the host's: login, the live view, operator
// control, takeovers (hand-back, cancel, timeout), approvals, attended
// stored logins, closing a session.
func TestConsoleEndToEnd(t *testing.T) {
	r := newRig(t)
	b := operatorBrowser(t)

	// A wrong token and an agent's bearer token are refused.
	for _, tok := range []string{"wwop_wrong", r.agentToken} {
		pg := r.login(t, b, tok, false)
		if !strings.Contains(pg.URL(), "/login?refused") {
			c, _ := pg.Content()
			t.Log(c)
			t.Fatalf("token %.8s… opened the console: %s", tok, pg.URL())
		}
		if n, _ := pg.Locator("#refused").Count(); n != 1 {
			t.Fatal("the login page does not say the token was refused")
		}
	}
	// The console runs under its own CSP (no eval, no inline script).
	strict := r.login(t, b, r.opToken, false)
	must(t, strict.Locator(`body[data-connected="1"] #operator:text("operator olivia")`).WaitFor())
	must(t, strict.Close())
	op := r.login(t, b, r.opToken, true)
	waitFor(t, op, `document.body.dataset.connected === "1" && document.getElementById("operator").textContent === "operator olivia"`)

	// The agent opens a page; it appears in the sessions table.
	r.mustCall(t, "browser_navigate", map[string]any{"url": r.site.URL + "/"})
	sess := r.sessionName()
	row := fmt.Sprintf(`#sessions tr[data-session=%q]`, sess)
	waitFor(t, op, `s => { const r = document.querySelector(s); return r && r.textContent.includes("Agent page") && r.textContent.includes("idle") }`, row)

	// An agent call in flight shows as such.
	busy := make(chan string, 1)
	go func() { text, _ := r.call(t, "browser_wait_for", map[string]any{"seconds": 3}); busy <- text }()
	waitFor(t, op, `s => document.querySelector(s).textContent.includes("agent call")`, row)
	<-busy
	waitFor(t, op, `s => document.querySelector(s).textContent.includes("idle")`, row)

	// Live view: a frame of the agent's page arrives, the size of its
	// viewport; the agent's next page produces a new frame.
	must(t, op.Locator(row+" button.watch").Click())
	waitFor(t, op, `Number(document.getElementById("live").dataset.seq) >= 1 && document.getElementById("live").naturalWidth > 0`)
	w := evalInt(t, op, `Number(document.getElementById("live").dataset.width)`)
	natural := evalInt(t, op, `document.getElementById("live").naturalWidth`)
	if w < 600 || natural < 300 {
		t.Fatalf("frame of a %dpx-wide viewport, %dpx picture: not the agent's page", w, natural)
	}
	seq := evalInt(t, op, `Number(document.getElementById("live").dataset.seq)`)
	r.mustCall(t, "browser_navigate", map[string]any{"url": r.site.URL + "/two"})
	waitFor(t, op, `n => Number(document.getElementById("live").dataset.seq) > n`, seq)

	// Operator control: the operator navigates the page back from the
	// live view; while they hold it, agent tools that change the page are
	// refused and inspection still works; released, the agent acts again.
	must(t, op.Locator("#live-back").Click())
	waitFor(t, op, `s => document.querySelector(s).textContent.includes("operator control") && document.querySelector(s).textContent.includes("Agent page")`, row)
	if text, isErr := r.call(t, "browser_navigate", map[string]any{"url": r.site.URL + "/two"}); !isErr || !strings.Contains(text, "not_available") || !strings.Contains(text, "operator is controlling") {
		t.Fatalf("navigate while the operator controls the page: %s", text)
	}
	if text := r.mustCall(t, "browser_snapshot", map[string]any{"snapshot": "full"}); !strings.Contains(text, "Press me") {
		t.Fatalf("snapshot while the operator controls the page: %s", text)
	}
	must(t, op.Locator("#live-release").Click())
	waitFor(t, op, `s => document.querySelector(s).textContent.includes("idle")`, row)

	// Takeover, handed back: the request appears with its reason verbatim,
	// other tools answer not_available meanwhile, the operator clicks the
	// page's button on the live view and hands back.
	reason := `Solve the <b>captcha</b> & press "Press me"`
	type outcome struct {
		text  string
		isErr bool
	}
	takeover := func(args map[string]any) <-chan outcome {
		ch := make(chan outcome, 1)
		go func() {
			text, isErr := r.call(t, "browser_request_takeover", args)
			ch <- outcome{text, isErr}
		}()
		return ch
	}
	done := takeover(map[string]any{"reason": reason, "timeout_s": 120})
	waitFor(t, op, `() => document.querySelectorAll("#takeovers .card").length === 1`)
	if got, _ := op.Locator("#takeovers .reason").TextContent(); got != reason {
		t.Fatalf("reason shown %q, want %q verbatim", got, reason)
	}
	if n, _ := op.Locator("#takeovers .reason b").Count(); n != 0 {
		t.Fatal("the reason was rendered as HTML")
	}
	waitFor(t, op, `s => document.querySelector(s).textContent.includes("taken over")`, row)
	if text, isErr := r.call(t, "browser_snapshot", map[string]any{"snapshot": "full"}); !isErr || !strings.Contains(text, "not_available") || !strings.Contains(text, "A human has taken over") {
		t.Fatalf("snapshot during a takeover: %s", text)
	}
	if text, isErr := r.call(t, "browser_request_takeover", map[string]any{"reason": "again"}); !isErr || !strings.Contains(text, "already pending") {
		t.Fatalf("a second takeover request: %s", text)
	}
	img := op.Locator("#live")
	box, err := img.BoundingBox()
	must(t, err)
	scale := box.Width / float64(w)
	acks := evalInt(t, op, `Number(document.getElementById("live").dataset.acks || 0)`)
	must(t, img.Click(pw.LocatorClickOptions{Position: &pw.Position{X: 100 * scale, Y: 100 * scale}}))
	waitFor(t, op, `n => Number(document.getElementById("live").dataset.acks || 0) > n`, acks)
	waitFor(t, op, `s => document.querySelector(s).textContent.includes("clicked by a human")`, row)
	must(t, op.Locator("#takeovers button.handback").Click())
	res := <-done
	if res.isErr || !strings.Contains(res.text, `"handed_back":true`) || !strings.Contains(res.text, `"outcome":"user"`) || !strings.Contains(res.text, "clicked") {
		t.Fatalf("takeover handed back: %+v", res)
	}
	waitFor(t, op, `() => document.querySelectorAll("#takeovers .card").length === 0`)
	r.mustCall(t, "browser_navigate", map[string]any{"url": r.site.URL + "/two"}) // free again: control was let go

	// Cancelled.
	done = takeover(map[string]any{"reason": "log in for me", "timeout_s": 120})
	waitFor(t, op, `() => document.querySelectorAll("#takeovers .card").length === 1`)
	must(t, op.Locator("#takeovers button.cancel").Click())
	if res := <-done; res.isErr || !strings.Contains(res.text, `"handed_back":false`) || !strings.Contains(res.text, `"outcome":"cancel"`) {
		t.Fatalf("takeover cancelled: %+v", res)
	}

	// Timed out: shown with its countdown, then gone.
	done = takeover(map[string]any{"reason": "nobody comes", "timeout_s": 2})
	waitFor(t, op, `() => { const c = document.querySelector("#takeovers .countdown"); return c && /^[0-2]s$/.test(c.textContent) }`)
	if res := <-done; !res.isErr || !strings.Contains(res.text, "execution_failed") || !strings.Contains(res.text, "No one took over the browser within 2s") {
		t.Fatalf("takeover timed out: %+v", res)
	}
	waitFor(t, op, `() => document.querySelectorAll("#takeovers .card").length === 0`)

	// Approvals: act is "ask" for this personality. Each agent click waits
	// for the operator's decision in the console.
	var ref string
	open := func(url string) { // the page, and its button's ref
		t.Helper()
		snap := r.mustCall(t, "browser_navigate", map[string]any{"url": url})
		m := regexp.MustCompile(`button "Press me" \[ref=([a-z0-9]+)\]`).FindStringSubmatch(snap)
		if m == nil {
			t.Fatalf("no button in:\n%s", snap)
		}
		ref = m[1]
	}
	open(r.site.URL + "/")
	type answer struct {
		text  string
		isErr bool
	}
	click := func() <-chan answer {
		ch := make(chan answer, 1)
		go func() {
			text, isErr := r.call(t, "browser_click", map[string]any{"ref": ref})
			ch <- answer{text, isErr}
		}()
		return ch
	}
	pending := func(origin string) {
		t.Helper()
		waitFor(t, op, `o => { const a = document.querySelector("#approvals .approval"); return a && a.textContent.includes("browser_click") && a.textContent.includes(o) }`, origin)
	}
	// decide clicks a decision and waits for the card to go, so the next
	// ask is not mistaken for this one's card.
	decide := func(button string) {
		t.Helper()
		must(t, op.Locator("#approvals button."+button).Click())
		waitFor(t, op, `() => document.querySelectorAll("#approvals .approval").length === 0`)
	}
	// Approved once: the click runs.
	pend := click()
	pending(r.site.URL)
	decide("approve-once")
	if a := <-pend; a.isErr || !strings.Contains(a.text, "clicked") {
		t.Fatalf("approved once: %+v", a)
	}
	// Denied: the agent is told, the page is untouched.
	open(r.site.URL + "/")
	pend = click()
	pending(r.site.URL)
	decide("deny")
	if a := <-pend; !a.isErr || !strings.Contains(a.text, "The operator denied browser_click") {
		t.Fatalf("denied: %+v", a)
	}
	// Approved for this origin: a grant is stored, and the next click on
	// that origin runs without asking.
	pend = click()
	pending(r.site.URL)
	decide("approve-origin")
	if a := <-pend; a.isErr || !strings.Contains(a.text, "clicked") {
		t.Fatalf("approved for the origin: %+v", a)
	}
	open(r.site.URL + "/")
	if a := <-click(); a.isErr || !strings.Contains(a.text, "clicked") {
		t.Fatalf("click under the stored grant: %+v", a)
	}
	if gs, err := r.h.Grants(); err != nil {
		t.Fatal(err)
	} else if list, _ := gs.List("default"); len(list) != 1 || list[0].Tool != "browser_click" || list[0].Origin != r.site.URL {
		t.Fatalf("stored grants: %+v", list)
	}
	// The grant does not cover another origin; and a page that moves while
	// the call waits is refused at the act, not clicked: the click is
	// judged on localhost, the operator takes the page back to the granted
	// origin from the live view, then approves.
	other := strings.Replace(r.site.URL, "127.0.0.1", "localhost", 1)
	open(other + "/")
	pend = click()
	pending(other)
	must(t, op.Locator("#live-url").Fill(r.site.URL+"/"))
	must(t, op.Locator("#live-go").Click())
	waitFor(t, op, `s => document.querySelector(s).textContent.includes("Agent page") && document.querySelector(s).textContent.includes("127.0.0.1")`, row)
	must(t, op.Locator("#live-release").Click())
	decide("approve-once")
	if a := <-pend; !a.isErr || !strings.Contains(a.text, "refused") || strings.Contains(a.text, "clicked") {
		t.Fatalf("the page moved origin during the wait: want refused, got %+v", a)
	}
	if text := r.mustCall(t, "browser_snapshot", map[string]any{"snapshot": "full"}); !strings.Contains(text, "Press me") {
		t.Fatalf("the moved page was clicked:\n%s", text)
	}

	// The event log tail shows the calls and the decisions, as sentences.
	waitFor(t, op, `() => !!document.querySelector('#events li[data-kind="tool.call"]') && !!document.querySelector('#events li[data-kind="approval.decided"]') &&
		document.getElementById("events").textContent.includes("browser_click was denied by olivia")`)

	// Stored logins: names and policies, never values.
	waitFor(t, op, `() => document.getElementById("logins").textContent.includes("attended")`)
	if html, _ := op.Content(); strings.Contains(html, credPass) || strings.Contains(html, credUser) {
		t.Fatal("the console shows a stored value")
	}

	// An attended-only login fills over MCP while the operator is
	// connected, and is refused once they leave.
	fill := func() (string, bool) {
		snap := r.mustCall(t, "browser_navigate", map[string]any{"url": r.site.URL + "/login"})
		ref := regexp.MustCompile(`textbox "Password"[^\n]*\[ref=((?:f\d+)?e\d+)\]`).FindStringSubmatch(snap)
		if ref == nil {
			t.Fatalf("no password field in %s", snap)
		}
		return r.call(t, "browser_fill_credential", map[string]any{"credential": "attended", "password_ref": ref[1]})
	}
	if text, isErr := fill(); isErr {
		t.Fatalf("attended-only login with an operator connected: %s", text)
	}
	// The agent opens a new tab: the live view follows it (a frame of the
	// red page arrives).
	r.mustCall(t, "browser_navigate", map[string]any{"url": r.site.URL + "/two", "new_tab": true})
	waitFor(t, op, `() => {
		const img = document.getElementById("live"), c = document.createElement("canvas");
		if (!img.naturalWidth) return false;
		c.width = img.naturalWidth; c.height = img.naturalHeight;
		const g = c.getContext("2d");
		g.drawImage(img, 0, 0);
		const [r, gr, b] = g.getImageData(c.width - 5, c.height - 5, 1, 1).data;
		return r > 180 && gr < 100 && b < 100;
	}`)

	// Close the session from the console (the agent loses its page).
	op.OnDialog(func(d pw.Dialog) { d.Accept() })
	must(t, op.Locator(row+" button.close").Click())
	waitFor(t, op, `s => !document.querySelector(s)`, row)
	if text, isErr := r.call(t, "browser_snapshot", map[string]any{"snapshot": "full"}); !isErr || !strings.Contains(text, "no_session") {
		t.Fatalf("snapshot after the operator closed the session: %s", text)
	}
	must(t, op.Close())
	if !testkit.Await(r.h.Desk().Subscribe, 30*time.Second, func() bool { return !r.h.Desk().Attended("default") }) {
		t.Fatal("the operator left but the personality is still attended")
	}
	if text, isErr := fill(); !isErr || !strings.Contains(text, "may be filled only with a human present") {
		t.Fatalf("attended-only login with no operator: %s", text)
	}
}

// TestConsoleRefusesStrangers: nothing but the login page without a
// login; an agent's bearer token opens nothing; a POST or a WebSocket from
// another origin is refused even with a valid session cookie.
func TestConsoleRefusesStrangers(t *testing.T) {
	r := newRig(t)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string, hdr map[string]string) (*http.Response, string) {
		req, _ := http.NewRequest("GET", r.base+path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := noRedirect.Do(req)
		must(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	if res, body := get("/login", nil); res.StatusCode != 200 || !strings.Contains(body, `name="token"`) {
		t.Fatalf("login page: %d", res.StatusCode)
	}
	for _, p := range []string{"/", "/static/app.js", "/static/app.css", "/static/index.html", "/static/", "/api/state", "/ws", "/live?personality=default&session=x"} {
		for _, hdr := range []map[string]string{nil, {"Authorization": "Bearer " + r.agentToken}} {
			res, body := get(p, hdr)
			if res.StatusCode == 200 || strings.Contains(body, "wsBase") || strings.Contains(body, "sessions") {
				t.Fatalf("GET %s without a login (%v): %d %q", p, hdr, res.StatusCode, body)
			}
		}
	}
	if res, _ := get("/", nil); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/login" {
		t.Fatalf("GET / without a login: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}

	// post sends body to path as a page of origin would ("": no Origin
	// header), with the headers in hdr.
	post := func(path, origin, contentType, body string, hdr map[string]string) *http.Response {
		req, _ := http.NewRequest("POST", r.base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := noRedirect.Do(req)
		must(t, err)
		res.Body.Close()
		return res
	}
	// Log in as a browser would (same origin), keep the cookie.
	login := func(origin, token string) *http.Response {
		return post("/login", origin, "application/x-www-form-urlencoded", url.Values{"token": {token}}.Encode(), nil)
	}
	if res := login(r.srv.URL, r.agentToken); len(res.Cookies()) != 0 || !strings.Contains(res.Header.Get("Location"), "refused") {
		t.Fatalf("an agent token logged in: %v", res.Header)
	}
	if res := login("http://evil.example", r.opToken); res.StatusCode != http.StatusForbidden || len(res.Cookies()) != 0 {
		t.Fatalf("a cross-origin login: %d", res.StatusCode)
	}
	res := login(r.srv.URL, r.opToken)
	var ck *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "ww_console" {
			ck = c
		}
	}
	if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/console/" {
		t.Fatalf("session cookie: %+v", ck)
	}
	cookie := map[string]string{"Cookie": ck.Name + "=" + ck.Value}
	if res, body := get("/static/app.js", cookie); res.StatusCode != 200 || !strings.Contains(body, "wsBase") {
		t.Fatalf("app.js with a login: %d", res.StatusCode)
	}

	// Open a session for the agent, then try to close it cross-origin.
	r.mustCall(t, "browser_navigate", map[string]any{"url": r.site.URL + "/"})
	closeFrom := func(origin string) int {
		return post("/api/close", origin, "application/json", fmt.Sprintf(`{"personality":"default","session":%q}`, r.sessionName()), cookie).StatusCode
	}
	for _, o := range []string{"http://evil.example", "", "null", strings.Replace(r.srv.URL, "127.0.0.1", "localhost", 1)} {
		if code := closeFrom(o); code != http.StatusForbidden {
			t.Fatalf("POST /api/close from origin %q: %d", o, code)
		}
	}
	if len(r.h.Browser().OperatorSessions()) != 1 {
		t.Fatal("a cross-origin POST closed the session")
	}
	dial := func(origin string) error {
		cfg, _ := websocket.NewConfig(strings.Replace(r.base, "http://", "ws://", 1)+"/ws", origin)
		cfg.Header.Set("Cookie", cookie["Cookie"])
		ws, err := websocket.DialConfig(cfg)
		if err == nil {
			ws.Close()
		}
		return err
	}
	if err := dial("http://evil.example"); err == nil {
		t.Fatal("a WebSocket from a foreign origin was accepted")
	}
	if r.h.Desk().Attended("default") {
		t.Fatal("a refused WebSocket attached an operator")
	}
	if err := dial(r.srv.URL); err != nil {
		t.Fatalf("the console's own origin: %v", err)
	}
	if code := closeFrom(r.srv.URL); code != http.StatusOK {
		t.Fatalf("POST /api/close from the console's origin: %d", code)
	}
	if len(r.h.Browser().OperatorSessions()) != 0 {
		t.Fatal("the session is still open")
	}
}

// Under TLS the session cookie is Secure, and the origin that counts is
// the https one.
func TestConsoleCookieSecureUnderTLS(t *testing.T) {
	_, c, tok := bareConsole(t, "tls.toml")
	srv := httptest.NewTLSServer(c.Handler())
	defer srv.Close()
	cl := srv.Client()
	cl.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	login := func(origin string) *http.Response {
		req, _ := http.NewRequest("POST", srv.URL+"/console/login", strings.NewReader(url.Values{"token": {tok}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		res, err := cl.Do(req)
		must(t, err)
		res.Body.Close()
		return res
	}
	if res := login(strings.Replace(srv.URL, "https://", "http://", 1)); res.StatusCode != http.StatusForbidden {
		t.Fatalf("an http origin on an https console: %d", res.StatusCode)
	}
	res := login(srv.URL)
	if len(res.Cookies()) != 1 || !res.Cookies()[0].Secure || !res.Cookies()[0].HttpOnly {
		t.Fatalf("cookie under TLS: %+v", res.Cookies())
	}
}

// TestConsoleRefusesReboundHost: on a loopback listener the console
// answers only to a loopback Host. A page on evil.example whose name was
// re-pointed at 127.0.0.1 sends Host: evil.example and an Origin that
// matches it: the Origin check alone would let it log in.
func TestConsoleRefusesReboundHost(t *testing.T) {
	_, c, tok := bareConsole(t, "rebind.toml")
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, hostHeader, path string) *http.Response {
		req, _ := http.NewRequest(method, srv.URL+"/console"+path, strings.NewReader(url.Values{"token": {tok}}.Encode()))
		req.Host = hostHeader
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "http://"+hostHeader)
		res, err := cl.Do(req)
		must(t, err)
		res.Body.Close()
		return res
	}
	for _, bad := range []string{"evil.example:" + port, "evil.example", "127.0.0.1.evil.example:" + port, "localhost.evil.example:" + port} {
		if res := do("POST", bad, "/login"); res.StatusCode != http.StatusForbidden || len(res.Cookies()) != 0 {
			t.Errorf("login with Host %q: %d, cookies %v", bad, res.StatusCode, res.Cookies())
		}
		if res := do("GET", bad, "/login"); res.StatusCode != http.StatusForbidden {
			t.Errorf("login page with Host %q: %d", bad, res.StatusCode)
		}
	}
	for _, good := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port} {
		if res := do("POST", good, "/login"); res.StatusCode != http.StatusSeeOther || len(res.Cookies()) != 1 {
			t.Errorf("login with Host %q: %d, cookies %v", good, res.StatusCode, res.Cookies())
		}
	}
}

// bareConsole is a console over a host without a browser, with one
// operator "o" whose login token it returns; the host closes when the test
// ends. file names the config file (it shows in errors).
func bareConsole(t *testing.T, file string) (*host.Host, *console.Console, string) {
	t.Helper()
	tok := console.NewToken()
	cfg, err := host.ParseConfig(fmt.Sprintf("[host]\ncache_dir = %q\n[console]\nenabled = true\n[[console.operators]]\nname = \"o\"\nsha256 = %q\n",
		filepath.Join(os.TempDir(), "ww-console-test-cache"), console.HashToken(tok)), file, t.TempDir())
	must(t, err)
	h, err := host.New(context.Background(), cfg, host.Options{NoBrowser: true, Operators: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	must(t, err)
	t.Cleanup(func() { h.Close(context.Background()) })
	c, err := console.New(h, console.Options{Operators: cfg.Console.Operators})
	must(t, err)
	return h, c, tok
}

func must(t *testing.T, err error) {
	t.Helper()
	mcptest.Must(t, err)
}
