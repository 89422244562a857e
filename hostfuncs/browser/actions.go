package browser

import (
	"context"
	"fmt"
	"strings"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/internal/spans"
)

// actions are the host functions that change a page: navigate, act, fill
// a form, upload, history, wait, dialogs, tabs and emulation.
type actions struct {
	*env
	sessions  *sessions
	pages     *pages
	concealer *concealer
	// launcher gives a device context (emulate) the session's proxy.
	launcher *launcher
}

// navigate is ww_browser_navigate.
func (s *actions) navigate(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserNavigateRequest) (abi.BrowserNavigateResponse, error) {
	var out abi.BrowserNavigateResponse
	u, err := s.pages.checkOpenURL(req.URL)
	if err != nil {
		return out, err
	}
	return onTab(withProfile(ctx, req.Profile), c, s.sessions.beginWith(true), func(ss *session, t *tab) (abi.BrowserNavigateResponse, error) {
		if req.Profile != "" && ss.named != req.Profile {
			return out, abi.Errorf(abi.CodeInputInvalid, "this session is already open without profile %q: call browser_close, then browser_navigate with the profile", req.Profile)
		}
		t, err := s.leaveFor(ss, t, u, req.NewTab)
		if err != nil {
			return out, err
		}
		if !req.NewTab {
			thaw(ss, t) // a frozen wall does not unload (gate.go)
		}
		if err := stillJudged(c, t); err != nil {
			return out, err
		}
		if req.NewTab {
			p, _, err := await(ss, 0, false, ss.bctx.NewPage)
			if err != nil {
				return out, s.sessions.mapErr(ss, err, "opening a tab")
			}
			t = ss.attach(p)
			ss.evMu.Lock()
			ss.cur, ss.newTabs = ss.indexLocked(t), nil
			ss.evMu.Unlock()
		}
		timeout := s.cfg.navigationWait()
		if req.TimeoutMS > 0 && time.Duration(req.TimeoutMS)*time.Millisecond < timeout {
			timeout = time.Duration(req.TimeoutMS) * time.Millisecond
		}
		wait, err := waitUntil(req.WaitUntil)
		if err != nil {
			return out, err
		}
		resp, dialog, t, err := s.gotoLeaving(ss, t, u, timeout, wait, req.WaitUntil)
		if err != nil {
			return out, err
		}
		if resp != nil {
			if err := s.pages.proxyAnswered(ss, resp.URL(), resp.Headers()); err != nil {
				return out, err
			}
		}
		out.Moved = true
		var title func() string
		if !dialog {
			// wait_until chooses when the answer comes, never on what the
			// document is judged (gate.go).
			early := req.WaitUntil == "commit"
			pg, snap, tt, err := s.pages.readJudged(ss, t, resp, !req.NoSnapshot, early)
			if err != nil {
				return out, err
			}
			out.Page, out.Snapshot, title = *pg, snap, tt
		} else {
			out.Page = abi.Page{URL: loadURL(t)}
		}
		out.State = s.pages.stateWith(ss, t, false, title)
		return out, nil
	})
}

// leaveFor readies t, the tab a navigation to u leaves (unless it opens
// a new tab), by answering its dialog; a page that asks again at once is
// left by replacing its tab (replaceAsking). A dialog on another tab, or
// any with new_tab (which leaves no page), still blocks the call.
func (s *actions) leaveFor(ss *session, t *tab, u string, newTab bool) (*tab, error) {
	if !newTab {
		if err := s.leaveDialog(ss, t, "leaving it for "+u); err != nil {
			return t, err
		}
		if t.dialog.Load() != nil {
			var err error
			if t, err = s.replaceAsking(ss, t, u); err != nil {
				return t, err
			}
		}
	}
	if d := openDialog(ss, t); d != nil {
		return t, errDialogOpen(d)
	}
	return t, nil
}

// gotoLeaving loads u in t. A dialog before the new document committed
// is the old page's (one alert after another as it parses, a timer):
// leaving answers that one too, but a page can open the next as fast as
// each is answered, and a same-site navigation cannot commit while its
// renderer shows one. So the page is left the way that always ends: its
// tab is replaced (replaceAsking) and the navigation starts again there,
// once. It returns the tab the page is in.
func (s *actions) gotoLeaving(ss *session, t *tab, u string, timeout time.Duration, wait *pw.WaitUntilState, waitName string) (pw.Response, bool, *tab, error) {
	for replaced := false; ; replaced = true {
		before, nt := t.page.MainFrame().URL(), t
		resp, dialog, err := await(ss, timeout+s.cfg.actionWait(), true, func() (pw.Response, error) {
			return gotoSettled(nt, u, pw.PageGotoOptions{Timeout: ms(timeout), WaitUntil: wait})
		})
		if err != nil {
			return nil, false, t, s.navErr(ss, t, err, u, timeout, waitName)
		}
		if !dialog || replaced || t.page.MainFrame().URL() != before {
			return resp, dialog, t, nil
		}
		if t, err = s.replaceAsking(ss, t, u); err != nil {
			return nil, false, t, err
		}
	}
}

// replaceAsking replaces t, a page that keeps opening dialogs while the
// agent leaves it for u, by a fresh tab (closing the old page answers
// them), and says so among the result's warnings.
func (s *actions) replaceAsking(ss *session, t *tab, u string) (*tab, error) {
	d := openDialog(ss, t)
	nt, err := s.sessions.replaceTab(ss, t)
	if err != nil {
		return t, s.sessions.mapErr(ss, err, "opening a tab in place of a page that kept opening dialogs")
	}
	what := "a dialog"
	if d != nil {
		what = fmt.Sprintf("%s %s dialog (%q)", article(d.Type, "a"), d.Type, capString(d.Message, 200))
	}
	ss.warn(fmt.Sprintf("the page being left opened %s while %s loaded: its tab was closed (which answers it) and replaced by a new one; the tab's back history is gone", what, capString(u, 200)))
	return nt, nil
}

// leaveDialog dismisses the dialog open on t, a page the call leaves (a
// navigation of its tab, closing it): leaving a page answers its dialog,
// as a person who goes elsewhere does, so it does not block the call. The
// result says so among its warnings. Every other tool still asks the agent
// to answer the dialog first (errDialogOpen).
func (s *actions) leaveDialog(ss *session, t *tab, how string) error {
	d := t.dialog.Load()
	if d == nil {
		return nil
	}
	info := dialogInfo(*d)
	err := await0(ss, s.cfg.actionWait(), func() error { return (*d).Dismiss() })
	t.dialog.CompareAndSwap(d, nil)
	// A dialog already gone (answered, its page closed or navigated away:
	// "Not attached to an active page") needs no answer.
	if err != nil && !strings.Contains(err.Error(), "No dialog is showing") && !strings.Contains(err.Error(), "closed") &&
		!strings.Contains(err.Error(), "Not attached to an active page") {
		return s.sessions.mapErr(ss, err, "dismissing the page's dialog")
	}
	ss.evMu.Lock()
	ss.warnings = append(ss.warnings, fmt.Sprintf("%s %s dialog (%q) was open on the page: %s dismissed it", article(info.Type, "a"), info.Type, capString(info.Message, 200), how))
	ss.evMu.Unlock()
	return nil
}

func waitUntil(w string) (*pw.WaitUntilState, error) {
	switch w {
	case "", "load":
		return pw.WaitUntilStateLoad, nil
	case "domcontentloaded":
		return pw.WaitUntilStateDomcontentloaded, nil
	case "networkidle":
		return pw.WaitUntilStateNetworkidle, nil
	case "commit":
		return pw.WaitUntilStateCommit, nil
	}
	return nil, abi.Errorf(abi.CodeInputInvalid, "wait_until %q: use load, domcontentloaded, networkidle or commit", w)
}

func (s *actions) navErr(ss *session, t *tab, err error, u string, timeout time.Duration, wait string) error {
	if wait == "" {
		wait = "load"
	}
	if lost := s.sessions.lostInFlight(ss, err, "loading "+u); lost != nil {
		return lost
	}
	if pwTimeout(err) || isStalled(err) {
		// The tab is still loading: stop it, so the next call finds the
		// page that did load and not a navigation in flight. A page that
		// did not load may be stuck in a script: the next call checks it
		// (unstick).
		ss.suspect.Store(true)
		stopLoading(ss, t)
	}
	if pwTimeout(err) {
		return abi.Errorf(abi.CodeNavTimeout, "%s did not finish loading within %s (waiting for %s): retry with a longer timeout or wait_until=domcontentloaded or commit, or take a snapshot of what did load", u, timeout, wait)
	}
	msg := err.Error()
	if i := strings.Index(msg, "net::"); i >= 0 {
		code, _, _ := strings.Cut(msg[i:], " ")
		if code != "net::ERR_ABORTED" {
			settleErrorPage(t)
		} else if to := refusedRedirect(t); to != "" {
			// Chromium hands a redirect to a scheme it has no handler for
			// (gopher:) to the system and aborts, rather than saying
			// ERR_UNSAFE_REDIRECT as it does for file:: the same cause.
			return abi.Errorf(abi.CodeRefused, "%s was not loaded: the site redirected to %s, an address the browser never follows (not http or https)", u, capString(to, 200)).With("url", u)
		}
		return s.pages.loadFailed(ss, u, code)
	}
	return s.sessions.mapErr(ss, err, "loading "+u)
}

// refusedRedirect is the Location of the tab's last main-frame response
// when that is a redirect to another scheme than http or https, else "".
func refusedRedirect(t *tab) string {
	d := t.doc.Load()
	if d == nil || d.status < 300 || d.status > 399 {
		return ""
	}
	loc := d.headers["location"]
	scheme, _, ok := strings.Cut(loc, ":")
	if !ok || strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https") || strings.ContainsAny(scheme, "/?#") {
		return "" // a relative Location, or http(s)
	}
	return loc
}

// stopLoading stops the navigation in flight in t (Chromium's stop
// button), bounded: a call that gave up on a navigation leaves the tab on
// the page it had.
func stopLoading(ss *session, t *tab) {
	bounded(stuckProbe, func() error {
		cdp, err := ss.bctx.NewCDPSession(t.page)
		if err != nil {
			return err
		}
		defer cdp.Detach()
		_, err = cdp.Send("Page.stopLoading", nil)
		return err
	})
}

// act is ww_browser_act.
func (s *actions) act(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserActRequest) (abi.BrowserActResponse, error) {
	var out abi.BrowserActResponse
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserActResponse, error) {
		navBefore := t.navSeq.Load()
		// The action writes its detail into its own copy: after a dialog it may
		// still be running when this call returns.
		var detail abi.BrowserActResponse
		// The page's origin is checked before its refs are looked up (a page
		// that moved has other refs: it must read as moved, not as stale) and
		// again right before the action runs.
		if err := stillOnPage(c, t); err != nil {
			return out, err
		}
		fn, err := s.action(ss, t, c, &req, &detail)
		if err != nil {
			return out, err
		}
		if err := stillJudged(c, t); err != nil {
			return out, err
		}
		endRun := spans.Start("b.act.run")
		dialog, err := race0(ss, fn)
		endRun()
		if err != nil {
			return out, s.sessions.mapErr(ss, err, req.Action+" "+target(req))
		}
		if dialog {
			out.State = s.pages.state(ss, t, false)
			return out, nil
		}
		out.Detail = detail.Detail
		return out, s.pages.after(ss, t, navBefore, req.NoSnapshot, &out)
	})
}

func target(req abi.BrowserActRequest) string {
	if req.Ref != "" {
		return req.Ref
	}
	if req.X != nil && req.Y != nil {
		return fmt.Sprintf("at (%.0f,%.0f)", *req.X, *req.Y)
	}
	return ""
}

// action checks an act request and returns the Playwright call to run.
// Element checks (stale ref, visibility) happen here, before the call.
func (s *actions) action(ss *session, t *tab, c *hostfuncs.Caller, req *abi.BrowserActRequest, out *abi.BrowserActResponse) (func() error, error) {
	defer spans.Start("b.act.prepare")()
	button, err := mouseButton(req.Button)
	if err != nil {
		return nil, err
	}
	mods, err := modifiers(req.Modifiers)
	if err != nil {
		return nil, err
	}
	a := &actCall{s: s, ss: ss, t: t, c: c, req: req, out: out, haveXY: req.X != nil && req.Y != nil, button: button, mods: mods}
	if do, ok := actKinds[req.Action]; ok {
		return do(a)
	}
	return nil, abi.Errorf(abi.CodeInputInvalid, "unknown action %q: use click, dblclick, type, fill, press, hover, scroll, select, drag or check", req.Action)
}

// actKinds prepares each action of BrowserActRequest: its keys are the
// action field's enum (a test keeps them equal).
var actKinds = map[string]func(*actCall) (func() error, error){
	abi.ActClick:    (*actCall).click,
	abi.ActDblClick: (*actCall).click,
	abi.ActType:     (*actCall).typeText,
	abi.ActFill:     (*actCall).typeText,
	abi.ActPress:    (*actCall).press,
	abi.ActHover:    (*actCall).hover,
	abi.ActScroll:   (*actCall).scroll,
	abi.ActSelect:   (*actCall).selectOption,
	abi.ActDrag:     (*actCall).drag,
	abi.ActCheck:    (*actCall).check,
}

// actCall is one browser act being prepared by action: the call's
// session, tab and request, and the mouse button and modifiers it asked
// for. Each kind of action has its method.
type actCall struct {
	s      *actions
	ss     *session
	t      *tab
	c      *hostfuncs.Caller
	req    *abi.BrowserActRequest
	out    *abi.BrowserActResponse
	haveXY bool // x and y were given
	button *pw.MouseButton
	mods   []pw.KeyboardModifier
}

// needTarget locates the ref, or none when x and y are given instead.
func (a *actCall) needTarget(what string) (pw.Locator, string, error) {
	if a.req.Ref == "" && !a.haveXY {
		return nil, "", abi.Errorf(abi.CodeInputInvalid, "%s needs a ref from browser_snapshot (or x and y viewport coordinates)", what)
	}
	if a.req.Ref == "" {
		return nil, "", nil
	}
	return a.s.pages.locateToAct(a.ss, a.t, a.req.Ref)
}

// needRef locates the ref, which the action needs.
func (a *actCall) needRef(what string) (pw.Locator, string, error) {
	if a.req.Ref == "" {
		return nil, "", abi.Errorf(abi.CodeInputInvalid, "%s needs a ref from browser_snapshot", what)
	}
	return a.s.pages.locateToAct(a.ss, a.t, a.req.Ref)
}

// click is click and dblclick: on a ref, or at x, y; a click that can open a tab waits for one.
func (a *actCall) click() (func() error, error) {
	ss, t, req, page, button, mods := a.ss, a.t, a.req, a.t.page, a.button, a.mods
	loc, ref, err := a.needTarget(req.Action)
	if err != nil {
		return nil, err
	}
	if loc == nil {
		count := 1
		if req.Action == abi.ActDblClick {
			count = 2
		}
		return func() error {
			return withModifiers(page, req.Modifiers, func() error {
				return page.Mouse().Click(*req.X, *req.Y, pw.MouseClickOptions{Button: button, ClickCount: pw.Int(count)})
			})
		}, nil
	}
	pr, err := t.ready(loc, ref, true, false)
	if err != nil {
		return nil, err
	}
	click := func() error { return loc.Click(pw.LocatorClickOptions{Button: button, Modifiers: mods}) }
	if req.Action == abi.ActDblClick {
		click = func() error { return loc.Dblclick(pw.LocatorDblclickOptions{Button: button, Modifiers: mods}) }
	}
	// Only a click that can open a tab waits for one: a modifier or
	// middle click elsewhere (or a target naming a frame) opens none.
	if pr.OpensTab || pr.Navigates && (len(req.Modifiers) > 0 || req.Button == "middle") {
		return ss.awaitingTab(click), nil
	}
	return click, nil
}

// typeText is type and fill: into a ref, or at x, y (typeAt); a value typed into a password input goes to the masker.
func (a *actCall) typeText() (func() error, error) {
	s, t, c, req, page, haveXY := a.s, a.t, a.c, a.req, a.t.page, a.haveXY
	if req.Ref == "" && haveXY {
		return s.typeAt(page, c, req), nil
	}
	loc, ref, err := a.needRef(req.Action)
	if err != nil {
		return nil, err
	}
	pr, err := t.ready(loc, ref, true, true)
	if err != nil {
		return nil, err
	}
	if pr.Password {
		s.concealer.keepSecret(c, req.Text)
	}
	if pr.Read {
		if t.plainAhead == nil {
			t.plainAhead = map[string]bool{}
		}
		t.plainAhead[ref], t.aheadAt = !pr.Secret, t.checks.Load()
	}
	return func() error {
		switch {
		case req.Action == abi.ActFill && !req.Append:
			err = loc.Fill(req.Text)
		case req.Action == abi.ActFill:
			cur, e := loc.InputValue()
			if e != nil {
				return e
			}
			err = loc.Fill(cur + req.Text)
		default:
			if !req.Append {
				err = loc.Fill("")
			} else if err = loc.Focus(); err == nil {
				err = loc.Press("End")
			}
			if err == nil {
				err = loc.PressSequentially(req.Text)
			}
		}
		if err == nil && req.Submit {
			err = loc.Press("Enter")
		}
		return err
	}, nil
}

// press presses a key on a ref, or on the page.
func (a *actCall) press() (func() error, error) {
	s, ss, t, req, page := a.s, a.ss, a.t, a.req, a.t.page
	if req.Key == "" {
		return nil, abi.Errorf(abi.CodeInputInvalid, "press needs a key, e.g. Enter, Tab, Escape, ArrowDown or Control+A")
	}
	if req.Ref == "" {
		return func() error { return page.Keyboard().Press(req.Key) }, nil
	}
	loc, _, err := s.pages.locate(ss, t, req.Ref)
	if err != nil {
		return nil, err
	}
	return func() error { return loc.Press(req.Key) }, nil
}

// hover moves the mouse over a ref, or to x, y.
func (a *actCall) hover() (func() error, error) {
	t, req, page, mods := a.t, a.req, a.t.page, a.mods
	loc, ref, err := a.needTarget("hover")
	if err != nil {
		return nil, err
	}
	if loc == nil {
		return func() error { return page.Mouse().Move(*req.X, *req.Y) }, nil
	}
	if _, err := t.ready(loc, ref, false, false); err != nil {
		return nil, err
	}
	return func() error { return loc.Hover(pw.LocatorHoverOptions{Modifiers: mods}) }, nil
}

// scroll brings a ref into view, or scrolls the page by a direction and amount.
func (a *actCall) scroll() (func() error, error) {
	s, ss, t, req, out, page := a.s, a.ss, a.t, a.req, a.out, a.t.page
	if req.Ref != "" {
		loc, _, err := s.pages.locate(ss, t, req.Ref)
		if err != nil {
			return nil, err
		}
		return func() error {
			if err := loc.ScrollIntoViewIfNeeded(); err != nil {
				return err
			}
			out.Detail = "scrolled " + req.Ref + " into view"
			return nil
		}, nil
	}
	dx, dy, err := scrollDelta(page, req.Direction, req.Amount)
	if err != nil {
		return nil, err
	}
	return func() error {
		v, err := page.Evaluate(`([dx, dy]) => { window.scrollBy(dx, dy); const e = document.scrollingElement || document.documentElement;
				return [Math.round(scrollX), Math.round(scrollY), e.scrollWidth, e.scrollHeight, innerWidth, innerHeight]; }`, []int{dx, dy})
		if err != nil {
			return err
		}
		if a, ok := v.([]any); ok && len(a) == 6 {
			out.Detail = fmt.Sprintf("scroll position x=%v y=%v of page %vx%v (viewport %vx%v)", a[0], a[1], a[2], a[3], a[4], a[5])
		}
		return nil
	}, nil
}

// selectOption chooses options of a <select> ref.
func (a *actCall) selectOption() (func() error, error) {
	t, req, out := a.t, a.req, a.out
	loc, ref, err := a.needRef("select")
	if err != nil {
		return nil, err
	}
	if len(req.Values) == 0 {
		return nil, abi.Errorf(abi.CodeInputInvalid, "select needs values: the option labels or values to choose")
	}
	if _, err := t.ready(loc, ref, true, false); err != nil {
		return nil, err
	}
	return func() error {
		vals := req.Values
		got, err := loc.SelectOption(pw.SelectOptionValues{ValuesOrLabels: &vals})
		if err == nil {
			out.Detail = "selected " + strings.Join(got, ", ")
		}
		return err
	}, nil
}

// drag drags a ref onto target_ref, or from x, y to to_x, to_y.
func (a *actCall) drag() (func() error, error) {
	s, ss, t, req, page, haveXY := a.s, a.ss, a.t, a.req, a.t.page, a.haveXY
	if req.Ref != "" {
		if req.TargetRef == "" {
			return nil, abi.Errorf(abi.CodeInputInvalid, "drag needs target_ref, the ref to drop onto")
		}
		src, ref, err := s.pages.locateToAct(ss, t, req.Ref)
		if err != nil {
			return nil, err
		}
		dst, _, err := s.pages.locate(ss, t, req.TargetRef)
		if err != nil {
			return nil, err
		}
		if _, err := t.ready(src, ref, false, false); err != nil {
			return nil, err
		}
		return func() error { return src.DragTo(dst) }, nil
	}
	if !haveXY || req.ToX == nil || req.ToY == nil {
		return nil, abi.Errorf(abi.CodeInputInvalid, "drag needs ref and target_ref, or x, y, to_x and to_y")
	}
	return func() error {
		m := page.Mouse()
		if err := m.Move(*req.X, *req.Y); err != nil {
			return err
		}
		if err := m.Down(); err != nil {
			return err
		}
		if err := m.Move(*req.ToX, *req.ToY, pw.MouseMoveOptions{Steps: pw.Int(10)}); err != nil {
			return err
		}
		return m.Up()
	}, nil
}

// check checks or unchecks a ref.
func (a *actCall) check() (func() error, error) {
	t, req := a.t, a.req
	loc, ref, err := a.needRef("check")
	if err != nil {
		return nil, err
	}
	if _, err := t.ready(loc, ref, true, false); err != nil {
		return nil, err
	}
	on := req.Checked == nil || *req.Checked
	return func() error { return loc.SetChecked(on) }, nil
}

// typeAt types at a viewport point, for a field with no ref (a canvas
// app's, a widget's): it clicks there, selects what the focused element
// holds unless Append, and types through the keyboard. The text is kept
// for the masker, as a typed password is, unless the focused element,
// found in whichever frame holds it, is known not to be a secret field
// (secretFieldFn).
func (s *actions) typeAt(p pw.Page, c *hostfuncs.Caller, req *abi.BrowserActRequest) func() error {
	return func() error {
		if err := p.Mouse().Click(*req.X, *req.Y); err != nil {
			return err
		}
		if f, found, _ := findFocused(p, nil); !found || f.Secret {
			s.concealer.keepSecret(c, req.Text)
		}
		if !req.Append {
			if err := p.Keyboard().Press("ControlOrMeta+A"); err != nil {
				return err
			}
		}
		if err := p.Keyboard().Type(req.Text); err != nil {
			return err
		}
		if req.Submit {
			return p.Keyboard().Press("Enter")
		}
		return nil
	}
}

func mouseButton(b string) (*pw.MouseButton, error) {
	switch strings.ToLower(b) {
	case "", "left":
		return pw.MouseButtonLeft, nil
	case "right":
		return pw.MouseButtonRight, nil
	case "middle":
		return pw.MouseButtonMiddle, nil
	}
	return nil, abi.Errorf(abi.CodeInputInvalid, "button %q: use left, right or middle", b)
}

func modifiers(ms []string) ([]pw.KeyboardModifier, error) {
	var out []pw.KeyboardModifier
	for _, m := range ms {
		switch m {
		case "Alt", "Control", "ControlOrMeta", "Meta", "Shift":
			out = append(out, pw.KeyboardModifier(m))
		default:
			return nil, abi.Errorf(abi.CodeInputInvalid, "modifier %q: use Alt, Control, ControlOrMeta, Meta or Shift", m)
		}
	}
	return out, nil
}

// withModifiers holds modifier keys down around fn (coordinate clicks).
func withModifiers(p pw.Page, mods []string, fn func() error) error {
	for _, m := range mods {
		if err := p.Keyboard().Down(m); err != nil {
			return err
		}
	}
	err := fn()
	for _, m := range mods {
		p.Keyboard().Up(m)
	}
	return err
}

func scrollDelta(p pw.Page, dir string, amount int) (int, int, error) {
	if amount <= 0 {
		amount = 600
		if vs := p.ViewportSize(); vs != nil && vs.Height > 0 {
			amount = vs.Height * 4 / 5
		}
	}
	switch strings.ToLower(dir) {
	case "", "down":
		return 0, amount, nil
	case "up":
		return 0, -amount, nil
	case "right":
		return amount, 0, nil
	case "left":
		return -amount, 0, nil
	}
	return 0, 0, abi.Errorf(abi.CodeInputInvalid, "direction %q: use up, down, left or right (or a ref to scroll into view)", dir)
}

// fillForm is ww_browser_fill_form.
func (s *actions) fillForm(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserFillFormRequest) (abi.BrowserActResponse, error) {
	var out abi.BrowserActResponse
	if len(req.Fields) == 0 {
		return out, abi.Errorf(abi.CodeInputInvalid, "fields is empty: give each field's ref and value")
	}
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserActResponse, error) {
		type step struct {
			loc pw.Locator
			f   abi.BrowserFormField
		}
		if err := stillOnPage(c, t); err != nil {
			return out, err
		}
		var steps []step
		for _, f := range req.Fields {
			loc, ref, err := s.pages.locateToAct(ss, t, f.Ref)
			if err != nil {
				return out, err
			}
			kind := strings.ToLower(f.Kind)
			pr, err := t.ready(loc, ref, true, kind == "" || kind == "textbox")
			if err != nil {
				return out, err
			}
			switch kind {
			case "", "textbox", "slider", "checkbox", "radio", "combobox":
			default:
				return out, abi.Errorf(abi.CodeInputInvalid, "field %s: kind %q: use textbox, checkbox, radio, combobox or slider", f.Ref, f.Kind)
			}
			if (kind == "" || kind == "textbox") && pr.Password {
				s.concealer.keepSecret(c, f.Value)
			}
			steps = append(steps, step{loc, f})
		}
		if err := stillJudged(c, t); err != nil {
			return out, err
		}
		navBefore := t.navSeq.Load()
		filled := 0
		dialog, err := race0(ss, func() error {
			for _, st := range steps {
				var err error
				switch strings.ToLower(st.f.Kind) {
				case "checkbox", "radio":
					err = st.loc.SetChecked(truthy(st.f.Value))
				case "combobox":
					v := []string{st.f.Value}
					_, err = st.loc.SelectOption(pw.SelectOptionValues{ValuesOrLabels: &v})
				default:
					err = st.loc.Fill(st.f.Value)
				}
				if err != nil {
					return fmt.Errorf("field %s: %w", st.f.Ref, err)
				}
				filled++
			}
			return nil
		})
		if err != nil {
			return out, s.sessions.mapErr(ss, err, fmt.Sprintf("filling the form (%d of %d fields done)", filled, len(steps)))
		}
		out.Detail = fmt.Sprintf("filled %d fields", len(steps))
		if dialog {
			out.State = s.pages.state(ss, t, false)
			return out, nil
		}
		return out, s.pages.after(ss, t, navBefore, req.NoSnapshot, &out)
	})
}

func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1", "checked":
		return true
	}
	return false
}

// upload is ww_browser_upload.
func (s *actions) upload(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserUploadRequest) (abi.BrowserActResponse, error) {
	var out abi.BrowserActResponse
	if len(req.Paths) == 0 {
		return out, abi.Errorf(abi.CodeInputInvalid, "paths is empty: name the files (in the upload folder) to upload")
	}
	var files []string
	for _, p := range req.Paths {
		f, err := s.pages.uploadFile(p)
		if err != nil {
			return out, err
		}
		files = append(files, f)
	}
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserActResponse, error) {
		if err := stillOnPage(c, t); err != nil {
			return out, err
		}
		loc, ref, err := s.pages.locate(ss, t, req.Ref)
		if err != nil {
			return out, err
		}
		v, _ := loc.Evaluate(`e => e instanceof HTMLInputElement && e.type === "file"`, nil, pw.LocatorEvaluateOptions{Timeout: pw.Float(1000)})
		fileInput, _ := v.(bool)
		if !fileInput {
			if _, err := t.ready(loc, ref, true, false); err != nil {
				return out, err
			}
		}
		if err := stillJudged(c, t); err != nil {
			return out, err
		}
		navBefore := t.navSeq.Load()
		dialog, err := race0(ss, func() error {
			if fileInput {
				return loc.SetInputFiles(files)
			}
			fc, err := t.page.ExpectFileChooser(func() error { return loc.Click() }, pw.PageExpectFileChooserOptions{Timeout: ms(s.cfg.actionWait())})
			if err != nil {
				if pwTimeout(err) {
					return abi.Errorf(abi.CodeNotInteractable, "clicking %s opened no file chooser: give the ref of the file input or of the button that opens the chooser", ref)
				}
				return err
			}
			return fc.SetFiles(files)
		})
		if err != nil {
			return out, s.sessions.mapErr(ss, err, "uploading to "+ref)
		}
		out.Detail = fmt.Sprintf("uploaded %d file(s)", len(files))
		if dialog {
			out.State = s.pages.state(ss, t, false)
			return out, nil
		}
		return out, s.pages.after(ss, t, navBefore, req.NoSnapshot, &out)
	})
}

// waitFor is ww_browser_wait_for.
func (s *actions) waitFor(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserWaitForRequest) (abi.BrowserWaitForResponse, error) {
	var out abi.BrowserWaitForResponse
	n := 0
	for _, set := range []bool{req.Text != "", req.TextGone != "", req.Ref != "", req.TimeMS > 0} {
		if set {
			n++
		}
	}
	if n != 1 {
		return out, abi.Errorf(abi.CodeInputInvalid, "wait for exactly one thing: text, text_gone, ref or time_ms")
	}
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserWaitForResponse, error) {
		var err error
		timeout := s.cfg.actionWait() * 6
		if req.TimeoutMS > 0 {
			timeout = min(time.Duration(req.TimeoutMS)*time.Millisecond, s.cfg.navigationWait())
		}
		var loc pw.Locator
		if req.Ref != "" {
			if loc, _, err = s.pages.locate(ss, t, req.Ref); err != nil {
				return out, err
			}
		}
		t0 := time.Now()
		what := ""
		dialog, err := race0(ss, func() error {
			switch {
			case req.TimeMS > 0:
				what = fmt.Sprintf("waiting %dms", req.TimeMS)
				// A plain wait ends with the call (a client's cancellation, the
				// deadline): it holds the session, and nothing of the page.
				tm := time.NewTimer(min(time.Duration(req.TimeMS)*time.Millisecond, 30*time.Second))
				defer tm.Stop()
				select {
				case <-tm.C:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			case req.Text != "":
				what = fmt.Sprintf("waiting for text %q", req.Text)
				return t.page.GetByText(req.Text).First().WaitFor(pw.LocatorWaitForOptions{State: pw.WaitForSelectorStateVisible, Timeout: ms(timeout)})
			case req.TextGone != "":
				what = fmt.Sprintf("waiting for text %q to go", req.TextGone)
				return t.page.GetByText(req.TextGone).First().WaitFor(pw.LocatorWaitForOptions{State: pw.WaitForSelectorStateHidden, Timeout: ms(timeout)})
			default:
				what = "waiting for " + req.Ref
				return loc.WaitFor(pw.LocatorWaitForOptions{State: pw.WaitForSelectorStateVisible, Timeout: ms(timeout)})
			}
		})
		out.WaitedMS = time.Since(t0).Milliseconds()
		if err != nil {
			if pwTimeout(err) {
				return out, abi.Errorf(abi.CodeTimeout, "%s: not there after %s: take a snapshot to see the page as it is", what, timeout)
			}
			return out, s.sessions.mapErr(ss, err, what)
		}
		if !dialog && !req.NoSnapshot {
			if out.Snapshot, err = s.pages.snapshot(ss, t, "", 0); err != nil {
				return out, err
			}
		}
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}

// dialog is ww_browser_dialog.
func (s *actions) dialog(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserDialogRequest) (abi.BrowserDialogResponse, error) {
	var out abi.BrowserDialogResponse
	return onTab(ctx, c, s.sessions.beginWith(false), func(ss *session, t *tab) (abi.BrowserDialogResponse, error) {
		var err error
		holder := t
		d := t.dialog.Load()
		if d == nil {
			ss.evMu.Lock()
			for _, x := range ss.tabs {
				if d = x.dialog.Load(); d != nil {
					holder = x
					break
				}
			}
			ss.evMu.Unlock()
		}
		if d == nil {
			return out, abi.Errorf(abi.CodeDialogGone, "no dialog is open (it was answered, or closed with its page): take a snapshot to see the page")
		}
		out.Handled = *dialogInfo(*d)
		err = await0(ss, s.cfg.actionWait(), func() error {
			if req.Accept {
				if req.PromptText != nil {
					return (*d).Accept(*req.PromptText)
				}
				return (*d).Accept()
			}
			return (*d).Dismiss()
		})
		holder.dialog.CompareAndSwap(d, nil)
		if err != nil {
			if strings.Contains(err.Error(), "No dialog is showing") || strings.Contains(err.Error(), "closed") {
				return out, abi.Errorf(abi.CodeDialogGone, "the dialog was already gone: take a snapshot to see the page")
			}
			return out, s.sessions.mapErr(ss, err, "answering the dialog")
		}
		if !req.NoSnapshot && openDialog(ss, t) == nil {
			// Let the page run what the answer unblocked.
			time.Sleep(50 * time.Millisecond)
			// A dialog answered on a page not yet judged: now it can be
			// (gate.go).
			if err := s.pages.gate(ss, t); err != nil {
				return out, err
			}
			if out.Snapshot, err = s.pages.snapshot(ss, t, "", 0); err != nil {
				return out, err
			}
		}
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}

// tabWait bounds how long a click expected to open a tab waits for the
// browser to report it (a popup blocker may refuse it). A variable so a
// test can show that a click that cannot open a tab never waits on it.
var tabWait = time.Second

// awaitingTab runs a click expected to open a tab (a link or form with a
// target, a modifier or middle click on one) and waits for the browser to
// report the tab, so the result's state lists it (Playwright's click
// returns before its page event arrives): until the tab opens, tabWait
// passes or the call ends.
func (ss *session) awaitingTab(click func() error) func() error {
	done := context.Background().Done()
	if ss.ctx != nil {
		done = ss.ctx.Done()
	}
	return func() error {
		select {
		case <-ss.tabOpened:
		default:
		}
		if err := click(); err != nil {
			return err
		}
		t := time.NewTimer(tabWait)
		defer t.Stop()
		select {
		case <-ss.tabOpened:
		case <-t.C:
		case <-done:
		}
		return nil
	}
}
