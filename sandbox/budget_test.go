package sandbox

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// A loop is stopped by its work budget, with resource_limit naming the
// budget's key, whatever the deadline: here an hour, which only the
// budget can beat.
func TestFuelBudgetStopsALoop(t *testing.T) {
	p := load(t, engine(t, Config{Timeout: time.Hour}), "sandbox/testdata/misbehave")
	f := &Fuel{Budget: 200 << 20, Key: "test.fuel_budget"}
	_, err := p.Call(WithFuel(context.Background(), f), abi.OpCall, frameArgs(t, "loop", `{}`))
	if code(err) != abi.CodeResourceLimit {
		t.Fatalf("want resource_limit, got %v", err)
	}
	for _, w := range []string{"work budget of 209715200 fuel units", "test.fuel_budget", "endless loop"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q does not say %q", err, w)
		}
	}
	if f.Used < f.Budget || f.Used > f.Budget+maxStaticCost {
		t.Errorf("used %d of a budget of %d", f.Used, f.Budget)
	}
	// The instance was discarded; the next call, within its budget, runs.
	f = &Fuel{Budget: 200 << 20}
	if _, err := p.Call(WithFuel(context.Background(), f), abi.OpCall, frameArgs(t, "echo", `{"a":1}`)); err != nil {
		t.Fatalf("a call within its budget after a spent one: %v", err)
	}
	if f.Used <= 0 || f.Used >= f.Budget {
		t.Errorf("echo used %d", f.Used)
	}
}

// A budget smaller than one ration (tickFuel) still stops the call at it.
func TestFuelBudgetBelowOneRation(t *testing.T) {
	p := load(t, engine(t, Config{Timeout: time.Hour}), "sandbox/testdata/misbehave")
	f := &Fuel{Budget: 1000, Key: "tiny"}
	_, err := p.Call(WithFuel(context.Background(), f), abi.OpCall, frameArgs(t, "loop", `{}`))
	if code(err) != abi.CodeResourceLimit || !strings.Contains(err.Error(), "tiny") {
		t.Fatalf("want resource_limit naming tiny, got %v", err)
	}
	if f.Used < 1000 || f.Used > 1000+maxStaticCost {
		t.Errorf("used %d of 1000", f.Used)
	}
}

// Runaways of every kind the fuel charges (a loop, SIMD, bulk memory work,
// a tree of calls) are stopped by a work budget, with resource_limit,
// under a deadline of an hour.
func TestFuelBudgetStopsRunaways(t *testing.T) {
	e := engine(t, Config{Timeout: time.Hour})
	for _, name := range []string{"loop", "simd", "memfill", "calltree"} {
		p, err := e.Load(context.Background(), name, hostileModules()[name], "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f := &Fuel{Budget: 1 << 26, Key: "test.budget"}
		_, err = p.Call(WithFuel(context.Background(), f), abi.OpCall, frameArgs(t, "x", `{}`))
		if code(err) != abi.CodeResourceLimit || !strings.Contains(err.Error(), "test.budget") {
			t.Errorf("%s: want resource_limit naming test.budget, got %v", name, err)
		}
		p.Retire(context.Background())
	}
}

// countdown is a fast-path module whose call counts a local down from n:
// work with no allocation, randomness or clock in it.
func countdown(n int32) []byte {
	fp := newFastPlugin(false)
	fp.m.local(fp.work, 1, tI32)
	fp.m.setCode(fp.work,
		i32c(n), []byte{0x21, 0x00}, // local.set 0
		[]byte{0x03, 0x40},                                 // loop
		localGet(0), i32c(1), opI32Sub, []byte{0x22, 0x00}, // local.tee 0
		[]byte{0x0d, 0x00}, // br_if 0
		[]byte{0x0b})
	return fp.build()
}

// The meter counts exactly: a call whose work is fixed counts the same
// fuel, to the unit, every time, on a fresh instance or a used one, across
// many rations (tickFuel) and whatever the machine's load; twice the work
// counts about twice the fuel.
func TestFuelCountIsExact(t *testing.T) {
	e := engine(t, Config{Timeout: time.Hour, PoolSize: 1})
	used := func(n int32) []int64 {
		p, err := e.Load(context.Background(), "countdown", countdown(n), "")
		if err != nil {
			t.Fatal(err)
		}
		defer p.Retire(context.Background())
		var got []int64
		for i := 0; i < 3; i++ {
			f := &Fuel{}
			if _, err := p.Call(WithFuel(context.Background(), f), abi.OpCall, frameArgs(t, "x", `{}`)); err != nil {
				t.Fatal(err)
			}
			got = append(got, f.Used)
		}
		return got
	}
	a, b := used(10_000_000), used(20_000_000)
	t.Logf("fuel used: %v for 10M iterations, %v for 20M", a, b)
	// The first call also runs ww_alloc, for its input buffer.
	if a[1] != a[2] || b[1] != b[2] || a[0] < a[1] || a[0]-a[1] > 100 || b[0]-b[1] != a[0]-a[1] {
		t.Fatalf("the same work counted differently: %v, %v", a, b)
	}
	if a[0] < 10*tickFuel || b[0]-a[0] < a[0]*9/10 || b[0]-a[0] > a[0]*11/10 {
		t.Fatalf("10M iterations used %d, 20M %d", a[0], b[0])
	}
	// A budget of exactly what it uses lets it finish; one unit less
	// stops it (the first call runs ww_alloc too, the second does not).
	p, err := e.Load(context.Background(), "countdown", countdown(10_000_000), "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Retire(context.Background())
	if _, err := p.Call(WithFuel(context.Background(), &Fuel{Budget: a[0]}), abi.OpCall, frameArgs(t, "x", `{}`)); err != nil {
		t.Fatalf("a budget of what it uses: %v", err)
	}
	if _, err := p.Call(WithFuel(context.Background(), &Fuel{Budget: a[1] - 1}), abi.OpCall, frameArgs(t, "x", `{}`)); code(err) != abi.CodeResourceLimit {
		t.Fatalf("a budget one unit short: %v", err)
	}
}

// A Go plugin's count is reproducible too: the same calls on instances
// with the same history count the same fuel but for the Go runtime's
// garbage collector, whose pacing reads the clock (measured: a few
// hundredths of a percent apart); a larger input counts more.
func TestFuelUsedIsDeterministic(t *testing.T) {
	big := append([]byte(`{"a":[`), bytes.Repeat([]byte(`"abcdefghij",`), 50000)...)
	big = append(big, `"z"]}`...)
	run := func(p *Plugin, args []byte) int64 {
		t.Helper()
		f := &Fuel{}
		if _, err := p.Call(WithFuel(context.Background(), f), abi.OpCall, frameArgs(t, "validate", string(args))); err != nil {
			t.Fatal(err)
		}
		return f.Used
	}
	var first []int64
	for round := 0; round < 2; round++ {
		// A plugin of its own each round: an instance with the same
		// history (describe, then these calls).
		e := engine(t, Config{Timeout: time.Hour, PoolSize: 1})
		p := load(t, e, "sandbox/testdata/misbehave")
		got := []int64{run(p, big), run(p, big), run(p, []byte(`{"a":1}`))}
		t.Logf("round %d: fuel used %v", round, got)
		if round == 0 {
			first = got
			continue
		}
		for i := range got {
			if d := got[i] - first[i]; d < -first[i]/1000 || d > first[i]/1000 {
				t.Errorf("call %d: %d fuel units, then %d", i, first[i], got[i])
			}
		}
	}
	// On one instance, the second call starts from another memory state
	// (the first call's garbage, a grown heap): close, not equal.
	if d := first[0] - first[1]; d < -first[0]/100 || d > first[0]/100 {
		t.Errorf("the same call twice on one instance: %d, then %d", first[0], first[1])
	}
	if first[2] >= first[0] {
		t.Errorf("a 7-byte input used %d, a %d-byte one %d", first[2], len(big), first[0])
	}
}
