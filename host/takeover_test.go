package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
	"github.com/wasmwright/wasmwright/internal/testkit"
	"github.com/wasmwright/wasmwright/sandbox"
)

// takeoverHost is a host with a real browser whose default personality
// grants takeover; operators says whether an operator surface runs.
func takeoverHost(t *testing.T, f *fixture, site string, operators bool, callTimeout string) *Host {
	t.Helper()
	return f.browserHost(t, f.browserConfig(fmt.Sprintf("call_timeout = %q", callTimeout), "", fmt.Sprintf(`[plugins.browser]

[personalities.default]
plugins = ["browser"]
tools = ["*"]
grants = ["browser.read", "browser.act", "vault.fill", "takeover"]
network = { allowed_hosts = [%q] }
`, strings.TrimPrefix(site, "http://"))), Options{Operators: operators})
}

func callJSON(h *Host, ctx context.Context, session, tool, args string) (*abi.Result, *abi.Error) {
	res, err := h.Call(ctx, Request{Session: session, Tool: tool, Args: json.RawMessage(args)})
	if err != nil {
		return res, abi.AsError(err)
	}
	return res, nil
}

// waitPending waits (on the desk's notifications) for the takeover of a
// session to be pending.
func waitPending(t *testing.T, d *operator.Desk, session string) operator.Takeover {
	t.Helper()
	var tk operator.Takeover
	if !testkit.Await(d.Subscribe, 30*time.Second, func() (ok bool) { tk, ok = d.Held("default", session); return ok }) {
		t.Fatal("the takeover never became pending")
	}
	return tk
}

// TestTakeoverThroughTheHost drives browser_request_takeover through the
// real browser plugin: offered only with an operator surface; while
// pending, every other tool on the session answers not_available; the
// hand-back returns handed_back with the page's URL and snapshot; a wait
// longer than call_timeout is not cut by the sandbox's deadline; an
// operator controlling the page refuses acting tools but not reading ones.
func TestTakeoverThroughTheHost(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	needBrowser(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<!doctype html><title>Wall</title><button onclick="this.textContent='passed'">verify</button>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	f := newFixture(t, map[string]string{"browser": "plugins/browser"})
	ctx := context.Background()

	t.Run("no operator surface", func(t *testing.T) {
		h := takeoverHost(t, f, srv.URL, false, "60s")
		tools, _ := h.Tools("default")
		for _, tl := range tools {
			if tl.Name == TakeoverTool {
				t.Fatal("takeover offered with no operator surface")
			}
		}
		if _, e := callJSON(h, ctx, "s", TakeoverTool, `{"reason":"x"}`); e == nil || e.Code != abi.CodeNotAvailable || !strings.Contains(e.Message, "console") {
			t.Fatalf("want not_available naming the console, got %v", e)
		}
	})

	// call_timeout is short so that the 9 s takeover below outlasts it;
	// the other calls get a minute of their own (sandbox.WithTimeout, as
	// the host gives a takeover its wait): on a busy machine a navigation
	// can take longer than 8 s.
	h := takeoverHost(t, f, srv.URL, true, "8s")
	d := h.Desk()
	ctx = sandbox.WithTimeout(ctx, time.Minute)
	if _, e := callJSON(h, ctx, "s", "browser_navigate", `{"url":"`+srv.URL+`/wall"}`); e != nil {
		t.Fatal(e)
	}
	type out struct {
		res *abi.Result
		err *abi.Error
	}
	start := func(args string) chan out {
		ch := make(chan out, 1)
		go func() { r, e := callJSON(h, ctx, "s", TakeoverTool, args); ch <- out{r, e} }()
		return ch
	}

	done := start(`{"reason":"press verify on the wall"}`)
	tk := waitPending(t, d, "s")
	if tk.Reason != "press verify on the wall" {
		t.Fatalf("reason not verbatim: %q", tk.Reason)
	}
	for _, tool := range []string{"browser_snapshot", "browser_click"} {
		if _, e := callJSON(h, ctx, "s", tool, `{"ref":"e2"}`); e == nil || e.Code != abi.CodeNotAvailable || !strings.Contains(e.Message, "taken over") {
			t.Fatalf("%s while held: want not_available, got %v", tool, e)
		}
	}
	if _, e := callJSON(h, ctx, "s", TakeoverTool, `{"reason":"again"}`); e == nil || e.Code != abi.CodeRefused {
		t.Fatalf("second takeover: want refused, got %v", e)
	}
	if _, e := callJSON(h, ctx, "other", "browser_navigate", `{"url":"`+srv.URL+`/x"}`); e != nil {
		t.Fatalf("another session is not held: %v", e)
	}
	if err := d.EndTakeover(tk.ID, true, operator.Actor{Kind: operator.ActorOperator, Name: "test"}); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	var resp abi.TakeoverResponse
	if err := json.Unmarshal(o.res.Data, &resp); err != nil || !resp.HandedBack || resp.Outcome != abi.TakeoverUser || resp.URL != srv.URL+"/wall" {
		t.Fatalf("hand-back result: %s %v", o.res.Data, err)
	}
	if !strings.Contains(o.res.Snapshot, "verify") {
		t.Fatalf("no snapshot after the hand-back: %q", o.res.Snapshot)
	}

	// call_timeout is 8 s; a 9 s takeover wait ends by its own timeout,
	// with the takeover's message, not the sandbox's deadline.
	o = <-start(`{"reason":"nobody comes","timeout_s":9}`)
	if o.err == nil || o.err.Code != abi.CodeExecutionFailed || !strings.Contains(o.err.Message, "within 9s") {
		t.Fatalf("takeover timeout: %v", o.err)
	}
	if _, ok := d.Held("default", "s"); ok {
		t.Fatal("the session is still held after the timeout")
	}

	// An operator driving the page from the console: reading works,
	// acting is refused until they let go.
	release := d.Control("default", "s")
	res, e := callJSON(h, ctx, "s", "browser_snapshot", `{"snapshot":"full"}`)
	if e != nil {
		t.Fatalf("snapshot under operator control: %v", e)
	}
	ref := refOf(res.Snapshot, "button", "verify")
	if _, e := callJSON(h, ctx, "s", "browser_click", `{"ref":"`+ref+`"}`); e == nil || e.Code != abi.CodeNotAvailable || !strings.Contains(e.Message, "operator is controlling") {
		t.Fatalf("click under operator control: want not_available, got %v", e)
	}
	release()
	if res, e := callJSON(h, ctx, "s", "browser_click", `{"ref":"`+ref+`"}`); e != nil || !strings.Contains(res.Snapshot, "passed") {
		t.Fatalf("click after release: %v %v", e, res)
	}
}

// An attended-only stored login is filled while an operator's console is
// attached for the personality, and refused (naming the takeover tool) when
// none is.
func TestAttendedByOperatorPresence(t *testing.T) {
	t.Parallel() // its own host: overlaps the other such tests' waits
	needBrowser(t)
	srv := loginSite(t)
	f := newFixture(t, map[string]string{"browser": "plugins/browser"})
	store := vault.Open(vault.Options{File: filepath.Join(f.dir, "vault.age")})
	if err := store.Put(vault.Credential{Name: "attended-only", Username: e2eUser, Password: e2ePass, Policy: vault.Policy{Origins: []string{srv.URL}, Personalities: []string{"default"}}}); err != nil {
		t.Fatal(err)
	}
	h := takeoverHost(t, f, srv.URL, true, "60s")
	ctx := context.Background()
	res, e := callJSON(h, ctx, "s", "browser_navigate", `{"url":"`+srv.URL+`/login"}`)
	if e != nil {
		t.Fatal(e)
	}
	args := fmt.Sprintf(`{"credential":"attended-only","username_ref":%q,"password_ref":%q}`, refOf(res.Snapshot, "textbox", "Username"), refOf(res.Snapshot, "textbox", "Password"))
	if _, e := callJSON(h, ctx, "s", "browser_fill_credential", args); e == nil || e.Details["outcome"] != abi.VaultRefusedUnattended || !strings.Contains(e.Message, TakeoverTool) {
		t.Fatalf("no operator: want refused_unattended naming %s, got %v", TakeoverTool, e)
	}
	detach := h.Desk().Attach("default")
	if _, e := callJSON(h, ctx, "s", "browser_fill_credential", args); e != nil {
		t.Fatalf("operator attached: %v", e)
	}
	detach()
	if _, e := callJSON(h, ctx, "s", "browser_fill_credential", args); e == nil || e.Details["outcome"] != abi.VaultRefusedUnattended {
		t.Fatalf("operator gone: want refused_unattended, got %v", e)
	}
}
