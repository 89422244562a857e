package host

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// recordHandler keeps the records at or above Warn.
type recordHandler struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *recordHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (r *recordHandler) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec)
	return nil
}
func (r *recordHandler) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recordHandler) WithGroup(string) slog.Handler      { return r }

// TestDefaultConfigStartsClean: the embedded default configuration, with
// the first-party plugins built, starts without a single warning and every
// personality links without a problem.
func TestDefaultConfigStartsClean(t *testing.T) {
	plugins := os.Getenv("WASMWRIGHT_PLUGINS_DIR")
	if plugins == "" {
		plugins = filepath.Join(wasmbuild.Root(), "build", "plugins")
		t.Setenv("WASMWRIGHT_PLUGINS_DIR", plugins)
	}
	if _, err := os.Stat(filepath.Join(plugins, "SHA256SUMS")); err != nil {
		t.Fatalf("no built plugins in %s: run `make plugins` (make test does)", plugins)
	}
	cfg, err := LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host.CacheDir = testCache
	cfg.Host.WatchPlugins = false
	rec := &recordHandler{}
	h, err := New(context.Background(), cfg, Options{Logger: slog.New(rec)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	for _, r := range rec.recs {
		msg := r.Message
		r.Attrs(func(a slog.Attr) bool { msg += " " + a.String(); return true })
		t.Errorf("default config logged %s: %s", r.Level, msg)
	}
	for name, p := range *h.pers.Load() {
		if len(p.problems) > 0 {
			t.Errorf("personality %s: %v", name, p.problems)
		}
		if len(p.tools) == 0 {
			t.Errorf("personality %s serves no tool", name)
		}
	}
}
