// Navigating a tab: browser_navigate, and leaving a page (its dialogs, a
// page that keeps asking, a navigation that failed or timed out).

package browser

import (
	"context"
	"fmt"
	"strings"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// The navigation family: opening a URL (here) and going back or forward
// (history.go). Both are ways off a withheld document (gateLeave): each
// runs on one and judges the document it ends on before it answers.
func navigationFuncs(s *Service) []hostFunc {
	return []hostFunc{
		{hf(abi.HostBrowserNavigate, s.actions.navigate), gateLeave},
		{hf(abi.HostBrowserHistory, s.actions.history), gateLeave},
	}
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
			return nil, false, t, s.navErr(ss, t, err, u, timeout, waitName, true)
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

// navErr says why a load of u failed. A timeout's next step names what the
// call can change: wait_until only where the caller chose the wait
// (browser_navigate: waitChosen), the timeout alone elsewhere (back,
// forward and a new tab take none).
func (s *actions) navErr(ss *session, t *tab, err error, u string, timeout time.Duration, wait string, waitChosen bool) error {
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
		retry := "retry with a longer timeout"
		if waitChosen {
			retry += " or wait_until=domcontentloaded or commit"
		}
		return abi.Errorf(abi.CodeNavTimeout, "%s did not finish loading within %s (waiting for %s): %s, or take a snapshot of what did load", u, timeout, wait, retry)
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
