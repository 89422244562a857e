package operator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/testkit"
)

type fakeBrowser struct {
	mu      sync.Mutex
	driving map[string]bool
	raised  int
}

func (b *fakeBrowser) SetDriving(p, s string, on bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.driving == nil {
		b.driving = map[string]bool{}
	}
	b.driving[p+"/"+s] = on
}
func (b *fakeBrowser) Raise(string, string)          { b.mu.Lock(); b.raised++; b.mu.Unlock() }
func (b *fakeBrowser) PageURL(string, string) string { return "http://127.0.0.1:1/after" }
func (b *fakeBrowser) HandedBack(string, string)     {}
func (b *fakeBrowser) isDriving(k string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.driving[k]
}

func code(err error) abi.Code {
	var e *abi.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// pending waits (on the desk's change notifications) until n takeovers
// are pending and returns them.
func pending(t *testing.T, d *Desk, n int) []Takeover {
	t.Helper()
	var ts []Takeover
	if !testkit.Await(d.Subscribe, 30*time.Second, func() bool { ts = d.Takeovers(); return len(ts) == n }) {
		t.Fatalf("want %d pending takeovers, have %d", n, len(d.Takeovers()))
	}
	return ts
}

type takeoverResult struct {
	r   *abi.TakeoverResponse
	err error
}

func request(d *Desk, ctx context.Context, s string, req abi.TakeoverRequest) chan takeoverResult {
	ch := make(chan takeoverResult, 1)
	go func() { r, err := d.RequestTakeover(ctx, "p", s, req); ch <- takeoverResult{r, err} }()
	return ch
}

func TestTakeoverOutcomes(t *testing.T) {
	b := &fakeBrowser{}
	d := New(Options{Browser: b})
	ctx := context.Background()

	// Hand-back.
	res := request(d, ctx, "s1", abi.TakeoverRequest{Reason: "solve the captcha"})
	ts := pending(t, d, 1)
	if ts[0].Reason != "solve the captcha" || !d.Controlled("p", "s1") || !b.isDriving("p/s1") {
		t.Fatalf("pending takeover not held: %+v driving=%v", ts[0], b.isDriving("p/s1"))
	}
	if _, err := d.RequestTakeover(ctx, "p", "s1", abi.TakeoverRequest{Reason: "again"}); code(err) != abi.CodeRefused {
		t.Fatalf("second takeover on a held session: want refused, got %v", err)
	}
	if err := d.EndTakeover(ts[0].ID, true, Actor{Kind: ActorOperator, Name: "test"}); err != nil {
		t.Fatal(err)
	}
	r := <-res
	if r.err != nil || !r.r.HandedBack || r.r.Outcome != abi.TakeoverUser || r.r.URL == "" {
		t.Fatalf("hand-back: %+v %v", r.r, r.err)
	}
	if d.Controlled("p", "s1") || b.isDriving("p/s1") {
		t.Fatal("the hold outlived the hand-back")
	}

	// Cancel.
	res = request(d, ctx, "s1", abi.TakeoverRequest{Reason: "x"})
	d.EndTakeover(pending(t, d, 1)[0].ID, false, Actor{Kind: ActorOperator, Name: "test"})
	if r := <-res; r.err != nil || r.r.HandedBack || r.r.Outcome != abi.TakeoverCancel {
		t.Fatalf("cancel: %+v %v", r.r, r.err)
	}

	// Timeout.
	r = <-request(d, ctx, "s1", abi.TakeoverRequest{Reason: "x", TimeoutS: 1})
	if code(r.err) != abi.CodeExecutionFailed || !strings.Contains(r.err.Error(), "No one took over the browser within 1s") {
		t.Fatalf("timeout: %v", r.err)
	}

	// Session closed mid-takeover.
	res = request(d, ctx, "s1", abi.TakeoverRequest{Reason: "x"})
	pending(t, d, 1)
	d.SessionClosed("p", "s1")
	if r := <-res; code(r.err) != abi.CodeExecutionFailed {
		t.Fatalf("closed: %v", r.err)
	}

	// The caller gives up.
	cctx, cancel := context.WithCancel(ctx)
	res = request(d, cctx, "s1", abi.TakeoverRequest{Reason: "x"})
	pending(t, d, 1)
	cancel()
	if r := <-res; code(r.err) != abi.CodeTimeout {
		t.Fatalf("cancelled: %v", r.err)
	}
	if len(d.Takeovers()) != 0 || d.Controlled("p", "s1") {
		t.Fatal("a takeover is left pending")
	}

	// A reason is required.
	if _, err := d.RequestTakeover(ctx, "p", "s1", abi.TakeoverRequest{Reason: "  "}); code(err) != abi.CodeInputInvalid {
		t.Fatalf("empty reason: %v", err)
	}
}

func TestClampTimeout(t *testing.T) {
	for in, want := range map[int]time.Duration{0: 900 * time.Second, -5: 900 * time.Second, 1: time.Second, 100000: 86400 * time.Second} {
		if got := ClampTimeout(in); got != want {
			t.Errorf("ClampTimeout(%d) = %v, want %v", in, got, want)
		}
	}
}

func TestApprovals(t *testing.T) {
	d := New(Options{})
	ctx := context.Background()
	a := Approval{Personality: "p", Session: "s", Tool: "browser_click", Risk: abi.RiskAct, Origin: "http://127.0.0.1:1"}
	if _, err := d.Ask(ctx, a, time.Minute); code(err) != abi.CodeRefused || !strings.HasPrefix(abi.AsError(err).Message, "Approval required:") {
		t.Fatalf("no console: want an immediate refusal, got %v", err)
	}
	detach := d.Attach("p")
	defer detach()
	if !d.Attended("p") || d.Attended("q") {
		t.Fatal("presence is per personality")
	}
	for _, verdict := range []string{ApproveOnce, ApproveOrigin, Deny} {
		done := make(chan error, 1)
		go func() { _, err := d.Ask(ctx, a, time.Minute); done <- err }()
		ch, cancel := d.Subscribe()
		for len(d.Approvals()) == 0 {
			<-ch
		}
		cancel()
		if err := d.Decide(d.Approvals()[0].ID, Decision{Verdict: verdict}); err != nil {
			t.Fatal(err)
		}
		err := <-done
		if (verdict == Deny) != (code(err) == abi.CodeRefused) {
			t.Fatalf("verdict %s: %v", verdict, err)
		}
	}
	if _, err := d.Ask(ctx, a, 50*time.Millisecond); code(err) != abi.CodeRefused {
		t.Fatalf("timeout: %v", err)
	}
	if err := d.Decide("nope", Decision{Verdict: ApproveOnce}); code(err) != abi.CodeNotFound {
		t.Fatalf("unknown id: %v", err)
	}
}

// testGrants is a grant store opened in a fresh folder, and the folder.
func testGrants(t *testing.T) (*Grants, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "grants")
	g, err := OpenGrants(dir)
	if err != nil {
		t.Fatal(err)
	}
	return g, dir
}

func TestGrantsStore(t *testing.T) {
	g, dir := testGrants(t)
	if err := g.Add("p", Grant{Tool: "browser_click", Origin: "HTTPS://Shop.Example:443/"}); err != nil {
		t.Fatal(err)
	}
	if !g.Allows("p", "browser_click", abi.RiskAct, "https://shop.example/cart?x=1", false) {
		t.Fatal("grant not applied to its origin")
	}
	for _, o := range []string{"https://evil.example", "http://shop.example", "https://shop.example:8443", ""} {
		if g.Allows("p", "browser_click", abi.RiskAct, o, false) {
			t.Fatalf("grant widened to %q", o)
		}
	}
	if g.Allows("p", "browser_type", abi.RiskAct, "https://shop.example", false) || g.Allows("q", "browser_click", abi.RiskAct, "https://shop.example", false) {
		t.Fatal("grant widened to another tool or personality")
	}
	for _, bad := range []Grant{{Tool: "x", Origin: "*"}, {Tool: "x", Origin: "https://*.example"}, {Tool: "x", Origin: "file:///etc"},
		{Tool: "x", Origin: "HTTPS://Shop.Example:443/path"}, {Tool: "x", Origin: "http://user@shop.example"}, {Tool: "x", Origin: "https://shop.example/?q"}, {Origin: "https://a.example"}, {Tool: "x", Risk: abi.RiskAct, Origin: "https://a.example"}, {Risk: "nuke", Origin: "https://a.example"}} {
		if err := g.Add("p", bad); code(err) != abi.CodeInputInvalid {
			t.Errorf("grant %+v: want input_invalid, got %v", bad, err)
		}
	}
	if err := g.Add("p", Grant{Risk: abi.RiskAct, Origin: "http://127.0.0.1:9"}); err != nil {
		t.Fatal(err)
	}
	if !g.Allows("p", "browser_type", abi.RiskAct, "http://127.0.0.1:9/", false) || g.Allows("p", "browser_evaluate", abi.RiskEval, "http://127.0.0.1:9/", false) {
		t.Fatal("risk grant")
	}
	fi, err := os.Stat(filepath.Join(dir, "p.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("grants file: %v %v", fi.Mode(), err)
	}
	if ok, err := g.Revoke("p", Grant{Tool: "browser_click", Origin: "https://shop.example"}); !ok || err != nil {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	if g.Allows("p", "browser_click", abi.RiskAct, "https://shop.example", false) {
		t.Fatal("revoked grant still allows")
	}
}

// TestGrantsIDN: a grant written with a Unicode host is stored in
// punycode and matches the page the browser reports on that host; one
// stored in Unicode before origins were normalised matches too, and can
// be revoked by either spelling.
func TestGrantsIDN(t *testing.T) {
	g, dir := testGrants(t)
	if err := g.Add("p", Grant{Tool: "browser_click", Origin: "http://bücher.example"}); err != nil {
		t.Fatal(err)
	}
	if gs, _ := g.List("p"); len(gs) != 1 || gs[0].Origin != "http://xn--bcher-kva.example" {
		t.Fatalf("stored: %+v", gs)
	}
	if !g.Allows("p", "browser_click", abi.RiskAct, "http://xn--bcher-kva.example/katalog", false) {
		t.Fatal("a Unicode grant does not match its punycode page")
	}
	if g.Allows("p", "browser_click", abi.RiskAct, "https://xn--bcher-kva.example/", false) {
		t.Fatal("the grant widened to https")
	}
	legacy := `[{"tool":"browser_type","origin":"https://Bücher.example.:443","created":"2026-01-01T00:00:00Z"}]`
	if err := os.WriteFile(filepath.Join(dir, "q.json"), []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	if !g.Allows("q", "browser_type", abi.RiskAct, "https://xn--bcher-kva.example/", false) {
		t.Fatal("a grant stored in Unicode does not match")
	}
	if ok, err := g.Revoke("q", Grant{Tool: "browser_type", Origin: "https://xn--bcher-kva.example"}); !ok || err != nil {
		t.Fatalf("revoke the legacy grant: %v %v", ok, err)
	}
}

// TestGrantsFolder: the grants folder is made 0700; an existing one open
// to other users is refused (not_available) naming it and the fix.
func TestGrantsFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "grants")
	if _, err := OpenGrants(dir); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("grants folder: %v %v", st.Mode(), err)
	}
	os.Chmod(dir, 0o755)
	_, err := OpenGrants(dir)
	if code(err) != abi.CodeNotAvailable || !strings.Contains(err.Error(), "chmod 700 "+dir) || !strings.Contains(err.Error(), "host.grants_dir") {
		t.Fatalf("a grants folder open to others: %v", err)
	}
	if _, err := OpenGrants(""); code(err) != abi.CodeNotAvailable {
		t.Fatalf("no folder: %v", err)
	}
}
