// Package corpus finds the shared corpus of real pages, walls and hostile
// URLs that tests and benchmarks read: $WASMWRIGHT_CORPUS, else
// ../shared/corpus beside the repository root. Never a machine's absolute
// path.
package corpus

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// Env overrides where the corpus is.
const Env = "WASMWRIGHT_CORPUS"

// Dir is the corpus folder (which may not exist).
func Dir() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	return filepath.Join(wasmbuild.Root(), "..", "shared", "corpus")
}

// Sub is Dir's folder sub, and whether it exists.
func Sub(sub string) (string, bool) {
	d := filepath.Join(Dir(), sub)
	st, err := os.Stat(d)
	return d, err == nil && st.IsDir()
}

// Absent is the message a test skips with when the corpus is not there.
func Absent(dir string) string {
	return "the shared corpus is absent (" + dir + "): put it at ../shared/corpus beside the repository root, or set " + Env
}

// Need is Dir's folder sub for a test that reads it: absent, the test
// skips (Absent's message), or fails when CI=true.
func Need(t testing.TB, sub string) string {
	t.Helper()
	dir, ok := Sub(sub)
	testenv.Require(t, ok, Absent(dir))
	return dir
}
