package conceal

import (
	"strings"
	"sync"

	pw "github.com/mxschmitt/playwright-go"
)

// The protocol sessions closedHosts reads each process of a page on, kept
// for the page's life: attaching one per process on every capture cost the
// live view (a capture every half second) an attach a process a frame
// (2-300 ms each on a busy machine), and a page of ad frames has many.

// pageSessions are one page's sessions, by target (the page, or a frame
// of another process). mu is held from hiding to restoring: a capture's
// node ids live until its DOM.disable, which another capture's would end.
type pageSessions struct {
	mu  sync.Mutex
	cdp map[any]pw.CDPSession
}

var (
	sessionsMu sync.Mutex
	byPage     = map[pw.Page]*pageSessions{}
)

// sessionsOf is p's sessions, made at its first capture and let go when it
// closes.
func sessionsOf(p pw.Page) *pageSessions {
	sessionsMu.Lock()
	defer sessionsMu.Unlock()
	ps := byPage[p]
	if ps == nil {
		ps = &pageSessions{cdp: map[any]pw.CDPSession{}}
		byPage[p] = ps
		p.OnClose(func(pw.Page) {
			sessionsMu.Lock()
			delete(byPage, p)
			sessionsMu.Unlock()
			ps.mu.Lock()
			defer ps.mu.Unlock()
			for _, c := range ps.cdp {
				c.Detach()
			}
			clear(ps.cdp)
		})
	}
	return ps
}

// holdSessions is p's sessions, held (ps.mu) for one capture or check,
// with those of frames that are gone let go.
func holdSessions(p pw.Page) *pageSessions {
	ps := sessionsOf(p)
	ps.mu.Lock()
	ps.forget()
	return ps
}

// targetsOf are what p's sessions are attached to: the page (its own
// process, with its same-process frames), then each other frame (a frame
// of the page's process has no session of its own: session says so).
func targetsOf(p pw.Page) []any {
	targets := []any{p}
	for _, f := range p.Frames() {
		if f != p.MainFrame() {
			targets = append(targets, f)
		}
	}
	return targets
}

// session is target's session of p: the one kept, or, when fresh (the
// kept one failed) or none is kept, a new one. none is set, with no
// error, when target is a frame that has none of its own (it is of its
// page's process, read with it) or is gone. Held under ps.mu.
func (ps *pageSessions) session(p pw.Page, target any, fresh bool) (cdp pw.CDPSession, none bool, err error) {
	if c, ok := ps.cdp[target]; ok {
		if !fresh {
			return c, false, nil
		}
		delete(ps.cdp, target)
		c.Detach()
	}
	cdp, err = p.Context().NewCDPSession(target)
	if err != nil {
		if f, ok := target.(pw.Frame); ok && (f.IsDetached() || strings.Contains(err.Error(), "does not have a separate CDP session")) {
			return nil, true, nil
		}
		return nil, false, err
	}
	ps.cdp[target] = cdp
	return cdp, false, nil
}

// forget lets go of the sessions of frames that are gone.
func (ps *pageSessions) forget() {
	for target, c := range ps.cdp {
		if f, ok := target.(pw.Frame); ok && f.IsDetached() {
			delete(ps.cdp, target)
			c.Detach()
		}
	}
}
