package browser

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/logrec"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// A driver laid out in an npm prefix (browser.driver_dir), started for a
// local launch, is told that launch's options: the next such start (here
// a service of its own after the first one stopped its driver) spawns
// Chromium while the driver loads, and the launch takes that browser,
// which serves the call. It has its own driver folder and drivers, not
// the package's shared one: what it tests is their start.
func TestLaunchTakesTheBrowserStartedWithTheDriver(t *testing.T) {
	testenv.Heavy(t, "the Playwright driver and Chromium")
	h := hostile(t)
	// playwright-core's own cli.js (a test before may have unset the
	// variable: driver.Options does for a configured driver_dir).
	prefix := testenv.DriverPrefix(t)
	// driver.Options unsets these for a configured driver_dir: restore them.
	t.Setenv("PLAYWRIGHT_CLI_PATH", os.Getenv("PLAYWRIGHT_CLI_PATH"))
	t.Setenv("PLAYWRIGHT_NODEJS_PATH", os.Getenv("PLAYWRIGHT_NODEJS_PATH"))
	cfg := testConfig(t.TempDir())
	cfg.DriverDir = prefix
	c := caller(t.Name())
	for i, want := range []string{"early launch: none", "early launch: taken"} {
		var log logrec.Buffer
		s, err := New(cfg, Options{Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
		if err != nil {
			t.Fatal(err)
		}
		r := must[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: h.URL + "/"})
		if err := s.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if r.Page.Title != "Good" {
			t.Fatalf("start %d: navigate showed %+v", i+1, r.Page)
		}
		if !strings.Contains(log.String(), want) {
			t.Fatalf("start %d: the driver did not say %q:\n%s", i+1, want, log.String())
		}
	}
}
