// Package corpus finds the shared corpus of real pages, walls and hostile
// URLs that tests and benchmarks read: $WASMWRIGHT_CORPUS, else
// ../shared/corpus beside the repository root. Never a machine's absolute
// path.
package corpus

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
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

// Pages lists the names of the .html files in dir, in name order.
func Pages(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir) // sorted by name
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".html") {
			out = append(out, e.Name())
		}
	}
	return out, err
}

// Largest lists the paths of the n largest .html files in dir, largest
// first (all of them when there are fewer).
func Largest(dir string, n int) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	type page struct {
		path string
		size int64
	}
	var ps []page
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".html") {
			ps = append(ps, page{filepath.Join(dir, e.Name()), fi.Size()})
		}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].size > ps[j].size })
	var out []string
	for _, p := range ps[:min(n, len(ps))] {
		out = append(out, p.path)
	}
	return out, nil
}
