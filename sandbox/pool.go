package sandbox

import (
	"context"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// The instance pool of a plugin version: call tokens (Config.MaxCalls),
// idle instances kept for the next call, trimmed after PoolIdleTTL.

// closeIdle closes the instances waiting for a call.
func (p *Plugin) closeIdle() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, inst := range idle {
		inst.close(context.Background())
	}
}

// acquire takes one of the plugin's call tokens, waiting at most until the
// call's deadline (the engine's timeout if ctx has none sooner).
func (p *Plugin) acquire(ctx context.Context) error {
	select {
	case p.calls <- struct{}{}:
		return nil
	default:
	}
	wait := time.NewTimer(p.eng.timeout())
	defer wait.Stop()
	select {
	case p.calls <- struct{}{}:
		return nil
	case <-ctx.Done():
	case <-wait.C:
	}
	return abi.Errorf(abi.CodeResourceLimit, "plugin %s already runs %d calls at once (%s) and none finished before this call's deadline: retry later, or raise %s",
		p.Name, cap(p.calls), p.eng.cfg.MaxCallsKey, p.eng.cfg.MaxCallsKey)
}

// put pools an instance after its call, charged what it holds now, or
// closes it: the pool is full, the plugin retired, the instance grew past
// PoolMaxMemory (its linear memory and its kernel's together) or is older
// than PoolMaxAge.
func (p *Plugin) put(ctx context.Context, inst *instance) {
	if time.Since(inst.born) > p.eng.cfg.PoolMaxAge {
		inst.close(ctx)
		return
	}
	size := inst.memory.Size()
	if size <= uint64(p.eng.cfg.PoolMaxMemory) {
		// Not yet in the pool: no other call can reach it.
		was, now := inst.charge, min(inst.charge, p.idleCharge(inst))
		inst.charge = now
		p.eng.budget.give(was - now)
	}
	p.mu.Lock()
	if !p.retired && len(p.idle) < p.eng.cfg.PoolSize && size <= uint64(p.eng.cfg.PoolMaxMemory) {
		inst.idleSince = time.Now()
		p.idle = append(p.idle, inst)
		if p.trim == nil {
			p.trim = time.AfterFunc(p.eng.cfg.PoolIdleTTL, p.trimIdle)
		} else if len(p.idle) == 1 {
			p.trim.Reset(p.eng.cfg.PoolIdleTTL)
		}
		p.mu.Unlock()
		p.eng.budget.pooling(p)
		return
	}
	p.mu.Unlock()
	inst.close(ctx)
}

// trimIdle closes the instances idle for PoolIdleTTL or more, and comes
// back when the next of the others would be.
func (p *Plugin) trimIdle() {
	now, ttl := time.Now(), p.eng.cfg.PoolIdleTTL
	p.mu.Lock()
	var stale []*instance
	kept := p.idle[:0]
	for _, inst := range p.idle { // oldest first: get takes from the end
		if now.Sub(inst.idleSince) >= ttl {
			stale = append(stale, inst)
		} else {
			kept = append(kept, inst)
		}
	}
	clear(p.idle[len(kept):])
	p.idle = kept
	if len(kept) > 0 {
		p.trim.Reset(ttl - now.Sub(kept[0].idleSince))
	}
	p.mu.Unlock()
	for _, inst := range stale {
		inst.close(context.Background())
	}
}

// Instances reports how many instances are alive.
func (p *Plugin) Instances() int { return int(p.live.Load()) }

// Warm makes sure at least n idle instances exist, so the first calls do not
// pay for instantiation.
func (p *Plugin) Warm(ctx context.Context, n int) error {
	for i := 0; i < n; i++ {
		inst, err := p.fresh(ctx)
		if err != nil {
			return err
		}
		p.put(ctx, inst)
	}
	return nil
}
