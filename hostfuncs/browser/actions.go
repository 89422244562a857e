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

// The waiting family: waiting for the page (gateTab) and answering its
// dialog. Answering a dialog reads nothing of the page: a document that
// raised one while it loaded is judged once it is answered (gateLeave).
func waitFuncs(s *Service) []hostFunc {
	return []hostFunc{
		{hf(abi.HostBrowserWaitFor, s.actions.waitFor), gateTab},
		{hf(abi.HostBrowserDialog, s.actions.dialog), gateLeave},
	}
}

// actions are the host functions that change a page: navigate
// (navigate.go), act (act.go), fill a form and upload (forms.go), history
// (history.go), wait and dialogs (here), tabs and emulation.
type actions struct {
	*env
	sessions  *sessions
	pages     *pages
	concealer *concealer
	// launcher gives a device context (emulate) the session's proxy.
	launcher *launcher
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
		if err == nil && !dialog && req.Text != "" {
			if dialog, err = s.untilSeen(ctx, ss, t, req.Text, t0.Add(timeout)); err != nil {
				out.WaitedMS = time.Since(t0).Milliseconds()
				return out, err
			}
		}
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

// seenPoll is how often untilSeen asks again whether text shows.
const seenPoll = 150 * time.Millisecond

// untilSeen waits, until deadline, for text (on the page to Playwright,
// which counts a box at opacity 0 or under a cover as shown) to show to
// a person: until the tab's judged snapshot holds it (seentext.go). A
// page that shows "Payment complete" only to scripts does not end the
// agent's wait. Past the deadline it answers timeout, saying the text is
// there but hidden, or, when the last judged snapshot could not be taken,
// why not (the judge failing is no verdict that the text is hidden); a
// call ended meanwhile answers why.
func (s *actions) untilSeen(ctx context.Context, ss *session, t *tab, text string, deadline time.Time) (dialog bool, err error) {
	for {
		seen, serr := s.pages.seenTextOr(ss, t)
		if seen.holds(text) {
			return false, nil
		}
		if d := t.dialog.Load(); d != nil {
			return true, nil
		}
		left := time.Until(deadline)
		if left <= 0 && serr != nil {
			return false, serr
		}
		if left <= 0 {
			return false, abi.Errorf(abi.CodeTimeout, "waiting for text %q: it is on the page, but no person can see it there (hidden, covered or clipped): take a snapshot to see what the page shows", text)
		}
		select {
		case <-time.After(min(seenPoll, left)):
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
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
