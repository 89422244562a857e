package browser

import (
	"context"
	"sync"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/hostfuncs"
)

// sessions holds the open sessions: finding the caller's (acquire, begin),
// opening one (create, open, evictFor), closing them (idle sweep, LRU
// eviction, crashes, CloseSession) and the profiles they run on.
type sessions struct {
	*env
	// launcher starts the driver and the browser a session opens on.
	launcher *launcher

	// proxyMu orders reading a session's proxy against telling
	// OnSessionClosed a key's session is gone (notifyClosed).
	proxyMu sync.Mutex
	mu      sync.Mutex // the fields below
	// byKey are the open sessions; crashed remembers keys whose session
	// crashed, so the next one is told it is fresh.
	byKey map[sessKey]*session
	// opening holds the keys whose session is being opened: one open per
	// key, keys open alongside. openSeq numbers them in the order they began.
	opening map[sessKey]*opening
	openSeq uint64
	crashed map[sessKey]string
	// reaped remembers why the host closed a key's session on its own
	// (idle, evicted), so its next call is told instead of finding none.
	reaped map[sessKey]string
	// notices go to the next result of any session (the headless fallback).
	notices []string
	closed  bool

	// stop ends the idle sweep; done is closed when it has ended.
	stop chan struct{}
	done chan struct{}
}

// The launcher reads and changes the sessions through these, under the
// sessions' lock; it may hold its own (launcher.mu, then sessions.mu).

// isClosed reports whether the service is shutting down.
func (s *sessions) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// notice queues a note for the next result of any session.
func (s *sessions) notice(note string) {
	s.mu.Lock()
	s.notices = append(s.notices, note)
	s.mu.Unlock()
}

// onBrowser lists the open sessions whose context lives in b.
func (s *sessions) onBrowser(b pw.Browser) []*session {
	s.mu.Lock()
	defer s.mu.Unlock()
	var hit []*session
	for _, ss := range s.byKey {
		if ss.browser == b {
			hit = append(hit, ss)
		}
	}
	return hit
}

// dropDriver forgets the sessions living on the dead driver d, each
// remembered as crashed, and returns them.
func (s *sessions) dropDriver(d *sharedDriver) []*session {
	s.mu.Lock()
	defer s.mu.Unlock()
	var hit []*session
	for k, ss := range s.byKey {
		if ss.drv == d {
			hit = append(hit, ss)
			delete(s.byKey, k)
			s.crashed[k] = driverExitedWhy
		}
	}
	return hit
}

// beginWith is begin as a findTab: the session is created when create is
// set, and the call runs with a dialog open.
func (s *sessions) beginWith(create bool) findTab {
	return func(ctx context.Context, c *hostfuncs.Caller) (*session, *tab, error) {
		return s.begin(ctx, c, create)
	}
}
