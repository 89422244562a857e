package browser

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// sessions is the registry of open sessions and the per-call lookup:
// finding the caller's session and tab (acquire, begin, pageTab), crashed
// sessions reported and dropped, and what the other components ask of the
// open sessions. Opening one is the opener's (sessionopen.go), closing
// them the closer's (sessionclose.go); both work under this registry's
// lock.
type sessions struct {
	*env
	// launcher is checked for a dead driver before each call.
	launcher *launcher
	opener   *opener
	closer   *closer

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
	// spare is a session opened ahead of its first call (preopen), not
	// yet published: no call, list or sweep of open sessions sees it until
	// the first create of its key takes it (takeSpare).
	spare   spareSlot
	crashed map[sessKey]string
	// lostNode holds keys whose grid node was lost under a call: the next
	// call is answered browser_crashed too (gridlost.go).
	lostNode map[sessKey]string
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

// acquire returns the caller's session, locked, creating it when create is
// set. A crashed session is discarded and reported as browser_crashed; the
// next call gets a fresh one and is told so.
func (s *sessions) acquire(ctx context.Context, c *hostfuncs.Caller, create bool) (*session, error) {
	k := key(c.Personality(), c.Session())
	s.launcher.checkDriver()
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, abi.Errorf(abi.CodeNotAvailable, "the browser service is shutting down")
		}
		if err := s.errLostNode(k); err != nil {
			s.mu.Unlock()
			return nil, err
		}
		ss := s.byKey[k]
		s.mu.Unlock()
		if ss == nil {
			if !create {
				return nil, s.errNoSession(k)
			}
			var err error
			if ss, err = s.opener.create(ctx, k, profileFrom(ctx)); err != nil {
				return nil, err
			}
		}
		if err := s.lockSession(ctx, ss); errors.Is(err, errSessionGone) {
			continue
		} else if err != nil {
			return nil, err
		}
		if ss.closing.Load() {
			ss.mu.Unlock()
			continue
		}
		if ss.crashed.Load() || ss.drv.exited() || (ss.browser != nil && !ss.browser.IsConnected()) {
			return nil, s.discardCrashed(ss)
		}
		ss.ctx = ctx
		ss.touch()
		return ss, nil
	}
}

// lockSession takes ss.mu, waiting only while ctx and the service live: a
// call queued behind a stuck one gives up at its own deadline.
func (s *sessions) lockSession(ctx context.Context, ss *session) error {
	if ss.mu.TryLock() {
		return nil
	}
	got, abandon := make(chan struct{}), make(chan struct{})
	go func() {
		ss.mu.Lock()
		select {
		case got <- struct{}{}:
		case <-abandon:
			ss.mu.Unlock()
		}
	}()
	select {
	case <-got:
		return nil
	case <-ctx.Done():
		close(abandon)
		return abi.Errorf(abi.CodeTimeout, "another call on this browser session was still running when this call's deadline passed or it was cancelled: retry, or call browser_close to reset the session")
	case <-s.life.Done():
		close(abandon)
		return abi.Errorf(abi.CodeNotAvailable, "the browser service is shutting down")
	case <-ss.gone:
		close(abandon)
		return errSessionGone
	}
}

// errSessionGone: the session closed while a call waited for it; acquire
// looks the session up again.
var errSessionGone = errors.New("the session was closed")

// begin acquires the caller's session, locked, and its current tab. The
// caller must unlock ss.mu. Playwright calls made for the call stop waiting
// when ctx ends. A tab left stuck by an earlier call is replaced first.
func (s *sessions) begin(ctx context.Context, c *hostfuncs.Caller, create bool) (*session, *tab, error) {
	ss, err := s.acquire(ctx, c, create)
	if err != nil {
		return nil, nil, err
	}
	t := ss.current()
	if t != nil && ss.suspect.Load() {
		if t, err = s.unstick(ss, t); err != nil {
			// The session was reset (and unlocked): a navigate starts afresh.
			if !create {
				return nil, nil, err
			}
			if ss, err = s.acquire(ctx, c, true); err != nil {
				return nil, nil, err
			}
			t = ss.current()
		}
	}
	if t != nil {
		t.probed, t.plainAhead = nil, nil // probes are good for one call
	}
	if t == nil && !create {
		if err := s.lostWithNoTab(ctx, ss); err != nil {
			ss.mu.Unlock()
			return nil, nil, err
		}
	}
	if t == nil {
		if !create {
			ss.mu.Unlock()
			return nil, nil, abi.Errorf(abi.CodeNoSession, "every tab of this session is closed: call browser_navigate (or browser_tabs with action open) first")
		}
		p, _, err := await(ss, 0, false, ss.bctx.NewPage)
		if err != nil {
			err = s.mapErr(ss, err, "opening a tab")
			ss.mu.Unlock()
			return nil, nil, err
		}
		t = ss.attach(p)
		ss.evMu.Lock()
		ss.newTabs = nil
		ss.cur = ss.indexLocked(t)
		ss.evMu.Unlock()
	}
	return ss, t, nil
}

// pageTab is begin for calls that touch the page: a session must exist and
// no dialog may be open.
func (s *sessions) pageTab(ctx context.Context, c *hostfuncs.Caller) (*session, *tab, error) {
	ss, t, err := s.begin(ctx, c, false)
	if err != nil {
		return nil, nil, err
	}
	if d := openDialog(ss, t); d != nil {
		ss.mu.Unlock()
		return nil, nil, errDialogOpen(d)
	}
	return ss, t, nil
}

// beginWith is begin as a findTab: the session is created when create is
// set, and the call runs with a dialog open.
func (s *sessions) beginWith(create bool) findTab {
	return func(ctx context.Context, c *hostfuncs.Caller) (*session, *tab, error) {
		return s.begin(ctx, c, create)
	}
}

// errNoSession is no_session, saying why when the session crashed or the
// host closed it.
func (s *sessions) errNoSession(k sessKey) error {
	s.mu.Lock()
	why, crashed := s.crashed[k]
	reaped, wasReaped := s.reaped[k]
	s.mu.Unlock()
	if crashed {
		return abi.Errorf(abi.CodeNoSession, "no browser session: the last one was reset after the browser crashed (%s): call browser_navigate to start a fresh one", why)
	}
	if wasReaped {
		return abi.Errorf(abi.CodeNoSession, "no browser session is open: %s. Its tabs, cookies and form state are gone: call browser_navigate to start a fresh one", reaped)
	}
	return abi.Errorf(abi.CodeNoSession, "no browser session is open: call browser_navigate first")
}

// localLostWithNoTab is lostWithNoTab for a local browser: one that
// exited closes every tab before its disconnect is told (under load, the
// tabs' close events come first), so a round trip to the browser (its
// cookies: the browser process answers) tells a crash from tabs the agent
// closed. Only this rare path pays it.
func (s *sessions) localLostWithNoTab(ss *session) error {
	if ss.closing.Load() || ss.bctx == nil {
		return nil
	}
	if !ss.crashed.Load() {
		_, _, err := await(ss, 5*time.Second, false, func() ([]pw.Cookie, error) { return ss.bctx.Cookies() })
		if err == nil {
			return nil
		}
		ss.markCrashed("the browser process exited")
	}
	return s.crashedInFlight(ss, "its tabs closed with the browser")
}

// discardCrashed drops a crashed session (locked by the caller, unlocked
// here) and returns the browser_crashed error.
func (s *sessions) discardCrashed(ss *session) error {
	why := ss.crashReason()
	s.dropCrashed(ss)
	ss.mu.Unlock()
	s.log.Warn("browser session crashed", "session", ss.key.String(), "why", why)
	return abi.Errorf(abi.CodeBrowserCrashed, "the browser crashed (%s); the session was reset and its tabs are gone: call browser_navigate to start a fresh session", why)
}

// dropCrashed removes a crashed session from the table (the caller holds
// its lock) so the next call starts a fresh one and is told why.
func (s *sessions) dropCrashed(ss *session) {
	why := ss.crashReason()
	ss.closing.Store(true)
	s.mu.Lock()
	if s.byKey[ss.key] == ss {
		delete(s.byKey, ss.key)
	}
	s.crashed[ss.key] = why
	s.mu.Unlock()
	go func() {
		if ss.bctx != nil {
			ss.bctx.Close()
		}
		s.closer.ended(ss)
		s.closer.notifyClosed(ss.key)
	}()
}

// all are the open sessions, in no order.
func (s *sessions) all() []*session {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := make([]*session, 0, len(s.byKey))
	for _, ss := range s.byKey {
		all = append(all, ss)
	}
	return all
}

// list is Service.Sessions (see there).
func (s *sessions) list() []abi.BrowserSessionInfo {
	all := s.all()
	sort.Slice(all, func(i, j int) bool { return all[i].lastUsed.Load() > all[j].lastUsed.Load() })
	out := make([]abi.BrowserSessionInfo, 0, len(all))
	for _, ss := range all {
		out = append(out, ss.info())
	}
	return out
}

func (ss *session) info() abi.BrowserSessionInfo {
	i := abi.BrowserSessionInfo{
		Personality: ss.key.personality, Session: ss.key.session,
		IdleMS: ss.idle().Milliseconds(), Persistent: ss.persistent, Driving: ss.driving.Load(),
	}
	ss.evMu.Lock()
	i.Tabs = len(ss.tabs)
	var cur pw.Page
	if ss.cur < len(ss.tabs) {
		cur = ss.tabs[ss.cur].page
	}
	ss.evMu.Unlock()
	if cur != nil {
		i.URL = cur.URL()
	}
	return i
}

func key(personality, session string) sessKey {
	if session == "" {
		session = "default"
	}
	return sessKey{personality: personality, session: session}
}

// namedInUse maps the named profiles the personality's open sessions run
// on to the session using each.
func (s *sessions) namedInUse(personality string) map[string]string {
	inUse := map[string]string{}
	s.mu.Lock()
	for k, ss := range s.byKey {
		if k.personality == personality && ss.named != "" {
			inUse[ss.named] = k.session
		}
	}
	s.mu.Unlock()
	return inUse
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
