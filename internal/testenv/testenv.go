// Package testenv says what a test does when a part it needs is missing
// from the machine (Chromium, the Playwright driver, the shared corpus):
// on a developer's machine it skips, naming the part and how to get it; in
// CI (CI=true) it fails, so that a run cannot pass green by skipping.
package testenv

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

// InCI reports whether the CI environment variable is set to true.
func InCI() bool {
	ci, _ := strconv.ParseBool(os.Getenv("CI"))
	return ci
}

// Require stops t when ok is false: with CI=true it fails naming what is
// missing, otherwise it skips with the same words.
func Require(t testing.TB, ok bool, missing string) {
	t.Helper()
	if ok {
		return
	}
	if InCI() {
		t.Fatalf("CI=true and a required part is missing: %s", missing)
	}
	t.Skip(missing)
}

// Heavy marks a test that needs part: Chromium, the Playwright driver,
// Java and the Selenium server, the MCP Inspector. Under go test -short
// (the short tier: `make test-short`, a loop of seconds that starts no
// browser) it skips, naming the part; otherwise it does nothing, so make
// test and CI's run (no -short) run it, and a part missing there still
// fails through Require. Call it before the part is looked for.
func Heavy(t testing.TB, part string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: needs %s (make test runs it)", part)
	}
}

// Long marks a test that is slow by nature rather than by a missing part:
// it runs a plugin to its deadline, floods, or compiles plugins on purpose
// (over an empty compilation cache, to count the compiles). Under go test
// -short it skips, saying why; make test and CI run it with every
// assertion it has.
func Long(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: %s (make test runs it)", why)
	}
}

// ShortMain is for a package whose TestMain starts what every test there
// shares (one browser service): under -short it says so on stderr and
// returns true, and TestMain exits 0 without running the package. make
// test and CI never pass -short.
func ShortMain(pkg, part string) bool {
	flag.Parse()
	if !testing.Short() {
		return false
	}
	fmt.Fprintf(os.Stderr, "%s: -short: every test here shares %s; make test runs them\n", pkg, part)
	return true
}

// CallWait bounds a test's wait for one tool call through a host: a
// hang-catcher, not a measure. Minutes, as the host's own call_timeout in
// the tests' configs: a first navigate (which starts the browser) passed a
// minute on a machine at load 50, and a tighter bound there fails a test
// because the machine is slow, not because the call hung.
const CallWait = 4 * time.Minute
