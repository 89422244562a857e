package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
	"github.com/wasmwright/wasmwright/internal/spans"
)

// pages is what the host functions that act on a page and those that read
// one share: the page's state, locating a ref, snapshots (snapshot.go),
// the facts of a load and why one failed.
type pages struct {
	*env
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

// navFailed is the error for a navigation an action started (a link, a
// form submission) that did not load, or nil: the action ran, the page it
// opened did not.
func (s *pages) navFailed(ss *session, t *tab, navBefore int64) error {
	var err error
	if f := t.navFail.Load(); f != nil && f.seq > navBefore {
		code := f.err
		if i := strings.Index(code, "net::"); i >= 0 {
			code = code[i:]
		}
		if code == "net::ERR_ABORTED" {
			return nil
		}
		settleErrorPage(t)
		err = s.loadFailed(ss, f.url, code)
	} else if d := t.doc.Load(); d != nil && d.seq > navBefore {
		err = s.proxyAnswered(ss, d.url, d.headers)
	}
	if e, ok := err.(*abi.Error); ok {
		return abi.Errorf(e.Code, "the action ran, but the page it opened did not load: %s", e.Message).With("url", e.Details["url"])
	}
	return err
}

// loadFailed is the error for a navigation to u that Chromium failed with
// code (net::ERR_...): the egress proxy's reason when it refused or could
// not reach the site, else unreachable or execution_failed by the code.
func (s *pages) loadFailed(ss *session, u, code string) error {
	if err := s.egressFailure(ss, u); err != nil {
		return err
	}
	if why := chromiumRefuses(code); why != "" {
		return abi.Errorf(abi.CodeRefused, "%s was not loaded: %s (%s)", u, why, code).With("url", u)
	}
	for _, e := range unreachableErrs {
		if strings.HasSuffix(code, "ERR_"+e) {
			return abi.Errorf(abi.CodeUnreachable, "could not reach %s (%s): check the URL's host name and port; if they are right, the site may be down: retry later", u, code).With("url", u)
		}
	}
	return abi.Errorf(abi.CodeExecutionFailed, "could not load %s: %s: check the URL, or whether the site is reachable from this host", u, code)
}

// unreachableErrs are Chromium's errors for a site that cannot be reached
// (no such name, nothing answering, the egress proxy failing the tunnel).
var unreachableErrs = []string{"NAME_NOT_RESOLVED", "CONNECTION_REFUSED", "CONNECTION_TIMED_OUT", "ADDRESS_UNREACHABLE",
	"TUNNEL_CONNECTION_FAILED", "PROXY_CONNECTION_FAILED", "CONNECTION_RESET", "CONNECTION_CLOSED", "EMPTY_RESPONSE", "INTERNET_DISCONNECTED", "TIMED_OUT"}

// chromiumRefuses says why Chromium itself refused to load a URL, before
// any request (code: net::ERR_...), or "" for any other failure.
func chromiumRefuses(code string) string {
	switch {
	case strings.HasSuffix(code, "ERR_UNSAFE_PORT"):
		return "the browser never opens this port (an unsafe port: SSH, SMTP and other non-web services)"
	case strings.HasSuffix(code, "ERR_UNSAFE_REDIRECT"):
		return "the site redirected to an address the browser never follows (not http or https)"
	case strings.HasSuffix(code, "ERR_ACCESS_DENIED"), strings.HasSuffix(code, "ERR_BLOCKED_BY_CLIENT"), strings.HasSuffix(code, "ERR_BLOCKED_BY_ADMINISTRATOR"):
		return "the browser refused to open it"
	case strings.HasSuffix(code, "ERR_INVALID_URL"), strings.HasSuffix(code, "ERR_DISALLOWED_URL_SCHEME"), strings.HasSuffix(code, "ERR_UNKNOWN_URL_SCHEME"):
		return "the browser does not open such an address"
	}
	return ""
}

// egressFailure asks Options.EgressFailure why u did not load.
func (s *pages) egressFailure(ss *session, u string) error {
	if s.opts.EgressFailure == nil {
		return nil
	}
	return s.opts.EgressFailure(ss.key.personality, ss.key.session, u)
}

// proxyAnswered is the error for a document the session's egress proxy
// answered itself instead of the site at u (its mark is on headers):
// refused under the policy, or the site could not be reached; nil for a
// site's own answer, whatever its status, title or words. The proxy's
// page is never shown: the error names the address and why.
func (s *pages) proxyAnswered(ss *session, u string, headers map[string]string) error {
	if !ss.egressAnswered(headers) {
		return nil
	}
	if err := s.egressFailure(ss, u); err != nil {
		return err
	}
	// The host's hook did not say (none, or the call that met it is over):
	// the proxy's own headers do.
	shown := shownURL(u)
	if why := headers[egressBlockedHeader]; why != "" {
		return abi.Errorf(abi.CodeRefused, "%s was not loaded: the network policy refused it (%s)", shown, why).With("url", shown)
	}
	return abi.Errorf(abi.CodeUnreachable, "%s could not be reached: %s. Check the URL's host name and port; if they are right, the site may be down: retry later",
		shown, headers[egressReasonHeader]).With("url", shown)
}

// shownURL is u without credentials, query or fragment, as an error names it.
func shownURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return capString(u, 300)
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return capString(p.String(), 300)
}

// egressShown is the error for a tab that shows its egress proxy's answer
// instead of a page (a link, a script, a meta refresh or a redirect led it
// to an address the proxy refused or could not reach), or nil: whatever
// was read from such a tab is the proxy's words, not the site's, and is
// never returned as content.
func (s *pages) egressShown(ss *session, t *tab) error {
	d := t.doc.Load()
	if d == nil || !ss.egressAnswered(d.headers) {
		return nil
	}
	if d.seq != t.navSeq.Load() && t.page.URL() != d.url {
		return nil // the tab has moved on since
	}
	return s.proxyAnswered(ss, d.url, d.headers)
}

// errorPage is the document Chromium shows for a navigation that failed.
const errorPage = "chrome-error://chromewebdata/"

// gotoSettled is Page.Goto, except for a navigation cut short on its way
// (interrupted): by the error page of an earlier one that failed (in a tab
// already on an error page, settleErrorPage cannot tell whether the
// earlier failure's page has yet to commit, and it commits over the next
// navigation), it is started again, once; by Chromium starting it over
// itself (leaving an error page, it moves the navigation to a new
// renderer), the one that took over is waited for. Either way it answers
// for itself (refused, unreachable, loaded) rather than execution_failed:
// with a nil response, the caller judges the tab as it then is.
func gotoSettled(t *tab, u string, o pw.PageGotoOptions) (pw.Response, error) {
	before := t.navSeq.Load()
	resp, err := t.page.Goto(u, o)
	m := interruptedRe.FindStringSubmatch(fmt.Sprint(err))
	if err != nil && m != nil && m[2] == errorPage {
		resp, err = t.page.Goto(u, o)
		m = interruptedRe.FindStringSubmatch(fmt.Sprint(err))
	}
	if err == nil || m == nil || m[2] != m[1] {
		return resp, err // loaded, failed, or cut short by another navigation (a script's)
	}
	took := m[2] // a URL, not a glob: its "?" and "*" are its own
	if werr := t.page.WaitForURL(func(at string) bool { return at == took }, pw.PageWaitForURLOptions{WaitUntil: o.WaitUntil, Timeout: o.Timeout}); werr != nil {
		if f := t.navFail.Load(); f != nil && f.seq > before {
			return nil, errors.New(f.err) // net::ERR_...: the caller says why
		}
		return nil, werr
	}
	return nil, nil
}

// interruptedRe is Playwright's message for a navigation another one cut
// short: the URL of each.
var interruptedRe = regexp.MustCompile(`Navigation to "([^"]*)" is interrupted by another navigation to "([^"]*)"`)

// settleErrorPage waits, briefly, for the error page of a failed
// navigation to commit: Playwright reports the failure first, and a
// navigation started before the error page arrives is interrupted by it.
func settleErrorPage(t *tab) {
	bounded(stuckProbe, func() error {
		return t.page.WaitForURL(errorPage, pw.PageWaitForURLOptions{WaitUntil: pw.WaitUntilStateCommit, Timeout: ms(stuckProbe)})
	})
}

// factsJS reads the whole document for the detect hook, up to max UTF-16
// units each (the host then caps the bytes): a wall's marker may sit
// anywhere in it. With max 0 it reads only the title: without a
// detector, nothing reads the rest (innerText lays the page out, and
// both cost a large page tens of milliseconds).
const factsJS = `(max) => ({
	title: document.title,
	text: max && document.body ? document.body.innerText.slice(0, max) : "",
	html: max && document.documentElement ? document.documentElement.outerHTML.slice(0, max) : ""
})`

// facts collects what the detect hook reads about the loaded document.
func (s *pages) facts(ss *session, t *tab, resp pw.Response) *abi.Page {
	pg, _, _, _ := s.pageFacts(ss, t, resp, false)
	return pg
}

// pageFacts collects the page facts and, when withSnap is set, the
// snapshot: the two reads are in flight together, in one race against a
// dialog. title reports the title the facts saw (nil when they failed). A
// dialog leaves the snapshot empty, as snapshot does.
func (s *pages) pageFacts(ss *session, t *tab, resp pw.Response, withSnap bool) (pg *abi.Page, snap string, title func() string, err error) {
	defer spans.Start("b.pageFacts")()
	pg = &abi.Page{URL: t.page.URL()}
	if resp != nil {
		pg.Status, pg.Headers = resp.Status(), resp.Headers()
	} else if d := t.doc.Load(); d != nil {
		pg.Status, pg.Headers = d.status, d.headers
	}
	max := s.cfg.DetectMaxMB << 20
	if c := hostfuncs.CallerFrom(ss.ctx); c != nil && c.NoDetector() {
		max = 0
	}
	type reads struct {
		v    any
		verr error
		snap string
		serr error
	}
	r, dialog, _ := race(ss, func() (reads, error) {
		var r reads
		if !withSnap {
			r.v, r.verr = t.page.Evaluate(factsJS, max)
			return r, nil
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.v, r.verr = t.page.Evaluate(factsJS, max)
		}()
		r.snap, r.serr = s.aria(ss, t, 0)
		<-done
		return r, nil
	})
	if dialog {
		return pg, "", nil, nil
	}
	if err := s.egressShown(ss, t); err != nil {
		return &abi.Page{URL: pg.URL}, "", nil, err
	}
	if m, ok := r.v.(map[string]any); ok && r.verr == nil {
		pg.Title, _ = m["title"].(string)
		text, _ := m["text"].(string)
		html, _ := m["html"].(string)
		pg.Text, pg.HTML = capString(text, max), capString(html, max)
		seen := pg.Title
		title = func() string { return seen }
	}
	if withSnap {
		if r.serr != nil {
			return pg, "", title, s.sessions.mapErrWithin(ss, r.serr, "taking a snapshot", s.readBudget())
		}
		s.keepRefs(t, r.snap)
		snap = s.redactKept(t, r.snap, r.snap)
	}
	return pg, snap, title, nil
}

// checkURL accepts only http and https: file:, data:, javascript: and the
// rest are refused before anything starts. It reads the URL as web_fetch
// does (weborigin.ParseURL), so one text gets one code from both.
func checkURL(raw string) (string, error) {
	u, err := weborigin.ParseURL(raw)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// checkOpenURL is checkURL for a URL about to be loaded, then
// Options.CheckURL (the network service's check: credentials, ports,
// hosts), so such a URL is refused before anything starts.
func (s *pages) checkOpenURL(raw string) (string, error) {
	u, err := checkURL(raw)
	if err != nil || s.opts.CheckURL == nil {
		return u, err
	}
	if err := s.opts.CheckURL(u); err != nil {
		var ae *abi.Error
		if errors.As(err, &ae) {
			return "", ae
		}
		return "", abi.Errorf(abi.CodeRefused, "%v", err)
	}
	return u, nil
}

func ms(d time.Duration) *float64 { return pw.Float(float64(d.Milliseconds())) }

func fmtBox(x, y, w, h float64) string { return fmt.Sprintf("%.0f,%.0f,%.0f,%.0f", x, y, w, h) }

var (
	refRe     = regexp.MustCompile(`^(?:f\d+)?e\d+$`)
	refInSnap = regexp.MustCompile(`\[ref=((?:f\d+)?e\d+)\]`)
	// A textbox line with a value: `- textbox "Password" [ref=e3]: s3cret`.
	textboxValue = regexp.MustCompile(`(?m)^(\s*- textbox\b[^\n]*\[ref=((?:f\d+)?e\d+)\][^:\n]*): (.+)$`)
)

// evalInto runs one of the host's own scripts and decodes its result.
func (s *pages) evalInto(ss *session, t *tab, js string, arg any, into any) error {
	v, dialog, err := race(ss, func() (any, error) { return t.page.Evaluate(js, arg) })
	if dialog {
		return errDialogOpen(openDialog(ss, t))
	}
	if err != nil {
		return s.sessions.mapErr(ss, err, "reading the page")
	}
	if err := s.egressShown(ss, t); err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}
