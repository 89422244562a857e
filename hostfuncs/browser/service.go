// Package browser is the kernel's browser: playwright-go driving Chromium
// (local, or remote through a Playwright server or a CDP endpoint), exposed
// to plugins as the ww_browser_* host functions of abi/browser.go.
//
// The host holds the power here and the tool plugin holds the logic: these
// functions are primitives (navigate, act on a ref, snapshot...), and
// plugins/browser turns them into the browser_* tools agents call.
//
// One browser context serves each (personality, session); tabs live inside
// it. The driver and the browser start on the first browser call, so a host
// without Chromium serves everything else and the browser calls fail with
// not_available naming the fix. Sessions idle past IdleTimeout are closed,
// except one a human is driving (SetDriving); MaxContexts caps how many are
// open, closing the least recently used.
package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Options are the host's hooks into the browser service.
type Options struct {
	Logger *slog.Logger
	// OnSecret receives every value typed or filled into a password input,
	// so the masker can hide it in later results.
	OnSecret func(personality, session, value string)
	// SecretValues, when set, lists the values a session must not show
	// (the host's hostfuncs.Secrets.Values). Screenshots and PDFs of a
	// session holding any hide the elements showing them (conceal.go).
	SecretValues func(personality, session string) []string
	// ProxyFor returns the proxy a personality's sessions use (the network
	// service's egress proxy), or "" for Config.Proxy. It is read when a
	// session is created.
	ProxyFor func(personality string) string
	// SessionProxy, when set, returns the proxy of one session (the network
	// service's per-session egress proxy); it wins over ProxyFor.
	SessionProxy func(personality, session string) string
	// CheckURL, when set, vets a URL before it is loaded (navigate, a new
	// tab, a source fetch), after the service's own http(s) check: the
	// network service's check of credentials, ports and hosts. An
	// *abi.Error it returns reaches the caller as is; any other error is
	// refused.
	CheckURL func(u string) error
	// OnSessionClosed, when set, is told of every session the service
	// closes (idle sweep, LRU eviction, CloseSession, browser_close,
	// shutdown, a crash), so services holding per-session state (the
	// egress proxy's listener) can let go of it. It runs outside the
	// service's locks.
	OnSessionClosed func(personality, session string)
	// EgressFailure, when set, says why a page the session was told to
	// open did not load, when its egress proxy refused the request or could
	// not reach the site during this call: an *abi.Error (refused,
	// unreachable) returned instead of the proxy's answer, or nil.
	EgressFailure func(personality, session, url string) error
	// Vision, when set, asks the operator's vision model where an element
	// is (ww_vision_locate); nil: the host has no [vision] endpoint and the
	// call answers not_available.
	Vision func(ctx context.Context, personality string, q VisionQuery) (abi.VisionLocateResponse, error)
	// VisionSecrets, when set, says whether a personality lets a page
	// holding a filled secret go to the vision model.
	VisionSecrets func(personality string) bool
}

// Service is the browser. Its methods are safe for concurrent use.
//
// It is the composition root: the host functions and the exported API
// the host uses are served by narrow components, each holding only the
// others it calls:
//
//   - launcher (drivers.go): the Playwright driver and the shared browser
//   - sessions (sessions.go): the open sessions, their opening, eviction,
//     idle sweep and closing, and the profiles they run on
//   - pages (pages.go): what actions and inspection share about a page:
//     its state, locating refs, snapshots, mapping errors
//   - actions (actions.go, tabs.go): what changes a page
//   - inspector (inspect.go, read.go, som.go, vision.go): what reads one
//   - concealer (conceal.go): keeping typed secrets out of results
//   - operator (live.go): the live view and the operator's control
type Service struct {
	*env
	// endLife ends env.life when Close begins.
	endLife context.CancelFunc

	launcher  *launcher
	sessions  *sessions
	pages     *pages
	actions   *actions
	inspector *inspector
	concealer *concealer
	operator  *operator
}

// env is what every component reads and none changes: the configuration,
// the host's hooks, the log, and the service's life.
type env struct {
	cfg  Config
	opts Options
	log  *slog.Logger
	// life ends when Close begins: calls waiting on the browser return.
	life context.Context
}

// New validates cfg and returns a service. Nothing starts until the first
// browser call.
func New(cfg Config, opts Options) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.withDefaults()
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if cfg.WorkspaceDir == "" {
		cfg.WorkspaceDir = filepath.Join(os.TempDir(), "wasmwright", "workspace")
	}
	e := &env{cfg: cfg, opts: opts, log: opts.Logger.With("service", "browser")}
	var endLife context.CancelFunc
	e.life, endLife = context.WithCancel(context.Background())
	s := &Service{env: e, endLife: endLife}
	s.launcher = &launcher{env: e, mode: "not started"}
	s.sessions = &sessions{
		env: e, launcher: s.launcher,
		byKey: map[sessKey]*session{}, opening: map[sessKey]*opening{}, crashed: map[sessKey]string{}, reaped: map[sessKey]string{},
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	s.launcher.sessions = s.sessions
	s.concealer = &concealer{env: e}
	s.pages = &pages{env: e, sessions: s.sessions, concealer: s.concealer}
	s.actions = &actions{env: e, sessions: s.sessions, pages: s.pages, concealer: s.concealer, launcher: s.launcher}
	s.inspector = &inspector{env: e, sessions: s.sessions, pages: s.pages, concealer: s.concealer}
	s.inspector.markShot = s.inspector.markedShot
	s.operator = &operator{env: e, sessions: s.sessions, pages: s.pages}
	go s.sessions.sweep()
	return s, nil
}

// Config returns the effective configuration (defaults applied).
func (s *Service) Config() Config { return s.cfg }

// HostFuncs returns every ww_browser_* host function, each guarded by the
// capability it needs, checked at call time.
func (s *Service) HostFuncs() []sandbox.HostFunc {
	return []sandbox.HostFunc{
		hf(abi.HostBrowserNavigate, s.actions.navigate),
		hf(abi.HostBrowserSnapshot, s.inspector.snapshotCall),
		hf(abi.HostBrowserAct, s.actions.act),
		hf(abi.HostBrowserFillForm, s.actions.fillForm),
		hf(abi.HostBrowserUpload, s.actions.upload),
		hf(abi.HostBrowserHistory, s.actions.history),
		hf(abi.HostBrowserWaitFor, s.actions.waitFor),
		hf(abi.HostBrowserDialog, s.actions.dialog),
		hostfuncs.JSON(abi.HostBrowserConsole, s.inspector.consoleCall),
		hostfuncs.JSON(abi.HostBrowserNetwork, s.inspector.networkCall),
		hostfuncs.JSON(abi.HostBrowserImages, s.inspector.images),
		hostfuncs.JSON(abi.HostBrowserComputedStyle, s.inspector.computedStyle),
		hf(abi.HostBrowserScreenshot, s.inspector.screenshot),
		hostfuncs.JSON(abi.HostBrowserPDF, s.inspector.pdf),
		hostfuncs.JSON(abi.HostBrowserEvaluate, s.inspector.evaluate),
		hostfuncs.JSON(abi.HostBrowserStorage, s.inspector.storage),
		hostfuncs.JSON(abi.HostBrowserCookies, s.inspector.cookies),
		hostfuncs.JSON(abi.HostBrowserSources, s.inspector.sources),
		hf(abi.HostBrowserTabs, s.actions.tabsCall),
		hostfuncs.JSON(abi.HostBrowserEmulate, s.actions.emulate),
		hostfuncs.JSON(abi.HostBrowserResize, s.actions.resize),
		hostfuncs.JSON(abi.HostBrowserClose, s.sessions.closeCall),
		hostfuncs.JSON(abi.HostBrowserSessions, s.sessions.sessionsCall),
		hf(abi.HostBrowserRead, s.inspector.read),
		hostfuncs.JSON(abi.HostBrowserProfile, s.sessions.profileCall),
		hostfuncs.JSON(abi.HostVisionLocate, s.inspector.visionLocate),
	}
}

// SetDriving marks a session as driven by a human (takeover): the idle
// sweeper and LRU eviction leave it alone while on.
func (s *Service) SetDriving(personality, session string, on bool) {
	s.sessions.setDriving(personality, session, on)
}

// HumanDriving reports whether a human has taken over the session
// (SetDriving).
func (s *Service) HumanDriving(personality, session string) bool {
	return s.sessions.humanDriving(personality, session)
}

// CloseSession closes one session's context; a persistent profile is
// flushed to disk. Closing a session that is not open is not an error.
func (s *Service) CloseSession(personality, session string) error {
	return s.sessions.closeByKey(personality, session)
}

// Sessions lists every open session, most recently used first.
func (s *Service) Sessions() []abi.BrowserSessionInfo { return s.sessions.list() }

// Prewarm starts the driver and the shared browser in the background when
// they are not running, so that a call about to need them finds them
// started (or starting: it waits on the same start) instead of starting
// them after its own work. For a personality with a persistent profile
// (its sessions launch their own browser) only the driver starts. A failed
// start is left for the call to meet and report.
func (s *Service) Prewarm(personality string) { s.launcher.prewarm(personality) }

// OperatorSessions lists the open sessions with their current tab's URL
// and title (each title read bounded), oldest first.
func (s *Service) OperatorSessions() []OperatorSession { return s.operator.list() }

// Screencast streams the session's current tab to frame until ctx is
// done: CDP Page.startScreencast on that tab, each frame acknowledged
// after frame returns, and restarted on the new tab when the agent
// switches tabs. Nothing is captured when no one calls this: the
// screencast runs only while a viewer watches. maxW and maxH bound the
// frame size. It returns when ctx is done or the session closes.
func (s *Service) Screencast(ctx context.Context, personality, session string, maxW, maxH int, frame func(Frame)) error {
	return s.operator.screencast(ctx, personality, session, maxW, maxH, frame)
}

// Input plays an operator's action on the session's current tab, bounded.
// A URL to open passes the same checks as an agent's (http(s), the
// network policy).
func (s *Service) Input(personality, session string, in OperatorInput) error {
	return s.operator.input(personality, session, in)
}

// PageURL is the URL of the session's current tab, "" when none.
func (s *Service) PageURL(personality, session string) string {
	return s.operator.pageURL(personality, session)
}

// Raise brings the session's current tab to the front, so a headed window
// shows the page the human is asked to handle. Best effort, bounded.
func (s *Service) Raise(personality, session string) { s.operator.raise(personality, session) }

// SetDriving marks a session as driven by a human (takeover): the idle
// sweeper and LRU eviction leave it alone while on.
func (s *sessions) setDriving(personality, session string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss := s.byKey[key(personality, session)]; ss != nil {
		ss.driving.Store(on)
		ss.touch()
	}
}

// CloseSession closes one session's context; a persistent profile is
// flushed to disk. Closing a session that is not open is not an error.
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

// Sessions lists every open session, most recently used first.
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

// Close closes every session (persistent profiles flush), the browser and
// the driver, waiting for each up to ctx.
func (s *Service) Close(ctx context.Context) error {
	all, ok := s.sessions.shut()
	if !ok {
		return nil
	}
	s.endLife() // calls in flight stop waiting, so their locks come free
	s.sessions.stopSweep()

	errc := make(chan error, 1)
	go func() {
		errs := s.sessions.closeAll(all)
		// A browser or driver that already let a close go unanswered gets
		// a short wait: the driver is killed if it does not stop.
		errs = append(errs, s.launcher.shutdown(errors.Is(errors.Join(errs...), errNoAnswer))...)
		errc <- errors.Join(errs...)
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		return fmt.Errorf("browser: close: %w", ctx.Err())
	}
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

// shutdown closes the shared browser and lets go of the driver (stopped
// when no other Service holds it). slow: a close already went unanswered,
// so each gets a short wait.
func (s *launcher) shutdown(slow bool) []error {
	var errs []error
	s.startMu.Lock()
	s.mu.Lock()
	b, d := s.browser, s.drv
	s.browser, s.pw, s.drv = nil, nil, nil
	s.mu.Unlock()
	s.startMu.Unlock()
	wait := closeWait
	if slow {
		wait = time.Second
	}
	if b != nil && !d.exited() {
		if err := bounded(wait, func() error { return b.Close() }); err != nil && !isClosedErr(err) {
			errs = append(errs, fmt.Errorf("browser: closing the browser: %w", err))
			if errors.Is(err, errNoAnswer) {
				wait = time.Second
			}
		}
	}
	if d != nil {
		if err := releaseDriver(d, wait, s.log); err != nil {
			errs = append(errs, fmt.Errorf("browser: stopping the driver: %w", err))
		}
	}
	return errs
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
	if ss.profile != nil {
		unlockProfile(ss.profile)
		ss.profile = nil
	}
	s.log.Debug("session closed", "session", ss.key.String())
	return err
}

func key(personality, session string) sessKey {
	if session == "" {
		session = "default"
	}
	return sessKey{personality: personality, session: session}
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

// acquire returns the caller's session, locked, creating it when create is
// set. A crashed session is discarded and reported as browser_crashed; the
// next call gets a fresh one and is told so.
func (s *sessions) acquire(ctx context.Context, c *hostfuncs.Caller, create bool) (*session, error) {
	k := key(c.Personality, c.Session)
	s.launcher.checkDriver()
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, abi.Errorf(abi.CodeNotAvailable, "the browser service is shutting down")
		}
		ss := s.byKey[k]
		s.mu.Unlock()
		if ss == nil {
			if !create {
				return nil, s.errNoSession(k)
			}
			var err error
			if ss, err = s.create(k, profileFrom(ctx)); err != nil {
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

// discardCrashed drops a crashed session (locked by the caller, unlocked
// here) and returns the browser_crashed error.
func (s *sessions) discardCrashed(ss *session) error {
	why := ss.crashReason()
	s.dropCrashed(ss)
	ss.mu.Unlock()
	s.log.Warn("browser session crashed", "session", ss.key.String(), "why", why)
	return abi.Errorf(abi.CodeBrowserCrashed, "the browser crashed (%s); the session was reset and its tabs are gone: call browser_navigate to start a fresh session", why)
}

// create opens a new session for k, on the named profile when named is
// set. Sessions of different keys open at once: only the start of the
// driver and the shared browser is serialized (startMu); a second create
// for a key being opened waits for that open and takes its session.
func (s *sessions) create(k sessKey, named string) (*session, error) {
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
	return s.open(k, named)
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
func (s *sessions) open(k sessKey, named string) (*session, error) {
	ss := &session{key: k, created: time.Now(), dialogCh: make(chan struct{}, 1), tabOpened: make(chan struct{}, 1), env: s.env, gone: make(chan struct{})}
	ss.console.max, ss.network.max = 500, 300
	ss.touch()
	var warnings []string
	s.proxyMu.Lock()
	proxy := s.launcher.proxyServer(k)
	s.proxyMu.Unlock()

	persistent := slices.Contains(s.cfg.PersistentProfiles, k.personality) && safeName.MatchString(k.personality)
	// The personality's own profile, or the named one the call asked for
	// (in the personality's profile root, never another's).
	lockDir, lockName, label := s.cfg.ProfilesDir, k.personality, k.personality
	if named != "" {
		root, err := s.profileRoot(k.personality, named)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(filepath.Join(root, named)); err != nil {
			return nil, abi.Errorf(abi.CodeNotFound, "there is no browser profile %q: create it with browser_profile (action create), or list them", named)
		}
		if s.cfg.RemoteWS != "" || s.cfg.RemoteCDP != "" {
			return nil, abi.Errorf(abi.CodeNotAvailable, "browser profiles need a local browser: this host drives a remote one")
		}
		persistent, lockDir, lockName, label = true, root, named, named
	}
	if persistent && (s.cfg.RemoteWS != "" || s.cfg.RemoteCDP != "") {
		persistent = false
		warnings = append(warnings, fmt.Sprintf("Browser profile %q is not available with a remote browser: this session is ephemeral and not logged in.", k.personality))
	}
	if persistent {
		dir := filepath.Join(lockDir, lockName)
		lock, err := lockProfile(lockDir, lockName)
		if err != nil && named != "" {
			return nil, abi.Errorf(abi.CodeRefused, "browser profile %q is in use by another session (%v): close that session first, or use another profile", named, err)
		}
		if err != nil {
			persistent = false
			warnings = append(warnings, fmt.Sprintf("Browser profile %q is in use by another session (%v): this session is ephemeral and not logged in.", k.personality, err))
		} else {
			var err error
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
				return nil, abi.Errorf(abi.CodeExecutionFailed, "opening browser profile %q: %v", label, firstLine(err.Error()))
			}
			ss.bctx, ss.persistent, ss.profile, ss.named = bctx, true, lock, named
			bctx.OnClose(func(pw.BrowserContext) { ss.markCrashed("the browser closed unexpectedly") })
		}
	}
	if ss.bctx == nil {
		b, drv, note, err := s.launcher.startedBrowser()
		ss.drv = drv
		if err != nil {
			return nil, err
		}
		if note != "" {
			warnings = append(warnings, note)
		}
		o := pw.BrowserNewContextOptions{Proxy: s.launcher.contextProxy(proxy)}
		bctx, err := b.NewContext(o)
		if err != nil {
			if !b.IsConnected() {
				return nil, abi.Errorf(abi.CodeBrowserCrashed, "the browser crashed while opening a session: retry, a new browser will start")
			}
			return nil, abi.Errorf(abi.CodeExecutionFailed, "opening a browser context: %v", firstLine(err.Error()))
		}
		ss.bctx, ss.browser = bctx, b
	}
	if err := s.launcher.primeProxy(ss.bctx, proxy); err != nil {
		ss.bctx.Close()
		if ss.profile != nil {
			unlockProfile(ss.profile)
		}
		return nil, err
	}
	ss.bctx.SetDefaultTimeout(float64(s.cfg.ActionTimeout.D().Milliseconds()))
	ss.bctx.SetDefaultNavigationTimeout(float64(s.cfg.NavigationTimeout.D().Milliseconds()))
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
			return nil, abi.Errorf(abi.CodeExecutionFailed, "opening a tab: %v", firstLine(err.Error()))
		}
		ss.attach(p)
	}
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

// headless decides the launch mode; note is the one-time warning when
// headed was asked for and cannot be had.
func (s *launcher) headless() (bool, string) {
	switch s.cfg.Headed {
	case "false":
		return true, ""
	case "true":
		if hasDisplay() {
			return false, ""
		}
		return true, "browser.headed is true, but this machine has no display (no DISPLAY or WAYLAND_DISPLAY): running headless."
	}
	return !hasDisplay(), ""
}

// Prewarm starts the driver and the shared browser in the background when
// they are not running, so that a call about to need them finds them
// started (or starting: it waits on the same start) instead of starting
// them after its own work. For a personality with a persistent profile
// (its sessions launch their own browser) only the driver starts. A failed
// start is left for the call to meet and report.
func (s *launcher) prewarm(personality string) {
	s.mu.Lock()
	running := s.browser != nil && s.browser.IsConnected()
	s.mu.Unlock()
	if running || !s.warming.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer s.warming.Store(false)
		s.startMu.Lock()
		defer s.startMu.Unlock()
		if s.sessions.isClosed() {
			return
		}
		var err error
		note := ""
		if slices.Contains(s.cfg.PersistentProfiles, personality) {
			err = s.startDriver()
		} else {
			_, note, err = s.ensureBrowser()
		}
		if err != nil {
			s.log.Debug("prewarm", "err", err)
		}
		if note != "" { // the next result says it, as the launch's own call would
			s.sessions.notice(note)
		}
	}()
}

// startDriver gets the Playwright driver. Caller holds startMu.
func (s *launcher) startDriver() error {
	s.mu.Lock()
	running := s.pw != nil
	s.mu.Unlock()
	if running {
		return nil
	}
	if s.cfg.RemoteWS == "" && s.cfg.RemoteCDP == "" {
		if _, err := findChromium(s.cfg); err != nil {
			return err
		}
	}
	opts, err := runOptions(s.cfg, logWriter{s.log})
	if err != nil {
		return err
	}
	d, err := acquireDriver(opts, s.log)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.pw, s.drv = d.pw, d
	s.mu.Unlock()
	go s.watchDriver(d)
	return nil
}

// One driver (a node process, about 120 MB and 0.8 s to start) serves every
// Service of a process that uses the same driver folder.
var drivers = struct {
	sync.Mutex
	m map[string]*sharedDriver
}{m: map[string]*sharedDriver{}}

type sharedDriver struct {
	pw   *pw.Playwright
	dir  string
	pid  int
	refs int
	// dead is closed when the driver process has exited (killed, crashed):
	// its connection is gone and every object on it is useless.
	dead chan struct{}
}

func acquireDriver(opts *pw.RunOptions, log *slog.Logger) (*sharedDriver, error) {
	drivers.Lock()
	defer drivers.Unlock()
	if d := drivers.m[opts.DriverDirectory]; d != nil && !d.exited() {
		d.refs++
		return d, nil
	}
	t0 := time.Now()
	p, err := pw.Run(opts)
	if err != nil {
		return nil, errNoDriver(" (" + firstLine(err.Error()) + ")")
	}
	log.Info("playwright driver started", "dir", opts.DriverDirectory, "pid", p.Pid(), "took", time.Since(t0).Round(time.Millisecond))
	d := &sharedDriver{pw: p, dir: opts.DriverDirectory, pid: p.Pid(), refs: 1, dead: make(chan struct{})}
	drivers.m[opts.DriverDirectory] = d
	go d.watch()
	return d, nil
}

// ensureBrowser returns the shared browser, starting or reconnecting it.
// Caller holds startMu.
func (s *launcher) ensureBrowser() (pw.Browser, string, error) {
	s.mu.Lock()
	b := s.browser
	s.mu.Unlock()
	if b != nil && b.IsConnected() {
		return b, "", nil
	}
	if err := s.startDriver(); err != nil {
		return nil, "", err
	}
	var note, mode string
	t0 := time.Now()
	switch {
	case s.cfg.RemoteWS != "":
		var err error
		if b, err = s.pw.Chromium.Connect(s.cfg.RemoteWS); err != nil {
			return nil, "", abi.Errorf(abi.CodeNotAvailable, "cannot reach the remote Playwright server %s: %v: check browser.remote_ws and that the server runs", s.cfg.RemoteWS, firstLine(err.Error()))
		}
		mode = "remote ws"
	case s.cfg.RemoteCDP != "":
		var err error
		if b, err = s.pw.Chromium.ConnectOverCDP(s.cfg.RemoteCDP); err != nil {
			return nil, "", abi.Errorf(abi.CodeNotAvailable, "cannot reach the CDP endpoint %s: %v: check browser.remote_cdp and that the browser runs with --remote-debugging-port", s.cfg.RemoteCDP, firstLine(err.Error()))
		}
		mode = "remote cdp"
	default:
		exe, err := findChromium(s.cfg)
		if err != nil {
			return nil, "", err
		}
		headless, n := s.headless()
		note = n
		o := pw.BrowserTypeLaunchOptions{
			ExecutablePath: pw.String(exe), Headless: pw.Bool(headless),
			Args: s.launchArgs(), Proxy: s.launchProxy(),
		}
		if b, err = s.pw.Chromium.Launch(o); err != nil {
			return nil, "", errNoChromium(" or does not start (" + firstLine(err.Error()) + ")")
		}
		mode = "local headless"
		if !headless {
			mode = "local headed"
		}
	}
	if strings.HasPrefix(mode, "remote") && s.egressGoverned() {
		note = remoteEgressNote
		s.log.Warn("remote browser: its launch flags are not the host's; WebRTC UDP, QUIC, DNS and its own traffic are not held to the egress proxy", "mode", mode)
	}
	s.log.Info("browser started", "mode", mode, "version", b.Version(), "took", time.Since(t0).Round(time.Millisecond))
	b.OnDisconnected(func(b pw.Browser) {
		s.mu.Lock()
		if s.browser == b {
			s.browser = nil
		}
		hit := s.sessions.onBrowser(b)
		s.mu.Unlock()
		for _, ss := range hit {
			ss.markCrashed("the browser process exited")
		}
	})
	s.mu.Lock()
	s.browser, s.mode = b, mode
	s.mu.Unlock()
	return b, note, nil
}

// logWriter sends the driver's stderr to the log.
type logWriter struct{ l *slog.Logger }

func (w logWriter) Write(b []byte) (int, error) {
	if msg := strings.TrimSpace(string(b)); msg != "" {
		w.l.Debug("playwright driver", "out", capString(msg, 2000))
	}
	return len(b), nil
}

var _ io.Writer = logWriter{}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return capString(l, 500)
}

func isClosedErr(err error) bool {
	if err == nil {
		return false
	}
	m := err.Error()
	return strings.Contains(m, "has been closed") || strings.Contains(m, "Target closed") ||
		strings.Contains(m, "closed") && strings.Contains(m, "browser")
}
