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
	"log/slog"
	"os"
	"path/filepath"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/live"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Options are the host's hooks into the browser service.
type Options struct {
	Logger *slog.Logger
	// Judge, when set, is the kernel's verdict on one document (gate.go):
	// its facts pg, or unread saying why they could not be read (no
	// verdict then: the personality's detect_failure decides). It returns
	// the failure the document is withheld with (bot_wall,
	// plugin_failed), nil when it passes, and warnings for the caller's
	// answer. Nil: every document passes.
	Judge func(ctx context.Context, personality, session string, pg *abi.Page, unread error) (*abi.Error, []string)
	// OnSecret receives every value typed or filled into a password input,
	// so the masker can hide it in later results.
	OnSecret func(personality, session, value string)
	// SecretValues, when set, lists the values a session must not show
	// (the host's hostfuncs.Secrets.Values). Screenshots and PDFs of a
	// session holding any hide the elements showing them (package conceal).
	SecretValues func(personality, session string) []string
	// ProxyFor returns the proxy a personality's sessions use (the network
	// service's egress proxy), or "" for Config.Proxy. It is read when a
	// session is created.
	ProxyFor func(personality string) string
	// SessionProxy, when set, returns the proxy of one session (the network
	// service's per-session egress proxy); it wins over ProxyFor. An error
	// (no port left in network.proxy_ports) refuses the session's open
	// with it: a session without its proxy is not opened.
	SessionProxy func(personality, session string) (string, error)
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
	// ProxyTrustSPKI, when set, is the base64 SHA-256 of the egress
	// proxy's TLS public key (network.Service.TrustSPKI): a grid browser
	// trusts that key for its https:// proxy.
	ProxyTrustSPKI string
	// OnGrid, when set, is told how each grid session's start went (the
	// time it waited for a node, and its error) and, later, when its node
	// is lost: the host's metrics and event log. It runs on the caller's
	// goroutine or one of its own, outside the service's locks.
	OnGrid func(GridReport)
	// ProxyHost, when set, is the IP address the browsers dial for their
	// egress proxy (network.Service.ProxyHost): Chromium's resolver rules
	// map every host, IP literals included, to "not found" but those
	// excluded, so the rules exclude it as they exclude 127.0.0.1, for a
	// grid browser and a local one alike (launchArgs).
	ProxyHost string
}

// Service is the browser. Its methods are safe for concurrent use.
//
// It is the composition root: the host functions and the exported API
// the host uses are served by narrow components, each holding only the
// others it calls:
//
//   - launcher (drivers.go): the Playwright driver and the shared browser;
//     finding the driver and Chromium is package driver's
//   - sessions (sessions.go): the open sessions and finding the caller's;
//     mapping Playwright's errors (errors.go)
//   - opener (sessionopen.go): opening a session, eviction under the cap
//   - closer (sessionclose.go): closing sessions, the idle sweep, shutdown
//   - pages (pages.go, snapshot.go): what actions and inspection share
//     about a page: its state, locating refs, snapshots, load failures;
//     the gate (gate.go, document.go, contain.go, judgeframes.go)
//   - actions (actions.go, tabs.go): the host functions that change a page
//   - inspector (inspect.go, screenshot.go, storage.go, sources.go,
//     read.go, som.go, vision.go): those that read one
//   - concealer (conceal.go): keeping typed secrets out of results; the
//     pictures of a page with them hidden are package conceal's
//   - operator (live.go): the takeover's flags and what the live view
//     needs of a session; the live view itself is package live's
//   - profiles (profiles.go): the named profiles of ww_browser_profile
//
// Every component embeds env, what none of them changes. The fenced rooms
// (sub-packages: conceal, driver, live) know nothing of the browser; it uses
// them through their exported API only (internal/layout's
// TestBrowserRoomsAreFenced).
type Service struct {
	*env
	// endLife ends env.life when Close begins.
	endLife context.CancelFunc

	launcher  *launcher
	sessions  *sessions
	closer    *closer
	pages     *pages
	actions   *actions
	inspector *inspector
	concealer *concealer
	operator  *operator
	profiles  *profiles
}

// env is what every component reads and none changes: the configuration,
// the host's hooks, the log, and the service's life.
type env struct {
	cfg  Config
	opts Options
	log  *slog.Logger
	// life ends when Close begins: calls waiting on the browser return.
	life context.Context
	// gate is the decision every call on a tab passes (gate.go).
	gate      func(ss *session, t *tab) error
	afterGate func(ss *session, t *tab, leaving bool, before *document) error
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
	s.concealer = &concealer{env: e, typing: map[sessKey]*operatorTyping{}}
	s.launcher = &launcher{env: e, mode: "not started"}
	s.sessions = &sessions{
		env: e, launcher: s.launcher,
		byKey: map[sessKey]*session{}, opening: map[sessKey]*opening{}, crashed: map[sessKey]string{}, lostNode: map[sessKey]string{}, reaped: map[sessKey]string{},
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	s.closer = &closer{env: e, reg: s.sessions, concealer: s.concealer}
	s.sessions.closer = s.closer
	s.sessions.opener = &opener{env: e, reg: s.sessions, launcher: s.launcher, closer: s.closer}
	s.launcher.sessions, s.launcher.closer = s.sessions, s.closer
	s.pages = &pages{env: e, loads: &loads{env: e}, sessions: s.sessions, concealer: s.concealer}
	e.gate, e.afterGate = s.pages.gate, s.pages.afterGate
	s.actions = &actions{env: e, sessions: s.sessions, pages: s.pages, concealer: s.concealer, launcher: s.launcher}
	s.inspector = &inspector{env: e, sessions: s.sessions, pages: s.pages, concealer: s.concealer}
	s.inspector.markShot = s.inspector.markedShot
	s.operator = &operator{env: e, sessions: s.sessions, pages: s.pages, concealer: s.concealer}
	s.operator.view = live.New(s.operator)
	s.profiles = &profiles{env: e, sessions: s.sessions}
	go s.closer.sweep()
	return s, nil
}

// Config returns the effective configuration (defaults applied).
func (s *Service) Config() Config { return s.cfg }

// hostFunc is one browser host function as its family declares it, beside
// its handlers (navigationFuncs in navigate.go, actFuncs in act.go...):
// the function (its name and handler) and how it meets the gate. The zero
// gate is gateTab, the strictest: a declaration that names none gets the
// whole gate.
type hostFunc struct {
	sandbox.HostFunc
	gate gateKind
}

// families are the browser's host functions, one family a file, each
// declared in the file of its handlers.
var families = []func(*Service) []hostFunc{
	navigationFuncs, actFuncs, formFuncs, waitFuncs, inspectFuncs, pictureFuncs, scriptFuncs,
	sourceFuncs, tabFuncs, sessionFuncs, readFuncs, profileFuncs, visionFuncs,
}

// declared is every family's host functions, bound to s.
func declared(s *Service) []hostFunc {
	var all []hostFunc
	for _, family := range families {
		all = append(all, family(s)...)
	}
	return all
}

// HostFuncs returns every ww_browser_* host function, each guarded by the
// capability it needs, checked at call time. The ways off a withheld page
// (gateLeave) run marked as leaving (Service.leaving); every other call on
// a tab meets the whole gate.
func (s *Service) HostFuncs() []sandbox.HostFunc {
	var fns []sandbox.HostFunc
	for _, f := range declared(s) {
		if f.gate == gateLeave {
			f.HostFunc = s.leaving(f.HostFunc)
		}
		f.Fn = s.settlingTyped(f.Fn)
		fns = append(fns, f.HostFunc)
	}
	return fns
}

// settlingTyped wraps a host function so that an operator's typing in the
// caller's session (concealer.settleTyped) becomes a secret before the call
// reads the page and again before its result goes to the masker: an
// operator may type while the agent's call runs.
func (s *Service) settlingTyped(fn func(context.Context, string, []byte) ([]byte, error)) func(context.Context, string, []byte) ([]byte, error) {
	return func(ctx context.Context, plugin string, req []byte) ([]byte, error) {
		c := hostfuncs.CallerFrom(ctx)
		if c == nil {
			return fn(ctx, plugin, req)
		}
		k := key(c.Personality(), c.Session())
		s.concealer.settleTyped(k)
		out, err := fn(ctx, plugin, req)
		s.concealer.settleTyped(k)
		return out, err
	}
}

// SetDriving marks a session as driven by a human (takeover): the idle
// sweeper and LRU eviction leave it alone while on. Turning it off (the
// human hands back) makes what the human was typing into a secret field a
// session secret (concealer.settleTyped).
func (s *Service) SetDriving(personality, session string, on bool) {
	if !on {
		s.concealer.settleTyped(key(personality, session))
	}
	if ss := s.sessions.byName(personality, session); ss != nil && on {
		// A frozen wall (gate.go, contain) runs again for the human
		// who came to get past it; it stays withheld from the agent.
		ss.evMu.Lock()
		tabs := append([]*tab(nil), ss.tabs...)
		ss.evMu.Unlock()
		for _, t := range tabs {
			thaw(ss, t)
		}
	}
	s.operator.setDriving(personality, session, on)
}

// HumanDriving reports whether a human has taken over the session
// (SetDriving).
func (s *Service) HumanDriving(personality, session string) bool {
	return s.operator.humanDriving(personality, session)
}

// CloseSession closes one session's context; a persistent profile is
// flushed to disk. Closing a session that is not open is not an error.
func (s *Service) CloseSession(personality, session string) error {
	return s.closer.closeByKey(personality, session)
}

// Sessions lists every open session, most recently used first.
func (s *Service) Sessions() []abi.BrowserSessionInfo { return s.sessions.list() }

// Prewarm starts the driver and the shared browser in the background when
// they are not running, so that a call about to need them finds them
// started (or starting: it waits on the same start) instead of starting
// them after its own work. For a personality with a persistent profile
// (its sessions launch their own browser) only the driver starts. A failed
// start is kept: the next call that needs the browser (waiting on the
// start if it is under way) returns its error, with its code, once; the
// call after that starts afresh.
func (s *Service) Prewarm(personality string) { s.launcher.prewarm(personality, "") }

// PrewarmSession is Prewarm for a caller that knows the session of the
// personality's first call (a stdio serve has one): once the shared
// browser is up, and unless a call has asked for it meanwhile, that
// session's browser context and first tab are opened too, authenticated
// to its egress proxy, and kept aside for that session's first call to
// take (spare.go). A call that opens no session still finds none.
func (s *Service) PrewarmSession(personality, session string) {
	s.launcher.prewarm(personality, session)
}

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
	return s.operator.view.Screencast(ctx, personality, session, maxW, maxH, frame)
}

// ScreencastConcealed is Screencast for a viewer who is not a logged-in
// operator (whoever holds a takeover link): no screencast frame is sent;
// each frame is a screenshot of the page taken with the session's secrets
// concealed, as the agent's screenshot is (package live), at most one
// per 400 ms and only when the page changed. A frame that cannot be taken
// without showing a secret is not sent: failed is told why instead.
func (s *Service) ScreencastConcealed(ctx context.Context, personality, session string, maxW, maxH int, frame func(Frame), failed func(error)) error {
	return s.operator.view.ScreencastConcealed(ctx, personality, session, maxW, maxH, frame, failed)
}

// Input plays an operator's action on the session's current tab, bounded.
// A URL to open passes the same checks as an agent's (http(s), the
// network policy).
func (s *Service) Input(personality, session string, in OperatorInput) error {
	return s.operator.view.Input(personality, session, in)
}

// PageURL is the URL of the session's current tab, "" when none.
func (s *Service) PageURL(personality, session string) string {
	return s.operator.pageURL(personality, session)
}

// Raise brings the session's current tab to the front, so a headed window
// shows the page the human is asked to handle. Best effort, bounded.
func (s *Service) Raise(personality, session string) { s.operator.raise(personality, session) }

// Close closes every session (persistent profiles flush), the browser and
// the driver, waiting for each up to ctx.
func (s *Service) Close(ctx context.Context) error {
	all, ok := s.closer.shut()
	if !ok {
		return nil
	}
	s.endLife() // calls in flight stop waiting, so their locks come free
	s.closer.stopSweep()

	errc := make(chan error, 1)
	go func() {
		errs := s.closer.closeAll(all)
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
