package browser

import (
	"context"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/internal/spans"
)

// history is ww_browser_history.
func (s *actions) history(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserHistoryRequest) (abi.BrowserNavigateResponse, error) {
	var out abi.BrowserNavigateResponse
	if req.Direction != "back" && req.Direction != "forward" {
		return out, abi.Errorf(abi.CodeInputInvalid, "direction %q: use back or forward", req.Direction)
	}
	return onTab(ctx, c, s.sessions.beginWith(false), func(ss *session, t *tab) (abi.BrowserNavigateResponse, error) {
		// Going back or forward leaves the page, which answers its dialog
		// as a navigation does (a page that asks again at once still
		// blocks: its tab is not replaced, which would lose the history).
		if err := s.leaveDialog(ss, t, "going "+req.Direction); err != nil {
			return out, err
		}
		if d := openDialog(ss, t); d != nil {
			return out, errDialogOpen(d)
		}
		timeout := s.cfg.navigationWait()
		if req.TimeoutMS > 0 && time.Duration(req.TimeoutMS)*time.Millisecond < timeout {
			timeout = time.Duration(req.TimeoutMS) * time.Millisecond
		}
		if err := stillJudged(c, t); err != nil {
			return out, err
		}
		before := t.page.URL()
		navBefore := t.navSeq.Load()
		thaw(ss, t) // a frozen wall does not unload (gate.go)
		endGo := spans.Start("b.history.go")
		resp, dialog, err := await(ss, timeout+s.cfg.actionWait(), true, func() (pw.Response, error) {
			return goHistory(t, req.Direction == "back", timeout)
		})
		if err != nil {
			return out, s.navErr(ss, t, err, "going "+req.Direction, timeout, "domcontentloaded", false)
		}
		endGo()
		out.Moved = resp != nil || t.page.URL() != before || t.navSeq.Load() != navBefore
		var title func() string
		if !dialog {
			pg, snap, tt, err := s.pages.readJudged(ss, t, resp, !req.NoSnapshot, false)
			if err != nil {
				return out, err
			}
			out.Page, out.Snapshot, title = *pg, snap, tt
		}
		out.State = s.pages.stateWith(ss, t, false, title)
		return out, nil
	})
}

// goHistory goes back (or forward) in t's history and waits for the
// document it lands on to have parsed (DOMContentLoaded), as an action's
// navigation is waited for (pages.after), not for every image and frame
// to load: what the answer reads of the page (the facts the gate judges,
// the snapshot) is read once it has parsed either way.
func goHistory(t *tab, back bool, timeout time.Duration) (pw.Response, error) {
	if back {
		return t.page.GoBack(pw.PageGoBackOptions{Timeout: ms(timeout), WaitUntil: pw.WaitUntilStateDomcontentloaded})
	}
	return t.page.GoForward(pw.PageGoForwardOptions{Timeout: ms(timeout), WaitUntil: pw.WaitUntilStateDomcontentloaded})
}
