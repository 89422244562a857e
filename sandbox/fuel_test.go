package sandbox

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

func TestInstrument(t *testing.T) {
	for _, dir := range []string{"examples/extract_links", "sandbox/testdata/misbehave", "sandbox/testdata/plainextism"} {
		wasm := build(t, dir)
		a, err := instrument(wasm, fuelOptions{})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		b, _ := instrument(wasm, fuelOptions{})
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: the rewrite must be deterministic (the compilation cache keys on it)", dir)
		}
		info, err := readModuleInfo(a)
		if err != nil {
			t.Fatal(err)
		}
		orig, _ := readModuleInfo(wasm)
		if len(info.Imports) != len(orig.Imports)+1 || info.Imports[len(info.Imports)-1] != (Import{tickImportModule, tickImportName}) {
			t.Fatalf("%s: imports %v", dir, info.Imports[len(info.Imports)-3:])
		}
		for name := range orig.Exports {
			if !info.Exports[name] {
				t.Fatalf("%s: lost export %s", dir, name)
			}
		}
	}
	// A module with no sections at all gets a type, an import and a
	// global section, and still compiles.
	empty, err := instrument([]byte("\x00asm\x01\x00\x00\x00"), fuelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := compiles(empty); err != nil {
		t.Fatalf("the instrumented empty module: %v", err)
	}
}

// Deadlines hold with loop fuel and with close-on-context-done for loops
// (the benchmark comparison) alike.
func TestDeadlineWithAndWithoutFuel(t *testing.T) {
	testenv.Long(t, "two loops run to their deadline")
	for _, noFuel := range []bool{false, true} {
		info, spinning := announced()
		p := load(t, engine(t, Config{Timeout: time.Second, NoLoopFuel: noFuel, HostFuncs: []HostFunc{info}}), "sandbox/testdata/misbehave")
		if err := p.Compile(); err != nil { // a cached manifest defers it to the first call, timed here
			t.Fatal(err)
		}
		t0 := time.Now()
		_, err := callTool(t, p, "loop", `{}`)
		// Stopped at the 1 s deadline; the bound only catches a loop the
		// deadline did not stop (ten times the deadline: a busy machine
		// makes the stop late, never ten times late).
		if code(err) != "timeout" || time.Since(t0) > 10*time.Second {
			t.Fatalf("noFuel=%v: %v after %v", noFuel, err, time.Since(t0))
		}
		ctx, cancel := context.WithCancel(context.Background())
		// Cancelled once the loop announces it is about to spin.
		go func() { <-spinning; cancel() }()
		in, ferr := abi.Frame(abi.CallHeader{Tool: "loop", Session: "s1"}, []byte(`{"announce":true}`))
		if ferr != nil {
			t.Fatal(ferr)
		}
		_, err = p.Call(ctx, 2, in)
		if code(err) != "timeout" || !strings.Contains(err.Error(), "cancelled") {
			t.Fatalf("noFuel=%v: cancel: %v", noFuel, err)
		}
	}
}

// wazero allocates by declared counts before checking them; a module
// declaring 2^32-1 data segments, memories, tables or locals in a few bytes
// made it ask for hundreds of GB, a fatal error for the host. The rewriter
// runs first in Load and refuses each, allocating next to nothing.
func TestInstrumentRefusesHugeCounts(t *testing.T) {
	locals := &wmod{memMin: 1}
	f := locals.fn(nil, nil)
	locals.local(f, 0x7fffffff, tI32)
	cases := map[string][]byte{
		"locals":   locals.bytes(),
		"memories": []byte("\x00asm\x01\x00\x00\x00\x05\x05\xff\xff\xff\xff\x0f"),
		"data":     []byte("\x00asm\x01\x00\x00\x00\x0b\x05\xff\xff\xff\xff\x0f"),
		"tables":   []byte("\x00asm\x01\x00\x00\x00\x04\x05\xff\xff\xff\xff\x0f"),
		"segment":  []byte("\x00asm\x01\x00\x00\x00\x05\x03\x01\x00\x01\x0b\x09\x01\x01\xff\xff\xff\xff\x0f\x00\x00"),
	}
	for name, wasm := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := instrument(wasm, fuelOptions{})
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%s: refusing it allocated %d bytes", name, n)
		}
	}
}
