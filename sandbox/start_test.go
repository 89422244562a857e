package sandbox

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// A module with a start section (what AssemblyScript emits by default)
// whose start function calls a host function loads: the start function
// runs once per instance, inside its first call, where host functions
// work, not at instantiation, where none can.
func TestStartSectionRunsInsideTheFirstCall(t *testing.T) {
	var calls atomic.Int32
	var plugin atomic.Value
	e := engine(t, Config{HostFuncs: []HostFunc{{Name: abi.HostInfo, Fn: func(ctx context.Context, p string, _ []byte) ([]byte, error) {
		calls.Add(1)
		plugin.Store(p)
		return []byte(`{}`), nil
	}}}})
	fp := newFastPlugin(true)
	start := fp.m.fn(nil, nil, i32c(0), i32c(0), call(fp.hostInfo), opDrop)
	fp.m.start = int(start) + 1
	p, err := e.Load(context.Background(), "started", fp.build(), "")
	if err != nil {
		t.Fatalf("a module whose start function calls a host function must load: %v", err)
	}
	t.Cleanup(func() { p.Retire(context.Background()) })
	if n := calls.Load(); n != 1 || plugin.Load() != "started" {
		t.Fatalf("start function: %d host calls by %v, want 1 by started", n, plugin.Load())
	}
	for i := 0; i < 3; i++ {
		if _, err := callTool(t, p, "x", `{}`); err != nil {
			t.Fatal(err)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("the start function ran %d times on one instance, want once", n)
	}
}
