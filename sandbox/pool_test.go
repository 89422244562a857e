package sandbox

import (
	"runtime"
	"testing"
	"time"
	"weak"
)

// An instance a failed call discarded is unreachable: nothing of the pool
// keeps it (a pop that left it in the idle list's backing array kept a
// discarded instance's tables, on the Go heap, for as long as the plugin
// lived: up to PoolSize of them).
func TestPoolForgetsDiscardedInstances(t *testing.T) {
	e := engine(t, Config{Timeout: time.Minute})
	p := load(t, e, "sandbox/testdata/misbehave")
	if _, err := callTool(t, p, "echo", `{}`); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	pooled := weak.Make(p.idle[0])
	p.mu.Unlock()
	if _, err := callTool(t, p, "panic", `{}`); err == nil {
		t.Fatal("the panic tool must fail")
	}
	// Up to five collections: on a busy machine, what was still finishing
	// with it may hold it through one; what the pool keeps, it keeps
	// through every one.
	for i := 0; i < 5 && pooled.Value() != nil; i++ {
		runtime.GC()
	}
	if pooled.Value() != nil {
		t.Fatal("the instance the failed call discarded is still reachable after 5 GCs")
	}
	if n := p.Instances(); n != 0 {
		t.Fatalf("%d instances alive after the only one was discarded", n)
	}
}

// An instance whose memory grew past PoolMaxMemory is closed after its
// call, not pooled: the pool would otherwise keep the largest input's
// memory for the host's lifetime. A small call's instance is pooled.
func TestPoolDropsInstancesThatGrew(t *testing.T) {
	e := engine(t, Config{Timeout: time.Minute})
	p := load(t, e, "sandbox/testdata/misbehave")
	if _, err := callTool(t, p, "echo", `{}`); err != nil {
		t.Fatal(err)
	}
	if n := p.Instances(); n != 1 {
		t.Fatalf("after a small call: %d instances alive, want 1 pooled", n)
	}
	p.mu.Lock()
	small := p.idle[0].mem.Size()
	p.mu.Unlock()
	e.cfg.PoolMaxMemory = small + 1<<20 // no call runs
	if _, err := callTool(t, p, "big", `{"n":8388608}`); err != nil {
		t.Fatal(err)
	}
	if n := p.Instances(); n != 0 {
		t.Fatalf("after an 8 MB result (memory past %d bytes): %d instances alive, want it closed", e.cfg.PoolMaxMemory, n)
	}
	if _, err := callTool(t, p, "echo", `{}`); err != nil {
		t.Fatalf("the next call must get a fresh instance: %v", err)
	}
}

// Instances idle for PoolIdleTTL are closed: a host between bursts of
// calls gives their memory back.
func TestPoolClosesIdleInstances(t *testing.T) {
	e := engine(t, Config{Timeout: time.Minute, PoolIdleTTL: 50 * time.Millisecond})
	p := load(t, e, "sandbox/testdata/misbehave")
	if _, err := callTool(t, p, "echo", `{}`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for p.Instances() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d instances still alive 30s after their call, idle TTL %s", p.Instances(), e.cfg.PoolIdleTTL)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := callTool(t, p, "echo", `{}`); err != nil {
		t.Fatalf("a call after the trim: %v", err)
	}
}
