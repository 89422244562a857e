package host

import (
	"context"
	"log/slog"
	"testing"

	"github.com/wasmwright/wasmwright/internal/logrec"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// TestDefaultConfigStartsClean: the embedded default configuration, with
// the first-party plugins built, starts without a single warning and every
// personality links without a problem; and the tools' input schemas, as
// the built plugins declare them, check arguments (checkShippedSchemas).
func TestDefaultConfigStartsClean(t *testing.T) {
	testenv.Long(t, "compiles every first-party plugin (browser and web_fetch are 4 MB modules)")
	t.Setenv("WASMWRIGHT_PLUGINS_DIR", testenv.Plugins(t, "SHA256SUMS")) // the default config reads it
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
