package browser

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/internal/testkit"
)

// changePages serves the change-watcher tests' pages. /release answers
// only once release is called: a page change the test starts after an
// action has returned, without sleeping.
func changePages(t *testing.T) (srv *httptest.Server, release func()) {
	mux := http.NewServeMux()
	page := htmlPages(mux)
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
	page("/fields", `<title>Fields</title>
		<form role="search"><input type="search" aria-label="Site search" placeholder="Search the site"></form>
		<label>Name <input name="name"></label>
		<label for="city">City</label> <input id="city" placeholder="Where you live">
		<textarea aria-label="Notes"></textarea>
		<input aria-label="Same" placeholder="Same">
		<input type="password" aria-label="Secret" placeholder="Your secret">`)
	page("/hint", `<title>Hint</title><style>input:placeholder-shown + .hint { display: none }</style>
		<label>Email <input type="email" placeholder="you@example.org"><span class="hint">Press enter to save</span></label>`)
	page("/cell", `<title>Cell</title><table><tr><th>Item</th><th>Qty</th></tr><tr><td>Tea</td><td><input aria-label="Quantity"></td></tr></table>`)
	page("/labelledby", `<title>Labelled by</title><input id="who" aria-label="Who"> <button aria-labelledby="who">x</button>`)
	// A :focus rule that moves and grows one button (and :hover, which
	// the pointer check covers); another :focus rule that adds text after
	// a link (a pseudo-element: its name changes).
	page("/focusvisible", `<title>Focus visible</title><style>.tip { display: none } button:focus-visible + .tip { display: inline }</style>
		<button>Go</button><span class="tip">Shown to the keyboard</span>`)
	page("/userinvalid", `<title>User invalid</title><style>.err { display: none } input:user-invalid + .err { display: inline }</style>
		<label for="em">Email</label> <input id="em" type="email"><span class="err">Not an email address</span> <label>Name <input></label>`)
	page("/focusgrow", `<title>Focus grow</title><style>.follow:focus, .follow:hover { transform: scale(1.5) } .docs:focus::after { content: " (open)" }</style>
		<label>Name <input name="name"></label> <button>Go</button> <a class="docs" href="#docs">Docs</a> <button class="follow">Follow</button>`)
	page("/tip", `<title>Tip</title><p>Price <span title="Includes tax">(?)</span></p><label>Qty <input></label>`)
	page("/framed", `<title>Framed</title><h1>Outer</h1><iframe srcdoc="<button onclick=&quot;this.textContent='Pressed'&quot;>Inner</button>" title="inner"></iframe>`)
	page("/toggle", `<title>Toggle</title><label>Code <input name="code" id="code"></label>
		<button onclick="const e = document.getElementById('code'); e.type = e.type === 'password' ? 'text' : 'password'">Hide or show</button>`)
	page("/prefilled", `<title>Prefilled</title><label>Town <input name="town" value="plain-town"></label>
		<label>Pin <input type="password" name="pin" value="pin-9876"></label>
		<iframe title="inner" srcdoc="<label>Inner <input name=inner value=plain-inner></label><label>Key <input name=passwd value=key-5555></label>"></iframe>`)
	// Links with no text and no box get no ref from Playwright, but a
	// line: a Tab that focuses one moves [active] to that line.
	page("/emptylinks", `<title>Empty links</title><label>Search <input name="q"></label>
		<a href="#menu" aria-label="Menu"></a><a href="#hidden" aria-label="Hidden" aria-hidden="true"></a><a href="#close" aria-label="Close"></a>
		<a href="/next">Next</a> <button>Go</button>`)
	page("/flip", `<title>Flip</title><label>Code <input name="code" oninput="this.type = 'password'"></label>`)
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
	// Typing changes the field's value and focus: the kept snapshot,
	// patched, is what a new one would be.
	name := refOf(t, r.Snapshot, `textbox "Name"`)
	patched := snapshotsPatched.Load()
	typed := act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: name, Text: "Ada"})
	if *n != taken || snapshotsPatched.Load() != patched+1 || !strings.Contains(typed.Snapshot, `textbox "Name" [active] [ref=`+name+`]: Ada`) {
		t.Fatalf("typing took %d snapshots (want 0, the kept one patched); snapshot:\n%s", *n-taken, typed.Snapshot)
	}
	sameAsFresh(t, c, "the patched snapshot")
}

// A screenshot is no change to the page: after one of each kind (the
// viewport and the whole page through Playwright, an element, webp through
// the DevTools protocol), an action that changes nothing is answered from
// the kept snapshot. Playwright's screenshot hides the caret by setting
// each text field's style and back (mutations) unless told not to.
func TestScreenshotIsNoChange(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	n := countSnapshots(t)
	r := navTo(t, c, pages.URL+"/still")
	name := refOf(t, r.Snapshot, `textbox "Name"`)
	act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: name, Text: "Ada"}) // a focused field: a caret
	for _, req := range []abi.BrowserScreenshotRequest{
		{NoInline: true},
		{Mode: "full", Format: "jpeg", NoInline: true},
		{Ref: name, NoInline: true},
		{Format: "webp", NoInline: true},
	} {
		must[abi.BrowserScreenshotResponse](t, svc, c, abi.HostBrowserScreenshot, req)
		taken, skipped := *n, snapshotsSkipped.Load()
		a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
		if *n != taken || snapshotsSkipped.Load() != skipped+1 {
			t.Fatalf("after a screenshot %+v, pressing Shift took %d snapshots and skipped %d, want 0 and 1 (the screenshot changed the page)", req, *n-taken, snapshotsSkipped.Load()-skipped)
		}
		if !strings.Contains(a.Snapshot, `textbox "Name" [active] [ref=`+name+`]: Ada`) {
			t.Fatalf("the kept answer lost the typed value or the focus:\n%s", a.Snapshot)
		}
	}
}

// freshSnapshot is the snapshot c's tab keeps (its last answer's, before
// redaction) and a new whole-page one, as aria takes it when none is kept
// (the watcher's answer unused): a patched snapshot must equal the new
// one. Both are compared before redaction, which asks the page about each
// field and, when an answer is late, redacts anyway.
func freshSnapshot(t *testing.T, c *hostfuncs.Caller) (kept, fresh string) {
	t.Helper()
	ss, tb, err := svc.sessions.pageTab(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.mu.Unlock()
	if k := tb.kept.Swap(nil); k != nil {
		kept = k.snap
	}
	fresh, err = svc.pages.aria(ss, tb, 0)
	if err != nil {
		t.Fatal(err)
	}
	return kept, fresh
}

// sameAsFresh fails t unless the snapshot c's tab keeps is a new one's
// (freshSnapshot); what names it ("the answer", "Tab 2: the patched
// snapshot").
func sameAsFresh(t *testing.T, c *hostfuncs.Caller, what string) {
	t.Helper()
	if kept, fresh := freshSnapshot(t, c); kept != fresh {
		t.Fatalf("%s differs from a new snapshot:\n%s\n---\n%s", what, kept, fresh)
	}
}

// A value set by a script, with no event and no DOM mutation, is a
// change: the action answers with the snapshot that shows it (the kept
// one with the field's line patched, as a new one has it).
func TestValueSetByScriptIsAChange(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	pages, _ := changePages(t)
	c := caller(t.Name())
	navTo(t, c, pages.URL+"/still")
	act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Alt"})
	if !strings.Contains(a.Snapshot, "set by script") {
		t.Fatalf("the snapshot misses a value set by the page's script:\n%s", a.Snapshot)
	}
	sameAsFresh(t, c, "the answer")
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
	t.Parallel() // its own session: overlaps the package's other tests' waits
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

// A page with frames is watched frame by frame: presses that change
// nothing anywhere take no snapshot; a click that changes the frame's
// document is snapshot, and the answer equals a new snapshot.
func TestFramedPageIsWatched(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	n := countSnapshots(t)
	r := navTo(t, c, pages.URL+"/framed")
	taken := *n
	act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
	act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
	if *n != taken {
		t.Fatalf("two presses that change nothing on a framed page took %d snapshots, want 0 (%v)", *n-taken, watchFallbacks.counts())
	}
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActClick, Ref: refOf(t, r.Snapshot, `button "Inner"`)})
	if *n != taken+1 || !strings.Contains(a.Snapshot, `button "Pressed"`) {
		t.Fatalf("a click that changed the frame took %d snapshots (want 1):\n%s", *n-taken, a.Snapshot)
	}
	sameAsFresh(t, c, "the answer")
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
	// Typing leaves the focus in Name (its new value patched in). Tab to
	// Password, then back with Shift+Tab: two moves.
	act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: refOf(t, r.Snapshot, `textbox "Name"`), Text: "Ada"})
	for i, key := range []string{"Tab", "Shift+Tab"} {
		taken, skipped := *n, snapshotsSkipped.Load()
		a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: key})
		if *n != taken || snapshotsSkipped.Load() != skipped+1 {
			t.Fatalf("Tab %d took %d snapshots, want 0 (the focus moved, nothing else)", i+1, *n-taken)
		}
		// Compared before redaction, which redacts a field whose check is
		// late (a loaded machine) and would tell the two apart by it.
		sameAsFresh(t, c, fmt.Sprintf("Tab %d: the patched snapshot", i+1))
		if strings.Count(a.Snapshot, "[active]") != 1 {
			t.Fatalf("Tab %d: want one [active]:\n%s", i+1, a.Snapshot)
		}
	}
}

// A focus that shows more through CSS (:focus-within) is a change, not a
// moved mark.
func TestFocusWithinRevealIsAChange(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
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

// A :focus rule that shows an element differently (a transform) makes a
// focus move a change only when the focus moves to or from an element it
// matches: a Tab between two other elements is patched (it was a whole
// snapshot); the Tab onto a link a :focus::after rule names differently,
// and the one onto the styled button, are snapshot, and each answer is a
// new snapshot's.
func TestFocusRuleOnAnotherElement(t *testing.T) {
	// Not parallel: it counts patched snapshots (and snapshots taken) in
	// package-wide counters, which another session's Tab moves.
	pages, _ := changePages(t)
	c := caller(t.Name())
	navTo(t, c, pages.URL+"/focusgrow")
	for i, want := range []struct {
		line    string
		patched bool
	}{
		{`textbox "Name" [active]`, true},
		{`button "Go" [active]`, true},
		{`link "Docs (open)" [active]`, false},
		{`button "Follow" [active]`, false}, // and leaving Docs, whose rule changes it back
	} {
		patched := snapshotsPatched.Load()
		a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Tab"})
		if !strings.Contains(a.Snapshot, want.line) {
			t.Fatalf("Tab %d: want %q in the answer:\n%s", i+1, want.line, a.Snapshot)
		}
		if got := snapshotsPatched.Load() > patched; got != want.patched {
			t.Fatalf("Tab %d onto %q: patched %v, want %v (fallbacks %v)", i+1, want.line, got, want.patched, watchFallbacks.counts())
		}
		sameAsFresh(t, c, fmt.Sprintf("Tab %d: the answer", i+1))
	}
}

// A key pressed on an element the mouse focused changes no focus, but
// turns its :focus-visible on (Chromium's rule): a rule on that state
// which shows text must reach the answer, not the kept snapshot.
func TestFocusVisibleWithoutAFocusMove(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	pages, _ := changePages(t)
	c := caller(t.Name())
	r := navTo(t, c, pages.URL+"/focusvisible")
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActClick, Ref: refOf(t, r.Snapshot, `button "Go"`)})
	if strings.Contains(a.Snapshot, "Shown to the keyboard") {
		t.Fatalf("a mouse click showed the keyboard's tip:\n%s", a.Snapshot)
	}
	a = act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
	if !strings.Contains(a.Snapshot, "Shown to the keyboard") {
		t.Fatalf("after a key on the focused button, its :focus-visible tip is missing from the answer:\n%s", a.Snapshot)
	}
	sameAsFresh(t, c, "the answer")
}

// A field's :user-invalid turns on when it loses focus after the user
// changed it, with no mutation and no focus rule: a rule on that state
// which shows an error must reach the answer to the Tab that left it.
func TestUserInvalidOnLeavingAField(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	pages, _ := changePages(t)
	c := caller(t.Name())
	r := navTo(t, c, pages.URL+"/userinvalid")
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: refOf(t, r.Snapshot, `textbox "Email"`), Text: "abc"})
	if strings.Contains(a.Snapshot, "Not an email address") {
		t.Fatalf("the error shows before the field is left:\n%s", a.Snapshot)
	}
	a = act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Tab"})
	if !strings.Contains(a.Snapshot, "Not an email address") {
		t.Fatalf("after leaving the field, its :user-invalid error is missing from the answer (fallbacks %v):\n%s", watchFallbacks.counts(), a.Snapshot)
	}
	sameAsFresh(t, c, "the answer")
}

func TestMoveActive(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	snap := "- generic [active] [ref=e1]:\n  - checkbox \"A [active] [ref=e2]\" [checked] [ref=e2] [cursor=pointer]\n  - heading \"H\" [level=2] [ref=e3]: text [active]"
	got, ok := moveActive(snap, "e2", false)
	want := "- generic [ref=e1]:\n  - checkbox \"A [active] [ref=e2]\" [checked] [active] [ref=e2] [cursor=pointer]\n  - heading \"H\" [level=2] [ref=e3]: text [active]"
	if !ok || got != want {
		t.Fatalf("moveActive to e2:\n%s\nwant\n%s", got, want)
	}
	got, ok = moveActive(want, "e3", false)
	if !ok || !strings.Contains(got, `heading "H" [active] [level=2] [ref=e3]: text [active]`) || strings.Contains(got, "[checked] [active]") {
		t.Fatalf("moveActive to e3:\n%s", got)
	}
	if _, ok := moveActive(snap, "e9", false); ok {
		t.Fatal("moveActive to a ref not in the snapshot succeeded")
	}
	// Unseen: a ref on no line, or none, only takes the mark off.
	for _, ref := range []string{"e9", ""} {
		got, ok = moveActive(snap, ref, true)
		if !ok || strings.Contains(got, "generic [active]") || !strings.Contains(got, "- generic [ref=e1]:") {
			t.Fatalf("moveActive to unseen %q:\n%s", ref, got)
		}
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

// Typing into a text field answers with the kept snapshot, its line given
// the new value as Playwright renders it: plain, quoted where YAML would
// read it otherwise, folded whitespace, none when it equals the field's
// name, under a placeholder line; each answer equals a new snapshot.
func TestTypedValueIsPatchedExactly(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	n := countSnapshots(t)
	r := navTo(t, c, pages.URL+"/fields")
	typing := []struct{ field, text string }{
		{`searchbox "Site search"`, "hello world"},
		{`searchbox "Site search"`, "yes"},
		{`textbox "Name"`, "42"},
		{`textbox "Name"`, "a: b"},
		{`textbox "Name"`, "-x"},
		{`textbox "Name"`, "x #y {z}"},
		{`textbox "Name"`, `say "hi" \ 'there'`},
		{`textbox "Name"`, "Name"},
		{`textbox "City"`, "  spaced   out  "},
		{`textbox "City"`, "0x1F"},
		{`textbox "City"`, ""},
		{`textbox "Notes"`, "line one\nline two"},
		{`textbox "Same"`, "Same"},
		{`textbox "Same"`, "different"},
		{`textbox "Secret"`, "hunter2-patched"},
	}
	for _, ty := range typing {
		taken, patched := *n, snapshotsPatched.Load()
		act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: refOf(t, r.Snapshot, ty.field), Text: ty.text})
		if *n != taken || snapshotsPatched.Load() != patched+1 {
			t.Errorf("typing %q into %s took %d snapshots, want 0 (the kept one patched); fallbacks %v", ty.text, ty.field, *n-taken, watchFallbacks.counts())
		}
		sameAsFresh(t, c, fmt.Sprintf("typing %q into %s: the answer", ty.text, ty.field))
	}
}

// A value that may show more than its field's line is snapshot: a
// stylesheet that shows a hint by :placeholder-shown, a field inside a
// table cell (the cell's name takes the value), a field an
// aria-labelledby names a button by. Each answer equals a new snapshot,
// and the reason is counted.
func TestValueThatShowsMoreIsSnapshot(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	n := countSnapshots(t)
	for _, tc := range []struct{ path, field, why string }{
		{"/hint", `textbox "Email"`, "value css"},
		{"/cell", `textbox "Quantity"`, "value"},
		{"/labelledby", `textbox "Who"`, "value"},
	} {
		r := navTo(t, c, pages.URL+tc.path)
		ref := refOf(t, r.Snapshot, tc.field)
		// Focus first: the typing then changes the value alone.
		act(t, c, abi.BrowserActRequest{Action: abi.ActClick, Ref: ref})
		taken, before := *n, watchFallbacks.counts()[tc.why]
		a := act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: ref, Text: "7"})
		if *n != taken+1 || watchFallbacks.counts()[tc.why] != before+1 {
			t.Errorf("%s: typing took %d snapshots (want 1) and counted %d %q fallbacks (want 1): %v", tc.path, *n-taken, watchFallbacks.counts()[tc.why]-before, tc.why, watchFallbacks.counts())
		}
		sameAsFresh(t, c, fmt.Sprintf("%s: the answer", tc.path))
		if tc.path == "/hint" && !strings.Contains(a.Snapshot, "Press enter to save") {
			t.Fatalf("the hint :placeholder-shown hid is not in the answer:\n%s", a.Snapshot)
		}
	}
}

// yamlValue quotes what Playwright's yamlEscapeValueIfNeeded quotes, and
// escapes as it does (the typing test checks the common cases against
// Chromium; these are the rules' corners).
func TestYAMLValue(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	for in, want := range map[string]string{
		"plain text":  "plain text",
		"":            `""`,
		"12":          `"12"`,
		"1e5":         `"1e5"`,
		".5":          `".5"`,
		"5.":          `"5."`,
		"-Infinity":   `"-Infinity"`,
		"0b101":       `"0b101"`,
		"0x":          "0x",
		"1e":          "1e",
		"1_000":       "1_000",
		"No":          `"No"`,
		"a:b":         "a:b",
		"a:":          `"a:"`,
		"a: b":        `"a: b"`,
		"a #b":        `"a #b"`,
		"a#b":         "a#b",
		"[x":          `"[x"`,
		"x]":          "x]",
		"@me":         `"@me"`,
		"say \"hi\"":  "say \"hi\"",
		"\"hi\"":      `"\"hi\""`,
		"{a}":         `"{a}"`,
		"tab\there":   "tab\there",
		"\tlead":      `"\tlead"`,
		"bell\x07":    `"bell\x07"`,
		"c1\u0085":    `"c1\x85"`,
		"back\\slash": "back\\slash",
		"nbsp\u00a0":  "\"nbsp\u00a0\"",
	} {
		if got := yamlValue(in); got != want {
			t.Errorf("yamlValue(%q) = %s, want %s", in, got, want)
		}
	}
}

// A stylesheet of another origin cannot be read from the page: one that
// did not load (nothing answers at its address) has no rules, and a focus
// move on its page is patched; one that loaded may hold a :focus-within
// rule, and the page is snapshot (here it shows a submenu).
func TestUnreadableStylesheet(t *testing.T) {
	dead := testkit.FreeAddr(t)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		io.WriteString(w, ".sub { display: none } .nav:focus-within .sub { display: block }")
	}))
	defer other.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		sheet := "http://" + dead + "/gone.css"
		if r.URL.Path == "/other" {
			sheet = other.URL + "/menu.css"
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Sheets</title><link rel="stylesheet" href="%s">
			<div class="nav"><a href="/a">Products</a><ul class="sub"><li><a href="/b">Shown on focus</a></li></ul></div>`, sheet)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := caller(t.Name())
	n := countSnapshots(t)

	navTo(t, c, srv.URL+"/dead")
	taken := *n
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Tab"})
	if *n != taken || !strings.Contains(a.Snapshot, `link "Products" [active]`) {
		t.Fatalf("Tab on a page whose only stylesheet did not load took %d snapshots, want 0 (%v):\n%s", *n-taken, watchFallbacks.counts(), a.Snapshot)
	}
	sameAsFresh(t, c, "the patched snapshot")

	navTo(t, c, srv.URL+"/other")
	taken, before := *n, watchFallbacks.counts()["css unreadable"]
	a = act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Tab"})
	if *n != taken+1 || watchFallbacks.counts()["css unreadable"] != before+1 || !strings.Contains(a.Snapshot, "Shown on focus") {
		t.Fatalf("Tab on a page with another origin's stylesheet took %d snapshots (want 1, css unreadable: %v):\n%s", *n-taken, watchFallbacks.counts(), a.Snapshot)
	}
}

// A page whose marks pass gives an inline element its line (an empty text
// node, marks.go) is snapshot once, after the pass, not twice; the pass's
// own change is not the page's: the next action that changes nothing
// takes no snapshot.
func TestMarksPassChangeIsOwn(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	n := countSnapshots(t)
	checks := watchChecks.Load()
	r := navTo(t, c, pages.URL+"/tip")
	if *n != 1 || !strings.Contains(r.Snapshot, "[hoverable]") {
		t.Fatalf("navigating took %d snapshots (want 1) or lost the tooltip's mark:\n%s", *n, r.Snapshot)
	}
	// A new document is checked once, after the marks pass: that check
	// starts the snapshot's period and checks off the pass's change.
	if got := watchChecks.Load() - checks; got != 1 {
		t.Fatalf("navigating checked the page %d times, want 1", got)
	}
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
	if *n != 1 || a.Snapshot != r.Snapshot {
		t.Fatalf("a press that changes nothing after the marks pass took %d snapshots (want 0; %v):\n%s", *n-1, watchFallbacks.counts(), a.Snapshot)
	}
	sameAsFresh(t, c, "the kept snapshot")
}

// An answer from the kept snapshot (nothing changed but focus and values)
// does not ask the page again whether a field it asked about is a secret
// one; a field turned into a password field (a mutation) is asked again
// and its value hidden, and turned back, shown.
func TestKeptSnapshotRedactsWithoutAsking(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	nav := navTo(t, c, pages.URL+"/toggle")
	code, button := refOf(t, nav.Snapshot, `textbox "Code"`), refOf(t, nav.Snapshot, `button "Hide or show"`)
	line := func(snap string) string {
		for _, l := range strings.Split(snap, "\n") {
			if strings.Contains(l, `textbox "Code"`) {
				return l
			}
		}
		t.Fatalf("no Code line in:\n%s", snap)
		return ""
	}
	if l := line(act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: code, Text: "open-1234"}).Snapshot); !strings.Contains(l, "open-1234") {
		t.Fatalf("a plain field's value must show: %s", l)
	}
	for i, want := range []string{"open-1234", abi.RedactedValue, abi.RedactedValue, "open-1234"} {
		if i == 1 || i == 3 {
			act(t, c, abi.BrowserActRequest{Action: abi.ActClick, Ref: button})
		}
		asked := secretChecks.Load()
		a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
		if l := line(a.Snapshot); !strings.Contains(l, want) || (want == abi.RedactedValue) == strings.Contains(l, "open-1234") {
			t.Fatalf("step %d: want the Code line to show %q, got %s", i, want, l)
		}
		if n := secretChecks.Load() - asked; n != 0 {
			t.Errorf("step %d: a Shift that changed nothing asked about %d field(s) already asked about", i, n)
		}
	}
}

// Typing into a field of a page that changed nothing but the field's
// value is judged plain or secret by the probe taken before the typing:
// no round trip after it, the plain value shown, the secret one hidden. A
// field the typing turns secret is a mutation: the new snapshot asks about
// it and hides its value.
func TestTypedFieldJudgedByItsProbe(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	r := navTo(t, c, pages.URL+"/fields")
	for _, ty := range []struct {
		field, text string
		secret      bool
	}{{`textbox "Name"`, "plain-42", false}, {`textbox "Secret"`, "hunter2-ahead", true}} {
		asked, patched, unanswered := secretChecks.Load(), snapshotsPatched.Load(), probesUnanswered.Load()
		a := act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: refOf(t, r.Snapshot, ty.field), Text: ty.text})
		if shown := strings.Contains(a.Snapshot, ty.text); shown == ty.secret || ty.secret && !strings.Contains(a.Snapshot, abi.RedactedValue) {
			t.Fatalf("typing into %s (secret %v): the answer shows the value: %v\n%s", ty.field, ty.secret, shown, a.Snapshot)
		}
		// The probe answers only when it answered in time and the kept
		// snapshot was patched (a busy machine may deny either); else the
		// field is asked about after the typing, as before.
		want := int64(0)
		if snapshotsPatched.Load() == patched || probesUnanswered.Load() != unanswered {
			want = 1
		}
		if n := secretChecks.Load() - asked; n != want {
			t.Errorf("typing into %s: the page was asked about %d field(s) after the typing, want %d (patched %d, probes unanswered %d, fallbacks %v)",
				ty.field, n, want, snapshotsPatched.Load()-patched, probesUnanswered.Load()-unanswered, watchFallbacks.counts())
		}
	}
	// A new document's values are asked about (in the watcher's world),
	// in frames too: the plain ones show, the secret ones do not.
	asked := secretChecks.Load()
	snap := navTo(t, c, pages.URL+"/prefilled").Snapshot
	for _, v := range []struct {
		text   string
		secret bool
	}{{"plain-town", false}, {"pin-9876", true}, {"plain-inner", false}, {"key-5555", true}} {
		if strings.Contains(snap, v.text) == v.secret {
			t.Errorf("a prefilled value %q (secret %v) is shown wrongly:\n%s", v.text, v.secret, snap)
		}
	}
	if n := secretChecks.Load() - asked; n != 4 {
		t.Errorf("a new document with 4 values asked about %d fields, want 4", n)
	}
	r = navTo(t, c, pages.URL+"/flip")
	asked = secretChecks.Load()
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: refOf(t, r.Snapshot, `textbox "Code"`), Text: "turned-secret"})
	if strings.Contains(a.Snapshot, "turned-secret") || !strings.Contains(a.Snapshot, abi.RedactedValue) {
		t.Fatalf("a field the typing turned into a password shows its value:\n%s", a.Snapshot)
	}
	if secretChecks.Load() == asked {
		t.Errorf("a field the typing turned into a password was not asked about again")
	}
}

// A Tab onto a link Playwright gives no ref (no text, no box) is answered
// from the kept snapshot, its [active] mark moved to that link's line,
// told by the refs around it; a new snapshot agrees at each step. The
// link hidden for ARIA has no line: the Tab onto it is answered by a new
// snapshot, which agrees too.
func TestFocusOnALinkWithoutRef(t *testing.T) {
	// Not parallel: it counts patched snapshots (and snapshots taken) in
	// package-wide counters, which another session's Tab moves.
	pages, _ := changePages(t)
	c := caller(t.Name())
	n := countSnapshots(t)
	r := navTo(t, c, pages.URL+"/emptylinks")
	if !strings.Contains(r.Snapshot, `link "Menu"`) || strings.Contains(r.Snapshot, `link "Menu" [ref=`) {
		t.Skipf("Playwright gave the empty link no line, or a ref: nothing to test here:\n%s", r.Snapshot)
	}
	act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: refOf(t, r.Snapshot, `textbox "Search"`), Text: "tea"})
	for i, want := range []string{`link "Menu" [active]`, "", `link "Close" [active]`, `link "Next" [active]`} {
		taken, patched := *n, snapshotsPatched.Load()
		a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Tab"})
		if want != "" && (!strings.Contains(a.Snapshot, want) || *n != taken || snapshotsPatched.Load() != patched+1) {
			t.Fatalf("Tab %d: want %q in an answer patched from the kept snapshot (snapshots taken %d, fallbacks %v):\n%s", i, want, *n-taken, watchFallbacks.counts(), a.Snapshot)
		}
		if kept, fresh := freshSnapshot(t, c); kept != fresh {
			t.Fatalf("Tab %d: the answer differs from a new snapshot:\n%s\n---\n%s", i, kept, fresh)
		}
	}
}

func TestPlaceActive(t *testing.T) {
	t.Parallel()
	snap := "- textbox \"Search\" [active] [ref=e1]: tea\n- link \"Menu\":\n  - /url: \"#menu\"\n- link \"Close\"\n- link \"Next\" [ref=e2]"
	got, ok := placeActive(snap, &focusPlace{Role: "link", Seq: []string{"start", "e1", "self", "same", "e2", "end"}})
	want := "- textbox \"Search\" [ref=e1]: tea\n- link \"Menu\" [active]:\n  - /url: \"#menu\"\n- link \"Close\"\n- link \"Next\" [ref=e2]"
	if !ok || got != want {
		t.Fatalf("placeActive:\n%s\nwant\n%s", got, want)
	}
	got, ok = placeActive(snap, &focusPlace{Role: "link", Seq: []string{"e1", "same", "self", "e2"}})
	if !ok || !strings.Contains(got, `link "Close" [active]`) || strings.Contains(got, `"Search" [active]`) {
		t.Fatalf("placeActive to the second:\n%s", got)
	}
	for _, seq := range [][]string{
		{"e1", "self", "e2"},                 // two lines, one element: which is it?
		{"e1", "same", "same", "self", "e2"}, // three elements, two lines
		{"e9", "self", "same"},               // no bound after
		{"self", "same", "e2"},               // no bound before
	} {
		if got, ok := placeActive(snap, &focusPlace{Role: "link", Seq: seq}); ok {
			t.Fatalf("placeActive %v succeeded:\n%s", seq, got)
		}
	}
	// A ref that is on no line is passed over for the next one out.
	if _, ok := placeActive(snap, &focusPlace{Role: "link", Seq: []string{"e1", "e7", "self", "same", "e8", "e2"}}); !ok {
		t.Fatal("placeActive did not pass over refs on no line")
	}
}

// tabOf is c's session's current tab.
func tabOf(t *testing.T, c *hostfuncs.Caller) *tab {
	t.Helper()
	ss, tb, err := svc.sessions.pageTab(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	ss.mu.Unlock()
	return tb
}

// Once a check through Playwright has run with a snapshot kept, the main
// frame's watcher is asked directly (direct.go): the answers still equal
// a new snapshot (a focus moved, a value typed, a value set by script),
// the page's own world does not see the watcher's function, and a new
// document is asked through Playwright first.
func TestWatcherAskedDirectly(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	r := navTo(t, c, pages.URL+"/still")
	snapshotNow(t, c)
	tb := tabOf(t, c)
	tb.direct.settle()
	steps := []abi.BrowserActRequest{
		{Action: abi.ActType, Ref: refOf(t, r.Snapshot, `textbox "Name"`), Text: "Ada"},
		{Action: abi.ActPress, Key: "Tab"},
		{Action: abi.ActPress, Key: "Shift+Tab"},
		{Action: abi.ActPress, Key: "Alt"},
		{Action: abi.ActPress, Key: "Shift"},
	}
	for i, req := range steps {
		asked := tb.direct.answered.Load()
		act(t, c, req)
		if tb.direct.answered.Load() != asked+1 {
			t.Fatalf("step %d (%s %s): the watcher was not asked directly", i, req.Action, req.Key)
		}
		sameAsFresh(t, c, fmt.Sprintf("step %d (%s %s): the answer", i, req.Action, req.Key))
	}
	if v, err := tb.page.Evaluate(`typeof globalThis.__wwCheck`); err != nil || v != "undefined" {
		t.Fatalf("the page's own world sees the watcher's function: %v %v", v, err)
	}
	navTo(t, c, pages.URL+"/fields")
	asked := tb.direct.answered.Load()
	act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Tab"})
	if tb.direct.answered.Load() != asked {
		t.Fatalf("the first check of a new document was asked directly, in a context found for the one before")
	}
	sameAsFresh(t, c, "the new document's answer")
}

// A direct check that fails once sent is a change: a new snapshot, never
// the same check asked again through Playwright (its period may have
// ended). The next check through Playwright finds the world again.
func TestDirectCheckFailsClosed(t *testing.T) {
	pages, _ := changePages(t)
	c := caller(t.Name())
	n := countSnapshots(t)
	navTo(t, c, pages.URL+"/still")
	snapshotNow(t, c)
	tb := tabOf(t, c)
	tb.direct.settle()
	tb.direct.mu.Lock()
	if tb.direct.ctx == "" {
		tb.direct.mu.Unlock()
		t.Fatal("no isolated world found in the main frame")
	}
	tb.direct.ctx = "not-a-context"
	tb.direct.mu.Unlock()
	taken := *n
	act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
	if *n != taken+1 {
		t.Fatalf("a direct check that failed took %d snapshots, want 1", *n-taken)
	}
	sameAsFresh(t, c, "the answer after a failed direct check")
	asked := tb.direct.answered.Load()
	act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
	tb.direct.settle()
	act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Shift"})
	if tb.direct.answered.Load() != asked+1 {
		t.Fatalf("after a failed direct check, %d checks were asked directly, want 1 (the second after it)", tb.direct.answered.Load()-asked)
	}
	sameAsFresh(t, c, "the answer")
}
