package sandbox

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// holdGate is a ww_host_info that holds each call until released, and
// counts the calls inside it at once.
type holdGate struct {
	entered chan struct{}
	release chan struct{}
	in, max atomic.Int64
}

func newHoldGate() *holdGate {
	return &holdGate{entered: make(chan struct{}, 64), release: make(chan struct{})}
}

func (g *holdGate) fn(ctx context.Context, _ string, _ []byte) ([]byte, error) {
	n := g.in.Add(1)
	defer g.in.Add(-1)
	for m := g.max.Load(); n > m && !g.max.CompareAndSwap(m, n); m = g.max.Load() {
	}
	g.entered <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
	}
	return []byte(`{}`), nil
}

func hold(ctx context.Context, p *Plugin, ownMB, kernelMB int) ([]byte, error) {
	in, _ := abi.Frame(abi.CallHeader{Tool: "hold", Session: "s1"}, []byte(fmt.Sprintf(`{"own_mb":%d,"kernel_mb":%d}`, ownMB, kernelMB)))
	return p.Call(ctx, abi.OpCall, in)
}

// holdAll starts n hold calls at once; the function it returns waits for
// them all and returns each one's error.
func holdAll(p *Plugin, n, ownMB, kernelMB int) func() []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = hold(context.Background(), p, ownMB, kernelMB)
		}()
	}
	return func() []error {
		wg.Wait()
		return errs
	}
}

// waitFor polls cond (a state the engine reports, not a time) for at most
// a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// idleHeld is what p's idle instances hold, read from their memories.
func idleHeld(p *Plugin) (n int, held uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, inst := range p.idle {
		held += p.idleCharge(inst)
	}
	return len(p.idle), held
}

// Six concurrent calls of a plugin that allocates through Extism's kernel,
// under a budget of three instances' memory limits: three run, three wait
// (a call with a short deadline fails resource_limit naming the key), the
// waiting ones run as the first ones give their memory back, and what is
// charged never passes the budget, during the calls or after. Before the
// budget, all six ran at once, each with up to twice memory_mb (its own
// memory and the kernel's), and the pool kept four of them.
func TestMemoryBudgetBoundsConcurrentCalls(t *testing.T) {
	testenv.Long(t, "a flood: six calls against a three-slot memory budget")
	const memMB, slots = 32, 3
	g := newHoldGate()
	e := engine(t, Config{Timeout: 2 * time.Minute, MemoryPages: memMB * 16, MaxPluginMemory: slots * memMB << 20,
		MaxPluginMemoryKey: "host.max_plugin_memory_mb", HostFuncs: []HostFunc{{Name: abi.HostInfo, Fn: g.fn}}})
	p := load(t, e, "sandbox/testdata/kernelalloc")
	const n = 2 * slots
	calls := holdAll(p, n, 2, 20)
	for i := 0; i < slots; i++ {
		<-g.entered
	}
	var once sync.Once
	open := func() { once.Do(func() { close(g.release) }) }
	defer open() // a failure below lets the held calls end
	waitFor(t, "three calls waiting for memory, or more than three running", func() bool {
		return e.MemoryUse().Waiting == n-slots || g.in.Load() > slots
	})
	u := e.MemoryUse()
	if u.Used > u.Budget || u.Live > slots || g.in.Load() != slots {
		t.Fatalf("while %d calls are held: %+v, %d calls running; want at most %d instances and %d bytes charged", slots, u, g.in.Load(), slots, u.Budget)
	}
	short, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err := hold(short, p, 0, 0)
	cancel()
	if code(err) != abi.CodeResourceLimit || !strings.Contains(err.Error(), "host.max_plugin_memory_mb") {
		t.Fatalf("a call with the budget taken: want resource_limit naming host.max_plugin_memory_mb, got %v", err)
	}
	open()
	for i, err := range calls() {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	u = e.MemoryUse()
	if g.max.Load() > slots || u.Peak > u.Budget {
		t.Fatalf("at most %d calls ran at once (want at most %d); peak charged %d MiB of a %d MiB budget", g.max.Load(), slots, u.Peak>>20, u.Budget>>20)
	}
	// Kept: the idle instances, charged what their memories hold.
	idle, held := idleHeld(p)
	if u.Used != held || held > u.Budget || u.Live != idle || idle == 0 {
		t.Fatalf("after the calls: %+v; %d idle instances hold %d MiB: want the charge equal to what they hold, within the budget", u, idle, held>>20)
	}
}

// Extism's kernel memory counts against memory_mb with the plugin's own:
// each could take memory_mb before, so an instance held twice its limit.
func TestKernelMemoryCountsAgainstMemoryLimit(t *testing.T) {
	g := newHoldGate()
	close(g.release)
	e := engine(t, Config{Timeout: time.Minute, MemoryPages: 32 * 16, MemoryKey: "host.memory_mb",
		HostFuncs: []HostFunc{{Name: abi.HostInfo, Fn: g.fn}}})
	p := load(t, e, "sandbox/testdata/kernelalloc")
	if _, err := hold(context.Background(), p, 2, 8); err != nil {
		t.Fatalf("10 MiB of a 32 MiB limit: %v", err)
	}
	_, err := hold(context.Background(), p, 12, 24)
	if code(err) != abi.CodeResourceLimit || !strings.Contains(err.Error(), "host.memory_mb") || !strings.Contains(err.Error(), "kernel") {
		t.Fatalf("12 MiB of its own and 24 MiB through the kernel under a 32 MiB limit: want resource_limit naming host.memory_mb and the kernel, got %v", err)
	}
	if _, err := hold(context.Background(), p, 2, 8); err != nil {
		t.Fatalf("after the refusal, a fresh instance: %v", err)
	}
	if u := e.MemoryUse(); u.Used > 32<<20 {
		t.Fatalf("one idle instance charged %d MiB, over its 32 MiB limit", u.Used>>20)
	}
}

// Ten calls at once of plugins at the default memory limit all run under
// the default budget: it bounds the host, not ten agent sessions.
func TestDefaultBudgetRunsTenSessions(t *testing.T) {
	testenv.Long(t, "a flood: ten instances at the default memory limit at once")
	const n = 10
	var arrived atomic.Int64
	all := make(chan struct{})
	barrier := func(ctx context.Context, _ string, _ []byte) ([]byte, error) {
		if arrived.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
			return []byte(`{}`), nil
		case <-ctx.Done():
			return nil, abi.Errorf(abi.CodeTimeout, "only %d of %d calls ran at once", arrived.Load(), n)
		}
	}
	e := engine(t, Config{Timeout: time.Minute, HostFuncs: []HostFunc{{Name: abi.HostInfo, Fn: barrier}}})
	if c := e.Config(); c.MaxPluginMemory != DefaultMaxPluginMemory || c.MemoryPages != DefaultMemoryPages {
		t.Fatalf("defaults: %+v", c)
	}
	p := load(t, e, "sandbox/testdata/kernelalloc")
	for i, err := range holdAll(p, n, 8, 16)() {
		if err != nil {
			t.Fatalf("call %d of %d at once under the default budget: %v", i, n, err)
		}
	}
	if u := e.MemoryUse(); u.PeakLive < n || u.Peak > u.Budget {
		t.Fatalf("%+v: want %d instances at once within the budget", u, n)
	}
}
