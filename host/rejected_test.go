package host

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each refused drop adds a record to .rejected/NAME.wasm.refused.log (the
// history), none overwriting another; and a host started with a refused
// file on disk says the last good version serves and why the file does
// not, which `plugins list` shows in its state column.
func TestRefusedDropsKeepHistoryAndListSaysWhatServes(t *testing.T) {
	t.Parallel() // its own host: overlaps the other such tests' waits
	f := hooksFixture(t)
	events := make(chanSink, 64)
	f.host(t, hooksConfig, events, "watch_plugins = true")
	file := filepath.Join(f.plugins, "testhooks.wasm")
	var bads []string
	for _, mode := range []string{"panic", "garbage"} {
		bad := brokenDetector(t, mode, "")
		bads = append(bads, sha(bad))
		drop(file, bad, true)
		events.waitEvent(t, "plugin.set_aside", sha(bad))
	}
	raw, err := os.ReadFile(filepath.Join(f.plugins, ".rejected", "testhooks.wasm.refused.log"))
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if err != nil || len(lines) != 2 {
		t.Fatalf("want one record per refusal, got %d: %s %v", len(lines), raw, err)
	}
	for i, l := range lines {
		var rec struct{ SHA256, Reason, Time string }
		if json.Unmarshal([]byte(l), &rec) != nil || rec.SHA256 != bads[i] || rec.Reason == "" || rec.Time == "" {
			t.Fatalf("record %d: %s", i, l)
		}
	}

	// A start with the refused file back in place serves the last good
	// version and says so.
	bad := brokenDetector(t, "panic", "")
	drop(file, bad, false)
	h2 := f.host(t, hooksConfig, nil)
	for _, p := range h2.Plugins() {
		if p.Name != "testhooks" {
			continue
		}
		if p.Serving != "last_good" || p.FileError == nil || !strings.Contains(p.FileError.Message, "crashed or answered nonsense") || p.SHA256 != f.sums["testhooks"] {
			t.Fatalf("a refused file must not look served: %+v", p)
		}
		return
	}
	t.Fatal("testhooks not listed")
}
