package sandbox

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// Hostile modules: each class of plugin that tried to outlive its deadline,
// freeze the host or read outside its memory. They are hand-built with the
// encoder in wasmenc_test.go and kept in testdata/hostile/ (regenerate with
// go test ./sandbox -run TestHostileModulesCurrent -update); the fuzz test
// seeds from them too.

var update = flag.Bool("update", false, "rewrite testdata/hostile from the encoder")

// hostileModules builds every hostile module, by name.
func hostileModules() map[string][]byte {
	ms := map[string][]byte{}
	spin := func(name string, withImports bool, memMin uint32, body ...[]byte) *fastPlugin {
		fp := newFastPlugin(withImports)
		fp.m.memMin = max(memMin, 1)
		fp.m.setCode(fp.work, loopForever(body...))
		ms[name] = fp.build()
		return fp
	}
	// A loop, in a module with no import section.
	spin("loop", false, 1)
	// A loop over SIMD instructions.
	spin("simd", false, 1, opV128Const0, opV128Const0, opI8x16Add, opDrop)
	// One memory.fill / memory.copy of 120 MiB per iteration.
	spin("memfill", false, 1921, i32c(0), i32c(0), i32c(120<<20), opMemFill)
	spin("memcopy", false, 1921, i32c(0), i32c(1), i32c(120<<20), opMemCopy)

	// WASI calls whose host-side work grows with their arguments, in a
	// loop: fuel counts the loop, not the 120 MiB each call asks for.
	for _, w := range []struct {
		name, fn string
		args     [][]byte
	}{
		{"random", "random_get", [][]byte{i32c(0), i32c(120 << 20)}},
		{"fdwrite", "fd_write", [][]byte{i32c(2), i32c(0), i32c(1), i32c(8)}}, // iovec at 0: {16, 120 MiB}
		// 2^20 clock subscriptions with timeout 0 (zeroed memory): no sleep.
		{"pollmany", "poll_oneoff", [][]byte{i32c(0), i32c(48 << 20), i32c(1 << 20), i32c(100 << 20)}},
	} {
		params := []byte{tI32, tI32}
		if w.fn != "random_get" {
			params = []byte{tI32, tI32, tI32, tI32}
		}
		var f uint32
		fp := newFastPluginImporting(false, func(m *wmod) { f = m.importFunc("wasi_snapshot_preview1", w.fn, params, []byte{tI32}) })
		fp.m.memMin = 1921
		fp.m.setCode(fp.work, loopForever(cat(w.args...), call(f), opDrop))
		if w.fn == "fd_write" {
			fp.m.dataAt(0, []byte{16, 0, 0, 0, 0, 0, 0x80, 0x07})
		}
		ms[w.name] = fp.build()
	}

	// Call-only work, no loop anywhere: unbounded self-recursion, and a
	// tree of 2^64 calls (tree(d) calls tree(d-1) twice).
	fp := newFastPlugin(false)
	fp.m.setCode(fp.work, call(fp.work))
	ms["recursion"] = fp.build()
	fp = newFastPlugin(false)
	tree := fp.m.fn([]byte{tI32}, nil)
	fp.m.setCode(tree, localGet(0), []byte{0x04, 0x40}, // if
		localGet(0), i32c(1), opI32Sub, call(tree),
		localGet(0), i32c(1), opI32Sub, call(tree),
		[]byte{0x0b})
	fp.m.setCode(fp.work, i32c(64), call(tree))
	ms["calltree"] = fp.build()

	// A start function that never returns: instantiation itself spins.
	fp = newFastPlugin(false)
	fp.m.setCode(fp.work, loopForever())
	fp.m.start = int(fp.work) + 1
	ms["start"] = fp.build()

	// Hostile pointers and lengths on each host function and the fast
	// path's output.
	fp = newFastPlugin(true) // for the imports' indices
	ptr := func(name string, result []byte, work ...[]byte) {
		fp := newFastPlugin(true)
		fp.m.setCode(fp.work, work...)
		if result != nil {
			fp.result = result
		}
		ms[name] = fp.build()
	}
	ptr("log_wraps", nil, i32c(0), i32c(-16), i32c(32), call(fp.log))
	ptr("log_len_max", nil, i32c(0), i32c(0), i32c(-1), call(fp.log))
	ptr("info_outside", nil, i32c(65530), i32c(100), call(fp.hostInfo), opDrop)
	ptr("info_wraps", nil, i32c(-1), i32c(2), call(fp.hostInfo), opDrop)
	// A request of 0xffffffff bytes is refused without reading; the
	// plugin returns the coded error it got as its own output.
	fp = newFastPlugin(true)
	fp.m.setCode(fp.work, i32c(512), i32c(0), i32c(-1), call(fp.hostInfo), []byte{0x37, 0x03, 0x00}) // i64.store
	fp.result = cat(i32c(4096), call(fp.take),
		i64c(4096<<32|1<<31), i32c(512), []byte{0x29, 0x03, 0x00}, // i64.load
		i64c(0xffffffff), []byte{0x83, 0x84}) // i64.and; i64.or
	ms["info_len_max"] = fp.build()
	ptr("take_outside", nil, i32c(0), i32c(0), call(fp.hostInfo), opDrop, i32c(-1), call(fp.take))
	ptr("take_straddles", nil, i32c(0), i32c(0), call(fp.hostInfo), opDrop, i32c(65535), call(fp.take))
	// take overlapping the request it answers: allowed, the response is a copy.
	ptr("take_overlaps", nil, i32c(0), i32c(2), call(fp.hostInfo), opDrop, i32c(1), call(fp.take))
	ptr("out_outside", packOut(0xfffffff0, 100, 0))
	ptr("out_wraps", packOut(0xffffffff, 2, 0))
	ptr("out_len_max", packOut(0, 0x7fffffff, 0))
	fp = newFastPlugin(false)
	fp.m.setCode(fp.alloc, i32c(-16))
	ms["alloc_outside"] = fp.build()
	// A module may not import ww_tick itself.
	m := &wmod{memMin: 1}
	m.export("describe", 0, m.importFunc(tickImportModule, tickImportName, nil, []byte{tI32}))
	ms["imports_tick"] = m.bytes()
	return ms
}

func TestHostileModulesCurrent(t *testing.T) {
	dir := filepath.Join("testdata", "hostile")
	ms := hostileModules()
	if *update {
		os.MkdirAll(dir, 0o755)
		for name, b := range ms {
			if err := os.WriteFile(filepath.Join(dir, name+".wasm"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, b := range ms {
		got, err := os.ReadFile(filepath.Join(dir, name+".wasm"))
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("testdata/hostile/%s.wasm is missing or stale: run go test ./sandbox -run TestHostileModulesCurrent -update", name)
		}
	}
}

// hostileEngine serves hostile modules beside a well-behaved plugin.
type hostileEngine struct {
	e      *Engine
	good   *Plugin
	loaded []*Plugin
}

// hostileDeadline is long enough that underAttack's checks (a GC, an echo
// call) complete several times over before it on a busy machine, and
// hostileGCBound is under it, so a GC the attack blocks from the first
// check to its deadline still fails the check. (A GC waits for the
// attack's current non-preemptible step, a 120 MiB memory.copy say: a few
// ms on a quiet machine, seconds on a saturated one.)
const (
	hostileDeadline = 6 * time.Second
	hostileGCBound  = 5 * time.Second
)

func newHostileEngine(t *testing.T, cfg Config) *hostileEngine {
	if cfg.Timeout == 0 {
		cfg.Timeout = hostileDeadline
	}
	e := engine(t, cfg)
	return &hostileEngine{e: e, good: load(t, e, "sandbox/testdata/misbehave")}
}

func (h *hostileEngine) load(t *testing.T, name string) *Plugin {
	t.Helper()
	p, err := h.e.Load(context.Background(), name, hostileModules()[name], "")
	if err == nil {
		err = p.Compile() // not under the attack: a cached manifest defers it to the first call
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() { p.Retire(context.Background()) })
	return p
}

// underAttack runs attack while checking, every 100 ms until it returns,
// that a GC completes within hostileGCBound and that the well-behaved
// plugin answers; it fails the test if attack does not return within the
// deadline plus 10 s (a hang-catcher), or if it ran to its deadline with
// no check served, and returns attack's error.
func (h *hostileEngine) underAttack(t *testing.T, attack func() error) error {
	t.Helper()
	done := make(chan error, 1)
	t0 := time.Now()
	go func() { done <- attack() }()
	pace := time.NewTicker(100 * time.Millisecond)
	defer pace.Stop()
	served := 0
	// A hang-catcher: a call stopped at its deadline answers timeout
	// (each test checks the code); the minute on top is for a machine at
	// load 50, where making the instance alone passed 10 s.
	limit := time.After(h.e.cfg.Timeout + time.Minute)
	for {
		select {
		case err := <-done:
			// An attack that ends early (recursion may crash at once) can
			// end before the first check; one that ran to its deadline
			// cannot have starved every check.
			if served == 0 && time.Since(t0) >= h.e.cfg.Timeout {
				t.Fatal("no call was served while the attack ran")
			}
			t.Logf("stopped after %v; %d checks served meanwhile", time.Since(t0).Round(time.Millisecond), served)
			return err
		case <-limit:
			t.Fatalf("the attack was not stopped within deadline %v + 1 min", h.e.cfg.Timeout)
		case <-pace.C:
			gc := make(chan struct{})
			go func() { runtime.GC(); close(gc) }()
			select {
			case <-gc:
			case <-time.After(hostileGCBound):
				t.Fatalf("runtime.GC did not complete within %v while the attack ran (%v in)", hostileGCBound, time.Since(t0))
			}
			if _, err := callTool(t, h.good, "echo", `{"alive":true}`); err != nil {
				t.Fatalf("a well-behaved plugin was not served during the attack: %v", err)
			}
			served++
		}
	}
}

func (h *hostileEngine) stillServes(t *testing.T) {
	t.Helper()
	if out, err := callTool(t, h.good, "echo", `{"after":1}`); err != nil || !strings.Contains(string(out), `"after":1`) {
		t.Fatalf("the host stopped serving: %s %v", out, err)
	}
}

// Each class of runaway plugin is stopped at its deadline with timeout, and
// while it runs, GC completes and other calls are served.
func TestHostileRunaways(t *testing.T) {
	testenv.Long(t, "nine runaway plugins, each run to its 6 s deadline")
	h := newHostileEngine(t, Config{})
	for _, name := range []string{"loop", "simd", "recursion", "calltree", "memfill", "memcopy", "random", "fdwrite", "pollmany"} {
		t.Run(name, func(t *testing.T) {
			p := h.load(t, name)
			err := h.underAttack(t, func() error { _, err := callTool(t, p, "x", `{}`); return err })
			// Unbounded recursion may instead exhaust wazero's stack
			// first: a crash, as long as it is prompt and coded.
			if c := code(err); c != abi.CodeTimeout && !(name == "recursion" && c == abi.CodePluginFailed) {
				t.Fatalf("want timeout, got %v", err)
			}
			h.stillServes(t)
		})
	}
}

// A start function runs at instantiation, under the same deadline.
func TestHostileStartFunction(t *testing.T) {
	testenv.Long(t, "a start function run to its deadline")
	h := newHostileEngine(t, Config{})
	err := h.underAttack(t, func() error {
		p, err := h.e.Load(context.Background(), "start", hostileModules()["start"], "")
		if err == nil {
			p.Retire(context.Background())
		}
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("want a load refused at the deadline, got %v", err)
	}
	h.stillServes(t)
}

// Go's time.Sleep inside a plugin (WASI poll_oneoff) ends at the deadline,
// and at once on cancellation, with timeout, not success.
func TestHostileSleep(t *testing.T) {
	testenv.Long(t, "a plugin sleep run to its deadline")
	started := make(chan struct{}, 1)
	h := newHostileEngine(t, Config{HostFuncs: []HostFunc{{Name: abi.HostInfo, Fn: func(context.Context, string, []byte) ([]byte, error) {
		select {
		case started <- struct{}{}:
		default:
		}
		return []byte(`{}`), nil
	}}}})
	err := h.underAttack(t, func() error { _, err := callTool(t, h.good, "nap", `{"ms":30000}`); return err })
	if code(err) != abi.CodeTimeout {
		t.Fatalf("a 30 s sleep under a %v deadline: want timeout, got %v", hostileDeadline, err)
	}
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := h.good.Call(ctx, abi.OpCall, frameArgs(t, "nap", `{"ms":30000}`)); done <- err }()
	<-started
	t0 := time.Now()
	cancel()
	select {
	case err := <-done:
		if code(err) != abi.CodeTimeout || !strings.Contains(err.Error(), "cancelled") {
			t.Fatalf("cancelled sleep: %v", err)
		}
		// At once: well under the 30 s sleep and the deadline (10 s of
		// slack for a busy machine, against a few ms on a quiet one).
		if d := time.Since(t0); d > 10*time.Second {
			t.Fatalf("cancellation took %v", d)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("cancellation did not end the sleep")
	}
	h.stillServes(t)
}

func frameArgs(t testing.TB, tool, args string) []byte {
	in, err := abi.Frame(abi.CallHeader{Tool: tool, Session: "s1"}, []byte(args))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// A result over MaxOutput is refused with resource_limit naming the
// setting, on the fast path and on the Extism path alike.
func TestHostileHugeOutput(t *testing.T) {
	for _, extism := range []bool{false, true} {
		e := engine(t, Config{MaxOutput: 1 << 20, MaxOutputKey: "host.max_output_mb", ExtismABIOnly: extism})
		p := load(t, e, "sandbox/testdata/misbehave")
		_, err := callTool(t, p, "big", `{"n":2000000}`)
		if code(err) != abi.CodeResourceLimit || !strings.Contains(err.Error(), "host.max_output_mb") {
			t.Fatalf("extism=%v: want resource_limit naming host.max_output_mb, got %v", extism, err)
		}
		if out, err := callTool(t, p, "big", `{"n":1000}`); err != nil || len(out) != 1011 {
			t.Fatalf("extism=%v: a small result after a refused one: %d bytes, %v", extism, len(out), err)
		}
	}
	// The default cap holds a 100 MB result back too.
	p := load(t, engine(t, Config{}), "sandbox/testdata/misbehave")
	if _, err := callTool(t, p, "big", `{"n":100000000}`); code(err) != abi.CodeResourceLimit {
		t.Fatalf("100 MB result: want resource_limit, got %v", err)
	}
}

// Hostile pointers and lengths: each gets a coded error, never a host panic
// or a read outside the plugin's memory, and the host keeps serving.
func TestHostilePointers(t *testing.T) {
	h := newHostileEngine(t, Config{})
	want := map[string]abi.Code{
		"log_wraps":      abi.CodePluginFailed,
		"log_len_max":    abi.CodePluginFailed,
		"info_outside":   abi.CodePluginFailed,
		"info_wraps":     abi.CodePluginFailed,
		"info_len_max":   abi.CodeResourceLimit,
		"take_outside":   abi.CodePluginFailed,
		"take_straddles": abi.CodePluginFailed,
		"take_overlaps":  "",
		"out_outside":    abi.CodePluginFailed,
		"out_wraps":      abi.CodePluginFailed,
		"out_len_max":    abi.CodeResourceLimit,
		"alloc_outside":  abi.CodeResourceLimit,
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			p := h.load(t, name)
			for i := 0; i < 2; i++ { // a fresh instance after a discarded one
				_, err := callTool(t, p, "x", `{}`)
				if code(err) != want[name] {
					t.Fatalf("want %q, got %v", want[name], err)
				}
				if err != nil && !strings.Contains(err.Error(), "plugin "+name) {
					t.Fatalf("the error must name the plugin: %v", err)
				}
			}
			h.stillServes(t)
		})
	}
	_, err := h.e.Load(context.Background(), "imports_tick", hostileModules()["imports_tick"], "")
	if code(err) != abi.CodeRefused {
		t.Fatalf("a module importing ww_tick: want refused, got %v", err)
	}
}

// What the rewriter cannot instrument is refused at load, with the reason:
// nothing else would bound it.
func TestLoadRefusesWhatFuelCannotBound(t *testing.T) {
	e := engine(t, Config{})
	fp := newFastPlugin(false)
	fp.m.setCode(fp.work, loopForever([]byte{0xfe, 0x03, 0x00})) // atomic.fence
	_, err := e.Load(context.Background(), "atomics", fp.build(), "")
	if code(err) != abi.CodeRefused || !strings.Contains(err.Error(), "cannot be run under a deadline") || !strings.Contains(err.Error(), "atomics") {
		t.Fatalf("want refused naming atomics, got %v", err)
	}
}
