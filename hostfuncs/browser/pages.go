package browser

import (
	"context"
	"strings"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/internal/spans"
)

// pages is what the host functions that act on a page and those that read
// one share: the page's state, locating a ref, snapshots (snapshot.go),
// the facts of a load (facts.go) and why one failed (loads.go).
type pages struct {
	*env
	// loads: why a load failed, and the egress proxy's answers (loads.go).
	*loads
	// sessions map errors (a crash drops the session).
	sessions *sessions
	// concealer redacts typed secrets from snapshots.
	concealer *concealer
}

// findTab finds the caller's session and its current tab, the session
// locked (sessions.pageTab, sessions.beginWith).
type findTab func(ctx context.Context, c *hostfuncs.Caller) (*session, *tab, error)

// onTab is the setup the page host functions share: find the caller's
// session and tab, then run fn with the session locked until fn returns.
func onTab[R any](ctx context.Context, c *hostfuncs.Caller, find findTab, fn func(ss *session, t *tab) (R, error)) (R, error) {
	endFind := spans.Start("b.find")
	ss, t, err := find(ctx, c)
	endFind()
	if err != nil {
		var none R
		return none, err
	}
	defer ss.mu.Unlock()
	var none R
	leaving := ctx.Value(leavingKey{}) != nil
	gate := ss.env != nil && ss.env.gate != nil && !leaving && hostfuncs.CallerFrom(ss.ctx) != nil
	if gate {
		end := spans.Start("b.gate")
		err := ss.env.gate(ss, t)
		end()
		if err != nil {
			return none, err
		}
	} else if err := refuseWithheld(ctx, t); err != nil {
		return none, err
	}
	before := t.cur.Load()
	endFn := spans.Start("b.fn")
	r, err := fn(ss, t)
	endFn()
	if err == nil && ss.env != nil && ss.env.afterGate != nil && hostfuncs.CallerFrom(ss.ctx) != nil {
		// The page may have replaced its document while fn ran (and a
		// leaving call ends on a new one): what fn read may be the new
		// one's, which must be judged before it leaves (gate.go). A
		// tabs call may end on another tab.
		if leaving {
			t = ss.current()
		}
		if t != nil {
			end := spans.Start("b.afterGate")
			gerr := ss.env.afterGate(ss, t, leaving, before)
			end()
			if gerr != nil {
				return none, gerr
			}
		}
	}
	return r, err
}

// stillJudged refuses to act on a tab whose page left the origin the host
// approved the call for (Caller.OriginJudged): the page moved while the
// call waited for an operator, and the approval was for the other page.
// The acting host functions call it right before they act.
//
// A call whose receivers were bound for its approval (Caller.Bound, a
// *Binding) is checked by what was bound: the page's origin, and each
// receiving element's node, frame origin and what it shows.
func stillJudged(c *hostfuncs.Caller, t *tab) error {
	if !c.OriginJudged() {
		return nil
	}
	if b, ok := c.Bound().(*Binding); ok && b != nil {
		return b.check(t)
	}
	return stillOnPage(c, t)
}

// stillOnPage is stillJudged without the elements: the page is still on
// the origin judged (for a bound call, the same tab too). An act checks it
// before it looks its refs up (a page that moved has other refs: it must
// read as moved, not as stale), and stillJudged right before it acts.
func stillOnPage(c *hostfuncs.Caller, t *tab) error {
	if !c.OriginJudged() {
		return nil
	}
	if b, ok := c.Bound().(*Binding); ok && b != nil {
		return b.checkPage(t)
	}
	want := c.Origin()
	if want == "" {
		want = "null"
	}
	now := originOf(t.page.URL())
	if now == want {
		return nil
	}
	return abi.Errorf(abi.CodeRefused, "the page moved from %s to %s after this call was judged for approval; nothing was done on the new page. Take a new snapshot and call again: it will be judged for the page it is on now", want, now)
}

// openDialog returns the dialog blocking t, or any tab of ss. The text of
// a dialog another tab's page opened before it was judged is withheld
// (shownDialog); t's own is shown (capped): the agent answers it, and the
// page is judged then (a withheld page's dialogs are dismissed unseen).
func openDialog(ss *session, t *tab) *abi.BrowserDialog {
	if d := t.dialog.Load(); d != nil {
		info := dialogInfo(*d)
		info.Message, info.DefaultValue = capString(visibleChars(info.Message), 500), capString(visibleChars(info.DefaultValue), 200)
		return info
	}
	ss.evMu.Lock()
	defer ss.evMu.Unlock()
	for _, x := range ss.tabs {
		if d := x.dialog.Load(); d != nil {
			return shownDialog(x, *d)
		}
	}
	return nil
}

// shownDialog is what an agent is told of dialog d of tab x: its type,
// and its text only when x's document was judged clean.
func shownDialog(x *tab, d pw.Dialog) *abi.BrowserDialog {
	info := dialogInfo(d)
	if !x.document().clean() {
		info.Message, info.DefaultValue = "(not shown: the page that opened it is not judged yet)", ""
	}
	return info
}

func dialogInfo(d pw.Dialog) *abi.BrowserDialog {
	return &abi.BrowserDialog{Type: d.Type(), Message: d.Message(), DefaultValue: d.DefaultValue()}
}

// state describes the session after a call and hands over its pending
// warnings.
func (s *pages) state(ss *session, t *tab, allTabs bool) abi.BrowserState {
	return s.stateWith(ss, t, allTabs, nil)
}

// stateWith is state with the current tab's title already read (title
// non-nil: titleSoon's result, or the title the page facts saw).
func (s *pages) stateWith(ss *session, t *tab, allTabs bool, title func() string) abi.BrowserState {
	defer spans.Start("b.state")()
	st := abi.BrowserState{Tab: max(ss.tabIndex(t), 0), URL: t.page.URL()}
	if !t.document().clean() {
		st.URL = loadURL(t) // gate.go: its own URL is its content
	}
	st.Dialog = openDialog(ss, t)
	if st.Dialog == nil && !t.page.IsClosed() {
		if title != nil {
			st.Title = title()
		} else {
			st.Title = pageTitle(t.page)
		}
		if s.egressShown(ss, t) != nil {
			st.Title = "" // the egress proxy's, not a site's
		}
	}
	ss.evMu.Lock()
	tabs := append([]*tab(nil), ss.tabs...)
	fresh := ss.newTabs
	ss.newTabs = nil
	st.Warnings, ss.warnings = ss.warnings, nil
	ss.evMu.Unlock()
	if w := ss.popupWarning(); w != "" {
		st.Warnings = append(st.Warnings, w)
	}
	// Invisible format characters a model still reads are taken out of
	// every page-supplied string (visibility.go).
	st.Title = visibleChars(st.Title)
	if st.Dialog != nil {
		st.Dialog.Message, st.Dialog.DefaultValue = visibleChars(st.Dialog.Message), visibleChars(st.Dialog.DefaultValue)
	}
	if len(tabs) > 1 || allTabs {
		// A tab's title is a read of its document: one not judged yet
		// (a popup) is judged first (gate.go), once.
		s.judgeTabs(ss, t, tabs)
		// The other tabs' titles are read together, under one deadline: a
		// stuck tab costs the call a second, not a second per tab.
		titles := make([]func() string, len(tabs))
		for i, x := range tabs {
			if x != t && x.dialog.Load() == nil && !x.page.IsClosed() && x.document().clean() { // an unjudged or withheld page's title is its content
				titles[i] = titleSoon(x.page)
			}
		}
		deadline := time.Now().Add(time.Second)
		for i, x := range tabs {
			bt := abi.BrowserTab{Index: i, URL: x.page.URL(), Current: x == t}
			if x != t && !x.document().clean() {
				// The URL an unjudged or withheld page sets for itself is
				// its content: its origin is listed, nothing more.
				bt.URL = originOf(bt.URL)
			}
			if x == t {
				bt.Title = st.Title
			} else if titles[i] != nil {
				bt.Title = visibleChars(titleBy(titles[i], deadline))
				if s.egressShown(ss, x) != nil {
					bt.Title = ""
				}
			}
			st.Tabs = append(st.Tabs, bt)
		}
	}
	for _, x := range fresh {
		for i, y := range tabs {
			if x == y {
				st.NewTabs = append(st.NewTabs, abi.BrowserTab{Index: i, URL: x.page.URL()})
			}
		}
	}
	return st
}

// race runs fn, but returns early when a dialog opens: the page is then
// blocked and fn would only finish once someone answers it. The dialog is
// reported through State.Dialog; fn's late result is dropped. Like every
// Playwright call of a host function it is bounded (await): by the call's
// context and the session's call budget.
func race[T any](ss *session, fn func() (T, error)) (T, bool, error) {
	return await(ss, 0, true, fn)
}

func race0(ss *session, fn func() error) (bool, error) {
	_, d, err := race(ss, func() (struct{}, error) { return struct{}{}, fn() })
	return d, err
}

// normRef accepts "e5", "@e5", "ref=e5" and frame refs "f1e4". Anything
// else (a CSS selector, a role name) is refused.
func normRef(ref string) (string, error) {
	r := strings.TrimSpace(ref)
	r = strings.TrimPrefix(r, "@")
	r = strings.TrimPrefix(r, "ref=")
	r = strings.Trim(r, "[]")
	r = strings.TrimPrefix(r, "ref=")
	if refRe.MatchString(r) {
		return r, nil
	}
	if r == "" {
		return "", abi.Errorf(abi.CodeInputInvalid, "no element given: pass a ref from browser_snapshot (like e5)")
	}
	return "", abi.Errorf(abi.CodeInputInvalid, "%q is not a ref: CSS selectors and text are not accepted, use a ref from browser_snapshot (like e5)", capString(ref, 80))
}

// locate resolves a ref of the latest snapshot of t. A ref that is not in
// that snapshot, or whose element has left the page, fails at once with
// stale_ref: Playwright itself would wait for it until the timeout.
func (s *pages) locate(ss *session, t *tab, ref string) (pw.Locator, string, error) {
	defer spans.Start("b.locate")()
	r, err := normRef(ref)
	if err != nil {
		return nil, "", err
	}
	if !t.refs[r] {
		if len(t.refs) == 0 {
			return nil, r, abi.Errorf(abi.CodeStaleRef, "ref %s: this tab has no snapshot yet: take a new snapshot (browser_snapshot) and use its refs", r)
		}
		return nil, r, abi.Errorf(abi.CodeStaleRef, "ref %s is not in the latest snapshot of this tab: take a new snapshot (browser_snapshot) and use its refs", r)
	}
	loc := t.page.GetByRef(r)
	n, _, err := await(ss, s.cfg.actionWait(), false, loc.Count)
	if err != nil {
		return nil, r, s.sessions.mapErr(ss, err, "finding "+r)
	}
	if n == 0 {
		return nil, r, abi.Errorf(abi.CodeStaleRef, "ref %s is no longer on the page (the page changed or navigated since the snapshot): take a new snapshot and use its refs", r)
	}
	return loc, r, nil
}

// locateToAct is locate for an element about to be acted on: the probe
// ready needs is read while locate counts, so the two round trips overlap.
// (Locator.EvaluateAll does not resolve refs, so they cannot be one.)
func (s *pages) locateToAct(ss *session, t *tab, ref string) (pw.Locator, string, error) {
	r, err := normRef(ref)
	if err != nil || !t.refs[r] {
		return s.locate(ss, t, ref)
	}
	type res struct {
		p  probe
		ok bool
	}
	ch := make(chan res, 1)
	early := t.page.GetByRef(r)
	go func() {
		p, ok := probeOf(early, time.Second)
		ch <- res{p, ok}
	}()
	loc, r, err := s.locate(ss, t, ref)
	if err != nil {
		return loc, r, err // the probe times out on its own
	}
	if t.probed == nil {
		t.probed = map[string]func() (probe, bool){}
	}
	t.probed[r] = func() (probe, bool) {
		select {
		case x := <-ch:
			return x.p, x.ok
		case <-time.After(2 * time.Second): // the probe's own timeout is 1s
			return probe{}, false
		}
	}
	return loc, r, nil
}

// after finishes an action: waits for a navigation it started, then takes
// the snapshot and, after a navigation, the page facts.
func (s *pages) after(ss *session, t *tab, navBefore int64, noSnap bool, out *abi.BrowserActResponse) error {
	defer spans.Start("b.after")()
	if t.navSeq.Load() != navBefore && !t.page.IsClosed() {
		out.Navigated = true
		race0(ss, func() error {
			return t.page.WaitForLoadState(pw.PageWaitForLoadStateOptions{State: pw.LoadStateDomcontentloaded, Timeout: ms(s.cfg.navigationWait())})
		})
		if err := s.navFailed(ss, t, navBefore); err != nil {
			return err
		}
	}
	var title func() string
	if openDialog(ss, t) == nil && !t.page.IsClosed() {
		if out.Navigated {
			pg, snap, tt, err := s.readJudged(ss, t, nil, !noSnap, false)
			if err != nil {
				return err
			}
			out.Page, out.Snapshot, title = pg, snap, tt
		} else if !noSnap {
			// The snapshot's check reads the title in its round trip
			// (titleChecked); without one, the state asks for it.
			since := t.checks.Load()
			snap, err := s.snapshot(ss, t, "", 0)
			if err != nil {
				return err
			}
			out.Snapshot = snap
			title, _ = titleChecked(t, since)
		}
	}
	out.State = s.stateWith(ss, t, false, title)
	return nil
}
