package host

import (
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/internal/procfs"
)

// A configured deadline is the deadline: call_timeout reaches the sandbox
// unstretched unless [host] stretch_with_load opts in (RATIONALE.md,
// "Timeouts mean what was written"). On the previous main every host
// stretched it with the load average, up to 4x.
func TestStretchWithLoadIsOptIn(t *testing.T) {
	cfg, err := ParseConfig("[host]\ncall_timeout = \"60s\"\n", "test", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host.StretchWithLoad || callStretch(cfg) != nil {
		t.Fatalf("stretch_with_load absent: want call_timeout as written, got a stretch (%v)", cfg.Host.StretchWithLoad)
	}
	cfg, err = ParseConfig("[host]\ncall_timeout = \"60s\"\nstretch_with_load = true\n", "test", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := callStretch(cfg)
	if !cfg.Host.StretchWithLoad || s == nil {
		t.Fatal("stretch_with_load = true: want call_timeout stretched with the load")
	}
	if d := s(time.Minute); d < time.Minute || d > procfs.MaxStretch*time.Minute {
		t.Fatalf("stretched 1m = %s, want 1x-%dx", d, procfs.MaxStretch)
	}
}
