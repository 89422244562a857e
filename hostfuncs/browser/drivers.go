package browser

import (
	"sync"
	"sync/atomic"

	pw "github.com/mxschmitt/playwright-go"
)

// launcher owns the Playwright driver (shared by the Services of a
// process, sharedDriver) and the browser the ephemeral sessions share:
// starting them, the flags and proxy they launch with, and noticing when
// the driver dies (the sessions on it are then dropped).
type launcher struct {
	*env
	// sessions are told when the browser or the driver goes away.
	sessions *sessions

	startMu sync.Mutex // starting the driver and the shared browser
	mu      sync.Mutex // the fields below
	pw      *pw.Playwright
	drv     *sharedDriver // the driver pw belongs to
	browser pw.Browser
	mode    string
	// warming is set while Prewarm's start runs.
	warming atomic.Bool
}

// startedDriver starts the driver unless it runs, and returns the driver
// in use (the one a session launched now runs on) with the start's error.
func (s *launcher) startedDriver() (*sharedDriver, error) {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	err := s.startDriver()
	return s.driver(), err
}

// startedBrowser is ensureBrowser under startMu, with the driver the
// browser runs on.
func (s *launcher) startedBrowser() (pw.Browser, *sharedDriver, string, error) {
	s.startMu.Lock()
	defer s.startMu.Unlock()
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
