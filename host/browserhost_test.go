package host

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

func needBrowser(t *testing.T) {
	t.Helper()
	testenv.Heavy(t, "Chromium and the Playwright driver")
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		testenv.Require(t, false, "needs Chromium (make deps)")
	}
	if _, err := os.Stat(filepath.Join(wasmbuild.Root(), "build", "driver", "node_modules", "playwright-core")); err != nil {
		testenv.Require(t, false, "needs the Playwright driver in build/driver (make deps)")
	}
}

// withDefaults returns the TOML lines given, then each default line whose
// key the given lines do not set.
func withDefaults(given string, defaults ...string) string {
	set := map[string]bool{}
	for _, l := range strings.Split(given, "\n") {
		if k, _, ok := strings.Cut(l, "="); ok {
			set[strings.TrimSpace(k)] = true
		}
	}
	out := []string{strings.TrimSpace(given)}
	for _, d := range defaults {
		k, _, _ := strings.Cut(d, "=")
		if !set[strings.TrimSpace(k)] {
			out = append(out, d)
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// browserConfig is the config of a test host with the real browser: the
// fixture's plugins, a headless browser and a vault in f.dir, then body
// (the plugins and personalities). hostKeys and browserKeys add to or
// override the [host] and [browser] defaults. The default timeouts are
// generous hang-catchers (a snapshot can take seconds on a busy machine,
// and the host no longer stretches its bounds with the load): a test that
// wants one to fire sets it, or the call's own timeout_seconds.
func (f *fixture) browserConfig(hostKeys, browserKeys, body string) string {
	return fmt.Sprintf("[host]\n%s\n\n[browser]\n%s\n\n[vault]\nfile = \"vault.age\"\n\n%s\n",
		withDefaults(hostKeys, fmt.Sprintf("plugins_dir = %q", f.plugins), fmt.Sprintf("cache_dir = %q", testCache), `call_timeout = "240s"`, `default_personality = "default"`),
		withDefaults(browserKeys, `headed = "false"`, `workspace_dir = "ws"`, `action_timeout = "20s"`, `navigation_timeout = "120s"`),
		body)
}

// browserHost starts a host from cfgText (browserConfig), skipping the
// test without Chromium and the driver; it is closed when the test ends.
// A personality that does not link fails the test.
func (f *fixture) browserHost(t *testing.T, cfgText string, opts Options) *Host {
	t.Helper()
	needBrowser(t)
	cfg, err := ParseConfig(cfgText, "test.toml", f.dir)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h, err := New(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	for _, p := range h.Personalities() {
		if probs, _ := h.Problems(p); len(probs) > 0 {
			t.Fatalf("personality %s: link problems: %v", p, probs)
		}
	}
	return h
}
