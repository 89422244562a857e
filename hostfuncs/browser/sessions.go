package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// sessions holds the open sessions: finding the caller's (acquire, begin),
// opening one (create, open, evictFor), closing them (idle sweep, LRU
// eviction, crashes, CloseSession) and the profiles they run on.
type sessions struct {
	*env
	// launcher starts the driver and the browser a session opens on.
	launcher *launcher
	// concealer holds what an operator was typing in a session, and the
	// secrets a closing session's persistent profile must not keep.
	concealer *concealer

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
			if ss, err = s.create(ctx, k, profileFrom(ctx)); err != nil {
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
		s.ended(ss)
		s.notifyClosed(ss.key)
	}()
}

// create opens a new session for k, on the named profile when named is
// set. Sessions of different keys open at once: only the start of the
// driver and the shared browser is serialized (startMu); a second create
// for a key being opened waits for that open and takes its session.
func (s *sessions) create(ctx context.Context, k sessKey, named string) (*session, error) {
	for {
		s.mu.Lock()
		if ss := s.byKey[k]; ss != nil {
			s.mu.Unlock()
			return ss, nil
		}
		if s.closed {
			s.mu.Unlock()
			return nil, abi.Errorf(abi.CodeNotAvailable, "the browser service is shutting down")
		}
		o := s.opening[k]
		if o == nil {
			s.openSeq++
			s.opening[k] = &opening{done: make(chan struct{}), seq: s.openSeq}
			s.mu.Unlock()
			break
		}
		s.mu.Unlock()
		select {
		case <-o.done: // opened (taken above) or failed (this call tries)
		case <-s.life.Done():
		}
	}
	defer func() {
		s.mu.Lock()
		close(s.opening[k].done)
		delete(s.opening, k)
		s.mu.Unlock()
	}()
	if testOpening != nil {
		testOpening(k)
	}
	s.evictFor(k)
	return s.open(ctx, k, named)
}

// opening is a session being opened; done is closed when its open ends.
type opening struct {
	done chan struct{}
	seq  uint64
}

// testOpening, set by tests, runs as a session's open begins;
// testEvictWaits as one waits for an earlier open to make room.
var testOpening, testEvictWaits func(sessKey)

// open opens k's session (create reserved k) and publishes it.
func (s *sessions) open(ctx context.Context, k sessKey, named string) (*session, error) {
	ss := &session{key: k, created: time.Now(), dialogCh: make(chan struct{}, 1), tabOpened: make(chan struct{}, 1), env: s.env, gone: make(chan struct{})}
	ss.console.max, ss.network.max = 500, 300
	ss.touch()
	s.proxyMu.Lock()
	proxy, err := s.launcher.proxyServer(k)
	s.proxyMu.Unlock()
	if err != nil {
		return nil, err
	}
	ss.proxy, ss.egressMark = proxy, answerMark(proxy)

	prof, warnings, err := s.profileFor(k, named)
	if err != nil {
		return nil, err
	}
	if prof.persistent {
		w, err := s.launchProfile(ss, prof, proxy)
		if err != nil {
			return nil, err
		}
		warnings = append(warnings, w...)
	}
	if ss.bctx == nil {
		note, err := s.newContext(ctx, ss, proxy)
		if err != nil {
			return nil, err
		}
		if note != "" {
			warnings = append(warnings, note)
		}
	}
	if err := s.setUp(ss, proxy); err != nil {
		return nil, err
	}
	return s.publish(ss, warnings)
}

// profileChoice is the profile a session opens on: persistent ones live in
// lockDir/lockName (locked there while open) and are called label in
// messages; named is the profile the call asked for, or "".
type profileChoice struct {
	persistent               bool
	lockDir, lockName, label string
	named                    string
}

// profileFor decides the profile k's session opens on: the personality's
// own (when persistent profiles include it), or the named one the call
// asked for (in the personality's profile root, never another's). A
// remote browser has no profiles: the personality's is dropped with a
// warning, a named one is refused.
func (s *sessions) profileFor(k sessKey, named string) (profileChoice, []string, error) {
	var warnings []string
	persistent := slices.Contains(s.cfg.PersistentProfiles, k.personality) && safeName.MatchString(k.personality)
	lockDir, lockName, label := s.cfg.ProfilesDir, k.personality, k.personality
	if named != "" {
		root, err := s.profileRoot(k.personality, named)
		if err != nil {
			return profileChoice{}, nil, err
		}
		if _, err := os.Stat(filepath.Join(root, named)); err != nil {
			return profileChoice{}, nil, abi.Errorf(abi.CodeNotFound, "there is no browser profile %q: create it with browser_profile (action create), or list them", named)
		}
		if s.cfg.RemoteWS != "" || s.cfg.RemoteCDP != "" {
			return profileChoice{}, nil, abi.Errorf(abi.CodeNotAvailable, "browser profiles need a local browser: this host drives a remote one")
		}
		persistent, lockDir, lockName, label = true, root, named, named
	}
	if persistent && (s.cfg.RemoteWS != "" || s.cfg.RemoteCDP != "") {
		persistent = false
		warnings = append(warnings, fmt.Sprintf("Browser profile %q is not available with a remote browser: this session is ephemeral and not logged in.", k.personality))
	}
	return profileChoice{persistent: persistent, lockDir: lockDir, lockName: lockName, label: label, named: named}, warnings, nil
}

// launchProfile opens ss on its persistent profile, in a browser of its
// own. When the personality's own profile is in use by another session,
// ss stays without a context (it opens ephemeral) and a warning says so;
// a named profile in use is refused.
func (s *sessions) launchProfile(ss *session, p profileChoice, proxy string) ([]string, error) {
	var warnings []string
	dir := filepath.Join(p.lockDir, p.lockName)
	lock, err := lockProfile(p.lockDir, p.lockName)
	if err != nil && p.named != "" {
		return nil, abi.Errorf(abi.CodeRefused, "browser profile %q is in use by another session (%v): close that session first, or use another profile", p.named, err)
	}
	if err != nil {
		return append(warnings, fmt.Sprintf("Browser profile %q is in use by another session (%v): this session is ephemeral and not logged in.", ss.key.personality, err)), nil
	}
	ss.drv, err = s.launcher.startedDriver() // the one this session's browser runs on
	if err != nil {
		unlockProfile(lock)
		return nil, err
	}
	exe, err := findChromium(s.cfg)
	if err != nil {
		unlockProfile(lock)
		return nil, err
	}
	headless, note := s.launcher.headless()
	if note != "" {
		warnings = append(warnings, note)
	}
	o := pw.BrowserTypeLaunchPersistentContextOptions{
		ExecutablePath: pw.String(exe), Headless: pw.Bool(headless),
		Args: s.launcher.launchArgs(),
	}
	if proxy != "" {
		o.Proxy = s.launcher.pwProxy(proxy)
	}
	bctx, err := ss.drv.pw.Chromium.LaunchPersistentContext(dir, o)
	if err != nil {
		unlockProfile(lock)
		return nil, abi.Errorf(abi.CodeExecutionFailed, "opening browser profile %q: %v", p.label, firstLine(err.Error()))
	}
	ss.bctx, ss.persistent, ss.profile, ss.profileDir, ss.named = bctx, true, lock, dir, p.named
	bctx.OnClose(func(pw.BrowserContext) { ss.markCrashed("the browser closed unexpectedly") })
	return warnings, nil
}

// newContext opens ss as a context of the shared browser (started if
// need be); note is the browser start's warning, if any.
func (s *sessions) newContext(ctx context.Context, ss *session, proxy string) (string, error) {
	if s.cfg.Grid != "" {
		t0 := time.Now()
		err := s.gridContext(ctx, ss, proxy)
		s.reportGrid(ss, time.Since(t0), err)
		return "", err
	}
	// A browser that died before the driver said so is found out by the
	// context it refuses: the next start sees it gone and launches a new
	// one (once: a browser that dies at once again is reported).
	for try := 0; ; try++ {
		b, drv, note, err := s.launcher.startedBrowser()
		ss.drv = drv
		if err != nil {
			return "", err
		}
		o := pw.BrowserNewContextOptions{Proxy: s.launcher.contextProxy(proxy)}
		bctx, err := b.NewContext(o)
		if err == nil {
			ss.bctx, ss.browser = bctx, b
			return note, nil
		}
		if b.IsConnected() {
			return "", abi.Errorf(abi.CodeExecutionFailed, "opening a browser context: %v", firstLine(err.Error()))
		}
		if try > 0 {
			return "", abi.Errorf(abi.CodeBrowserCrashed, "the browser crashed while opening a session: retry, a new browser will start")
		}
	}
}

// setUp readies ss's new context: its proxy primed, the timeouts set, its
// tabs followed, and one tab open. On failure the context is closed and
// the profile unlocked.
func (s *sessions) setUp(ss *session, proxy string) error {
	if err := s.launcher.primeProxy(ss.bctx, proxy); err != nil {
		ss.bctx.Close()
		if ss.profile != nil {
			unlockProfile(ss.profile)
		}
		return err
	}
	ss.bctx.SetDefaultTimeout(float64(s.cfg.actionWait().Milliseconds()))
	ss.bctx.SetDefaultNavigationTimeout(float64(s.cfg.navigationWait().Milliseconds()))
	watchListeners(ss.bctx)
	ss.bctx.OnPage(ss.onPage)
	for _, p := range ss.bctx.Pages() {
		ss.attach(p)
	}
	if len(ss.bctx.Pages()) == 0 {
		p, err := ss.bctx.NewPage()
		if err != nil {
			ss.bctx.Close()
			if ss.profile != nil {
				unlockProfile(ss.profile)
			}
			return abi.Errorf(abi.CodeExecutionFailed, "opening a tab: %v", firstLine(err.Error()))
		}
		ss.attach(p)
	}
	return nil
}

// publish adds the opened ss to the open sessions, its warnings after the
// notices pending and what became of its key's previous session; when
// Close ran meanwhile (and did not see it), ss is closed instead.
func (s *sessions) publish(ss *session, warnings []string) (*session, error) {
	k := ss.key
	ss.evMu.Lock()
	ss.newTabs = nil
	s.mu.Lock()
	if why, ok := s.crashed[k]; ok {
		warnings = append(warnings, fmt.Sprintf("This is a fresh browser session: the previous one crashed (%s), so its tabs, cookies and form state are gone.", why))
		delete(s.crashed, k)
	}
	if why, ok := s.reaped[k]; ok {
		warnings = append(warnings, fmt.Sprintf("This is a fresh browser session: the previous one is gone (%s), so its tabs, cookies and form state are gone.", why))
		delete(s.reaped, k)
	}
	if s.closed { // Close ran meanwhile and did not see this session
		s.mu.Unlock()
		ss.evMu.Unlock()
		s.closeSession(ss)
		return nil, abi.Errorf(abi.CodeNotAvailable, "the browser service is shutting down")
	}
	warnings = append(s.notices, warnings...)
	s.notices = nil
	s.byKey[k] = ss
	s.mu.Unlock()
	ss.warnings = append(ss.warnings, warnings...)
	ss.evMu.Unlock()
	s.log.Debug("session opened", "session", k.String(), "persistent", ss.persistent)
	return ss, nil
}

// evictFor closes the least recently used sessions until the open ones
// and those being opened (k's among them) fit the cap. With no open
// session to close, it waits for an open that began before k's (which
// then is one), so opens at once cannot together go over the cap; the
// first never waits.
func (s *sessions) evictFor(k sessKey) {
	for {
		s.mu.Lock()
		if len(s.byKey)+len(s.opening) <= s.cfg.MaxContexts {
			s.mu.Unlock()
			return
		}
		var lru *session
		for _, ss := range s.byKey {
			if ss.driving.Load() {
				continue
			}
			if lru == nil || ss.lastUsed.Load() < lru.lastUsed.Load() {
				lru = ss
			}
		}
		if lru == nil {
			var earlier chan struct{}
			for ok, o := range s.opening {
				if ok != k && o.seq < s.opening[k].seq {
					earlier = o.done
					break
				}
			}
			s.mu.Unlock()
			if earlier == nil {
				return // every open session is driven by a human: go over the cap
			}
			if testEvictWaits != nil {
				testEvictWaits(k)
			}
			select {
			case <-earlier:
			case <-s.life.Done():
				return
			}
			continue
		}
		delete(s.byKey, lru.key)
		s.reapedLocked(lru.key, fmt.Sprintf("it was closed as the least recently used session to make room for another (browser.max_contexts is %d; raise it to keep more sessions open)", s.cfg.MaxContexts))
		s.mu.Unlock()
		s.log.Info("closing least recently used browser session", "session", lru.key.String(), "max_contexts", s.cfg.MaxContexts)
		if err := s.closeSession(lru); err != nil {
			s.log.Warn("evicting session", "err", err)
		}
		s.notifyClosed(lru.key)
	}
}

// closeByKey is Service.CloseSession (see there).
func (s *sessions) closeByKey(personality, session string) error {
	s.mu.Lock()
	ss := s.byKey[key(personality, session)]
	delete(s.byKey, key(personality, session))
	s.mu.Unlock()
	if ss == nil {
		return nil
	}
	err := s.closeSession(ss)
	s.notifyClosed(ss.key)
	return err
}

func (s *sessions) closeSession(ss *session) error {
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
func (s *sessions) ended(ss *session) {
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
func (s *sessions) notifyClosed(k sessKey) {
	if s.opts.OnSessionClosed == nil {
		return
	}
	s.proxyMu.Lock()
	defer s.proxyMu.Unlock()
	s.mu.Lock()
	live := s.byKey[k] != nil || s.opening[k] != nil
	s.mu.Unlock()
	if !live {
		s.opts.OnSessionClosed(k.personality, k.session)
	}
}

// sweep closes idle sessions once a minute (or more often for short
// timeouts). A session a human drives is never reaped.
func (s *sessions) sweep() {
	defer close(s.done)
	every := s.cfg.IdleTimeout.D() / 4
	every = min(max(every, 50*time.Millisecond), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		var idle []*session
		s.mu.Lock()
		for k, ss := range s.byKey {
			if !ss.driving.Load() && ss.idle() > s.cfg.IdleTimeout.D() && ss.mu.TryLock() {
				ss.mu.Unlock()
				delete(s.byKey, k)
				s.reapedLocked(k, fmt.Sprintf("it was closed after %s without a call (browser.idle_timeout is %s; raise it to keep idle sessions open longer)", ss.idle().Round(time.Second), s.cfg.IdleTimeout.D()))
				idle = append(idle, ss)
			}
		}
		s.mu.Unlock()
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

// reapedLocked remembers why k's session was closed by the host (s.mu
// held).
func (s *sessions) reapedLocked(k sessKey, why string) {
	if len(s.reaped) >= maxReaped {
		for old := range s.reaped {
			delete(s.reaped, old)
			break
		}
	}
	s.reaped[k] = why
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

// setDriving is Service.SetDriving (see there).
func (s *sessions) setDriving(personality, session string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss := s.byKey[key(personality, session)]; ss != nil {
		ss.driving.Store(on)
		ss.touch()
	}
}

// humanDriving is Service.HumanDriving (see there).
func (s *sessions) humanDriving(personality, session string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.byKey[key(personality, session)]
	return ss != nil && ss.driving.Load()
}

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

// shut marks the sessions closed (no session opens after) and takes every
// open one; ok is false when they were already shut.
func (s *sessions) shut() (all []*session, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false
	}
	s.closed = true
	all = make([]*session, 0, len(s.byKey))
	for _, ss := range s.byKey {
		all = append(all, ss)
	}
	s.byKey = map[sessKey]*session{}
	return all, true
}

// stopSweep ends the idle sweep and waits for it.
func (s *sessions) stopSweep() {
	close(s.stop)
	<-s.done
}

// closeAll closes the sessions at once, returning their errors.
func (s *sessions) closeAll(all []*session) []error {
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
