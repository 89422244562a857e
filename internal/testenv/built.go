package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// Plugins is the folder of built first-party plugins a test loads:
// $WASMWRIGHT_PLUGINS_DIR, else the repository's build/plugins. Without
// file in it the test fails (make test builds them first: a missing build
// is a broken run, not a part the machine lacks).
func Plugins(t testing.TB, file string) string {
	t.Helper()
	dir := os.Getenv("WASMWRIGHT_PLUGINS_DIR")
	if dir == "" {
		dir = filepath.Join(wasmbuild.Root(), "build", "plugins")
	}
	if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
		t.Fatalf("no %s in %s: run `make plugins` (make test does)", file, dir)
	}
	return dir
}

// Driver points playwright-go at the repository's Playwright driver
// (build/driver, make driver) and this machine's node when
// PLAYWRIGHT_CLI_PATH is not set already. It sets the environment for the
// test, so a parallel test cannot call it.
func Driver(t testing.TB) {
	t.Helper()
	if os.Getenv("PLAYWRIGHT_CLI_PATH") != "" {
		return
	}
	t.Setenv("PLAYWRIGHT_CLI_PATH", filepath.Join(wasmbuild.Root(), "build", "driver", "node_modules", "playwright-core", "cli.js"))
	if node, err := exec.LookPath("node"); err == nil {
		t.Setenv("PLAYWRIGHT_NODEJS_PATH", node)
	}
}

// DriverPrefix is a fresh npm prefix whose node_modules holds the built
// playwright-core (Driver's, linked), as `npm install --prefix` leaves
// one: what browser.driver_dir names.
func DriverPrefix(t testing.TB) string {
	t.Helper()
	Driver(t)
	cli, err := filepath.EvalSymlinks(os.Getenv("PLAYWRIGHT_CLI_PATH"))
	if err != nil {
		t.Fatal(err)
	}
	prefix := t.TempDir()
	os.MkdirAll(filepath.Join(prefix, "node_modules"), 0o755)
	if err := os.Symlink(filepath.Dir(cli), filepath.Join(prefix, "node_modules", "playwright-core")); err != nil {
		t.Fatal(err)
	}
	return prefix
}
