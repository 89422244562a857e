package browser

import (
	"fmt"
	"sync"
	"time"
)

// closer closes sessions and lets go of what they held: on request
// (CloseSession, browser_close), after idle time (sweep), when their
// driver dies (dropDriver) and at shutdown (shut, closeAll); it tells
// Options.OnSessionClosed when a key's session is gone for good.
type closer struct {
	*env
	// reg is the registry the closed sessions leave.
	reg *sessions
	// concealer holds what an operator was typing in a session, and the
	// secrets a closing session's persistent profile must not keep.
	concealer *concealer
}

// closeByKey is Service.CloseSession (see there).
func (s *closer) closeByKey(personality, session string) error {
	k := key(personality, session)
	s.reg.mu.Lock()
	ss := s.reg.byKey[k]
	delete(s.reg.byKey, k)
	if ss == nil { // a session opened ahead that no call took: closed as well
		ss = s.reg.spare.takeOf(k)
	}
	s.reg.mu.Unlock()
	if ss == nil {
		return nil
	}
	err := s.closeSession(ss)
	s.notifyClosed(ss.key)
	return err
}

// closeSession closes ss's browser context, waiting a bounded time for a
// call in flight, and lets go of what it held (ended).
func (s *closer) closeSession(ss *session) error {
	ss.closing.Store(true)
	ss.endCalls() // a call in flight stops waiting on the browser
	// Wait for a call in flight, but not forever: a hung page must not
	// keep the host from shutting down.
	locked := make(chan struct{})
	go func() { ss.mu.Lock(); close(locked) }()
	select {
	case <-locked:
		defer ss.mu.Unlock()
	case <-time.After(s.callBudget() + time.Second):
	}
	var err error
	if ss.bctx != nil && !ss.drv.exited() {
		// A context whose renderer is stuck must not hold up the close.
		if e := bounded(closeWait, func() error { return ss.bctx.Close() }); e != nil && !isClosedErr(e) {
			err = fmt.Errorf("browser: closing session %s: %w", ss.key, e)
		}
	}
	s.ended(ss)
	s.log.Debug("session closed", "session", ss.key.String())
	return err
}

// ended lets go of what a session held once its browser context is
// closed (or gone): what an operator was typing in it becomes a secret,
// its persistent profile drops every file a secret of the session reached
// (scrubProfile) and is unlocked, and the typing is forgotten. The caller
// holds ss.mu, or has stopped waiting for a call that hung.
func (s *closer) ended(ss *session) {
	if b := ss.browser; ss.ownBrowser && b != nil {
		// A grid browser holds a node's slot until its WebDriver session
		// ends (gridLink.end), at the hub or, the hub gone, at the node.
		go func() {
			if !ss.drv.exited() {
				bounded(closeWait, func() error { return b.Close() })
			}
			if ss.grid != nil {
				ss.grid.end()
			}
		}()
	}
	s.concealer.settleTyped(ss.key)
	if ss.profile != nil {
		if ss.profileDir != "" {
			values := s.concealer.secretValues(ss.key.personality, ss.key.session)
			if removed, err := scrubProfile(ss.profileDir, values); err != nil {
				s.log.Warn("removing a session's secrets from its browser profile", "session", ss.key.String(), "err", err)
			} else if len(removed) > 0 {
				s.log.Info("removed the browser profile's files that held a secret of the session", "session", ss.key.String(), "files", removed)
			}
		}
		unlockProfile(ss.profile)
		ss.profile = nil
	}
	s.concealer.forgetTyped(ss.key)
}

// notifyClosed tells Options.OnSessionClosed that k's session is gone,
// unless a new session for k is open or opening (its proxy must live on):
// create reserves k before it reads k's proxy under proxyMu.
func (s *closer) notifyClosed(k sessKey) {
	if s.opts.OnSessionClosed == nil {
		return
	}
	s.reg.proxyMu.Lock()
	defer s.reg.proxyMu.Unlock()
	s.reg.mu.Lock()
	live := s.reg.byKey[k] != nil || s.reg.opening[k] != nil || s.reg.spare.of(k)
	s.reg.mu.Unlock()
	if !live {
		s.opts.OnSessionClosed(k.personality, k.session)
	}
}

// sweep closes idle sessions once a minute (or more often for short
// timeouts). A session a human drives is never reaped.
func (s *closer) sweep() {
	defer close(s.reg.done)
	every := s.cfg.IdleTimeout.D() / 4
	every = min(max(every, 50*time.Millisecond), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.reg.stop:
			return
		case <-t.C:
		}
		var idle []*session
		s.reg.mu.Lock()
		for k, ss := range s.reg.byKey {
			if !ss.driving.Load() && ss.idle() > s.cfg.IdleTimeout.D() && ss.mu.TryLock() {
				ss.mu.Unlock()
				delete(s.reg.byKey, k)
				s.reapedLocked(k, fmt.Sprintf("it was closed after %s without a call (browser.idle_timeout is %s; raise it to keep idle sessions open longer)", ss.idle().Round(time.Second), s.cfg.IdleTimeout.D()))
				idle = append(idle, ss)
			}
		}
		// A session opened ahead that no call took goes the same way,
		// without a notice: no one had it.
		if sp := s.reg.spare.takeIf(func(sp *session) bool { return sp.idle() > s.cfg.IdleTimeout.D() }); sp != nil {
			idle = append(idle, sp)
		}
		s.reg.mu.Unlock()
		for _, ss := range idle {
			s.log.Info("closing idle browser session", "session", ss.key.String(), "idle", ss.idle().Round(time.Second))
			if err := s.closeSession(ss); err != nil {
				s.log.Warn("closing idle session", "err", err)
			}
			s.notifyClosed(ss.key)
		}
	}
}

// maxReaped bounds the reasons kept for sessions the host closed.
const maxReaped = 1024

// reapedLocked remembers why k's session was closed by the host (s.reg.mu
// held).
func (s *closer) reapedLocked(k sessKey, why string) {
	if len(s.reg.reaped) >= maxReaped {
		for old := range s.reg.reaped {
			delete(s.reg.reaped, old)
			break
		}
	}
	s.reg.reaped[k] = why
}

// shut marks the sessions closed (no session opens after) and takes every
// open one; ok is false when they were already shut.
func (s *closer) shut() (all []*session, ok bool) {
	s.reg.mu.Lock()
	defer s.reg.mu.Unlock()
	if s.reg.closed {
		return nil, false
	}
	s.reg.closed = true
	all = make([]*session, 0, len(s.reg.byKey))
	for _, ss := range s.reg.byKey {
		all = append(all, ss)
	}
	if sp := s.reg.spare.take(); sp != nil {
		all = append(all, sp)
	}
	s.reg.byKey = map[sessKey]*session{}
	return all, true
}

// stopSweep ends the idle sweep and waits for it.
func (s *closer) stopSweep() {
	close(s.reg.stop)
	<-s.reg.done
}

// closeAll closes the sessions at once, returning their errors.
func (s *closer) closeAll(all []*session) []error {
	var errs []error
	var wg sync.WaitGroup
	var emu sync.Mutex
	for _, ss := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.closeSession(ss); err != nil {
				emu.Lock()
				errs = append(errs, err)
				emu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errs
}

// dropDriver forgets the sessions living on the dead driver d, each
// remembered as crashed, and returns them.
func (s *closer) dropDriver(d *sharedDriver) []*session {
	s.reg.mu.Lock()
	defer s.reg.mu.Unlock()
	var hit []*session
	for k, ss := range s.reg.byKey {
		if ss.drv == d {
			hit = append(hit, ss)
			delete(s.reg.byKey, k)
			s.reg.crashed[k] = driverExitedWhy
		}
	}
	return hit
}
