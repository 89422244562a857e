package browser

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/driver"
	"github.com/wasmwright/wasmwright/internal/spans"
)

// launcher owns the Playwright driver (shared by the Services of a
// process, sharedDriver) and the browser the ephemeral sessions share:
// starting them, the flags and proxy they launch with, and noticing when
// the driver dies (the sessions on it are then dropped).
type launcher struct {
	*env
	// sessions are told when the browser goes away; closer drops the
	// sessions of a dead driver.
	sessions *sessions
	closer   *closer

	startMu sync.Mutex // starting the driver and the shared browser
	mu      sync.Mutex // the fields below
	pw      *pw.Playwright
	drv     *sharedDriver // the driver pw belongs to
	browser pw.Browser
	mode    string
	// warming is set while Prewarm's start runs; warmErr is why its start
	// failed, kept (under mu) for the next call that needs the browser.
	warming atomic.Bool
	warmErr error
	// asked is set once a call asked for the driver or the browser
	// (startedDriver, startedBrowser): a warm-up then yields to it.
	asked atomic.Bool
}

// takeWarmErr returns, once, why the last Prewarm failed to start the
// driver or the browser. Caller holds startMu.
func (s *launcher) takeWarmErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.warmErr
	s.warmErr = nil
	return err
}

// startedDriver starts the driver unless it runs, and returns the driver
// in use (the one a session launched now runs on) with the start's error.
func (s *launcher) startedDriver() (*sharedDriver, error) {
	s.asked.Store(true)
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if err := s.takeWarmErr(); err != nil {
		return s.driver(), err
	}
	err := s.startDriver("")
	return s.driver(), err
}

// startedBrowser is ensureBrowser under startMu, with the driver the
// browser runs on. ask is false for a session opened ahead of its call
// (preopen): that is no call asking, so the warm-up does not yield to it.
func (s *launcher) startedBrowser(ask bool) (pw.Browser, *sharedDriver, string, error) {
	if ask {
		s.asked.Store(true)
	}
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if err := s.takeWarmErr(); err != nil {
		return nil, s.driver(), "", err
	}
	b, note, err := s.ensureBrowser()
	return b, s.driver(), note, err
}

// browserMode says how the shared browser runs (local headless, remote
// cdp...), or "not started".
func (s *launcher) browserMode() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// startDriver gets the Playwright driver. Caller holds startMu. prelaunch
// is driver.Prelaunch's value for the launch that follows at once, ""
// when none does (a driver that runs already ignores it).
func (s *launcher) startDriver(prelaunch string) error {
	s.mu.Lock()
	running := s.pw != nil
	s.mu.Unlock()
	if running {
		return nil
	}
	if s.cfg.RemoteWS == "" && s.cfg.RemoteCDP == "" && s.cfg.Grid == "" {
		if _, err := driver.Chromium(s.cfg.Executable); err != nil {
			return err
		}
	}
	opts, err := driver.Options(s.cfg.DriverDir, logWriter{s.log})
	if err != nil {
		return err
	}
	caps := ""
	if s.cfg.Grid != "" {
		if caps, err = s.gridCapabilities(); err != nil {
			return err
		}
	}
	d, err := acquireDriver(opts, s.cfg.gridEnv(caps), prelaunch, s.log)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.pw, s.drv = d.pw, d
	s.mu.Unlock()
	go s.watchDriver(d)
	return nil
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
	// A local launch's options are known before the driver starts: a
	// driver started now spawns that browser while it loads
	// (driver.Prelaunch), and Launch below takes it.
	var local *pw.BrowserTypeLaunchOptions
	var note, mode, prelaunch string
	if s.cfg.RemoteWS == "" && s.cfg.RemoteCDP == "" {
		exe, err := driver.Chromium(s.cfg.Executable)
		if err != nil {
			return nil, "", err
		}
		headless, n := s.headless()
		note = n
		local = &pw.BrowserTypeLaunchOptions{
			ExecutablePath: pw.String(exe), Headless: pw.Bool(headless),
			Args: s.launchArgs(), Proxy: s.launchProxy(),
		}
		prelaunch = driver.Prelaunch(exe, local)
	}
	if err := s.startDriver(prelaunch); err != nil {
		return nil, "", err
	}
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
		o := *local
		endLaunch := spans.Start("b.launch")
		var err error
		b, err = s.pw.Chromium.Launch(o)
		endLaunch()
		if err != nil {
			return nil, "", driver.NoChromium(" or does not start (" + firstLine(err.Error()) + ")")
		}
		mode = "local headless"
		if !*o.Headless {
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

// headless decides the launch mode; note is the one-time warning when
// headed was asked for and cannot be had. It reads only the configuration
// and the machine's display: a session's own browser (a persistent
// profile) asks it as the shared one does.
func (s *env) headless() (bool, string) {
	switch s.cfg.Headed {
	case "false":
		return true, ""
	case "true":
		if driver.HasDisplay() {
			return false, ""
		}
		return true, "browser.headed is true, but this machine has no display (no DISPLAY or WAYLAND_DISPLAY): running headless."
	}
	return !driver.HasDisplay(), ""
}

// prewarm is Service.PrewarmSession (see there); session "" when the
// first call's session is not known.
func (s *launcher) prewarm(personality, session string) {
	s.mu.Lock()
	running := s.browser != nil && s.browser.IsConnected()
	s.mu.Unlock()
	if running || !s.warming.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer s.warming.Store(false)
		if b := s.prewarmStart(personality); b != nil {
			if session != "" && !s.asked.Load() {
				s.sessions.opener.preopen(key(personality, session))
			}
			s.warmUp(b)
		}
	}()
}

// prewarmStart starts the driver, and the shared browser unless the
// personality's sessions launch their own, keeping a failure for the next
// call (takeWarmErr). It returns the local browser it launched, to warm
// up, or nil.
func (s *launcher) prewarmStart(personality string) pw.Browser {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.sessions.isClosed() {
		return nil
	}
	var err error
	var b pw.Browser
	note := ""
	s.mu.Lock()
	running := s.browser
	s.mu.Unlock()
	if slices.Contains(s.cfg.PersistentProfiles, personality) || s.cfg.Grid != "" {
		err = s.startDriver("")
	} else {
		b, note, err = s.ensureBrowser()
	}
	if err != nil {
		// The call that waits on this start, or the next one, is told
		// (once) with the code; it does not start again in the
		// meantime (a start that failed would cost it twice).
		s.log.Warn("the browser did not start ahead of the first call: the first browser call reports why", "err", err)
		s.mu.Lock()
		s.warmErr = err
		s.mu.Unlock()
	}
	if note != "" { // the next result says it, as the launch's own call would
		s.sessions.notice(note)
	}
	if b == nil || b == running || !strings.HasPrefix(s.browserMode(), "local") {
		return nil // one a call started is warm; a remote one is someone else's
	}
	return b
}

// warmUp shows one page of inline HTML in a context of its own on a
// browser just launched, then closes it. Chromium starts its GPU and
// network processes and initialises its first renderer on the first page
// it shows: without this the first session's first tab and page load took
// 2-4x a later session's (measured: new page 4.1-4.7 s vs 0.5-2 s, first
// load 1.2-1.8 s vs 0.1-0.5 s, at load 18), on the way to the first call.
// Nothing goes out: the page is inline, and under a network service the
// context has the browser's dead launch proxy. It runs without startMu: a
// call that needs the browser meanwhile goes ahead.
//
// Once a call has asked for the browser, the warm-up yields: that call's
// own first page starts those processes, and a second page beside it
// only takes the cores it waits for (on two cores, a first call sent
// right after tools/list shared them with the warm-up's renderer).
func (s *launcher) warmUp(b pw.Browser) {
	if s.asked.Load() {
		return
	}
	defer spans.Start("b.warmUp")()
	t0 := time.Now()
	c, err := b.NewContext()
	if err != nil {
		return
	}
	defer c.Close()
	p, err := c.NewPage()
	if err == nil && !s.asked.Load() {
		err = p.SetContent(`<!doctype html><title>warm-up</title><h1>wasmwright</h1><p><a href="#">a link</a> <input aria-label="a field">`)
	}
	s.log.Debug("browser warmed up", "took", time.Since(t0).Round(time.Millisecond), "err", err)
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

// driver is the driver the service uses now.
func (s *launcher) driver() *sharedDriver {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.drv
}

// watchDriver resets the service when d exits.
func (s *launcher) watchDriver(d *sharedDriver) {
	select {
	case <-d.dead:
		s.driverExited(d)
	case <-s.life.Done():
	}
}

// checkDriver resets the service at once when its driver has exited, so a
// call never lands on a dead connection.
func (s *launcher) checkDriver() {
	if d := s.driver(); d.exited() {
		s.driverExited(d)
	}
}

// driverExitedWhy is the reason sessions on a dead driver are given.
const driverExitedWhy = "the browser driver exited"

// driverExited forgets a dead driver and its browser, and drops every
// session that lived on it: each is remembered as crashed (its next call is
// told why) and its profile lock and per-session resources are released.
// The next browser call starts a new driver.
func (s *launcher) driverExited(d *sharedDriver) {
	s.startMu.Lock()
	s.mu.Lock()
	if s.drv != d {
		s.mu.Unlock()
		s.startMu.Unlock()
		return
	}
	s.drv, s.pw, s.browser = nil, nil, nil
	hit := s.closer.dropDriver(d)
	s.mu.Unlock()
	s.startMu.Unlock()
	s.log.Warn("the playwright driver exited: its sessions were reset; the next browser call starts a new driver", "pid", d.pid, "sessions", len(hit))
	for _, ss := range hit {
		ss.markCrashed(driverExitedWhy)
		ss.closing.Store(true)
		go func() {
			// The connection is gone: nothing to close in the browser. The
			// profile lock is shared with the call that may still hold
			// ss.mu, so it is released once that call is done.
			ss.mu.Lock()
			s.closer.ended(ss)
			ss.mu.Unlock()
			s.closer.notifyClosed(ss.key)
		}()
	}
}

// One driver (a node process, about 120 MB and 0.8 s to start) serves every
// Service of a process that uses the same driver folder.
var drivers = struct {
	sync.Mutex
	m map[string]*sharedDriver
}{m: map[string]*sharedDriver{}}

type sharedDriver struct {
	pw   *pw.Playwright
	dir  string // its folder and environment: its key in drivers
	pid  int
	refs int
	// dead is closed when the driver process has exited (killed, crashed):
	// its connection is gone and every object on it is useless.
	dead chan struct{}
}

// acquireDriver returns the running driver of opts' folder and env, or
// starts one. env is set in this process's environment while the driver
// starts (it inherits it; playwright-go takes no environment of its own)
// and restored after: the lock keeps starts from seeing each other's.
// prelaunch (driver.Prelaunch's, or "") is given to a driver started now
// that reads it (driver.PrelaunchEnviron); it is not part of the driver's key:
// a running driver serves every launch.
func acquireDriver(opts *pw.RunOptions, env map[string]string, prelaunch string, log *slog.Logger) (*sharedDriver, error) {
	drivers.Lock()
	defer drivers.Unlock()
	key := opts.DriverDirectory
	for _, k := range sortedKeys(env) {
		key += "\x00" + k + "=" + env[k]
	}
	if d := drivers.m[key]; d != nil && !d.exited() {
		d.refs++
		return d, nil
	}
	env = driver.PrelaunchEnviron(opts.DriverDirectory, prelaunch, env)
	t0 := time.Now()
	restore := setEnv(env)
	endRun := spans.Start("b.driver.run")
	p, err := pw.Run(opts)
	endRun()
	restore()
	if err != nil {
		return nil, driver.NoDriver(" (" + firstLine(err.Error()) + ")")
	}
	log.Info("playwright driver started", "dir", opts.DriverDirectory, "pid", p.Pid(), "took", time.Since(t0).Round(time.Millisecond))
	if err := registerChanges(p); err != nil {
		// Every snapshot is then taken: the watcher's check fails as changed.
		log.Warn("change watcher not installed", "err", err)
	}
	if err := registerVisibility(p); err != nil {
		// Every snapshot then fails: the judge does not answer.
		log.Warn("visibility judge not installed", "err", err)
	}
	d := &sharedDriver{pw: p, dir: key, pid: p.Pid(), refs: 1, dead: make(chan struct{})}
	drivers.m[key] = d
	go d.watch()
	return d, nil
}

// exited reports whether the driver process has exited. A nil driver has
// not.
func (d *sharedDriver) exited() bool {
	if d == nil {
		return false
	}
	select {
	case <-d.dead:
		return true
	default:
		return false
	}
}

// watch closes d.dead when the driver process exits, and forgets d so the
// next Service to need a driver starts a new one.
func (d *sharedDriver) watch() {
	if d.pid <= 0 || !waitExit(d.pid) {
		return
	}
	close(d.dead)
	drivers.Lock()
	if drivers.m[d.dir] == d {
		delete(drivers.m, d.dir)
	}
	drivers.Unlock()
}

// releaseDriver drops a Service's hold on d and stops the driver when no
// Service holds it, within wait; a driver that does not stop is killed.
func releaseDriver(d *sharedDriver, wait time.Duration, log *slog.Logger) error {
	drivers.Lock()
	if drivers.m[d.dir] != d || d.exited() {
		drivers.Unlock()
		return nil
	}
	if d.refs--; d.refs > 0 {
		drivers.Unlock()
		return nil
	}
	delete(drivers.m, d.dir)
	drivers.Unlock()
	if err := bounded(wait, d.pw.Stop); err != nil {
		if d.exited() {
			return nil
		}
		if d.pid > 0 {
			log.Warn("the playwright driver did not stop: killing it", "pid", d.pid)
			if p, err := os.FindProcess(d.pid); err == nil {
				p.Kill()
			}
			return nil
		}
		return err
	}
	return nil
}

// setEnv sets env in the process environment and returns what puts the
// previous values back.
func setEnv(env map[string]string) (restore func()) {
	type prev struct {
		v   string
		had bool
	}
	old := map[string]prev{}
	for k, v := range env {
		pv, had := os.LookupEnv(k)
		old[k] = prev{pv, had}
		os.Setenv(k, v)
	}
	return func() {
		for k, p := range old {
			if p.had {
				os.Setenv(k, p.v)
			} else {
				os.Unsetenv(k)
			}
		}
	}
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
