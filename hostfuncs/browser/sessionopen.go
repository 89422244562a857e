package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/driver"
	"github.com/wasmwright/wasmwright/internal/spans"
)

// opener opens sessions: one open per key at a time (opening), room made
// under browser.max_contexts (evictFor), the profile and the browser
// context a session runs on, and publishing it in the registry.
type opener struct {
	*env
	// reg is the registry the opened session joins; its lock guards the
	// reservations (reg.opening) too.
	reg *sessions
	// launcher starts the driver and the browser a session opens on.
	launcher *launcher
	// closer closes what eviction takes, and a session opened while the
	// service shut.
	closer *closer
}

// create opens a new session for k, on the named profile when named is
// set. Sessions of different keys open at once: only the start of the
// driver and the shared browser is serialized (startMu); a second create
// for a key being opened waits for that open and takes its session.
func (s *opener) create(ctx context.Context, k sessKey, named string) (*session, error) {
	s.launcher.asked.Store(true) // a call asks: the warm-up yields (even to a session opened ahead)
	for {
		s.reg.mu.Lock()
		if ss := s.reg.byKey[k]; ss != nil {
			s.reg.mu.Unlock()
			return ss, nil
		}
		if s.reg.closed {
			s.reg.mu.Unlock()
			return nil, abi.Errorf(abi.CodeNotAvailable, "the browser service is shutting down")
		}
		o := s.reg.opening[k]
		if o == nil {
			s.reg.openSeq++
			s.reg.opening[k] = &opening{done: make(chan struct{}), seq: s.reg.openSeq}
			s.reg.mu.Unlock()
			break
		}
		s.reg.mu.Unlock()
		select {
		case <-o.done: // opened (taken above) or failed (this call tries)
		case <-s.life.Done():
		}
	}
	defer func() {
		s.reg.mu.Lock()
		close(s.reg.opening[k].done)
		delete(s.reg.opening, k)
		s.reg.mu.Unlock()
	}()
	if testOpening != nil {
		testOpening(k)
	}
	defer spans.Start("b.open")()
	spare := s.takeSpare(k, named)
	s.evictFor(k)
	if spare != nil {
		spare.created = time.Now()
		spare.touch()
		return s.publish(spare, spare.preWarnings)
	}
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
func (s *opener) open(ctx context.Context, k sessKey, named string) (*session, error) {
	ss, warnings, err := s.build(ctx, k, named, false)
	if err != nil {
		return nil, err
	}
	return s.publish(ss, warnings)
}

// build opens k's session up to its publishing: its proxy, profile,
// browser context and first tab. ahead is set when no call waits on it
// (preopen): its use of the shared browser is then no call's asking for
// it (the warm-up does not yield to it).
func (s *opener) build(ctx context.Context, k sessKey, named string, ahead bool) (*session, []string, error) {
	ss := &session{key: k, created: time.Now(), dialogCh: make(chan struct{}, 1), tabOpened: make(chan struct{}, 1), env: s.env, gone: make(chan struct{})}
	ss.console.max, ss.network.max = 500, 300
	ss.touch()
	s.reg.proxyMu.Lock()
	proxy, err := s.launcher.proxyServer(k)
	s.reg.proxyMu.Unlock()
	if err != nil {
		return nil, nil, err
	}
	ss.proxy, ss.egressMark = proxy, answerMark(proxy)

	prof, warnings, err := s.profileFor(k, named)
	if err != nil {
		return nil, nil, err
	}
	if prof.persistent {
		w, err := s.launchProfile(ss, prof, proxy)
		if err != nil {
			return nil, nil, err
		}
		warnings = append(warnings, w...)
	}
	if ss.bctx == nil {
		note, err := s.newContext(ctx, ss, proxy, ahead)
		if err != nil {
			return nil, nil, err
		}
		if note != "" {
			warnings = append(warnings, note)
		}
	}
	if err := s.setUp(ss, proxy); err != nil {
		return nil, nil, err
	}
	return ss, warnings, nil
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
func (s *opener) profileFor(k sessKey, named string) (profileChoice, []string, error) {
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
func (s *opener) launchProfile(ss *session, p profileChoice, proxy string) ([]string, error) {
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
	exe, err := driver.Chromium(s.cfg.Executable)
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
func (s *opener) newContext(ctx context.Context, ss *session, proxy string, ahead bool) (string, error) {
	if s.cfg.Grid != "" {
		t0 := time.Now()
		err := s.reg.gridContext(ctx, ss, proxy)
		s.reg.reportGrid(ss, time.Since(t0), err)
		return "", err
	}
	// A browser that died before the driver said so is found out by the
	// context it refuses: the next start sees it gone and launches a new
	// one (once: a browser that dies at once again is reported).
	for try := 0; ; try++ {
		b, drv, note, err := s.launcher.startedBrowser(!ahead)
		ss.drv = drv
		if err != nil {
			return "", err
		}
		o := pw.BrowserNewContextOptions{Proxy: s.launcher.contextProxy(proxy)}
		endCtx := spans.Start("b.newContext")
		bctx, err := b.NewContext(o)
		endCtx()
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
func (s *opener) setUp(ss *session, proxy string) error {
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
		endTab := spans.Start("b.firstTab")
		p, err := ss.bctx.NewPage()
		endTab()
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
func (s *opener) publish(ss *session, warnings []string) (*session, error) {
	k := ss.key
	ss.evMu.Lock()
	ss.newTabs = nil
	s.reg.mu.Lock()
	if why, ok := s.reg.crashed[k]; ok {
		warnings = append(warnings, fmt.Sprintf("This is a fresh browser session: the previous one crashed (%s), so its tabs, cookies and form state are gone.", why))
		delete(s.reg.crashed, k)
	}
	if why, ok := s.reg.reaped[k]; ok {
		warnings = append(warnings, fmt.Sprintf("This is a fresh browser session: the previous one is gone (%s), so its tabs, cookies and form state are gone.", why))
		delete(s.reg.reaped, k)
	}
	if s.reg.closed { // Close ran meanwhile and did not see this session
		s.reg.mu.Unlock()
		ss.evMu.Unlock()
		s.closer.closeSession(ss)
		return nil, abi.Errorf(abi.CodeNotAvailable, "the browser service is shutting down")
	}
	warnings = append(s.reg.notices, warnings...)
	s.reg.notices = nil
	s.reg.byKey[k] = ss
	s.reg.mu.Unlock()
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
func (s *opener) evictFor(k sessKey) {
	for {
		s.reg.mu.Lock()
		if len(s.reg.byKey)+len(s.reg.opening) <= s.cfg.MaxContexts {
			s.reg.mu.Unlock()
			return
		}
		var lru *session
		for _, ss := range s.reg.byKey {
			if ss.driving.Load() {
				continue
			}
			if lru == nil || ss.lastUsed.Load() < lru.lastUsed.Load() {
				lru = ss
			}
		}
		if lru == nil {
			var earlier chan struct{}
			for ok, o := range s.reg.opening {
				if ok != k && o.seq < s.reg.opening[k].seq {
					earlier = o.done
					break
				}
			}
			s.reg.mu.Unlock()
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
		delete(s.reg.byKey, lru.key)
		s.closer.reapedLocked(lru.key, fmt.Sprintf("it was closed as the least recently used session to make room for another (browser.max_contexts is %d; raise it to keep more sessions open)", s.cfg.MaxContexts))
		s.reg.mu.Unlock()
		s.log.Info("closing least recently used browser session", "session", lru.key.String(), "max_contexts", s.cfg.MaxContexts)
		if err := s.closer.closeSession(lru); err != nil {
			s.log.Warn("evicting session", "err", err)
		}
		s.closer.notifyClosed(lru.key)
	}
}
