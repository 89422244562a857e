package browser

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// changePages serves the change-watcher tests' pages. /release answers
// only once release is called: a page change the test starts after an
// action has returned, without sleeping.
func changePages(t *testing.T) (srv *httptest.Server, release func()) {
	mux := http.NewServeMux()
	page := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!doctype html>"+body)
		})
	}
	page("/still", `<title>Still</title><h1>Nothing moves</h1>
		<label>Name <input name="name"></label>
		<label>Password <input type="password" name="pw"></label>
		<p id="p">as loaded</p>
		<script>
		document.addEventListener('keydown', e => {
			if (e.key === 'Control') fetch('/release').then(() => { document.getElementById('p').textContent = 'changed later' });
			if (e.key === 'Alt') document.querySelector('input[name=name]').value = 'set by script';
		});
		</script>`)
	page("/hover", `<title>Hover</title><style>.menu { display: none } .host:hover .menu { display: block }</style>
		<div class="host" style="width:200px;height:60px"><button>Menu host</button><ul class="menu"><li><a href="/x">Hidden entry</a></li></ul></div>
		<p>elsewhere</p>`)
	page("/focusmenu", `<title>Focus menu</title><style>.sub { display: none } .nav:focus-within .sub { display: block }</style>
		<div class="nav"><a href="/a">Products</a><ul class="sub"><li><a href="/b">Shown on focus</a></li></ul></div>`)
	page("/fade", `<title>Fade</title><style>input:focus { background-color: yellow; outline: 3px solid red; transition: background-color 30s, outline-color 30s }</style>
		<label>First <input></label><label>Second <input></label>`)
	page("/framed", `<title>Framed</title><h1>Outer</h1><iframe srcdoc="<button>Inner</button>" title="inner"></iframe>`)
	var once sync.Once
	gate := make(chan struct{})
	mux.HandleFunc("/release", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-gate:
		case <-r.Context().Done():
		}
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		once.Do(func() { close(gate) })
		srv.Close()
	})
	return srv, func() { once.Do(func() { close(gate) }) }
}

// countSnapshots counts the ARIA snapshots taken from now on.
func countSnapshots(t *testing.T) *int {
	n := new(int)
	var mu sync.Mutex
	snapshotTaken = func(pw.PageAriaSnapshotOptions) { mu.Lock(); *n++; mu.Unlock() }
	t.Cleanup(func() { snapshotTaken = nil })
	return n
}

func navTo(t *testing.T, c *hostfuncs.Caller, u string) abi.BrowserNavigateResponse {
	t.Helper()
	return must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: u})
}

func snapshotNow(t *testing.T, c *hostfuncs.Caller) string {
	t.Helper()
	return must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{}).Snapshot
}

// An action that changes nothing on the page answers with the snapshot
// taken last, without a new one; an action that changes a value takes one.
func TestUnchangedPageTakesNoSnapshot(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	n := countSnapshots(t)
	r := navTo(t, c, pages.URL+"/still")
	taken, skipped := *n, snapshotsSkipped.Load()
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
	if *n != taken || snapshotsSkipped.Load() != skipped+1 {
		t.Fatalf("pressing Shift on a page it does not change took %d snapshots and skipped %d, want 0 and 1", *n-taken, snapshotsSkipped.Load()-skipped)
	}
	if a.Snapshot != r.Snapshot {
		t.Fatalf("the unchanged page's snapshot differs from the navigation's:\n%s\n---\n%s", a.Snapshot, r.Snapshot)
	}
	if s := snapshotNow(t, c); s != r.Snapshot || *n != taken {
		t.Fatalf("a snapshot of the unchanged page took %d snapshots or differs:\n%s", *n-taken, s)
	}
	name := refOf(t, r.Snapshot, `textbox "Name"`)
	typed := act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: name, Text: "Ada"})
	if *n != taken+1 || !strings.Contains(typed.Snapshot, "Ada") {
		t.Fatalf("typing took %d snapshots, want 1; snapshot:\n%s", *n-taken, typed.Snapshot)
	}
}

// A value set by a script, with no event and no DOM mutation, is a
// change: the action answers with a new snapshot that shows it.
func TestValueSetByScriptIsAChange(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	n := countSnapshots(t)
	navTo(t, c, pages.URL+"/still")
	act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
	taken := *n
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Alt"})
	if *n != taken+1 || !strings.Contains(a.Snapshot, "set by script") {
		t.Fatalf("a value set by the page's script took %d snapshots (want 1); snapshot:\n%s", *n-taken, a.Snapshot)
	}
}

// A change the page makes after the action answered, as unchanged, is in
// the next snapshot.
func TestChangeAfterAnUnchangedAnswerIsSeen(t *testing.T) {
	pages, release := changePages(t)
	c := caller(t.Name())
	n := countSnapshots(t)
	navTo(t, c, pages.URL+"/still")
	taken, skipped := *n, snapshotsSkipped.Load()
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Control"})
	if *n != taken || snapshotsSkipped.Load() != skipped+1 || strings.Contains(a.Snapshot, "changed later") {
		t.Fatalf("the press, before the page changed, took %d snapshots (want 0):\n%s", *n-taken, a.Snapshot)
	}
	release()
	must[abi.BrowserWaitForResponse](t, svc, c, abi.HostBrowserWaitFor, abi.BrowserWaitForRequest{Text: "changed later", NoSnapshot: true})
	if s := snapshotNow(t, c); !strings.Contains(s, "changed later") || *n != taken+1 {
		t.Fatalf("the snapshot after the page changed (%d taken, want 1) misses it:\n%s", *n-taken, s)
	}
}

// Hovering an element whose CSS :hover shows more (no DOM mutation) is a
// change.
func TestHoverRevealIsAChange(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	r := navTo(t, c, pages.URL+"/hover")
	if strings.Contains(r.Snapshot, "Hidden entry") {
		t.Fatalf("the menu shows before any hover:\n%s", r.Snapshot)
	}
	act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
	host := refOf(t, r.Snapshot, `button "Menu host"`)
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActHover, Ref: host})
	if !strings.Contains(a.Snapshot, "Hidden entry") {
		t.Fatalf("the snapshot after hovering misses what :hover shows:\n%s", a.Snapshot)
	}
}

// A page with frames is always snapshot again: the frames' documents are
// not watched.
func TestFramedPageIsAlwaysSnapshot(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	n := countSnapshots(t)
	navTo(t, c, pages.URL+"/framed")
	taken := *n
	act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
	act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
	if *n < taken+2 {
		t.Fatalf("two presses on a framed page took %d snapshots, want 2", *n-taken)
	}
}

// A typed password is masked in the snapshot an unchanged page is
// answered with, as in a new one.
func TestUnchangedAnswerIsMasked(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	r := navTo(t, c, pages.URL+"/still")
	pwd := refOf(t, r.Snapshot, `textbox "Password"`)
	const secret = "hunter2-unchanged-secret"
	act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: pwd, Text: secret})
	skipped := snapshotsSkipped.Load()
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
	if snapshotsSkipped.Load() != skipped+1 {
		t.Fatalf("the press was not answered from the kept snapshot")
	}
	if strings.Contains(a.Snapshot, secret) || !strings.Contains(a.Snapshot, `textbox "Password"`) {
		t.Fatalf("the kept snapshot, answered again, shows the typed password or lost the field:\n%s", a.Snapshot)
	}
}

// A press that only moves the focus answers without a new snapshot: the
// kept one with [active] moved, the same text a new snapshot has.
func TestFocusMoveIsPatchedExactly(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	n := countSnapshots(t)
	r := navTo(t, c, pages.URL+"/still")
	// Typing leaves the focus in Name: the value is new, a snapshot is
	// taken. Tab to Password, then back with Shift+Tab: two moves.
	act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: refOf(t, r.Snapshot, `textbox "Name"`), Text: "Ada"})
	for i, key := range []string{"Tab", "Shift+Tab"} {
		taken, skipped := *n, snapshotsSkipped.Load()
		a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: key})
		if *n != taken || snapshotsSkipped.Load() != skipped+1 {
			t.Fatalf("Tab %d took %d snapshots, want 0 (the focus moved, nothing else)", i+1, *n-taken)
		}
		ss, tb, err := svc.sessions.pageTab(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := tb.page.AriaSnapshot(snapshotOptions(0, false, time.Minute))
		ss.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		if a.Snapshot != svc.concealer.redact(tb, markLines(fresh, nil)) {
			t.Fatalf("Tab %d: the patched snapshot differs from a new one:\n%s\n---\n%s", i+1, a.Snapshot, fresh)
		}
		if strings.Count(a.Snapshot, "[active]") != 1 {
			t.Fatalf("Tab %d: want one [active]:\n%s", i+1, a.Snapshot)
		}
	}
}

// A focus that shows more through CSS (:focus-within) is a change, not a
// moved mark.
func TestFocusWithinRevealIsAChange(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	r := navTo(t, c, pages.URL+"/focusmenu")
	if strings.Contains(r.Snapshot, "Shown on focus") {
		t.Fatalf("the submenu shows before focus:\n%s", r.Snapshot)
	}
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Tab"})
	if !strings.Contains(a.Snapshot, "Shown on focus") {
		t.Fatalf("the snapshot after Tab misses what :focus-within shows:\n%s", a.Snapshot)
	}
}

func TestMoveActive(t *testing.T) {
	snap := "- generic [active] [ref=e1]:\n  - checkbox \"A [active] [ref=e2]\" [checked] [ref=e2] [cursor=pointer]\n  - heading \"H\" [level=2] [ref=e3]: text [active]"
	got, ok := moveActive(snap, 2)
	want := "- generic [ref=e1]:\n  - checkbox \"A [active] [ref=e2]\" [checked] [active] [ref=e2] [cursor=pointer]\n  - heading \"H\" [level=2] [ref=e3]: text [active]"
	if !ok || got != want {
		t.Fatalf("moveActive to e2:\n%s\nwant\n%s", got, want)
	}
	got, ok = moveActive(want, 3)
	if !ok || !strings.Contains(got, `heading "H" [active] [level=2] [ref=e3]: text [active]`) || strings.Contains(got, "[checked] [active]") {
		t.Fatalf("moveActive to e3:\n%s", got)
	}
	if _, ok := moveActive(snap, 9); ok {
		t.Fatal("moveActive to a ref not in the snapshot succeeded")
	}
}

// A :focus style's colour transition, still running when the action
// answers, changes no line: the focus move is answered without a snapshot.
func TestColourTransitionIsNoChange(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	n := countSnapshots(t)
	r := navTo(t, c, pages.URL+"/fade")
	act(t, c, abi.BrowserActRequest{Action: abi.ActClick, Ref: refOf(t, r.Snapshot, `textbox "First"`)})
	taken := *n
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Tab"})
	if *n != taken || !strings.Contains(a.Snapshot, `textbox "Second" [active]`) {
		t.Fatalf("Tab under a colour transition took %d snapshots, want 0:\n%s", *n-taken, a.Snapshot)
	}
}
