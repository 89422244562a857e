package sandbox

import (
	"testing"
	"time"
)

// An instance a failed call discarded is kept by nothing of the pool: a
// pop that left it in the idle list's backing array kept a discarded
// instance's tables, on the Go heap, for as long as the plugin lived (up
// to PoolSize of them). The whole backing array is checked, not whether a
// collection frees the instance: on a loaded machine a collection may
// still find it held (no dumped root showed by what), which is not the
// pool's doing.
func TestPoolForgetsDiscardedInstances(t *testing.T) {
	e := engine(t, Config{Timeout: time.Minute})
	p := load(t, e, "sandbox/testdata/misbehave")
	if _, err := callTool(t, p, "echo", `{}`); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	pooled := p.idle[0]
	p.mu.Unlock()
	if _, err := callTool(t, p, "panic", `{}`); err == nil {
		t.Fatal("the panic tool must fail")
	}
	p.mu.Lock()
	slots := p.idle[:cap(p.idle)]
	p.mu.Unlock()
	for i, inst := range slots {
		if inst == pooled {
			t.Fatalf("slot %d of the idle list's backing array (len %d) still holds the discarded instance", i, len(p.idle))
		}
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

// An instance older than PoolMaxAge is closed after its call, not pooled:
// one called back to back is never idle long enough to be trimmed, and
// its memory, which never shrinks, would stay at its largest for as long
// as the host runs. The next call gets a fresh instance.
func TestPoolRetiresOldInstances(t *testing.T) {
	e := engine(t, Config{Timeout: time.Minute, PoolMaxAge: time.Nanosecond})
	p := load(t, e, "sandbox/testdata/misbehave")
	for i := range 2 {
		if _, err := callTool(t, p, "echo", `{}`); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if n := p.Instances(); n != 0 {
			t.Fatalf("after call %d: %d instances alive, want the old one closed", i, n)
		}
	}
	if u := e.MemoryUse(); u.Used != 0 {
		t.Fatalf("closed instances still charged: %+v", u)
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
