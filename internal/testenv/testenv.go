// Package testenv says what a test does when a part it needs is missing
// from the machine (Chromium, the Playwright driver, the shared corpus):
// on a developer's machine it skips, naming the part and how to get it; in
// CI (CI=true) it fails, so that a run cannot pass green by skipping.
package testenv

import (
	"os"
	"strconv"
	"testing"
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
