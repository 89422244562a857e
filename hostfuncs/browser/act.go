// browser_act: each kind of action prepared (actCall), then run.

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

// The acting family: one interaction on a ref or a viewport point, on a
// document judged clean (gateTab).
func actFuncs(s *Service) []hostFunc {
	return []hostFunc{{hf(abi.HostBrowserAct, s.actions.act), gateTab}}
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
