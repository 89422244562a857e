package browser

import (
	pw "github.com/mxschmitt/playwright-go"
)

// What the operator desk and console use: the session's current tab, seen
// from outside any tool call.

// currentPage is the current tab of an open session, or nil.
func (s *Service) currentPage(personality, session string) pw.Page {
	s.mu.Lock()
	ss := s.sessions[key(personality, session)]
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
func (s *Service) PageURL(personality, session string) string {
	if p := s.currentPage(personality, session); p != nil {
		return p.URL()
	}
	return ""
}

// Raise brings the session's current tab to the front, so a headed window
// shows the page the human is asked to handle. Best effort, bounded.
func (s *Service) Raise(personality, session string) {
	if p := s.currentPage(personality, session); p != nil {
		if err := bounded(closeWait, p.BringToFront); err != nil {
			s.log.Debug("raising the tab for a takeover", "err", err)
		}
	}
}
