package browser

import (
	"slices"
	"time"
)

// A session opened ahead of its first call.
//
// On a stdio serve the first call's session is known before it comes
// (its personality, and the one stdio session): serve's prewarm, once the
// shared browser is up, opens that session's context and first tab and
// authenticates it to its egress proxy (preopen), so the first call only
// navigates. On this machine those steps were 0.25-0.3 s of a quiet first
// call's wait and 1.5 s at load 14, most of it the first renderer.
//
// The spare is that session, built by the very code a call's open runs
// (build), for that key: its proxy (the key's own egress listener and
// credentials), its profile choice and its context's options are what
// the call would have made, so adopting it needs no comparison. It stays
// out of the open sessions (byKey) until the first create of its key
// publishes it (takeSpare): a call that does not open a session still
// finds none, no list shows it, and the idle sweep, a close of its key
// and shutdown close it without a notice (the agent never had it). A
// create of another key, or of a named profile, closes it first, so it
// never holds a context a call needs under browser.max_contexts.

// preopen opens k's session ahead of its first call and keeps it as the
// spare. It does nothing when k's session is open or opening (a call came
// first: it opens its own), a spare is kept, the service is shutting
// down, the cap is reached, or k's sessions run on a persistent profile.
// A failure is only logged: the first call opens its own session and
// reports its own error.
func (s *opener) preopen(k sessKey) {
	if slices.Contains(s.cfg.PersistentProfiles, k.personality) {
		return
	}
	s.reg.mu.Lock()
	if s.reg.closed || s.reg.byKey[k] != nil || s.reg.opening[k] != nil || s.reg.spare.ss != nil ||
		len(s.reg.byKey)+len(s.reg.opening) >= s.cfg.MaxContexts {
		s.reg.mu.Unlock()
		return
	}
	s.reg.openSeq++
	o := &opening{done: make(chan struct{}), seq: s.reg.openSeq}
	s.reg.opening[k] = o
	s.reg.mu.Unlock()
	t0 := time.Now()
	ss, warnings, err := s.build(s.life, k, "", true)
	s.reg.mu.Lock()
	closed := s.reg.closed
	if err == nil && !closed {
		ss.preWarnings = warnings
		s.reg.spare.ss = ss
	}
	delete(s.reg.opening, k)
	close(o.done)
	s.reg.mu.Unlock()
	if testPreopened != nil {
		defer testPreopened(k, err)
	}
	switch {
	case err != nil:
		s.log.Debug("the first session was not opened ahead: its first call opens it", "session", k.String(), "err", err)
		s.closer.notifyClosed(k)
	case closed: // Close ran meanwhile and did not see it
		s.closer.closeSession(ss)
		s.closer.notifyClosed(k)
	default:
		s.log.Debug("session opened ahead of its first call", "session", k.String(), "took", time.Since(t0).Round(time.Millisecond))
	}
}

// testPreopened, set by tests, is told when a preopen has ended.
var testPreopened func(sessKey, error)

// takeSpare takes the spare for a create of k (on the named profile when
// named is set): the spare when it is k's, on the default profile, and
// its browser lives; else nil, and a spare that is not that is closed
// (it would only hold a context).
func (s *opener) takeSpare(k sessKey, named string) *session {
	s.reg.mu.Lock()
	sp := s.reg.spare.take()
	s.reg.mu.Unlock()
	if sp == nil {
		return nil
	}
	if sp.key == k && named == "" && !sp.crashed.Load() && !sp.drv.exited() && sp.browser != nil && sp.browser.IsConnected() {
		return sp
	}
	s.closer.closeSession(sp)
	if sp.key != k {
		s.closer.notifyClosed(sp.key)
	}
	return nil
}

// spareSlot holds the spare, under sessions.mu.
type spareSlot struct{ ss *session }

// take takes the spare out, nil when there is none.
func (sl *spareSlot) take() *session { return sl.takeIf(func(*session) bool { return true }) }

// takeOf takes k's spare out.
func (sl *spareSlot) takeOf(k sessKey) *session {
	return sl.takeIf(func(sp *session) bool { return sp.key == k })
}

// takeIf takes the spare out when match says so.
func (sl *spareSlot) takeIf(match func(*session) bool) *session {
	sp := sl.ss
	if sp == nil || !match(sp) {
		return nil
	}
	sl.ss = nil
	return sp
}

// of reports whether the spare is k's.
func (sl *spareSlot) of(k sessKey) bool { return sl.ss != nil && sl.ss.key == k }
