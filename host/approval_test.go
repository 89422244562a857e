package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/internal/testkit"
)

// clickSite is a loopback page whose button counts its clicks in the page
// ("clicks: N"), beside a text field and a password field. The button fills the top left
// corner, so a click at (150, 50) lands on it whatever the origin.
func clickSite(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>site</title><button style="position:fixed;left:0;top:0;width:300px;height:100px" onclick="s.textContent = 'clicks: ' + (++n)">Go</button><p id=s style="margin-top:110px">clicks: 0</p><input aria-label="Name"><input type=password aria-label="Password"><script>let n = 0</script>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// pendingApproval waits for the desk to hold an approval, and returns it.
func pendingApproval(t *testing.T, d *operator.Desk) operator.Approval {
	t.Helper()
	var as []operator.Approval
	if !testkit.Await(d.Subscribe, 30*time.Second, func() bool { as = d.Approvals(); return len(as) > 0 }) {
		t.Fatal("no approval appeared")
	}
	return as[0]
}

type callOut struct {
	res *abi.Result
	err *abi.Error
}

// TestApprovalsAndOriginGrants drives approval modes end to end in
// Chromium, on two loopback origins: with no console an ask is refused at
// once; deny refuses; an operator approves once, denies, approves for the
// origin (a grant, used next without asking, never on another origin);
// and a page that moves to another origin while its call waits is refused
// inside the host function, not clicked. Every call writes one event, and
// no event holds an argument's value.
func TestApprovalsAndOriginGrants(t *testing.T) {
	t.Parallel() // its own host: overlaps the other such tests' waits
	needBrowser(t)
	a, b := clickSite(t), clickSite(t)
	host := func(u string) string { return strings.TrimPrefix(u, "http://") }
	h, sink, f := shippedFixture(t, fmt.Sprintf(`network = { allowed_hosts = [%q, %q] }
[personalities.all.approval]
act = "ask"
eval = "deny"
credential = "ask"
timeout = "30s"
`, host(a.URL), host(b.URL)))
	desk := h.Desk()
	if err := vault.Open(vault.Options{File: filepath.Join(f.dir, "vault.age")}).Put(vault.Credential{Name: "site", Username: "u", Password: "p",
		Policy: vault.Policy{Origins: []string{a.URL, b.URL}, Personalities: []string{"all"}, Unattended: true}}); err != nil {
		t.Fatal(err)
	}
	const typed, query = "typed-value-7Q", "argvalue-9Z"
	calls := 0
	call := func(tool string, args map[string]any) callOut {
		t.Helper()
		calls++
		if args == nil {
			args = map[string]any{}
		}
		raw, _ := json.Marshal(args)
		ctx, cancel := context.WithTimeout(context.Background(), testenv.CallWait)
		defer cancel()
		res, err := h.Call(ctx, Request{Tool: tool, Args: raw})
		if err != nil {
			return callOut{res, abi.AsError(err)}
		}
		return callOut{res, nil}
	}
	async := func(tool string, args map[string]any) <-chan callOut {
		ch := make(chan callOut, 1)
		go func() { ch <- call(tool, args) }()
		return ch
	}
	mustOK := func(o callOut) *abi.Result {
		t.Helper()
		if o.err != nil {
			t.Fatalf("%s: %s", o.err.Code, o.err.Message)
		}
		return o.res
	}
	refused := func(o callOut, want string) {
		t.Helper()
		if o.err == nil || o.err.Code != abi.CodeRefused || !strings.Contains(o.err.Message, want) {
			t.Fatalf("want refused %q, got %+v", want, o.err)
		}
	}
	clicks := func(n int) {
		t.Helper()
		snap := mustOK(call("browser_snapshot", map[string]any{"snapshot": "full"})).Snapshot
		if !strings.Contains(snap, fmt.Sprintf("clicks: %d", n)) {
			t.Fatalf("want clicks: %d on the page, snapshot:\n%s", n, snap)
		}
	}

	res := mustOK(call("browser_navigate", map[string]any{"url": a.URL + "/?q=" + query}))
	// Page content is labelled external, with where it came from.
	if !res.External || res.Source != a.URL+"/?q="+query {
		t.Fatalf("navigate result: external %v, source %q", res.External, res.Source)
	}
	if snap := mustOK(call("browser_snapshot", map[string]any{"snapshot": "full"})); !snap.External || snap.Source != a.URL+"/?q="+query {
		t.Fatalf("snapshot result: external %v, source %q", snap.External, snap.Source)
	}
	click := map[string]any{"x": 150, "y": 50}

	// No console connected: an ask fails at once, with a message to relay.
	refused(call("browser_click", click), "Approval required: browser_click (risk act) on "+a.URL)
	// Deny: refused, naming the key that would allow it.
	refused(call("browser_evaluate", map[string]any{"expression": "() => 1"}), "personalities.all.approval.eval")
	clicks(0)

	detach := desk.Attach("all")
	defer detach()

	// Approved once.
	pendingCall := async("browser_click", click)
	ap := pendingApproval(t, desk)
	if ap.Tool != "browser_click" || ap.Risk != abi.RiskAct || ap.Origin != a.URL || ap.Summary != "arguments: x, y" {
		t.Fatalf("approval as the console sees it: %+v", ap)
	}
	if err := desk.Decide(ap.ID, operator.Decision{Verdict: operator.ApproveOnce, By: "op"}); err != nil {
		t.Fatal(err)
	}
	mustOK(<-pendingCall)
	clicks(1)

	// Denied.
	pendingCall = async("browser_click", click)
	desk.Decide(pendingApproval(t, desk).ID, operator.Decision{Verdict: operator.Deny})
	refused(<-pendingCall, "The operator denied browser_click")
	clicks(1)

	// Approved once, but the page moves to another origin during the wait:
	// the button at the same place on the new page is not clicked.
	pendingCall = async("browser_click", click)
	ap = pendingApproval(t, desk)
	mustOK(call("browser_navigate", map[string]any{"url": b.URL}))
	desk.Decide(ap.ID, operator.Decision{Verdict: operator.ApproveOnce})
	refused(<-pendingCall, "the page moved from "+a.URL+" to "+b.URL)
	clicks(0) // on b
	// The same for a stored login the vault would fill on either origin.
	res = mustOK(call("browser_navigate", map[string]any{"url": a.URL}))
	pendingCall = async("browser_fill_credential", map[string]any{"credential": "site", "password_ref": refOf(res.Snapshot, "textbox", "Password")})
	ap = pendingApproval(t, desk)
	mustOK(call("browser_navigate", map[string]any{"url": b.URL}))
	desk.Decide(ap.ID, operator.Decision{Verdict: operator.ApproveOnce})
	refused(<-pendingCall, "the page moved from "+a.URL+" to "+b.URL)
	if vals := h.Secrets().Values("all", "default"); len(vals) != 0 {
		t.Fatalf("the refused fill still handed %d values to the session", len(vals))
	}

	// Approved for the origin: a grant, then used without asking.
	res = mustOK(call("browser_navigate", map[string]any{"url": a.URL}))
	nameRef := refOf(res.Snapshot, "textbox", "Name")
	pendingCall = async("browser_click", click)
	desk.Decide(pendingApproval(t, desk).ID, operator.Decision{Verdict: operator.ApproveOrigin, By: "op"})
	mustOK(<-pendingCall)
	clicks(1)
	grants, err := h.Grants()
	if err != nil {
		t.Fatal(err)
	}
	if gs, _ := grants.List("all"); len(gs) != 1 || gs[0].Tool != "browser_click" || gs[0].Origin != a.URL || gs[0].By != "op" {
		t.Fatalf("grants: %+v", gs)
	}
	if st, err := os.Stat(filepath.Join(f.dir, "grants", "all.json")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("grants file: %v %v", st, err)
	}
	mustOK(call("browser_click", click)) // no approval: nobody decides
	clicks(2)
	// The grant is for browser_click only, and for this origin only.
	pendingCall = async("browser_type", map[string]any{"ref": nameRef, "text": typed})
	desk.Decide(pendingApproval(t, desk).ID, operator.Decision{Verdict: operator.ApproveOnce})
	mustOK(<-pendingCall)
	mustOK(call("browser_navigate", map[string]any{"url": b.URL}))
	pendingCall = async("browser_click", click)
	ap = pendingApproval(t, desk)
	if ap.Origin != b.URL {
		t.Fatalf("asked for origin %q, want %q", ap.Origin, b.URL)
	}
	desk.Decide(ap.ID, operator.Decision{Verdict: operator.Deny})
	refused(<-pendingCall, "denied")

	// One event per call, decisions as judged, never a value.
	var tools []ToolEvent
	kinds := map[string]int{}
	for _, e := range sink.Snapshot() {
		kinds[e.Kind]++
		line, _ := json.Marshal(e)
		if strings.Contains(string(line), typed) || strings.Contains(string(line), query) {
			t.Errorf("event holds an argument's value: %s", line)
		}
		if e.Kind == EventTool {
			var te ToolEvent
			json.Unmarshal(e.Data, &te)
			if e.Personality != "all" || e.Session != "default" || e.Plugin != "browser" {
				t.Errorf("event identity: %+v", e)
			}
			tools = append(tools, te)
		}
	}
	if len(tools) != calls {
		t.Fatalf("%d tool events for %d calls", len(tools), calls)
	}
	var decisions []string
	for _, te := range tools {
		if te.Tool == "browser_click" || te.Tool == "browser_evaluate" || te.Tool == "browser_type" || te.Tool == "browser_fill_credential" {
			decisions = append(decisions, te.Decision+"/"+string(te.Code))
		}
		if te.Risk == "" || te.Outcome == "" {
			t.Errorf("incomplete event: %+v", te)
		}
	}
	want := []string{"ask:unattended/refused", "deny/refused", "ask:once/", "ask:deny/refused", "ask:once/refused", "ask:once/refused", "ask:origin/", "grant/", "ask:once/", "ask:deny/refused"}
	if strings.Join(decisions, " ") != strings.Join(want, " ") {
		t.Errorf("decisions:\n got %v\nwant %v", decisions, want)
	}
	if kinds["approval.requested"] != 7 || kinds["approval.decided"] != 7 {
		t.Errorf("approval events: %v", kinds)
	}
	if tail := h.RecentEvents(3); len(tail) != 3 || tail[2].Kind != EventTool {
		t.Errorf("recent events tail: %+v", tail)
	}
}

// Without an operator surface an ask is refused at once, naming the way
// to approve; the browser plugin still links.
func TestAskWithoutConsole(t *testing.T) {
	h, sink, _ := shippedFixtureWith(t, Options{}, "[personalities.all.approval]\nnavigate = \"ask\"\n")
	_, err := h.Call(context.Background(), Request{Tool: "web_fetch", Args: json.RawMessage(`{"url":"http://127.0.0.1:9/"}`)})
	e := abi.AsError(err)
	if err == nil || e.Code != abi.CodeRefused || !strings.HasPrefix(e.Message, "Approval required: web_fetch (risk navigate)") || !strings.Contains(e.Message, "personalities.all.approval.navigate") {
		t.Fatalf("got %v", err)
	}
	ev := sink.Snapshot()
	if len(ev) != 1 || ev[0].Kind != EventTool || !strings.Contains(string(ev[0].Data), `"decision":"ask:unattended"`) {
		t.Fatalf("events: %+v", ev)
	}
	// The browser plugin (which imports ww_takeover_request) still links;
	// only its takeover tool is held back.
	if probs, _ := h.Problems("all"); len(probs) > 0 {
		t.Fatalf("link problems without an operator surface: %v", probs)
	}
	if _, err := h.Call(context.Background(), Request{Tool: TakeoverTool, Args: json.RawMessage(`{"reason":"x"}`)}); abi.AsError(err).Code != abi.CodeNotAvailable {
		t.Fatalf("takeover without a console: %v", err)
	}
	// A tool that reaches nothing outside the host is not external.
	res, err := h.Call(context.Background(), Request{Tool: "extract_links", Args: json.RawMessage(`{"html":"<a href=/x>x</a>","base":"https://a.test/"}`)})
	if err != nil || res.External || res.Source != "" {
		t.Fatalf("extract_links: %+v %v", res, err)
	}
	// A call refused before it is judged still records the tool's risk.
	h.Call(context.Background(), Request{Tool: "web_fetch", Args: json.RawMessage(`{"nope":1}`)})
	ev = sink.Snapshot()
	var last ToolEvent
	json.Unmarshal(ev[len(ev)-1].Data, &last)
	if last.Tool != "web_fetch" || last.Risk != abi.RiskNavigate || last.Code != abi.CodeInputInvalid || last.Outcome != "error" || last.Decision != "" {
		t.Fatalf("event of a call with bad arguments: %+v", last)
	}
}
