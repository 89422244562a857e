package browser

import (
	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// What the operator desk and console use: the session's current tab, seen
// from outside any tool call.

// currentPage is the current tab of an open session, or nil.
func (s *sessions) currentPage(personality, session string) pw.Page {
	s.mu.Lock()
	ss := s.byKey[key(personality, session)]
	s.mu.Unlock()
	if ss == nil {
		return nil
	}
	ss.evMu.Lock()
	defer ss.evMu.Unlock()
	if ss.cur < len(ss.tabs) {
		return ss.tabs[ss.cur].page
	}
	return nil
}

// PageURL is the URL of the session's current tab, "" when none.
func (s *operator) pageURL(personality, session string) string {
	if p := s.sessions.currentPage(personality, session); p != nil {
		return p.URL()
	}
	return ""
}

// Raise brings the session's current tab to the front, so a headed window
// shows the page the human is asked to handle. Best effort, bounded.
func (s *operator) raise(personality, session string) {
	if p := s.sessions.currentPage(personality, session); p != nil {
		if err := bounded(closeWait, p.BringToFront); err != nil {
			s.log.Debug("raising the tab for a takeover", "err", err)
		}
	}
}

// stillJudged refuses to act on a tab whose page left the origin the host
// approved the call for (Caller.OriginJudged): the page moved while the
// call waited for an operator, and the approval was for the other page.
// The acting host functions call it right before they act.
func stillJudged(c *hostfuncs.Caller, t *tab) error {
	if !c.OriginJudged {
		return nil
	}
	want := c.Origin
	if want == "" {
		want = "null"
	}
	now := originOf(t.page.URL())
	if now == want {
		return nil
	}
	return abi.Errorf(abi.CodeRefused, "the page moved from %s to %s after this call was judged for approval; nothing was done on the new page. Take a new snapshot and call again: it will be judged for the page it is on now", want, now)
}
