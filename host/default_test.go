package host

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmwright/wasmwright/internal/logrec"
	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// TestDefaultConfigStartsClean: the embedded default configuration, with
// the first-party plugins built, starts without a single warning and every
// personality links without a problem; and the tools' input schemas, as
// the built plugins declare them, check arguments (checkShippedSchemas).
func TestDefaultConfigStartsClean(t *testing.T) {
	testenv.Long(t, "compiles every first-party plugin (browser and web_fetch are 4 MB modules)")
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
	rec := &logrec.Recorder{Min: slog.LevelWarn}
	h, err := New(context.Background(), cfg, Options{Logger: slog.New(rec)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	for _, r := range rec.Records() {
		t.Errorf("default config logged: %s", r)
	}
	for name, p := range *h.roster.cur.Load() {
		if len(p.problems) > 0 {
			t.Errorf("personality %s: %v", name, p.problems)
		}
		if len(p.tools) == 0 {
			t.Errorf("personality %s serves no tool", name)
		}
	}
	t.Run("ShippedToolSchemas", func(t *testing.T) {
		checkShippedSchemas(t, (*h.roster.cur.Load())["default"])
	})
}
