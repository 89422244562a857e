package sandbox

import (
	"context"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// The host-wide memory budget (Config.MaxPluginMemory).
//
// memory_mb bounds one instance, max_calls the instances of one plugin
// version; neither bounds the host: every plugin version of every
// personality has its own pool and its own max_calls, so 7 concurrent
// calls of one plugin that allocated through Extism's kernel held 790 MB,
// and its pool kept 477 MB after they returned. The budget bounds the sum:
//
//   - an instance running a call is charged what it may grow to
//     (busyCharge): memory_mb, which bounds its linear memory, its
//     kernel's memory and its tables together (linearmem.go, membound.go);
//     twice that for a module whose code grows tables (the tables' bound,
//     memory_mb less its linear memory, is checked apart from the
//     kernel's). Charging what it has grown to instead would let calls
//     that fit when they start grow past the budget together, and then
//     the budget could only fail a call half-way, depending on what else
//     runs: the same call would pass idle and fail busy.
//   - an idle pooled instance cannot grow: it is charged what it holds
//     (idleCharge), so a pool of small instances costs what it is.
//   - a call takes its charge before it takes an instance (reserve). When
//     the budget is short, idle instances of any plugin are closed first
//     (oldest first); then the call waits for memory to be given back,
//     until its deadline, and then fails resource_limit naming the key.
//
// So instances alive at once, and the memory kept after calls return,
// stay within the budget. Not counted: the Go-side structures of an
// instance (its module instance, stacks, a few KiB) and the compiled code,
// which is shared by every instance of a version.
type memBudget struct {
	total uint64
	key   string

	mu       sync.Mutex
	used     uint64 // charged: busy instances and reservations, idle instances
	peak     uint64
	live     int // instances alive (idle or busy)
	peakLive int
	waiting  int
	wake     chan struct{}        // closed when memory is given back
	pools    map[*Plugin]struct{} // plugins that have pooled an instance
}

// DefaultMaxPluginMemory lets 16 calls of plugins at the default memory
// limit (128 MiB) run at once, each charged its whole limit: ten agent
// sessions, each with a tool or hook call running, and room besides for
// the idle instances their pools keep (first-party hooks hold under
// 30 MiB each).
const DefaultMaxPluginMemory = 2048 << 20

// MemoryUse is the budget's state (Engine.MemoryUse).
type MemoryUse struct {
	// Budget is the host-wide budget, in bytes.
	Budget uint64
	// Used is what is charged now: each running instance at its bound,
	// each idle one at what it holds. Peak is the most Used has been.
	Used, Peak uint64
	// Live counts the instances alive now, PeakLive the most at once.
	Live, PeakLive int
	// Waiting counts the calls waiting for memory.
	Waiting int
}

func newMemBudget(total uint64, key string) *memBudget {
	return &memBudget{total: total, key: key, wake: make(chan struct{}), pools: map[*Plugin]struct{}{}}
}

// MemoryUse reports the host-wide budget's state.
func (e *Engine) MemoryUse() MemoryUse {
	b := e.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	return MemoryUse{Budget: b.total, Used: b.used, Peak: b.peak, Live: b.live, PeakLive: b.peakLive, Waiting: b.waiting}
}

// busyCharge is what an instance of p may grow to during a call.
func (p *Plugin) busyCharge() uint64 {
	m := uint64(p.eng.cfg.MemoryPages) << 16
	if p.shape.growsTables {
		return 2 * m
	}
	return m
}

// idleCharge is what an idle instance holds (or may hold, for tables a
// module grew, which the host cannot read back).
func (p *Plugin) idleCharge(inst *instance) uint64 {
	c := inst.memory.Size() + p.shape.fixed
	if p.shape.growsTables {
		c += uint64(p.eng.cfg.MemoryPages) << 16
	}
	return c
}

// tryTake charges n if it fits.
func (b *memBudget) tryTake(n uint64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.total {
		return false
	}
	b.used += n
	b.peak = max(b.peak, b.used)
	return true
}

// give takes n back and wakes the waiting calls.
func (b *memBudget) give(n uint64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	if b.waiting > 0 { // a call that starts waiting later sees used first
		close(b.wake)
		b.wake = make(chan struct{})
	}
	b.mu.Unlock()
}

// opened and closed count the instances alive.
func (b *memBudget) opened() {
	b.mu.Lock()
	b.live++
	b.peakLive = max(b.peakLive, b.live)
	b.mu.Unlock()
}

func (b *memBudget) closed() {
	b.mu.Lock()
	b.live--
	b.mu.Unlock()
}

// pooling records that p keeps idle instances, for evictIdle.
func (b *memBudget) pooling(p *Plugin) {
	b.mu.Lock()
	b.pools[p] = struct{}{}
	b.mu.Unlock()
}

// forget drops a retired plugin from the pools evictIdle looks at.
func (b *memBudget) forget(p *Plugin) {
	b.mu.Lock()
	delete(b.pools, p)
	b.mu.Unlock()
}

// evictIdle closes the oldest idle instance of each plugin that has one,
// and reports whether it closed any.
func (b *memBudget) evictIdle() bool {
	b.mu.Lock()
	pools := make([]*Plugin, 0, len(b.pools))
	for p := range b.pools {
		pools = append(pools, p)
	}
	b.mu.Unlock()
	closed := false
	for _, p := range pools {
		p.mu.Lock()
		var inst *instance
		if len(p.idle) > 0 {
			inst = p.idle[0] // oldest: get takes from the end
			n := copy(p.idle, p.idle[1:])
			p.idle[n] = nil
			p.idle = p.idle[:n]
		}
		p.mu.Unlock()
		if inst != nil {
			inst.close(context.Background())
			closed = true
		}
	}
	return closed
}

// holdsBudget marks the context of a running plugin call: its instance's
// charge is taken.
type holdsBudget struct{}

// reserve charges n bytes for a call of p, closing idle instances when
// the budget is short, else waiting until the call's deadline (the
// engine's timeout if ctx has none sooner).
func (b *memBudget) reserve(ctx context.Context, p *Plugin, n uint64) error {
	if n > b.total {
		return abi.Errorf(abi.CodeResourceLimit, "plugin %s: one instance may hold %d MiB (%s) but the host-wide plugin memory budget (%s) is %d MiB: raise %s, or lower %s",
			p.Name, n>>20, p.eng.cfg.MemoryKey, b.key, b.total>>20, b.key, p.eng.cfg.MemoryKey)
	}
	var timer *time.Timer
	for {
		if b.tryTake(n) {
			return nil
		}
		if b.evictIdle() {
			continue
		}
		if ctx.Value(holdsBudget{}) != nil {
			// A call made from inside another plugin's call (a host
			// function calling a plugin): waiting could wait on the
			// outer call itself, so it is charged over the budget, by
			// at most one instance per running outer call.
			b.mu.Lock()
			b.used += n
			b.peak = max(b.peak, b.used)
			b.mu.Unlock()
			return nil
		}
		b.mu.Lock()
		if b.used+n <= b.total {
			b.mu.Unlock()
			continue
		}
		wake := b.wake
		b.waiting++
		b.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(p.eng.timeout())
			defer timer.Stop()
		}
		var done bool
		select {
		case <-wake:
		case <-ctx.Done():
			done = true
		case <-timer.C:
			done = true
		}
		b.mu.Lock()
		b.waiting--
		used := b.used
		b.mu.Unlock()
		if done {
			return abi.Errorf(abi.CodeResourceLimit, "plugin %s: plugin instances hold %d of the %d MiB host-wide budget (%s) and not the %d MiB this call needs gave back before its deadline: retry later, or raise %s",
				p.Name, used>>20, b.total>>20, b.key, n>>20, b.key)
		}
	}
}

// get returns an instance for a call, charged to the host-wide budget
// at what it may grow to: the charge is taken first (reserve), then an
// idle instance's own charge is given back, or a new one made.
func (p *Plugin) get(ctx context.Context) (*instance, error) {
	if _, err := p.module(); err != nil { // the charge needs its shape
		return nil, err
	}
	busy := p.busyCharge()
	if err := p.eng.budget.reserve(ctx, p, busy); err != nil {
		return nil, err
	}
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		inst := p.idle[n-1]
		// The slot is cleared: the backing array would otherwise keep the
		// instance reachable after a failed call discards it, and with it
		// its tables (on the Go heap), up to PoolSize of them per plugin.
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		idle := inst.charge
		inst.charge = busy
		p.eng.budget.give(idle)
		return inst, nil
	}
	p.mu.Unlock()
	return p.charged(ctx, busy)
}

// fresh returns a new instance, charged as get charges it.
func (p *Plugin) fresh(ctx context.Context) (*instance, error) {
	if _, err := p.module(); err != nil {
		return nil, err
	}
	busy := p.busyCharge()
	if err := p.eng.budget.reserve(ctx, p, busy); err != nil {
		return nil, err
	}
	return p.charged(ctx, busy)
}

// charged makes a new instance under the charge busy, already reserved.
func (p *Plugin) charged(ctx context.Context, busy uint64) (*instance, error) {
	inst, err := p.newInstance(ctx)
	if err != nil {
		p.eng.budget.give(busy)
		return nil, err
	}
	inst.charge = busy
	return inst, nil
}
