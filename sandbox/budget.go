package sandbox

import (
	"context"
	"errors"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmwright/wasmwright/abi"
)

// Work budgets: a call bounded by the work it does, not by the seconds it
// takes.
//
// A deadline measures the machine as much as the plugin: the same call on
// the same input passes on an idle machine and fails on a busy one. The fuel
// every module is instrumented to charge (fuel.go) measures the plugin
// alone: about one unit per wasm instruction run (an upper bound: a loop's
// whole body is charged per iteration), one per 16 bytes of bulk memory
// work. A call given a Fuel with a Budget is stopped once it has charged
// that much, with resource_limit naming Fuel.Key, however fast or slow the
// machine; every call, with a budget or without, reports the fuel it used
// in Fuel.Used. The deadline still applies, as a backstop: fuel counts no
// time spent in host functions (a page load, a sleep), nor a host stuck.
//
// Counting is exact: each call starts with the counter set to a known
// ration, ww_tick adds up each ration spent (and the overdraft of the
// charge that emptied it), and the call's end adds what was spent of the
// last one. The same code on the same input and memory therefore counts
// the same fuel. Go plugins draw on real randomness (map seeds) and read
// the clock (the garbage collector's pacing), so their counts can vary a
// little from call to call; budgets are set with a wide margin for that.

// Fuel is one call's work budget and, once the call has returned, the work
// it did. The caller puts it in the call's context (WithFuel) and reads Used
// after the call.
type Fuel struct {
	// Budget is the most fuel the call may use; 0 or less: no budget, the
	// call's deadline alone bounds it.
	Budget int64
	// Key names the setting behind Budget in the refusal, so the message
	// says what to raise.
	Key string
	// Used is the fuel the call used, written when the call returns (also
	// when it failed).
	Used int64
}

type fuelKey struct{}

// WithFuel runs the calls made under ctx with f's budget, and reports the
// fuel each used in f.Used (the last call's, for several).
func WithFuel(ctx context.Context, f *Fuel) context.Context {
	return context.WithValue(ctx, fuelKey{}, f)
}

func fuelOf(ctx context.Context) *Fuel {
	f, _ := ctx.Value(fuelKey{}).(*Fuel)
	return f
}

// errFuelSpent is the trap ww_tick raises when a call has used its budget.
var errFuelSpent = errors.New("plugin stopped at its work budget")

// meter counts an instance's fuel for the running call.
type meter struct {
	budget int64 // 0: none
	// used is the fuel charged before the current ration; ration is what
	// the counter was last set to, or its initial value (tickFuel) on an
	// instance the host has not reached yet.
	used, ration int64
}

// start begins a call with budget (0: none): the counter g, when the host
// can reach it, gets the first ration. An instance whose module is not
// known yet (a plain Extism plugin before its first call) is fresh: its
// counter holds its initial value, tickFuel.
func (m *meter) start(g api.MutableGlobal, budget int64) {
	m.budget, m.used, m.ration = max(budget, 0), 0, tickFuel
	if g == nil {
		return
	}
	if m.budget > 0 && m.budget < m.ration {
		m.ration = m.budget
	}
	g.Set(api.EncodeI32(int32(m.ration)))
}

// tick adds up the ration spent (down to the counter's value now, below
// zero by the charge that emptied it) and returns the next one, or false
// when the budget is spent.
func (m *meter) tick(g api.MutableGlobal) (int32, bool) {
	m.used += m.ration - counter(g)
	m.ration = tickFuel
	if m.budget > 0 {
		left := m.budget - m.used
		if left <= 0 {
			m.ration = 0
			return 0, false
		}
		m.ration = min(left, tickFuel)
	}
	return int32(m.ration), true
}

// stop returns the fuel the call used: what was spent of the last ration
// is added.
func (m *meter) stop(g api.MutableGlobal) int64 {
	if g != nil {
		m.used += m.ration - counter(g)
		m.ration = counter(g)
	}
	return m.used
}

// counter reads the fuel counter; without one (not reached yet), a ration
// is counted as spent whole.
func counter(g api.MutableGlobal) int64 {
	if g == nil {
		return 0
	}
	return int64(api.DecodeI32(g.Get()))
}

// fuelGlobal is the instance's fuel counter (the ww_fuel export), once
// the host knows its module.
func (inst *instance) fuelGlobal() api.MutableGlobal {
	if inst.fuel == nil && inst.mod != nil {
		inst.fuel, _ = inst.mod.ExportedGlobal(fuelExportName).(api.MutableGlobal)
	}
	return inst.fuel
}

// spent is the refusal of a call that used its budget.
func (p *Plugin) spent(budget int64, key string) error {
	if key == "" {
		key = "the call's fuel budget"
	}
	return abi.Errorf(abi.CodeResourceLimit, "plugin %s used its work budget of %d fuel units (%s) and was stopped; the instance was discarded: check the plugin for an endless loop, or raise %s", p.Name, budget, key, key)
}
