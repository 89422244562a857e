package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// Hostile modules that try to make the host allocate past memory_mb
// (membound.go), one per instruction or section that allocates. Kept in
// testdata/hostile/ beside the runaways (regenerate with
// go test ./sandbox -run TestBoundModulesCurrent -update).

const (
	refNullFunc   = 0x70
	refNullExtern = 0x6f
	boundKey      = "host.memory_mb"
	smallPages    = 512 // 32 MiB
)

func opTableGrow(t uint32) []byte { return appendU32([]byte{0xfc, 15}, t) }
func refNull(t byte) []byte       { return []byte{0xd0, t} }

var opMemGrow = []byte{0x40, 0x00}

// withSection returns wasm with section id set to body (inserted in
// canonical order, or replacing the one there).
func withSection(wasm []byte, id byte, body []byte) []byte {
	var secs sections
	r := &reader{b: wasm, p: 8}
	for r.p < len(wasm) {
		sid := r.byte()
		n := r.u32()
		if sid != id {
			secs = append(secs, section{sid, wasm[r.p : r.p+int(n)]})
		}
		r.p += int(n)
	}
	secs[secs.ensure(id)].body = body
	return rebuild(wasm[:8], secs)
}

// tableSec declares one table of type t with minimum min and no maximum.
func tableSec(t byte, min uint32) []byte { return appendU32([]byte{1, t, 0x00}, min) }

// boundModules builds every memory-bound hostile module, by name.
func boundModules() map[string][]byte {
	ms := map[string][]byte{}
	withTable := func(name string, t byte, min uint32, work ...[]byte) {
		fp := newFastPlugin(false)
		fp.m.setCode(fp.work, work...)
		ms[name] = withSection(fp.build(), 4, tableSec(t, min))
	}
	// The attack: one table.grow of 100M entries (800 MB) a call.
	withTable("table_grow_funcref", refNullFunc, 0, refNull(refNullFunc), i32c(100_000_000), opTableGrow(0), opDrop)
	withTable("table_grow_externref", refNullExtern, 0, refNull(refNullExtern), i32c(100_000_000), opTableGrow(0), opDrop)
	// Small grows that add up: 1M entries (8 MB) at a time, forever.
	withTable("table_grow_steps", refNullFunc, 0, loopForever(refNull(refNullFunc), i32c(1<<20), opTableGrow(0), opDrop))
	// Tables and memory share the budget, whichever grows first (the
	// tests run these under a 32 MiB limit): 16 MiB of table, then 18.75
	// MiB of memory (the plugin crashes if it got it)...
	withTable("memory_after_table", refNullFunc, 0, refNull(refNullFunc), i32c(2<<20), opTableGrow(0), opDrop,
		i32c(300), opMemGrow, i32c(-1), []byte{0x47, 0x04, 0x40, 0x00, 0x0b}) // i32.ne; if; unreachable; end
	// ... and 25 MiB of memory, then 8 MiB of table.
	withTable("table_after_memory", refNullFunc, 0, i32c(400), opMemGrow, opDrop, refNull(refNullFunc), i32c(1<<20), opTableGrow(0), opDrop)
	// Declared, not grown: a table of 2^27-1 entries (1 GiB), the most
	// wazero's decoder takes.
	withTable("table_min_huge", refNullFunc, 1<<27-1)
	// A memory minimum over the limit.
	fp := newFastPlugin(false)
	fp.m.memMin = 2049
	ms["memory_min_over"] = fp.build()
	// Two memories (multi-memory); a memory64 memory.
	fp = newFastPlugin(false)
	ms["two_memories"] = withSection(fp.build(), 5, []byte{2, 0x00, 1, 0x00, 1})
	ms["memory64"] = withSection(fp.build(), 5, []byte{1, 0x04, 1})
	// 17 tables: more than maxTables.
	many := []byte{17}
	for i := 0; i < 17; i++ {
		many = append(many, refNullFunc, 0x00, 0)
	}
	ms["many_tables"] = withSection(fp.build(), 4, many)
	// A module may not export the limit function's name itself.
	fp.m.export(limitExport, 0, fp.work)
	ms["exports_limit"] = fp.build()
	return ms
}

func TestBoundModulesCurrent(t *testing.T) {
	dir := filepath.Join("testdata", "hostile")
	for name, b := range boundModules() {
		path := filepath.Join(dir, name+".wasm")
		if *update {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s is missing or stale: run go test ./sandbox -run TestBoundModulesCurrent -update", path)
		}
	}
}

// loadBound loads boundModules()[name] into h's engine.
func (h *hostileEngine) loadBound(t *testing.T, name string) (*Plugin, error) {
	t.Helper()
	p, err := h.e.Load(context.Background(), name, boundModules()[name], "")
	if err == nil {
		if err = p.Compile(); err != nil {
			p.Retire(context.Background())
		}
	}
	if err == nil {
		t.Cleanup(func() { p.Retire(context.Background()) })
	}
	return p, err
}

// heapInUse is the Go heap in use after a GC: wazero's tables live there.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// heapGrowth is how much the heap in use grew since before, the least of
// up to five collections while it is over limit: what the test's other
// goroutines were still finishing (the attack's checks, a discarded
// instance's close) on a busy machine goes in a later one; what the host
// keeps stays in every one.
func heapGrowth(before uint64, limit int64) int64 {
	grew := int64(heapInUse()) - int64(before)
	for i := 0; i < 4 && grew > limit; i++ {
		grew = min(grew, int64(heapInUse())-int64(before))
	}
	return grew
}

// A table.grow that would take the instance past memory_mb fails the call
// with resource_limit naming the key and the plugin, call after call (the
// issue's attack kept 800 MB per pooled instance), and the host's heap
// does not keep what the attack asked for; while it runs, GC completes and
// another plugin is served.
func TestHostileTableGrowth(t *testing.T) {
	testenv.Long(t, "four table-growth attacks, each checked under GC and calls")
	h := newHostileEngine(t, Config{MemoryKey: boundKey})
	// Grows that add up are checked against a 32 MiB limit: up to 128
	// MiB, the allocations alone (fresh pages, one copy per grow) can hold
	// GC off for over a second on a loaded machine, as growing linear
	// memory to its limit does.
	small := newHostileEngine(t, Config{MemoryPages: smallPages, MemoryKey: boundKey})
	for _, h := range []*hostileEngine{h, small} {
		// Not during an attack: its manifest cached, the well-behaved
		// plugin would compile at its first call, which takes seconds on
		// a loaded machine.
		if err := h.good.Compile(); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"table_grow_funcref", "table_grow_externref", "table_grow_steps", "table_after_memory"} {
		t.Run(name, func(t *testing.T) {
			h := h
			if name == "table_grow_steps" || name == "table_after_memory" {
				h = small
			}
			p, err := h.loadBound(t, name)
			if err != nil {
				t.Fatal(err)
			}
			before := heapInUse()
			for i := 0; i < 5; i++ {
				err := h.underAttack(t, func() error { _, err := callTool(t, p, "x", `{}`); return err })
				if code(err) != abi.CodeResourceLimit || !strings.Contains(err.Error(), boundKey) || !strings.Contains(err.Error(), "plugin "+name) {
					t.Fatalf("call %d: want resource_limit naming %s and the plugin, got %v", i+1, boundKey, err)
				}
			}
			// The 5 instances were discarded: the pool keeps none of them
			// (TestPoolForgetsDiscardedInstances). On a loaded machine one
			// may still be held through the collections, once in a few
			// dozen runs (never found in a heap dump: not from any dumped
			// root), so the bound is one instance's worth, memory_mb; five
			// kept instances (the idle list's stale slots did that) are
			// over it.
			if limit := int64(h.e.cfg.MemoryPages) << 16; heapGrowth(before, limit) > limit {
				t.Fatalf("the host's heap grew by %d MiB over 5 refused calls (at most %d MiB)", heapGrowth(before, limit)>>20, limit>>20)
			}
			h.stillServes(t)
		})
	}
}

// Memory cannot grow into what tables already take: memory.grow then
// returns -1 (the module crashes if it got the memory).
func TestMemoryGrowCountsTables(t *testing.T) {
	h := newHostileEngine(t, Config{MemoryPages: smallPages, MemoryKey: boundKey})
	p, err := h.loadBound(t, "memory_after_table")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := callTool(t, p, "x", `{}`); err != nil {
		t.Fatalf("memory.grow past tables + memory = memory_mb must return -1: %v", err)
	}
	// The pooled instance keeps its table: the next call's table.grow
	// (another 16 MiB) does not fit beside it.
	if _, err := callTool(t, p, "x", `{}`); code(err) != abi.CodeResourceLimit {
		t.Fatalf("a second 64 MiB table.grow in the same instance: want resource_limit, got %v", err)
	}
	// The same grows fit a budget twice as large.
	h2 := newHostileEngine(t, Config{MemoryPages: 2 * smallPages, MemoryKey: boundKey})
	p2, err := h2.loadBound(t, "memory_after_table")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := callTool(t, p2, "x", `{}`); code(err) != abi.CodePluginFailed {
		t.Fatalf("with room for both, memory.grow must succeed (the module then crashes on purpose): %v", err)
	}
}

// What a module declares is counted at load: over the budget it is refused
// with resource_limit naming the key; what the rule cannot count (several
// memories, memory64, too many tables) is refused naming the feature.
func TestLoadRefusesDeclarationsOverMemoryLimit(t *testing.T) {
	h := newHostileEngine(t, Config{MemoryKey: boundKey})
	want := map[string]struct {
		code abi.Code
		says string
	}{
		"table_min_huge":  {abi.CodeResourceLimit, boundKey},
		"memory_min_over": {abi.CodeResourceLimit, boundKey},
		"two_memories":    {abi.CodeRefused, "2 memories"},
		"memory64":        {abi.CodeRefused, "memory64"},
		"many_tables":     {abi.CodeRefused, "17 tables"},
		"exports_limit":   {abi.CodeRefused, limitExport},
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		before := heapInUse()
		_, err := h.loadBound(t, name)
		if code(err) != want[name].code || !strings.Contains(err.Error(), want[name].says) || !strings.Contains(err.Error(), "plugin "+name) {
			t.Errorf("%s: want %s naming %q and the plugin, got %v", name, want[name].code, want[name].says, err)
		}
		if grew := int64(heapInUse()) - int64(before); grew > 64<<20 {
			t.Errorf("%s: refusing it grew the heap by %d MiB", name, grew>>20)
		}
	}
	h.stillServes(t)
}

// Element segment entries and globals are allocated per instance too:
// they count, and a module with more than the budget's worth is refused.
func TestLoadCountsElementsAndGlobals(t *testing.T) {
	// 2 MiB: an instance's Extism kernel takes 1 MiB of it to start with.
	const pages = 32
	e := engine(t, Config{MemoryPages: pages, MemoryKey: boundKey})
	// A passive segment of 400,000 entries: 3.2 MB of references.
	fp := newFastPlugin(false)
	elems := cat([]byte{1, 0x01, 0x00}, appendU32(nil, 400_000), bytes.Repeat([]byte{0}, 400_000))
	wasm := withSection(fp.build(), 9, elems)
	if _, err := e.Load(context.Background(), "elems", wasm, ""); code(err) != abi.CodeResourceLimit || !strings.Contains(err.Error(), boundKey) {
		t.Fatalf("400,000 element entries under 2 MiB: want resource_limit, got %v", err)
	}
	// 40,000 i64 globals: 2.6 MB at globalCost.
	globals := appendU32(nil, 40_000)
	for i := 0; i < 40_000; i++ {
		globals = append(globals, tI64, 0x00, 0x42, 0x00, 0x0b)
	}
	wasm = withSection(fp.build(), 6, globals)
	if _, err := e.Load(context.Background(), "globals", wasm, ""); code(err) != abi.CodeResourceLimit || !strings.Contains(err.Error(), boundKey) {
		t.Fatalf("40,000 globals under 2 MiB: want resource_limit, got %v", err)
	}
	// A twentieth of each loads and runs, beside the kernel's 1 MiB.
	small := withSection(fp.build(), 9, cat([]byte{1, 0x01, 0x00}, appendU32(nil, 20_000), bytes.Repeat([]byte{0}, 20_000)))
	small = withSection(small, 6, append(appendU32(nil, 2000), bytes.Repeat([]byte{tI64, 0x00, 0x42, 0x00, 0x0b}, 2000)...))
	p, err := e.Load(context.Background(), "small", small, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Retire(context.Background())
	if _, err := callTool(t, p, "x", `{}`); err != nil {
		t.Fatal(err)
	}
}

// The property, over wazero's spec-test modules: boundMemory either
// refuses a module (unsupported or over the budget) or returns one that
// still compiles, and that the fuel rewriter takes as it took the original.
func TestBoundMemorySpecModules(t *testing.T) {
	mods := spectestModules(t)
	if len(mods) == 0 {
		t.Skip("wazero's spec-test modules are not in the module cache")
	}
	valid, rewritten := 0, 0
	for _, m := range mods {
		m = withoutNames(m)
		if compiles(m) != nil {
			continue
		}
		valid++
		out, err := boundMemory(m, DefaultMemoryPages<<16)
		if err != nil {
			if !errors.Is(err, errUnsupported) && !errors.Is(err, errOverBudget) {
				t.Errorf("a valid module refused for another reason: %v", err)
			}
			continue
		}
		if err := compiles(out); err != nil {
			t.Fatalf("the bounded module does not compile: %v", err)
		}
		if !bytes.Equal(out, m) {
			rewritten++
		}
		if _, errA := instrument(m, fuelOptions{}); errA == nil {
			code, err := instrument(out, fuelOptions{})
			if err == nil {
				err = compiles(code)
			}
			if err != nil {
				t.Fatalf("the fuel rewriter took the module but not its bounded version: %v", err)
			}
		}
	}
	t.Logf("%d valid spec-test modules, %d rewritten", valid, rewritten)
}

// FuzzBoundMemory holds boundMemory to what Load needs of it: it never
// panics, and a module wazero compiles is refused with a reason or
// rewritten into one that compiles.
func FuzzBoundMemory(f *testing.F) {
	for _, m := range spectestModules(f) {
		f.Add(m)
	}
	for _, m := range boundModules() {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, wasm []byte) {
		out, err := boundMemory(wasm, smallPages<<16)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("refused without a reason")
			}
			return
		}
		// wazero allocates by declared counts before checking them: it
		// sees only what the fuel rewriter (which Load runs next, and
		// which checks every count) takes.
		if _, err := instrument(wasm, fuelOptions{}); err != nil {
			return
		}
		if _, err := instrument(out, fuelOptions{}); err != nil {
			t.Fatalf("the fuel rewriter took the module but not its bounded version: %v", err)
		}
		if compiles(withoutNames(wasm)) != nil {
			return // nothing is promised for an invalid module
		}
		if err := compiles(withoutNames(out)); err != nil {
			t.Fatalf("the bounded module does not compile: %v", err)
		}
	})
}
