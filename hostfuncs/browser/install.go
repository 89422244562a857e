package browser

import (
	"io"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/hostfuncs/browser/driver"
)

// Finding the driver and Chromium is package driver's; these are the
// browser's words for it, for the host and for programs beside it.

// DriverVersion is the playwright-core release playwright-go v0.6401.0
// speaks (driver.Version).
const DriverVersion = driver.Version

// chromiumFlags are what Debian Chromium needs as root on a closed network:
// without the background-networking flags it floods the network with
// refused connections.
var chromiumFlags = []string{
	"--no-sandbox", "--disable-gpu", "--disable-background-networking",
	"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
	"--disable-dev-shm-usage",
}

// DriverOptions are the options that start the Playwright driver the
// host would use with cfg (driver.Options: browser.driver_dir, the
// environment, then build/driver), for a program or test that drives a
// browser of its own beside the host's and should find the driver the
// same way, or fail with the same words.
func DriverOptions(cfg Config) (*pw.RunOptions, error) {
	return driver.Options(cfg.DriverDir, io.Discard)
}

// Preflight reports whether this host can run a local browser: the driver
// is found and Chromium exists. It starts nothing. With a remote browser
// configured only the driver is checked.
func Preflight(cfg Config) error {
	if _, err := driver.Options(cfg.DriverDir, io.Discard); err != nil {
		return err
	}
	if cfg.RemoteWS == "" && cfg.RemoteCDP == "" {
		if _, err := driver.Chromium(cfg.Executable); err != nil {
			return err
		}
	}
	return nil
}
